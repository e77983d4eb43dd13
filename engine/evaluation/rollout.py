"""Cubeless rollouts: play a position out many times and average the results.

What a rollout estimates
------------------------
A *trial* plays one game from the root position to its end (or to the
truncation point) with dice of its own; both players choose their plays with
the same ``Search`` at ``plies`` (0-ply: the network or the exact bear-off
database, n-ply: expectimax with move filters). The trial's result is the
root player's cubeless outcome, ``(5,)`` cumulative probabilities in GNU
Backgammon's order (a finished game gives 0/1 values; a truncated trial the
evaluation at the truncation point). The rollout's estimate is the mean over
trials, with its standard error and 95% confidence interval (``1.96`` standard
errors, trials treated as independent).

Two kinds of root (perspectives as in docs/architecture.md, "Array conventions"):

- a position **before rolling** (``rollout_position``): the root player is the
  player on roll; the first roll of every trial is his;
- every candidate **play of a given roll** (``rollout_plays``): candidate ``c``
  is rolled out from the position after it, opponent on roll
  (``flip(after)``), and its result is turned back to the mover's view. All
  candidates use the same dice in trial ``t`` (common random numbers), so the
  differences between plays are much steadier than the plays themselves.

The opening (``opening=True``): the first roll is the opening roll
(docs/rules.md 1: "The higher number moves first and plays the two numbers
just rolled ... Equal numbers: both roll again"): one of the 30 ordered pairs
(root player's die, opponent's die) with different numbers, each 1/30; when
the opponent's die is higher he moves first, from the same board seen from
his side. From a symmetric start the cubeless equity is then exactly 0.

Dice: reproducible by trial, whatever the batching
--------------------------------------------------
Trial ``t``'s dice depend only on ``(seed, t)``: the roll of ply ``k`` is a
counter-based hash (SplitMix64's output function applied to a 64-bit key from
``numpy.random.SeedSequence(seed)`` and the counter ``(t, k)``), never a
shared stream. So ``rollout_trials`` can roll out any range of trial indices,
in any batch size, in any process, and ``combine_trials`` of the pieces equals
the rollout in one piece (``tests/test_rollout.py`` checks it). The evaluation
is made batch-invariant as well (``batch_invariant_evaluator``): a network's
value of a board does not depend on the other boards of its batch.

Quasi-random dice (``quasi_random=True``): the first two rolls of trial ``t``
are stratified over the 36 x 36 ordered pairs, rotated across trials: with
``q = (t + offset) mod 1296``, ``a = q mod 36``, ``b = q div 36``, the first
roll is ordered roll ``P1[a]`` and the second ``P2[(a + b) mod 36]``, where
the offset and the permutations ``P1``, ``P2`` of the 36 ordered rolls come
from the seed. Any 36 consecutive trials see every first roll once, any 1,296
every pair once, and a shorter run is a scrambled band of pairs rather than
pairs of similar rolls. Over seeds every trial's pair is uniform, so the
estimate stays unbiased (randomised quasi-Monte Carlo). With the opening roll
the first roll is one of 30 pairs, so the period is ``30 x 36 = 1080``. Later
rolls are pseudo-random.

Variance reduction (``variance_reduction=True``)
------------------------------------------------
Luck adjustment, as GNU Backgammon does it: at every roll of a trial the
player on roll's best play is found for all 21 rolls at the rollout's depth;
the roll's *luck* is the value of the play made with the roll actually
rolled minus the mean (``ROLL_WEIGHTS``) over the 21 rolls, both in the root
player's view, and the trial's result minus the sum of its lucks is
reported. Each luck has mean zero given the position, so the mean is
unbiased, while the luck the evaluator can see is taken out of the variance.
Finished games and bear-off positions are valued exactly (``Search.static``).
The same table of 21 rolls gives the play made, so the adjustment costs one
evaluation of every play of every roll per ply (one batched move generation
and network pass per ply and chunk of boards, identical boards of different
trials evaluated once). The unadjusted results (``TrialResults.outcomes``) are
the plain rollout of the same trials (the plays do not depend on the option).

Truncation (``truncate=N``): a trial stops after N plies and takes the value of
the last play at the rollout's depth (the network, or the exact bear-off
database, at the truncation point). ``bearoff_truncate=True`` stops a trial
as soon as it reaches a pure bear-off position and takes the database's value
(the database is one-sided, so this is exact only up to its policy; off by
default).

Variants: the ``Search``'s variant rules everything (moves, the end of the
game, scoring); Acey-Deucey's extra roll keeps the same player on roll.

API
---
- ``RolloutSettings``: seed, plies, truncate, variance_reduction,
  quasi_random, opening, bearoff_truncate.
- ``rollout_trials(search, roots (P, 30), trials, settings) -> TrialResults``:
  the unit of work (a worker process can run any range of trial indices);
  per trial ``probabilities (P, T, 5)`` (adjusted), ``outcomes (P, T, 5)``
  (unadjusted), ``plies (P, T)``. ``combine_trials(parts)`` joins pieces,
  ``estimate(results)`` gives a ``RolloutEstimate`` per root (means, standard
  errors, equity, 95% CI).
- ``iter_rollout`` (batches of trials, for progress and Ctrl-C),
  ``rollout_position`` (one position before rolling), ``rollout_plays`` (the
  plays of a roll: ``candidate_plays``, ``play_roots``, ``to_mover_view``).
- ``trial_dice(seed, trials, ply)``: the dice of any trial and ply.
- ``TrialState``: the ply-by-ply driver, shared with the cubeful rollouts
  (``tdgammon.engine.cube.rollout``).

This module imports numpy only; ``batch_invariant_evaluator`` imports torch
inside, for network evaluators.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.evaluation.search import PlayAnalysis, Search, check_plies
from tdgammon.engine.movegen.vectorized import best_rows, generate_moves
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    FLIP_INDEX,
    MOVER_HAND,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OUTSIDE_HOME,
    OUTSIDE_HOME,
    flip,
    has_contact,
)
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS, check_dice
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outcome import (
    MOVER_WINS,
    OPPONENT_WINS,
    is_game_over,
    terminal_probs,
    variant_equity,
    winner,
)
from tdgammon.engine.rules.outputs import N_OUTPUTS, invert

__all__ = [
    "CI95",
    "DEFAULT_SETTINGS",
    "DICE_PAIRS",
    "OPENING_PAIRS",
    "PlayRollout",
    "PlyResult",
    "RolloutEstimate",
    "RolloutSettings",
    "TrialResults",
    "TrialState",
    "batch_invariant_evaluator",
    "candidate_plays",
    "combine_trials",
    "estimate",
    "iter_rollout",
    "rollout_plays",
    "rollout_position",
    "rollout_search",
    "rollout_trials",
    "trial_dice",
]

CI95 = 1.959963984540054
"""Half-width of a 95% confidence interval in standard errors."""

DICE_PAIRS = 36 * 36
"""Ordered pairs of the first two rolls: the period of the quasi-random dice."""

OPENING_PAIRS = np.array(
    [(a, b) for a in range(1, 7) for b in range(1, 7) if a != b], dtype=np.int8
)
"""``(30, 2) int8``: the opening roll's outcomes, (root player's die, opponent's die)."""

N_ROLLS = len(ALL_ROLLS)
ROLL_INDEX = np.zeros((7, 7), dtype=np.intp)
"""``ROLL_INDEX[d1, d2]``: the row of ``ALL_ROLLS`` of the roll ``(d1, d2)`` in either order."""
for _row, (_high, _low) in enumerate(ALL_ROLLS):
    ROLL_INDEX[_high, _low] = ROLL_INDEX[_low, _high] = _row
_NON_DOUBLES = ALL_ROLLS[:, 0] != ALL_ROLLS[:, 1]
_SWAP = np.array([0, 3, 4, 1, 2])

MAX_PLIES_PER_TRIAL = 1 << 18
"""The dice counter's room for plies per trial (no game comes near it)."""

ROUGH_MARGIN = 1e-3
"""Plays whose quick equity is within this of their position's best are valued
again batch-invariantly before the choice (the quick values are within ~1e-5)."""

PAIRS_PER_CALL = {0: 16384, 1: 48, 2: 2, 3: 1}
"""(board, roll) pairs per move-generation call by depth: bounds the memory of a call."""

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


# ----------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class RolloutSettings:
    """How the trials are played (module docstring).

    seed: non-negative integer; trial ``t``'s dice depend only on (seed, t).
    plies: depth 0-3 at which both players choose their plays (``Search``).
    truncate: stop each trial after this many plies (0: play to the end).
    variance_reduction: subtract each roll's luck (module docstring).
    quasi_random: stratify the first two rolls over the 1,296 ordered pairs.
    opening: the first roll is the opening roll (docs/rules.md 1).
    bearoff_truncate: stop at pure bear-off positions with the database's value.
    """

    seed: int = 0
    plies: int = 0
    truncate: int = 0
    variance_reduction: bool = True
    quasi_random: bool = True
    opening: bool = False
    bearoff_truncate: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)):
            raise TdgammonError(f"the seed must be a whole number >= 0, got {self.seed!r}")
        if self.seed < 0:
            raise TdgammonError(f"the seed must be >= 0, got {self.seed}")
        check_plies(self.plies)
        if isinstance(self.truncate, bool) or not isinstance(self.truncate, (int, np.integer)):
            raise TdgammonError(f"truncate must be a whole number >= 0, got {self.truncate!r}")
        if self.truncate < 0:
            raise TdgammonError(f"truncate must be >= 0 (0: play to the end), got {self.truncate}")


MAX_TRIALS = 2**32
"""Most trials one rollout may ask for: trial numbers above 2**44 would repeat
dice (``trial_dice``), and 2**32 trials are years of work on any machine."""


def check_trials(trials) -> int:
    """``trials`` if it is a whole number 1..MAX_TRIALS; TdgammonError otherwise."""
    if isinstance(trials, bool) or not isinstance(trials, (int, np.integer)):
        raise TdgammonError(f"the number of trials must be a whole number, got {trials!r}")
    if not 1 <= trials <= MAX_TRIALS:
        raise TdgammonError(f"the number of trials must be 1 to 2**32, got {trials}")
    return int(trials)


DEFAULT_SETTINGS = RolloutSettings()
"""Seed 0, 0-ply, to the end, variance reduction, quasi-random dice."""


# ----------------------------------------------------------------------------- dice


def _mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function on ``uint64`` arrays (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _seed_words(seed: int) -> tuple[np.uint64, int]:
    """(hash key, quasi-random offset source) of a seed, from ``SeedSequence``."""
    words = np.random.SeedSequence(int(seed)).generate_state(2, np.uint64)
    return words[0], int(words[1])


def _uniform_ints(key: np.uint64, trials: np.ndarray, ply: int, slot: int, n: int) -> np.ndarray:
    """``(T,) int64`` uniform in ``[0, n)`` from the counter (trial, ply, slot)."""
    counter = (trials.astype(np.uint64) << np.uint64(20)) | np.uint64((ply << 2) | slot)
    with np.errstate(over="ignore"):
        z = _mix64(key + (counter + np.uint64(1)) * _GOLDEN)
    unit = (z >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
    return np.minimum((unit * n).astype(np.int64), n - 1)


def _quasi_permutations(seed: int, first_choices: int) -> tuple[np.ndarray, np.ndarray]:
    """The seed's orders of the first roll's ``first_choices`` outcomes and of the 36
    ordered rolls of the second (scrambling the stratification, module docstring)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), first_choices, 1296]))
    return rng.permutation(first_choices), rng.permutation(36)


def trial_dice(
    seed: int,
    trials: np.ndarray,
    ply: int,
    *,
    quasi_random: bool = True,
    opening: bool = False,
) -> np.ndarray:
    """The dice of ply ``ply`` (0 = the root's first roll) of each trial: ``(T, 2) int8``.

    trials: ``(T,)`` non-negative trial indices. Depends only on (seed, trial,
    ply) (module docstring). With ``opening`` ply 0 is the opening roll, given
    as (root player's die, opponent's die), never equal; otherwise the values
    are the roll's two dice in the order rolled.
    """
    trials = np.asarray(trials, dtype=np.int64).reshape(-1)
    if len(trials) and trials.min() < 0:
        raise TdgammonError("trial indices must be >= 0")
    if not 0 <= ply < MAX_PLIES_PER_TRIAL:
        raise TdgammonError(f"ply {ply} is out of range")
    key, offset_source = _seed_words(seed)
    first_choices = len(OPENING_PAIRS) if opening else 36
    if quasi_random and ply < 2:
        period = first_choices * 36
        q = (trials + offset_source % period) % period
        first, block = q % first_choices, q // first_choices
        first_order, second_order = _quasi_permutations(int(seed), first_choices)
        if ply == 0:
            code = first_order[first]
        else:
            code = second_order[(first + block) % 36]
    else:
        code = _uniform_ints(key, trials, ply, 0, first_choices if ply == 0 else 36)
    if opening and ply == 0:
        return OPENING_PAIRS[code].copy()
    return np.stack([code // 6 + 1, code % 6 + 1], axis=1).astype(np.int8)


# ----------------------------------------------------------------------------- evaluation


class BatchInvariantNetwork:
    """A ``NetworkEvaluator``'s network, evaluated so that a board's value never
    depends on the other boards of the batch (Evaluator protocol).

    torch's float32 matrix products and vectorised sigmoids round differently
    with the batch size (a matrix-vector path for tiny batches, scalar loops
    for the tail of a vector), and a one-ulp difference can flip a near tie
    between two plays, so the same trial would play differently in another
    batch. Here:

    - the first layer of a slot-separable encoding (``raw``, ``raw_hand``:
      ``_slot_table``) is a sum of table rows, one per board slot and checker
      count: ``torch.nn.functional.embedding_bag``, summed in a fixed order
      per board; other encodings are encoded as usual and their first layer
      computed in float64, then rounded to float32;
    - hidden sigmoids are numpy's float32 ``exp`` (one SIMD algorithm for every
      element of an array, the tail included) and exact reciprocals;
    - later layers and the output layer in float64, rounded to float32 once at
      the end (the ~1e-16 differences of float64 products survive that
      rounding about once in 10^9 values).

    Values agree with the network's to about 1e-6. Bit-identical results are
    for machines with the same SIMD paths (same CPU features, numpy, torch).
    An evaluator with a race net (phase networks) gets one of these per net,
    races routed to the race net as the evaluator routes them.

    boards ``(B, 30)`` side-to-move view -> ``(B, 5) float32`` for the player on roll.
    """

    CHUNK = 4096

    def __init__(self, evaluator) -> None:
        import torch

        self._torch = torch
        self.source = evaluator
        self.name = evaluator.name
        self.variant = evaluator.variant
        network = evaluator.network
        linears = [m for m in network.body if isinstance(m, torch.nn.Linear)]
        if not linears or len(linears) * 2 != len(network.body):
            raise TdgammonError("batch-invariant evaluation needs a sigmoid MLP (TDNetwork)")

        def f64(tensor):
            return tensor.detach().to(torch.float64).clone()

        first = linears[0]
        self._rest = [(f64(m.weight), f64(m.bias)) for m in linears[1:]]
        self._head = (f64(network.head.weight), f64(network.head.bias))
        self._head32 = (self._head[0].to(torch.float32), self._head[1].to(torch.float32))
        self._encode = evaluator.encoding.encode
        self._first = (f64(first.weight), f64(first.bias))
        self._table = _slot_table(self._encode, self._first[0].numpy(), self._first[1].numpy())
        self._flipped_table = None
        self._race_forward, self._race_estimate = _race_parts(getattr(evaluator, "race", None))

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        b = np.asarray(boards)
        single = b.ndim == 1
        b = b[None, :] if single else b
        out = np.empty((len(b), N_OUTPUTS), dtype=np.float32)
        lost = winner(b, self.variant.checkers) == OPPONENT_WINS
        if lost.any():
            # a finished game: the source evaluator's exact result
            out[lost] = self.source.evaluate(b[lost])
            rest = np.flatnonzero(~lost)
            for start in range(0, len(rest), self.CHUNK):
                rows = rest[start : start + self.CHUNK]
                out[rows] = self._forward(b[rows])
        else:
            for start in range(0, len(b), self.CHUNK):
                out[start : start + self.CHUNK] = self._forward(b[start : start + self.CHUNK])
        return out[0] if single else out

    def estimate_flipped(self, after: np.ndarray) -> np.ndarray | None:
        """Quick float32 values of ``flip(after)`` for ``after (B, 30)`` (games not
        over), within about 1e-5 of ``evaluate(flip(after))`` but NOT
        batch-invariant: for ranking plays only (``_best_plays`` values the
        near-best ones again). The flip is folded into the table's rows. None
        when there is no quick path (no slot table, several hidden layers)."""
        if self._race_estimate is not None:
            # contact is the same seen from either side: races of ``after`` stay races
            return _by_phase(after, self._own_estimate_flipped, self._race_estimate)
        return self._own_estimate_flipped(after)

    def _own_estimate_flipped(self, after: np.ndarray) -> np.ndarray | None:
        if self._table is None or self._rest:
            return None
        if self._flipped_table is None:
            width = 2 * _COUNT_RANGE + 1
            table = self._table.reshape(BOARD_SIZE, width, -1)
            # flip(b)[i] = -b[FLIP_INDEX[i]] and FLIP_INDEX is its own inverse
            self._flipped_table = table[FLIP_INDEX].flip(1).reshape(BOARD_SIZE * width, -1)
        torch = self._torch
        out = np.empty((len(after), N_OUTPUTS), dtype=np.float32)
        weight, bias = self._head32
        with torch.inference_mode():
            for start in range(0, len(after), self.CHUNK):
                part = after[start : start + self.CHUNK]
                index = torch.from_numpy(np.add(part, _SLOT_OFFSETS, dtype=np.int32))
                pre = torch.nn.functional.embedding_bag(index, self._flipped_table, mode="sum")
                s = torch.addmm(bias, pre.sigmoid_(), weight.T).sigmoid_().numpy()
                block = out[start : start + self.CHUNK]
                np.multiply(s[:, 0], s[:, 1], out=block[:, 1])
                np.multiply(block[:, 1], s[:, 2], out=block[:, 2])
                np.subtract(1.0, s[:, 0], out=block[:, 3])
                block[:, 3] *= s[:, 3]
                np.multiply(block[:, 3], s[:, 4], out=block[:, 4])
                block[:, 0] = s[:, 0]
        return out

    def _forward(self, boards: np.ndarray) -> np.ndarray:
        if self._race_forward is not None:
            return _by_phase(boards, self._own_forward, self._race_forward)
        return self._own_forward(boards)

    def _own_forward(self, boards: np.ndarray) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            if self._table is not None:
                index = torch.from_numpy(np.add(boards, _SLOT_OFFSETS, dtype=np.int32))
                pre = torch.nn.functional.embedding_bag(index, self._table, mode="sum").numpy()
            else:
                inputs = torch.from_numpy(self._encode(boards)).to(torch.float64)
                pre = torch.addmm(self._first[1], inputs, self._first[0].T)
                pre = pre.to(torch.float32).numpy()
            hidden = _sigmoid32(pre)
            for weight, bias in self._rest:
                pre = torch.addmm(bias, torch.from_numpy(hidden).to(torch.float64), weight.T)
                hidden = _sigmoid32(pre.to(torch.float32).numpy())
            logits = torch.addmm(
                self._head[1], torch.from_numpy(hidden).to(torch.float64), self._head[0].T
            ).numpy()
        s = 1.0 / (1.0 + np.exp(-logits))
        out = np.empty((len(boards), N_OUTPUTS), dtype=np.float64)
        out[:, 0] = s[:, 0]
        out[:, 1] = s[:, 0] * s[:, 1]
        out[:, 2] = out[:, 1] * s[:, 2]
        out[:, 3] = (1.0 - s[:, 0]) * s[:, 3]
        out[:, 4] = out[:, 3] * s[:, 4]
        return out.astype(np.float32)


def _race_parts(race):
    """(values, quick flipped values) of an evaluator's race phase, or (None, None).

    A network race net gets its own ``BatchInvariantNetwork``; the one-sided race
    evaluator is batch-invariant itself (its network calls all have the same
    number of rows, ``tdgammon.engine.evaluation.one_sided_race``), so it is used
    as it is, for the quick ranking values too."""
    from tdgammon.engine.evaluation.one_sided_race import OneSidedRaceEvaluator

    if race is None:
        return None, None
    if isinstance(race, OneSidedRaceEvaluator):
        return race.raw_probabilities, lambda after: race.raw_probabilities(flip(after))
    part = BatchInvariantNetwork(race)
    return part._forward, part.estimate_flipped


def _by_phase(boards: np.ndarray, contact, race) -> np.ndarray | None:
    """``contact(boards)`` for positions with contact and ``race(boards)`` for races,
    row by row (``(B, 30)`` -> ``(B, 5) float32``); None when either gives None."""
    racing = ~has_contact(boards)
    out = np.empty((len(boards), N_OUTPUTS), dtype=np.float32)
    for rows, values in ((racing, race), (~racing, contact)):
        if rows.any():
            part = values(boards[rows])
            if part is None:
                return None
            out[rows] = part
    return out


def _sigmoid32(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))`` in float32, in place on a writable contiguous ``x``."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    np.negative(x, out=x)
    np.exp(x, out=x)
    x += np.float32(1.0)
    np.reciprocal(x, out=x)
    return x


_COUNT_RANGE = 15
"""Board slots hold -15..15 checkers (mover positive)."""
_SLOT_OFFSETS = (np.arange(BOARD_SIZE, dtype=np.int32) * (2 * _COUNT_RANGE + 1)) + _COUNT_RANGE
"""``board[i] + _SLOT_OFFSETS[i]``: the table row of slot i holding board[i] checkers."""


def _slot_table(encode, weight: np.ndarray, bias: np.ndarray):
    """The first layer of a slot-separable encoding as table rows, or None.

    encode: boards ``(B, 30)`` -> ``(B, N)`` inputs; weight ``(H, N)``, bias
    ``(H,)`` float64. An encoding is slot-separable when its inputs are a sum
    of one term per board slot and checker count plus a constant: Tesauro's
    ``raw`` inputs (each point's four units, bars, borne-off checkers, the
    constant turn units) and ``raw_hand`` are. Row ``31 i + 15 + v`` of the
    returned ``(30 * 31, H)`` float32 tensor is what slot ``i`` holding ``v``
    checkers (``v < 0``: the opponent's) adds to the hidden layer's input,
    the constant and the bias added to slot 0's rows (every board has one).
    The rows are read off the encoder itself, one slot at a time, and checked
    on sample positions: an encoding that is not separable gives None.
    """
    import torch

    from tdgammon.engine.flow.random_play import random_game_positions

    width = 2 * _COUNT_RANGE + 1
    empty = np.zeros((1, BOARD_SIZE), dtype=BOARD_DTYPE)
    constant = encode(empty).astype(np.float64)[0]
    singles = np.zeros((BOARD_SIZE * width, BOARD_SIZE), dtype=BOARD_DTYPE)
    slots = np.repeat(np.arange(BOARD_SIZE), width)
    singles[np.arange(len(singles)), slots] = np.tile(
        np.arange(-_COUNT_RANGE, _COUNT_RANGE + 1), BOARD_SIZE
    )
    units = encode(singles).astype(np.float64) - constant
    table = (units @ weight.T).reshape(BOARD_SIZE, width, -1)
    table[0] += bias + constant @ weight.T
    samples, _ = random_game_positions(64, np.random.default_rng(0))
    exact = encode(samples).astype(np.float64) @ weight.T + bias
    summed = table[np.arange(BOARD_SIZE), samples.astype(np.intp) + _COUNT_RANGE].sum(axis=1)
    if not np.allclose(summed, exact, atol=1e-4, rtol=0):
        return None
    return torch.from_numpy(table.reshape(BOARD_SIZE * width, -1).astype(np.float32))


_INVARIANT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def batch_invariant_evaluator(evaluator):
    """The evaluator to roll out with: a ``BatchInvariantNetwork`` for a network
    evaluator (anything with ``network``, ``preset`` and ``encoding``), cached;
    any other evaluator unchanged (numpy stand-ins work row by row already)."""
    if isinstance(evaluator, BatchInvariantNetwork) or not all(
        hasattr(evaluator, name) for name in ("network", "preset", "encoding")
    ):
        return evaluator
    cached = _INVARIANT.get(evaluator)
    if cached is None:
        cached = BatchInvariantNetwork(evaluator)
        _INVARIANT[evaluator] = cached
    return cached


def rollout_search(search: Search) -> Search:
    """``search`` with its evaluator made batch-invariant (same rules, filters, database)."""
    evaluator = batch_invariant_evaluator(search.evaluator)
    if evaluator is search.evaluator:
        return search
    return Search(
        evaluator,
        use_bearoff=search.use_bearoff,
        filters=search.filters,
        inner_keep=search.inner_keep,
        variant=search.variant,
    )


# ----------------------------------------------------------------------------- plays


def _best_plays(
    search: Search, boards: np.ndarray, dice: np.ndarray, plies: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The play each (board, roll) pair makes at ``plies``, as ``Search.choose_rows``.

    boards: ``(K, 30) int8`` mover's view before the roll; dice ``(K, 2)``.
    Returns (values ``(K, 5) float32``, the mover's view after the play at the
    depth it was chosen; after ``(K, 30) int8``, not flipped; again ``(K,) bool``,
    the mover rolls again: Acey-Deucey).
    """
    count = len(boards)
    values = np.empty((count, N_OUTPUTS), dtype=np.float32)
    after = np.empty((count, BOARD_SIZE), dtype=BOARD_DTYPE)
    again = np.zeros(count, dtype=bool)
    step = PAIRS_PER_CALL[plies]
    for start in range(0, count, step):
        part = slice(start, start + step)
        moves = generate_moves(boards[part], dice[part], search.variant)
        n = len(boards[part])
        if plies == 0:
            play_values, rough = _static_play_values(
                search,
                moves.boards,
                moves.extra_roll,
                rough=True,
                not_bearoff=_opponent_outside(boards[part])[moves.parents],
            )
            scores = search.score(play_values)
            if rough.any():
                # the quick values rank; the near-best are valued again, batch-invariantly,
                # so the choice is the one the invariant values alone would make
                starts = np.searchsorted(moves.parents, np.arange(n))
                top = np.maximum.reduceat(scores, starts)
                near = scores >= top[moves.parents] - ROUGH_MARGIN
                redo = np.flatnonzero(near & rough)
                play_values[redo] = invert(search.evaluator.evaluate(flip(moves.boards[redo])))
                scores[redo] = search.score(play_values[redo])
                scores[~near] = -np.inf
        else:
            play_values, depth = search.value_plays(moves, plies)
            deepest = np.zeros(n, dtype=np.int64)
            np.maximum.at(deepest, moves.parents, depth)
            scores = np.where(depth == deepest[moves.parents], search.score(play_values), -np.inf)
        rows = best_rows(scores, moves.parents, n)
        values[part] = play_values[rows]
        after[part] = moves.boards[rows]
        again[part] = moves.extra_roll[rows]
    return values, after, again


def _static_play_values(
    search: Search,
    after: np.ndarray,
    extra_roll: np.ndarray,
    rough: bool = False,
    not_bearoff: np.ndarray | None = None,
):
    """``search.play_probabilities(after, 0, extra_roll)``, the same values with fewer
    passes over the boards: ``(M, 30) int8`` mover's view after each play ->
    ``(M, 5) float32``, the mover's view.

    Most plays leave a position that is neither over nor a bear-off; those go
    straight to the evaluator, skipping ``Search.static``'s per-board checks.
    A play is sent to ``Search.static`` (exact results, bear-off database)
    unless a checker of either side is still outside its home board, which
    rules out a pure bear-off (``is_bearoff_position``).

    rough: value those plays with the evaluator's quick ``estimate`` where it
    has one, and return ``(values, rough (M,) bool)``, the rows so valued.
    not_bearoff: ``(M,) bool`` or None, rows already known to be no pure
    bear-off (``_opponent_outside`` of their parent), not checked again.
    """
    variant = search.variant
    out = np.empty((len(after), N_OUTPUTS), dtype=np.float32)
    done = winner(after, variant.checkers) == MOVER_WINS
    again = np.asarray(extra_roll, dtype=bool) & ~done
    if done.any():
        out[done] = terminal_probs(after[done], variant)
    if again.any():
        out[again] = search.static(after[again])
    flipped = ~done & ~again
    if search.use_bearoff:
        rows = np.flatnonzero(flipped if not_bearoff is None else flipped & ~not_bearoff)
        part = after[rows]
        outside = (
            (part[:, OUTSIDE_HOME] > 0).any(axis=1)
            | (part[:, MOVER_HAND] > 0)
            | _opponent_outside(part)
        )
        checked = rows[~outside]
        if len(checked):
            out[checked] = invert(search.static(flip(after[checked])))
            flipped[checked] = False
    quick = getattr(search.evaluator, "estimate_flipped", None) if rough else None
    estimated = np.zeros(len(after), dtype=bool)
    if flipped.any():
        boards = after if flipped.all() else after[flipped]
        values = quick(boards) if quick is not None else None
        if values is None:
            values = search.evaluator.evaluate(flip(boards))
        else:
            estimated = flipped
        if len(boards) == len(after):
            out = invert(values)  # every play went to the evaluator
        else:
            out[flipped] = invert(values)
    return (out, estimated) if rough else out


def _opponent_outside(boards: np.ndarray) -> np.ndarray:
    """``(B,) bool``: an opponent checker outside his home board (the mover's points
    1-18), on his bar or in hand. It stays so whatever the mover plays (a hit only
    sends it back), so none of the plays is a pure bear-off."""
    return (
        (boards[:, OPPONENT_OUTSIDE_HOME] < 0).any(axis=1)
        | (boards[:, OPPONENT_BAR] < 0)
        | (boards[:, OPPONENT_HAND] < 0)
    )


def _unique_boards(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct rows ``(U, 30)``, inverse ``(B,)``) of ``boards (B, 30) int8``."""
    rows = np.ascontiguousarray(boards, dtype=BOARD_DTYPE)
    keys = rows.view(np.dtype((np.void, BOARD_SIZE))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


def _invert_difference(difference: np.ndarray) -> np.ndarray:
    """``invert(a) - invert(b)`` from ``a - b`` (``(..., 5)``): win negated, gammons swapped."""
    out = difference[..., _SWAP].copy()
    out[..., 0] = -difference[..., 0]
    return out


def _roll_table(search: Search, boards: np.ndarray, plies: int):
    """Every roll's play of each board: values ``(U, 21, 5) float64`` (mover's view),
    after ``(U, 21, 30) int8``, again ``(U, 21) bool`` (rows of ``ALL_ROLLS``)."""
    count = len(boards)
    pairs_boards = np.repeat(boards, N_ROLLS, axis=0)
    pairs_dice = np.tile(ALL_ROLLS, (count, 1))
    values, after, again = _best_plays(search, pairs_boards, pairs_dice, plies)
    return (
        values.astype(np.float64).reshape(count, N_ROLLS, N_OUTPUTS),
        after.reshape(count, N_ROLLS, BOARD_SIZE),
        again.reshape(count, N_ROLLS),
    )


# ----------------------------------------------------------------------------- trials


@dataclass(frozen=True)
class TrialResults:
    """Per-trial results of some trials of a rollout of P roots.

    trials: ``(T,) int64`` trial indices, ascending, distinct.
    probabilities: ``(P, T, 5) float64``: each trial's result in the root
        player's view, luck-adjusted when variance reduction was on.
    outcomes: ``(P, T, 5) float64``: the same without the luck adjustment.
    plies: ``(P, T) int64``: plies played in each trial.
    variance_reduction: whether ``probabilities`` are adjusted.
    """

    trials: np.ndarray
    probabilities: np.ndarray
    outcomes: np.ndarray
    plies: np.ndarray
    variance_reduction: bool

    def __len__(self) -> int:
        return len(self.trials)


@dataclass(frozen=True)
class PlyResult:
    """What one ply did in the rows a ``TrialState`` played (all ``(R, ...)``).

    value_root: ``(R, 5) float64``, the value of the play made at the rollout's
        depth (exact when the game is over), in the root player's view.
    over: the mover has just borne off his last checker (won).
    mover_was_root: the root player made the play.
    next_boards: the board of the next ply (``(R, 30) int8``, next player's view).
    """

    value_root: np.ndarray
    over: np.ndarray
    mover_was_root: np.ndarray
    next_boards: np.ndarray


class TrialState:
    """The games of a batch of trials, advanced together ply by ply.

    Rows are (root, trial) pairs, root-major: row ``p * T + i`` is trial
    ``trials[i]`` of root ``p``. ``play(rows)`` rolls each row's dice for the
    current ply and plays them (adding the luck); ``finish(rows, values)``
    ends games with their result in the root player's view. The cubeless
    driver is ``rollout_trials``; the cubeful one
    (``tdgammon.engine.cube.rollout``) adds the cube between plies.

    search: made batch-invariant here. roots: ``(P, 30)`` int8, side-to-move
    view, before rolling. Roots whose game is already over are finished at
    once with their exact value.
    """

    def __init__(
        self,
        search: Search,
        roots: np.ndarray,
        trials: Iterable[int] | np.ndarray,
        settings: RolloutSettings,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.search = search = rollout_search(search)
        self.settings = settings
        self.progress = progress
        roots = np.asarray(roots, dtype=BOARD_DTYPE)
        self.roots = roots[None, :] if roots.ndim == 1 else roots
        index = np.asarray(list(trials) if not isinstance(trials, np.ndarray) else trials)
        index = index.astype(np.int64).reshape(-1)
        if len(np.unique(index)) != len(index):
            raise TdgammonError("trial indices must be distinct")
        self.trials = np.sort(index)
        count, n_trials = len(self.roots), len(self.trials)
        rows = count * n_trials
        self.root_of = np.repeat(np.arange(count), n_trials)
        self.trial_of = np.tile(self.trials, count)
        self.boards = self.roots[self.root_of].copy()
        self.root_on_roll = np.ones(rows, dtype=bool)
        self.result = np.zeros((rows, N_OUTPUTS), dtype=np.float64)
        self.luck = np.zeros((rows, N_OUTPUTS), dtype=np.float64)
        self.plies = np.zeros(rows, dtype=np.int64)
        self.active = np.ones(rows, dtype=bool)
        self.ply = 0
        over = is_game_over(self.boards, search.variant.checkers)
        if over.any():
            self.finish(np.flatnonzero(over), search.static(self.boards[over]))
        self._opening_mean = None
        if settings.opening and settings.variance_reduction and self.active.any():
            self._opening_mean = _opening_mean(search, self.roots, settings.plies)

    def finish(self, rows: np.ndarray, values_root: np.ndarray) -> None:
        """End the games of ``rows`` with ``values_root (R, 5)`` (root player's view)."""
        if len(rows) == 0:
            return
        self.result[rows] = values_root
        self.active[rows] = False
        if self.progress:
            self.progress(len(rows))

    def play(self, rows: np.ndarray) -> PlyResult:
        """Roll and play the current ply in ``rows`` (active, ascending); the boards,
        the player on roll and the luck move on; ``finish`` is left to the caller."""
        search, settings = self.search, self.settings
        if self.ply >= MAX_PLIES_PER_TRIAL:
            raise TdgammonError(f"a trial ran past {MAX_PLIES_PER_TRIAL} plies")
        opening_ply = settings.opening and self.ply == 0
        dice = trial_dice(
            settings.seed,
            self.trial_of[rows],
            self.ply,
            quasi_random=settings.quasi_random,
            opening=opening_ply,
        )
        if opening_ply:
            # docs/rules.md 1: the higher die moves first, with both dice
            opponent_first = dice[:, 1] > dice[:, 0]
            moved = rows[opponent_first]
            self.boards[moved] = flip(self.boards[moved])
            self.root_on_roll[moved] = False
        mover_is_root = self.root_on_roll[rows]
        unique, inverse = _unique_boards(self.boards[rows])
        roll = ROLL_INDEX[dice[:, 0], dice[:, 1]]
        if settings.variance_reduction:
            table, table_after, table_again = _roll_table(search, unique, settings.plies)
            value = table[inverse, roll]
            after = table_after[inverse, roll]
            again = table_again[inverse, roll]
            value_root = np.where(mover_is_root[:, None], value, invert(value))
            if opening_ply:
                mean_root = self._opening_mean[self.root_of[rows]]
            else:
                mean = (table * ROLL_WEIGHTS[None, :, None]).sum(axis=1)[inverse]
                mean_root = np.where(mover_is_root[:, None], mean, invert(mean))
            self.luck[rows] += value_root - mean_root
        else:
            pair_keys = np.stack([inverse, roll], axis=1)
            pairs, pair_of = np.unique(pair_keys, axis=0, return_inverse=True)
            pair_of = pair_of.reshape(-1)
            values, pair_after, pair_again = _best_plays(
                search, unique[pairs[:, 0]], ALL_ROLLS[pairs[:, 1]], settings.plies
            )
            value = values[pair_of].astype(np.float64)
            after = pair_after[pair_of]
            again = pair_again[pair_of]
            value_root = np.where(mover_is_root[:, None], value, invert(value))
        self.ply += 1
        self.plies[rows] = self.ply
        next_boards = np.where(again[:, None], after, flip(after))
        self.boards[rows] = next_boards
        self.root_on_roll[rows] = np.where(again, mover_is_root, ~mover_is_root)
        over = is_game_over(after, search.variant.checkers)
        return PlyResult(value_root, over, mover_is_root, next_boards)

    def stops(self, played: PlyResult) -> np.ndarray:
        """``(R,) bool``: the games that end after ``played`` (over, truncated, or a
        bear-off with ``bearoff_truncate``); their value is ``played.value_root``."""
        settings = self.settings
        end = played.over.copy()
        if settings.truncate and self.ply >= settings.truncate:
            end[:] = True
        if settings.bearoff_truncate and self.search.use_bearoff:
            end |= is_bearoff_position(played.next_boards)
        return end

    def results(self) -> TrialResults:
        """The ``TrialResults`` of every row (call when no row is active)."""
        count, n_trials = len(self.roots), len(self.trials)
        shape = (count, n_trials, N_OUTPUTS)
        reduce = self.settings.variance_reduction
        adjusted = self.result - self.luck if reduce else self.result
        return TrialResults(
            trials=self.trials,
            probabilities=adjusted.reshape(shape),
            outcomes=self.result.reshape(shape),
            plies=self.plies.reshape(count, n_trials),
            variance_reduction=reduce,
        )


def rollout_trials(
    search: Search,
    roots: np.ndarray,
    trials: Iterable[int] | np.ndarray,
    settings: RolloutSettings = DEFAULT_SETTINGS,
    progress: Callable[[int], None] | None = None,
) -> TrialResults:
    """Play trials ``trials`` of each root, all together as one batch.

    roots: ``(P, 30)`` (or ``(30,)``) int8, side-to-move view, before rolling.
    trials: trial indices (``range(a, b)`` or an array): any range gives the
    trials that range gives inside a larger one (module docstring).
    progress: called with the number of (root, trial) games finished, as they
    finish. Returns ``TrialResults`` in each root player's view.
    """
    state = TrialState(search, roots, trials, settings, progress)
    while state.active.any():
        rows = np.flatnonzero(state.active)
        played = state.play(rows)
        end = state.stops(played)
        state.finish(rows[end], played.value_root[end])
    return state.results()


def _opening_mean(search: Search, roots: np.ndarray, plies: int) -> np.ndarray:
    """``(P, 5) float64``: the mean over the 30 opening rolls of the value of the play
    made, in the root player's view (the opponent moves when his die is higher)."""
    both = np.concatenate([roots, flip(roots)])
    table = _roll_table(search, both, plies)[0]
    own = table[: len(roots), _NON_DOUBLES].sum(axis=1)
    theirs = invert(table[len(roots) :, _NON_DOUBLES]).sum(axis=1)
    return (own + theirs) / len(OPENING_PAIRS)


def combine_trials(parts: Sequence[TrialResults]) -> TrialResults:
    """One ``TrialResults`` from pieces with disjoint trials (any order), sorted by trial.

    The pieces of a rollout split into trial ranges combine into exactly the
    rollout in one piece. Raises TdgammonError for overlapping trials or pieces
    of different rollouts (root counts, variance reduction).
    """
    parts = [p for p in parts if len(p)]
    if not parts:
        raise TdgammonError("no trials to combine")
    roots = {p.probabilities.shape[0] for p in parts}
    reduced = {p.variance_reduction for p in parts}
    if len(roots) != 1 or len(reduced) != 1:
        raise TdgammonError("these trial results come from different rollouts")
    trials = np.concatenate([p.trials for p in parts])
    order = np.argsort(trials, kind="stable")
    if np.any(np.diff(trials[order]) == 0):
        raise TdgammonError("the same trial appears in two pieces")
    return TrialResults(
        trials=trials[order],
        probabilities=np.concatenate([p.probabilities for p in parts], axis=1)[:, order],
        outcomes=np.concatenate([p.outcomes for p in parts], axis=1)[:, order],
        plies=np.concatenate([p.plies for p in parts], axis=1)[:, order],
        variance_reduction=reduced.pop(),
    )


# ----------------------------------------------------------------------------- estimates


@dataclass(frozen=True)
class RolloutEstimate:
    """The estimate of one root from its trials (the root player's view, or the
    mover's for a play: see ``rollout_plays``).

    probabilities: ``(5,) float64`` mean cumulative probabilities.
    probabilities_se: ``(5,) float64`` their standard errors.
    equity: cubeless equity of ``probabilities`` (the variant's scoring).
    equity_se: standard error of the equity (from the per-trial equities).
    trials: trials averaged.
    """

    probabilities: np.ndarray
    probabilities_se: np.ndarray
    equity: float
    equity_se: float
    trials: int

    @property
    def equity_ci95(self) -> float:
        """Half-width of the equity's 95% confidence interval."""
        return CI95 * self.equity_se

    @property
    def probabilities_ci95(self) -> np.ndarray:
        """``(5,)`` half-widths of the probabilities' 95% confidence intervals."""
        return CI95 * self.probabilities_se


def _standard_error(samples: np.ndarray) -> np.ndarray:
    """Standard error of the mean over axis 0 (0 for a single sample)."""
    n = samples.shape[0]
    if n < 2:
        return np.zeros(samples.shape[1:])
    return samples.std(axis=0, ddof=1) / np.sqrt(n)


def estimate(
    results: TrialResults, variant=None, *, adjusted: bool = True
) -> list[RolloutEstimate]:
    """One ``RolloutEstimate`` per root of ``results`` (``adjusted=False``: from the
    unadjusted outcomes, i.e. the plain rollout of the same trials)."""
    from tdgammon.engine.rules.variants import get_variant

    variant = get_variant(variant)
    data = results.probabilities if adjusted else results.outcomes
    out = []
    for samples in data:
        equities = variant_equity(samples, variant)
        mean = samples.mean(axis=0)
        out.append(
            RolloutEstimate(
                probabilities=mean,
                probabilities_se=_standard_error(samples),
                equity=float(variant_equity(mean, variant)),
                equity_se=float(_standard_error(equities[:, None])[0]),
                trials=len(results),
            )
        )
    return out


# ----------------------------------------------------------------------------- drivers


def iter_rollout(
    search: Search,
    roots: np.ndarray,
    trials: int,
    settings: RolloutSettings = DEFAULT_SETTINGS,
    *,
    first_trial: int = 0,
    batch_trials: int = 1296,
    progress: Callable[[int], None] | None = None,
) -> Iterator[TrialResults]:
    """Roll out trials ``first_trial .. first_trial + trials - 1`` in batches of
    ``batch_trials`` trials, yielding each batch's ``TrialResults`` when done.

    ``combine_trials`` of what was yielded is the rollout so far: a caller
    interrupted between batches still has an unbiased estimate from whole
    trials. Memory and time per batch grow with roots x batch_trials.
    """
    check_trials(trials)
    if batch_trials < 1:
        raise TdgammonError("batch_trials must be >= 1")
    search = rollout_search(search)
    end = first_trial + trials
    for start in range(first_trial, end, batch_trials):
        yield rollout_trials(
            search, roots, range(start, min(start + batch_trials, end)), settings, progress
        )


def rollout_position(
    search: Search,
    board: np.ndarray,
    trials: int = 1296,
    settings: RolloutSettings = DEFAULT_SETTINGS,
    **options,
) -> RolloutEstimate:
    """Roll out ``board (30,) int8`` (side-to-move view, before rolling): the
    estimate for the player on roll. ``options`` go to ``iter_rollout``."""
    board = np.asarray(board, dtype=BOARD_DTYPE).reshape(BOARD_SIZE)
    results = combine_trials(list(iter_rollout(search, board, trials, settings, **options)))
    return estimate(results, search.variant)[0]


@dataclass(frozen=True)
class PlayRollout:
    """One candidate play of a roll and its rollout (the mover's view, after the play).

    play: the candidate (``Search.analyse`` at 0-ply: moves, board after, ...).
    estimate: the rollout of the position after it, turned to the mover's view.
    """

    play: PlayAnalysis
    estimate: RolloutEstimate


def candidate_plays(
    search: Search, board: np.ndarray, dice, top: int | None = None
) -> list[PlayAnalysis]:
    """The plays of ``dice`` to roll out: all, or the best ``top`` at 0-ply (best first).

    board: ``(30,) int8`` mover's view before the play. A roll with no legal
    play gives one candidate, the pass (no moves).
    """
    board = np.asarray(board, dtype=BOARD_DTYPE).reshape(BOARD_SIZE)
    d1, d2 = check_dice(dice)
    if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
        raise TdgammonError(f"top must be a whole number >= 1, got {top!r}")
    plays = search.analyse(board, (d1, d2), 0)
    if not plays:
        probabilities = search.play_probabilities(board[None, :])[0]
        equity = float(search.score(probabilities))
        return [PlayAnalysis((), board.copy(), probabilities, equity, 0)]
    return plays[:top] if top is not None else plays


def play_roots(plays: Sequence[PlayAnalysis]) -> tuple[np.ndarray, np.ndarray]:
    """(roots ``(P, 30) int8``, flipped ``(P,) bool``) of candidate plays: the board
    after each play from the view of the player who rolls next."""
    after = np.stack([p.board_after for p in plays])
    flipped = np.array([not p.extra_roll for p in plays], dtype=bool)
    roots = np.where(flipped[:, None], flip(after), after).astype(BOARD_DTYPE)
    return roots, flipped


def to_mover_view(results: TrialResults, flipped: np.ndarray) -> TrialResults:
    """``results`` of play roots turned to the view of the player who made the plays."""

    def turn(data):
        return np.where(flipped[:, None, None], invert(data), data)

    return TrialResults(
        trials=results.trials,
        probabilities=turn(results.probabilities),
        outcomes=turn(results.outcomes),
        plies=results.plies,
        variance_reduction=results.variance_reduction,
    )


def rollout_plays(
    search: Search,
    board: np.ndarray,
    dice,
    trials: int = 1296,
    settings: RolloutSettings = DEFAULT_SETTINGS,
    *,
    top: int | None = None,
    **options,
) -> list[PlayRollout]:
    """Roll out every candidate play of ``dice`` (``candidate_plays``) with the same
    dice in each trial; ranked best first by rolled-out equity (mover's view).
    ``options`` go to ``iter_rollout``; ``settings.opening`` does not apply."""
    if settings.opening:
        raise TdgammonError("the opening roll applies to a position before rolling, not to plays")
    plays = candidate_plays(search, board, dice, top)
    roots, flipped = play_roots(plays)
    parts = list(iter_rollout(search, roots, trials, settings, **options))
    results = to_mover_view(combine_trials(parts), flipped)
    estimates = estimate(results, search.variant)
    ranked = sorted(zip(plays, estimates, strict=True), key=lambda pair: -pair[1].equity)
    return [PlayRollout(play, est) for play, est in ranked]
