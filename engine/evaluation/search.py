"""Cubeless evaluation and search: 0-ply, n-ply expectimax, move filtering.

Perspective and shapes (docs/architecture.md, "Array conventions"):

- ``boards``: ``(B, 30) int8``, side-to-move view (``tdgammon.engine.rules.board``), *before*
  rolling: the player on roll is the mover.
- probabilities: ``(B, 5) float32``, cumulative, GNU Backgammon order win,
  win gammon, win backgammon, lose gammon, lose backgammon
  (``tdgammon.engine.rules.outputs``), for the player on roll of that board.
- a *play* is a row of ``tdgammon.engine.movegen.vectorized.MoveList``: its board is still the
  mover's view (not flipped); its probabilities are the mover's, after the
  play, with the opponent to roll next: ``invert(evaluate(flip(after)))``.

Levels (the names GNU Backgammon uses)
--------------------------------------
- **0-ply** (``Search.static``): positions that are over get their exact
  result (docs/rules.md 4); pure bear-offs (both sides all home) get the
  bear-off databases' value: exact when each side has at most 6 checkers left
  (``tdgammon.engine.evaluation.two_sided_bearoff``), else from the exact
  one-sided database (``tdgammon.engine.evaluation.bearoff``); everything else
  the network (any ``Evaluator``).
- **n-ply** (``Search.evaluate(boards, n)``), n >= 1: the average over the 21
  rolls (``tdgammon.engine.rules.dice.ROLL_WEIGHTS``) of the mover's best play, each play
  valued at n - 1 plies: ``E_n(b) = sum_r w_r max_play invert(E_{n-1}(flip(after)))``.
  So 1-ply is "the average over the 21 rolls of the best 0-ply reply".
  Finished games and pure bear-offs are not expanded: their 0-ply value comes
  from the databases (as GNU Backgammon does with its bear-off databases).
- Inside the tree (n >= 2) the mover's play of each roll is chosen as GNU
  Backgammon does: plays are ranked at 0-ply and only the best
  ``inner_keep`` (default 1, GNU's choice) are searched deeper; the best of
  those at n - 1 plies is the value of the roll. ``inner_keep = 0`` searches
  every play (full expectimax; slow, used by tests).
- "Best" always means highest cubeless money equity
  ``2 p(win) - 1 + p(wg) - p(lg) + p(wbg) - p(lbg)``; ties go to the first
  play in move-generator order (deterministic).

Move filtering at the root (``Search.analyse``, ``Search.choose_rows``)
-----------------------------------------------------------------------
Every play is valued at 0-ply; then for each level 1..n the filter of the
level before (``filters[level - 1]``, the last filter repeats) keeps at most
``keep`` candidates per position, and only those within ``threshold`` of the
best of the level below; the survivors are valued again at that level. A play
therefore carries the depth it reached; ranking puts deeper plays first, then
higher equity (GNU Backgammon's order in its hint list). The default filters
follow GNU Backgammon's "normal" move filter: 8 candidates within 0.16 after
0-ply, then 2 within 0.04.

Variants (``tdgammon.engine.rules.variants``)
------------------------------
``Search(evaluator, variant=...)`` (default: the evaluator's ``variant``, else
standard) searches under that variant's rules: its move generator, its
number of checkers for the end of the game, and its scoring (Acey-Deucey:
checkers left, ``tdgammon.engine.rules.outcome.terminal_probs`` / ``variant_equity``, and
no bear-off database, whose gammon figures assume standard scoring). An
Acey-Deucey play that earns the extra roll (``MoveList.extra_roll``) is
valued for the mover, who rolls again, without the flip:
``V(after) = E_{n-1}(after)`` instead of ``invert(E_{n-1}(flip(after)))``.

Batching: every level is one ``generate_moves`` call over all (position,
roll) pairs of the level and one evaluator call over all their plays, so the
cost is a handful of large numpy/torch calls per level, not a Python loop over
positions; positions are expanded ``EXPAND_BLOCK`` at a time, which bounds
the memory of deep searches of large batches. This module imports numpy only
(no torch); the network comes in through the ``Evaluator`` protocol. It knows
nothing of the cube (cubeless).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.evaluation.perspective import play_probabilities
from tdgammon.engine.evaluation.two_sided_bearoff import bearoff_probabilities
from tdgammon.engine.movegen.vectorized import MoveList, best_rows, generate_moves
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    MOVER_OFF,
    OPPONENT_OFF,
    POINTS,
    flip,
    mover_pips,
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
from tdgammon.engine.rules.outputs import (
    LOSE_BACKGAMMON,
    LOSE_GAMMON,
    N_OUTPUTS,
    OUTPUT_NAMES,
    WIN,
    WIN_BACKGAMMON,
    WIN_GAMMON,
    invert,
)
from tdgammon.engine.rules.variants import STANDARD, Variant, get_variant

__all__ = [
    "DEFAULT_FILTERS",
    "MAX_PLIES",
    "Evaluator",
    "MoveFilter",
    "PipCountEvaluator",
    "PlayAnalysis",
    "Search",
    "check_plies",
    "probabilities_dict",
    "rank_per_parent",
    "top_per_parent",
]

MAX_PLIES = 3
"""Deepest search accepted: each ply multiplies the work by about 21 x the inner plays
(3-ply takes seconds per decision with the Tesauro-size network)."""

N_ROLLS = len(ALL_ROLLS)
_WEIGHTS32 = ROLL_WEIGHTS.astype(np.float32)


class Evaluator(Protocol):
    """Anything that turns boards into cubeless probabilities (the network).

    ``evaluate(boards)``: boards ``(B, 30) int8``, side-to-move view, before
    rolling, game not over -> ``(B, 5) float32`` cumulative probabilities
    (win, wg, wbg, lg, lbg) for the player on roll.
    ``tdgammon.engine.evaluation.evaluator.NetworkEvaluator`` is the real one.
    """

    def evaluate(self, boards: np.ndarray) -> np.ndarray: ...


def probabilities_dict(probabilities: np.ndarray) -> dict[str, float]:
    """``(5,)`` probabilities as the docs/formats.md JSON object ``{"win": ..., ...}``."""
    p = np.asarray(probabilities, dtype=np.float64).reshape(N_OUTPUTS)
    return {name: float(value) for name, value in zip(OUTPUT_NAMES, p, strict=True)}


@dataclass(frozen=True)
class MoveFilter:
    """Which candidates of one level go on to the next (GNU Backgammon's move filter).

    keep: at most this many plays per position (at least 1).
    threshold: only plays whose equity is within this of the best one's.
    """

    keep: int
    threshold: float


EXPAND_BLOCK = 4096
"""Positions expanded at once by ``Search.evaluate`` (n >= 1): one block's plays
(about 420 per position) and, below it, its ``21 * EXPAND_BLOCK`` replies searched
one level less deep, again in blocks; so memory stays that of one 1-ply block at
any depth and batch size (a 2-ply batch of 4,000 positions at once took 17 GB)."""

DEFAULT_FILTERS: tuple[MoveFilter, ...] = (MoveFilter(8, 0.16), MoveFilter(2, 0.04))
"""filters[i] picks the plays valued at i + 1 plies from those valued at i; the last repeats."""


@dataclass(frozen=True)
class PlayAnalysis:
    """One legal play of a decision, as ``Search.analyse`` ranks it.

    moves: ``(from, to)`` pairs in play order (25 bar, 0 off), mover's numbering.
    board_after: ``(30,) int8``, the mover's view after the play (not flipped).
    probabilities: ``(5,) float32``, the mover's, after the play (opponent to roll).
    equity: cubeless equity of ``probabilities`` (mover's view), the variant's scoring.
    plies: the depth this play was valued at (filters stop weak plays early).
    named_double: Acey-Deucey 1-2 only, the double named (0 otherwise).
    extra_roll: Acey-Deucey 1-2 only, the play earns another roll.
    """

    moves: tuple[tuple[int, int], ...]
    board_after: np.ndarray
    probabilities: np.ndarray
    equity: float
    plies: int
    named_double: int = 0
    extra_roll: bool = False


class Search:
    """0-ply and n-ply cubeless evaluation around an ``Evaluator`` (module docstring).

    evaluator: the network (``Evaluator`` protocol).
    use_bearoff: value pure bear-offs with the exact bear-off database.
    filters: root move filters (``MoveFilter`` per level; the last repeats).
    inner_keep: plays per roll searched deeper inside the tree (0 = all).
    variant: the rules (name or ``Variant``); default the evaluator's
    ``variant`` attribute, else standard.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        *,
        use_bearoff: bool = True,
        filters: Sequence[MoveFilter] = DEFAULT_FILTERS,
        inner_keep: int = 1,
        variant: str | Variant | None = None,
    ) -> None:
        if not filters:
            raise ValueError("give at least one move filter")
        for f in filters:
            if f.keep < 1 or f.threshold < 0:
                raise ValueError(f"bad move filter {f}: keep >= 1 and threshold >= 0")
        if inner_keep < 0:
            raise ValueError("inner_keep must be >= 0")
        own = getattr(evaluator, "variant", None)
        self.variant = get_variant(variant if variant is not None else own)
        if own is not None and get_variant(own) != self.variant:
            raise TdgammonError(
                f"the evaluator plays {get_variant(own).name}, not {self.variant.name}"
            )
        self.evaluator = evaluator
        # The database's gammon figures assume standard scoring (not checkers left).
        self.use_bearoff = use_bearoff and self.variant.scoring == STANDARD.scoring
        self.filters = tuple(filters)
        self.inner_keep = inner_keep
        self.name = getattr(evaluator, "name", type(evaluator).__name__)

    # ------------------------------------------------------------ pre-roll values

    def static(self, boards: np.ndarray) -> np.ndarray:
        """0-ply: ``(B, 30)`` (or ``(30,)``) side-to-move boards -> ``(B, 5) float32``.

        Exact for finished games and (with ``use_bearoff``) pure bear-offs;
        the evaluator for the rest. Probabilities are the player on roll's.
        """
        b, single = _batch(boards)
        out = np.empty((len(b), N_OUTPUTS), dtype=np.float32)
        won = winner(b, self.variant.checkers)
        mover_won = won == MOVER_WINS
        opponent_won = won == OPPONENT_WINS
        over = mover_won | opponent_won
        if mover_won.any():
            out[mover_won] = terminal_probs(b[mover_won], self.variant)
        if opponent_won.any():
            out[opponent_won] = invert(terminal_probs(flip(b[opponent_won]), self.variant))
        rest = ~over
        if self.use_bearoff and rest.any():
            bear = rest & is_bearoff_position(b)
            if bear.any():
                out[bear] = bearoff_probabilities(b[bear], self.variant.checkers)
                rest &= ~bear
        if rest.any():
            out[rest] = np.asarray(self.evaluator.evaluate(b[rest]), dtype=np.float32)
        return out[0] if single else out

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        """n-ply probabilities of the player on roll, before rolling.

        boards: ``(B, 30)`` or ``(30,)`` int8, side-to-move view. Returns
        ``(B, 5)`` (or ``(5,)``) float32, that player's view. ``plies`` 0 is
        ``static``; n >= 1 averages the best play of every roll valued at n - 1.
        """
        check_plies(plies)
        b, single = _batch(boards)
        if plies == 0 or len(b) == 0:
            out = self.static(b)
        else:
            out = np.empty((len(b), N_OUTPUTS), dtype=np.float32)
            leaf = self._is_leaf(b)
            if leaf.any():
                out[leaf] = self.static(b[leaf])
            rest = np.flatnonzero(~leaf)
            for start in range(0, len(rest), EXPAND_BLOCK):
                rows = rest[start : start + EXPAND_BLOCK]
                out[rows] = self._expand(b[rows], plies)
        return out[0] if single else out

    def play_probabilities(
        self, after: np.ndarray, plies: int = 0, extra_roll: np.ndarray | None = None
    ) -> np.ndarray:
        """Values of plays: ``after (M, 30) int8`` mover's view after each play
        (not flipped) -> ``(M, 5) float32``, the mover's view.

        ``invert(evaluate(flip(after), plies))`` (the opponent rolls next); a
        play that bears off the mover's last checker is scored exactly.
        ``extra_roll (M,) bool`` (Acey-Deucey): those plays are followed by
        another roll of the mover, so they get ``evaluate(after, plies)``
        (``tdgammon.engine.evaluation.perspective.play_probabilities``).
        """
        return play_probabilities(
            after, lambda boards: self.evaluate(boards, plies), self.variant, extra_roll
        )

    def score(self, probabilities: np.ndarray) -> np.ndarray:
        """Cubeless equity of ``(..., 5)`` probabilities under the variant's scoring."""
        return variant_equity(np.asarray(probabilities), self.variant)

    def _is_leaf(self, boards: np.ndarray) -> np.ndarray:
        over = is_game_over(boards, self.variant.checkers)
        if self.use_bearoff:
            over |= is_bearoff_position(boards)
        return over

    def _expand(self, boards: np.ndarray, plies: int) -> np.ndarray:
        """n-ply of boards that are not leaves: ``(N, 30)`` -> ``(N, 5) float32``."""
        count = len(boards)
        parents_boards = np.repeat(boards, N_ROLLS, axis=0)
        dice = np.tile(ALL_ROLLS, (count, 1))
        moves = generate_moves(parents_boards, dice, self.variant)
        values = self.play_probabilities(moves.boards, 0, moves.extra_roll)
        pairs = count * N_ROLLS
        if plies > 1:
            scores = self.score(values)
            if self.inner_keep:
                deeper = top_per_parent(scores, moves.parents, self.inner_keep)
            else:
                deeper = np.ones(len(values), dtype=bool)
            values = values.copy()
            values[deeper] = self.play_probabilities(
                moves.boards[deeper], plies - 1, moves.extra_roll[deeper]
            )
            scores = np.where(deeper, self.score(values), -np.inf)
        else:
            scores = self.score(values)
        best = best_rows(scores, moves.parents, pairs)
        chosen = values[best].reshape(count, N_ROLLS, N_OUTPUTS)
        return np.einsum("nrk,r->nk", chosen, _WEIGHTS32).astype(np.float32)

    # ------------------------------------------------------------ choosing plays

    def value_plays(self, moves: MoveList, plies: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """Value every play of ``moves`` with root move filtering (per position).

        moves: ``generate_moves`` of a batch of positions. Returns
        ``(probabilities (M, 5) float32, mover's view after each play;
        depth (M,) int64, the plies each play was valued at)``.
        """
        check_plies(plies)
        values = self.play_probabilities(moves.boards, 0, moves.extra_roll)
        depth = np.zeros(len(values), dtype=np.int64)
        candidates = np.ones(len(values), dtype=bool)
        for level in range(1, plies + 1):
            f = self.filters[min(level - 1, len(self.filters) - 1)]
            scores = np.where(candidates, self.score(values), -np.inf)
            candidates = top_per_parent(scores, moves.parents, f.keep, f.threshold)
            values[candidates] = self.play_probabilities(
                moves.boards[candidates], level, moves.extra_roll[candidates]
            )
            depth[candidates] = level
        return values, depth

    def choose_rows(self, moves: MoveList, batch: int, plies: int = 0) -> np.ndarray:
        """``(batch,) int64``: the best row of ``moves`` per position at ``plies``."""
        values, depth = self.value_plays(moves, plies)
        # per parent: only plays of that parent's deepest level compete
        parent_depth = np.zeros(batch, dtype=np.int64)
        np.maximum.at(parent_depth, moves.parents, depth)
        scores = np.where(depth == parent_depth[moves.parents], self.score(values), -np.inf)
        return best_rows(scores, moves.parents, batch)

    def analyse(self, board: np.ndarray, dice, plies: int = 0) -> list[PlayAnalysis]:
        """Every legal play of one decision, best first (deeper first, then equity).

        board: ``(30,) int8``, the mover's view before the play; dice: two ints
        1..6. Returns ``[]`` when no play is legal (the turn passes).
        """
        board = np.asarray(board, dtype=BOARD_DTYPE).reshape(BOARD_SIZE)
        d1, d2 = check_dice(dice)
        moves = generate_moves(board[None, :], np.array([[d1, d2]], dtype=np.int8), self.variant)
        if moves.is_pass().all():
            return []
        values, depth = self.value_plays(moves, plies)
        scores = self.score(values)
        order = np.lexsort((np.arange(len(scores)), -scores, -depth))
        return [
            PlayAnalysis(
                moves=tuple((int(s), int(t)) for s, t in moves.moves[row] if s >= 0),
                board_after=moves.boards[row].copy(),
                probabilities=values[row].copy(),
                equity=float(scores[row]),
                plies=int(depth[row]),
                named_double=int(moves.named_double[row]),
                extra_roll=bool(moves.extra_roll[row]),
            )
            for row in order
        ]


# ------------------------------------------------------------------- helpers


def rank_per_parent(scores: np.ndarray, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, rank)``, each ``(M,)`` int: ``order`` lists the rows by parent, best
    score first within a parent (ties keep the earlier row), and ``rank[i]`` is
    the place of row ``order[i]`` among its parent's rows (0: the best).

    scores: ``(M,)`` float; parents: ``(M,)`` ints."""
    scores = np.asarray(scores, dtype=np.float64)
    order = np.lexsort((np.arange(len(scores)), -scores, parents))
    p = np.asarray(parents)[order]
    start = np.ones(len(p), dtype=bool)
    start[1:] = p[1:] != p[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(len(p)), 0))
    return order, np.arange(len(p)) - first


def top_per_parent(
    scores: np.ndarray, parents: np.ndarray, keep: int, threshold: float = np.inf
) -> np.ndarray:
    """``(M,) bool``: per parent, the ``keep`` highest scores within ``threshold`` of the best.

    scores: ``(M,)`` float, ``-inf`` for rows that may not be chosen; parents:
    ``(M,)`` ints. Ties keep the earlier row. Every parent with a finite score
    keeps at least its best row.
    """
    scores = np.asarray(scores, dtype=np.float64)
    order, rank = rank_per_parent(scores, parents)
    s = scores[order]
    best = s[np.arange(len(s)) - rank]  # each row's parent's best score
    kept = (rank < keep) & np.isfinite(s) & (s >= best - threshold)
    out = np.zeros(len(scores), dtype=bool)
    out[order[kept]] = True
    return out


def _batch(boards: np.ndarray) -> tuple[np.ndarray, bool]:
    b = np.asarray(boards)
    if b.ndim == 1:
        return b[None, :], True
    return b, False


def check_plies(plies: int) -> None:
    """Raise TdgammonError unless ``plies`` is a whole number 0..MAX_PLIES."""
    if not isinstance(plies, (int, np.integer)) or isinstance(plies, bool):
        raise TdgammonError(f"plies must be a whole number 0-{MAX_PLIES}, got {plies!r}")
    if not 0 <= plies <= MAX_PLIES:
        raise TdgammonError(f"plies must be 0-{MAX_PLIES}, got {plies}")


# ------------------------------------------------------------------- stand-in


class PipCountEvaluator:
    """A deterministic, torch-free stand-in for a network (tests, benchmarks, demos).

    Not a player: a smooth function of the pip counts and blots that returns
    consistent cumulative probabilities (``win >= wg >= wbg``, ``1 - win >=
    lg >= lbg``). boards ``(B, 30)`` side-to-move view -> ``(B, 5) float32``.
    """

    name = "pipcount"

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        b = np.asarray(boards)
        single = b.ndim == 1
        b = b[None, :] if single else b
        mine = mover_pips(b).astype(np.float64)
        theirs = mover_pips(flip(b)).astype(np.float64)
        my_blots = (b[:, POINTS] == 1).sum(axis=1)
        their_blots = (b[:, POINTS] == -1).sum(axis=1)
        # the player on roll is worth about 8 pips
        lead = (theirs - mine + 8.0) / (0.1 * (mine + theirs) + 10.0)
        lead += 0.15 * (their_blots - my_blots)
        win = 1.0 / (1.0 + np.exp(-2.0 * lead))
        gammony_me = (b[:, OPPONENT_OFF] == 0) * np.clip(theirs / 400.0, 0.0, 0.5)
        gammony_them = (b[:, MOVER_OFF] == 0) * np.clip(mine / 400.0, 0.0, 0.5)
        out = np.empty((len(b), N_OUTPUTS), dtype=np.float32)
        out[:, WIN] = win
        out[:, WIN_GAMMON] = win * gammony_me
        out[:, WIN_BACKGAMMON] = out[:, WIN_GAMMON] * 0.1
        out[:, LOSE_GAMMON] = (1.0 - win) * gammony_them
        out[:, LOSE_BACKGAMMON] = out[:, LOSE_GAMMON] * 0.1
        return out[0] if single else out
