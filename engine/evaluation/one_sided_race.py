"""Race evaluation from one-sided distributions (the race phase of an evaluator).

In a race (no contact, ``tdgammon.engine.rules.board.has_contact``) each side
races alone. For each side three distributions of the number of rolls it
still needs (``tdgammon.models.race_distributions``: all checkers off, a first
checker off, no checker left in the opponent's home board) give the
cubeless probabilities of the race, the way the bear-off database does for
pure bear-offs (``tdgammon.engine.evaluation.bearoff.evaluate_bearoff``):

With ``A`` / ``G`` / ``E`` the mover's and ``a`` / ``g`` / ``e`` the
opponent's distributions and the mover rolling first (he wins when his
number of rolls is at most the opponent's), ``P(X >= k)`` written ``X>=k``::

    win = sum_k A[k] (a >= k)
    wg  = sum_k A[k] (g >= k)       if the opponent has borne off none
    wbg = sum_k A[k] (e >= k)       if besides he has checkers in the mover's home board
    lg  = sum_k a[k] (G >= k + 1)   if the mover has borne off none
    lbg = sum_k a[k] (E >= k + 1)   if besides he has checkers in the opponent's home

(docs/rules.md 4: a gammon when the loser has borne off none, a backgammon
when he also has a checker on the bar or in the winner's home board; the
opponent's k-th roll comes after the mover's k-th.) Each distribution is
computed under its own policy, independently of the other side: the
standard one-sided approximation.

Where the distributions come from: a side with every checker in its home
board takes the exact one-sided database (its ``bearoff`` and ``gammon``
rows; escape takes no roll); a side that has borne off a checker needs no
roll for ``FIRST_OFF``, one with no checker on points 19..24 none for
``ESCAPE``; everything else comes from the network, computed in float64 in blocks of a
fixed number of rows and rounded to float32 once at the end, so a position's
value does not depend on the batch it is in (rollouts rely on that).

``one_step_targets`` is the training target of those distributions: one
roll of look-ahead over the 21 rolls with each head's own policy, the
successors valued as above (``tdgammon.train.race_distributions``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from tdgammon.engine.evaluation.bearoff import (
    MAX_ROLLS,
    choose_smallest,
    get_database,
    position_index,
)
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    MOVER_OFF,
    OPPONENT_OFF,
    flip,
)
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.outputs import (
    LOSE_BACKGAMMON,
    LOSE_GAMMON,
    N_OUTPUTS,
    WIN,
    WIN_BACKGAMMON,
    WIN_GAMMON,
)
from tdgammon.engine.rules.variants import get_variant
from tdgammon.models.race_distributions import (
    ALL_OFF,
    ESCAPE,
    FIRST_OFF,
    HEADS,
    HOME,
    POINTS,
    RACE_ROLLS,
    ZONE_START,
    RaceDistributionNet,
    encode_side,
    load_race_net,
)

CHUNK = 16384
"""Sides encoded at a time."""
BLOCK_ROWS = 512
"""Rows of every network call of the evaluator (module docstring: batch invariance)."""
_ROLLS = np.arange(RACE_ROLLS, dtype=np.float64)


def side_counts(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mover, opponent) checkers on points 1..24, ``(B, 24) int64`` each, each side in
    its own numbering. boards: ``(B, 30)`` side-to-move view."""
    b = np.asarray(boards)
    mover = np.clip(b[:, 1 : POINTS + 1].astype(np.int64), 0, None)
    opponent = np.clip(flip(b)[:, 1 : POINTS + 1].astype(np.int64), 0, None)
    return mover, opponent


def at_least(distributions: np.ndarray) -> np.ndarray:
    """``P(X >= k)`` for k = 0 .. n - 1 of distributions ``(..., n)``, same shape."""
    cdf = np.cumsum(distributions, axis=-1)
    out = np.ones_like(distributions)
    out[..., 1:] = 1.0 - cdf[..., :-1]
    return np.clip(out, 0.0, 1.0)


def race_outcome(mover: np.ndarray, opponent: np.ndarray, mover_counts, opponent_counts):
    """``(B, 5) float64`` cubeless probabilities of the mover (module docstring).

    mover, opponent: ``(B, HEADS, RACE_ROLLS)`` distributions; the counts
    ``(B, 24)`` say who has borne off none and who is still in the other's home.
    """
    zone = slice(ZONE_START - 1, POINTS)
    m_none_off = mover_counts.sum(axis=1) == CHECKERS_PER_SIDE
    o_none_off = opponent_counts.sum(axis=1) == CHECKERS_PER_SIDE
    m_back = m_none_off & (mover_counts[:, zone].sum(axis=1) > 0)
    o_back = o_none_off & (opponent_counts[:, zone].sum(axis=1) > 0)
    a_m = mover[:, ALL_OFF]
    a_o = opponent[:, ALL_OFF]
    out = np.zeros((len(a_m), N_OUTPUTS))
    out[:, WIN] = (a_m * at_least(a_o)).sum(axis=1)
    # each gammon term only on the rows where it can happen (zero elsewhere)
    for column, rows, rolls, other, later in (
        (WIN_GAMMON, o_none_off, a_m, opponent[:, FIRST_OFF], False),
        (WIN_BACKGAMMON, o_back, a_m, opponent[:, ESCAPE], False),
        (LOSE_GAMMON, m_none_off, a_o, mover[:, FIRST_OFF], True),
        (LOSE_BACKGAMMON, m_back, a_o, mover[:, ESCAPE], True),
    ):
        if rows.any():
            tail = at_least(other[rows])
            if later:  # P(X >= k + 1)
                tail = np.concatenate([tail[:, 1:], np.zeros((len(tail), 1))], axis=1)
            out[rows, column] = (rolls[rows] * tail).sum(axis=1)
    # each head has its own policy: keep the five outputs consistent
    np.clip(out, 0.0, 1.0, out=out)
    out[:, WIN_GAMMON] = np.minimum(out[:, WIN_GAMMON], out[:, WIN])
    out[:, WIN_BACKGAMMON] = np.minimum(out[:, WIN_BACKGAMMON], out[:, WIN_GAMMON])
    out[:, LOSE_GAMMON] = np.minimum(out[:, LOSE_GAMMON], 1.0 - out[:, WIN])
    out[:, LOSE_BACKGAMMON] = np.minimum(out[:, LOSE_BACKGAMMON], out[:, LOSE_GAMMON])
    return out


def side_distributions(counts: np.ndarray, network, dtype=np.float64) -> np.ndarray:
    """``(B, 24)`` checker counts of sides -> ``(B, HEADS, RACE_ROLLS)`` distributions:
    the database for sides all home, no roll for a head already done (a checker
    off, none left on points 19..24), ``network(encode_side(rows))`` (probabilities
    ``(n, HEADS, RACE_ROLLS)``) for the rest, in chunks of ``CHUNK`` rows."""
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros((len(counts), HEADS, RACE_ROLLS), dtype=dtype)
    home = counts[:, HOME:].sum(axis=1) == 0
    if home.any():
        database = get_database()
        rank = position_index(counts[home, :HOME])
        out[home, ALL_OFF, :MAX_ROLLS] = database.bearoff[rank]
        out[home, FIRST_OFF, :MAX_ROLLS] = database.gammon[rank]
    rest = np.flatnonzero(~home)
    for start in range(0, len(rest), CHUNK):
        rows = rest[start : start + CHUNK]
        out[rows] = network(encode_side(counts[rows]))
    some_off = counts.sum(axis=1) < CHECKERS_PER_SIDE
    escaped = counts[:, ZONE_START - 1 :].sum(axis=1) == 0
    for rows, head in ((some_off, FIRST_OFF), (escaped, ESCAPE)):
        out[rows, head] = 0.0
        out[rows, head, 0] = 1.0
    return out


class OneSidedRaceEvaluator:
    """Races from one-sided distributions (module docstring): the ``race`` phase of a
    ``NetworkEvaluator``, or an evaluator of race positions on its own.

    network: a ``RaceDistributionNet``; its float64 copy is what evaluates.
    """

    def __init__(self, network: RaceDistributionNet, name: str = "race") -> None:
        self.network = network
        self.name = name
        self.variant = get_variant("standard")
        self._double = RaceDistributionNet(network.hidden).to(torch.float64)
        self._double.load_state_dict(self.network.state_dict())
        self._double.eval()

    def distributions(self, counts: np.ndarray) -> np.ndarray:
        """``(B, 24)`` checker counts of sides -> ``(B, HEADS, RACE_ROLLS) float64``."""
        return side_distributions(counts, self._network_distributions)

    def _network_distributions(self, inputs: np.ndarray) -> np.ndarray:
        """The network's distributions in float64, row by row the same whatever the
        batch: every call of the network has ``BLOCK_ROWS`` rows (the last block
        padded), because a matrix product picks its kernel, and so its order of
        summation, by the number of rows."""
        out = np.empty((len(inputs), HEADS, RACE_ROLLS))
        block = np.zeros((BLOCK_ROWS, inputs.shape[1]))
        with torch.inference_mode():
            for start in range(0, len(inputs), BLOCK_ROWS):
                part = inputs[start : start + BLOCK_ROWS]
                block[: len(part)] = part
                block[len(part) :] = 0.0
                values = self._double(torch.from_numpy(block)).exp().numpy()
                out[start : start + len(part)] = values[: len(part)]
        return out

    def raw_probabilities(self, boards: np.ndarray) -> np.ndarray:
        """``(B, 30)`` race boards (no contact, game not over), side-to-move view ->
        ``(B, 5) float32`` cubeless probabilities of the player on roll."""
        boards = np.asarray(boards)
        if len(boards) == 0:
            return np.zeros((0, N_OUTPUTS), dtype=np.float32)
        mover, opponent = side_counts(boards)
        both = self.distributions(np.concatenate([mover, opponent]))
        out = race_outcome(both[: len(boards)], both[len(boards) :], mover, opponent)
        return out.astype(np.float32)

    evaluate = raw_probabilities


def load_race_evaluator(path: str | Path, name: str | None = None) -> OneSidedRaceEvaluator:
    """An evaluator from a race-distribution model file (ModelFileError if bad)."""
    network, _card = load_race_net(path)
    return OneSidedRaceEvaluator(network, name or Path(path).stem)


# ------------------------------------------------------------------ training targets


def side_boards(counts: np.ndarray) -> np.ndarray:
    """``(N, 30) int8`` boards with one side's checkers (``counts (N, 24)``) on the
    mover's points and the opponent's 15 checkers borne off (out of the way)."""
    boards = np.zeros((len(counts), BOARD_SIZE), dtype=BOARD_DTYPE)
    boards[:, 1 : POINTS + 1] = counts
    boards[:, MOVER_OFF] = CHECKERS_PER_SIDE - np.asarray(counts).sum(axis=1)
    boards[:, OPPONENT_OFF] = -CHECKERS_PER_SIDE
    return boards


def one_step_targets(counts: np.ndarray, distributions) -> np.ndarray:
    """One roll of look-ahead: ``(N, HEADS, RACE_ROLLS) float64`` for sides ``counts (N, 24)``.

    For every roll and head, the legal play whose result has the smallest
    expected number of further rolls for that head (ties: the generator's
    first), its distribution moved one roll later, averaged over the 21 rolls
    with their weights. ``distributions``: sides ``(M, 24)`` -> ``(M, HEADS,
    RACE_ROLLS)``, e.g. ``side_distributions`` with a network. Mass pushed past
    the last bin stays in it. Sides are taken ``TARGET_CHUNK`` at a time.
    """
    counts = np.asarray(counts, dtype=np.int64)
    out = np.zeros((len(counts), HEADS, RACE_ROLLS))
    for start in range(0, len(counts), TARGET_CHUNK):
        out[start : start + TARGET_CHUNK] = _one_step(
            counts[start : start + TARGET_CHUNK], distributions
        )
    return out


TARGET_CHUNK = 256
"""Sides per move-generator call in ``one_step_targets`` (bounds memory)."""


def _one_step(counts: np.ndarray, distributions) -> np.ndarray:
    n_rolls = len(ALL_ROLLS)
    boards = np.repeat(side_boards(counts), n_rolls, axis=0)
    plays = generate_moves(boards, np.tile(ALL_ROLLS, (len(counts), 1)))
    children = plays.boards[:, 1 : POINTS + 1].astype(np.int64)
    means = distributions(children) @ _ROLLS  # (M, HEADS)
    rows = np.arange(len(plays.parents))
    weights = np.tile(ROLL_WEIGHTS / ROLL_WEIGHTS.sum(), len(counts))
    chosen = np.stack(
        [choose_smallest(plays.parents, means[:, head], rows, len(boards)) for head in range(HEADS)]
    )
    picked = distributions(children[chosen.reshape(-1)]).reshape(HEADS, len(boards), HEADS, -1)
    out = np.zeros((len(counts), HEADS, RACE_ROLLS))
    for head in range(HEADS):
        dist = picked[head, :, head]
        later = np.zeros((len(boards), RACE_ROLLS))
        later[:, 1:] = dist[:, :-1]
        later[:, -1] += dist[:, -1]
        out[:, head] = (later * weights[:, None]).reshape(len(counts), n_rolls, -1).sum(axis=1)
    return out
