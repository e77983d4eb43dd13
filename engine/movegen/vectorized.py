"""The vectorized batch move generator.

``generate_moves(boards, dice)`` plays every roll of a batch at once with
numpy array code and returns flat arrays, with no Python objects in the hot
path (docs/architecture.md, "Array conventions"):

- ``boards``  ``(M, 30) int8``: each distinct resulting board, still from the
  mover's view (not flipped);
- ``parents`` ``(M,) int64``: the input row each came from, ascending;
- ``moves``   ``(M, 4, 2) int8``: the (from, to) pairs that made it, in play
  order, padded with -1 (25 = bar, 0 = off).

A parent with no legal play gets exactly one row: its own board with moves all
-1 (docs/rules.md 2.6: "If nothing can be played, the turn passes"), so every
parent has at least one child. ``tdgammon.engine.movegen.reference`` is the slow
reference it is tested against.

``best_rows(scores, parents, batch)`` is the one "best row per parent" of the
engine: every player that scores the rows of a ``MoveList`` (pubeval, the
heuristic, the network, the search) picks its plays with it.

How it works
------------
The batch is sorted by roll, so inside one roll group the dice are scalars and
every rule is a fixed slice of the ``(F, 30)`` board array. One kernel,
``_single_die_children``, plays one die on a frontier of boards in every legal
way (docs/rules.md 2.2, 2.5, 3.1-3.3); plays are built die by die, so each die sees
the position left by the one before (2.6, 3.1 "checked again before every
single die").

- Doubles: four steps. A checker may only be moved from a point no higher than
  the previous die's source, so each multiset of moves is generated once in
  its canonical order (moving from the higher point first never makes a later
  move illegal: it only brings checkers closer to home and can only clear
  blots). With one die value the moves form a tree (every point has exactly
  one successor, ``s - d`` or off), so distinct multisets give distinct
  boards and no de-duplication is needed.
- Non-doubles: both orders (larger die first, smaller die first), then
  de-duplication of the two-move plays per parent with 64-bit Zobrist-style
  keys, confirmed by an exact comparison of the boards.
- Maximum use of the dice (2.6): per parent, only plays of the greatest
  number of dice are kept; for a non-double with one playable die, the larger
  die's plays when there are any.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdgammon.engine.movegen import compiled
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    MOVER_BAR,
    MOVER_HAND,
    OFF_AND_HOME_BOARD,
    OPPONENT_BAR,
    OUTSIDE_HOME,
    POINTS_AND_BAR,
)
from tdgammon.engine.rules.dice import MAX_MOVES, MAX_MOVES_ACEY_DEUCEY
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.variants import Variant, get_variant

NO_MOVE = -1

# Source columns of a legality mask: columns 0..24 are points 1..25 (25 = the
# bar), column 25 is the hand. Each column's board index, pip number (where a
# move of ``die`` lands at pip - die) and rank in the canonical order of
# doubles (bar first, then the hand, then points from the back).
SOURCE_INDEX = np.array(list(range(1, 26)) + [MOVER_HAND], dtype=np.intp)
SOURCE_PIP = np.array(list(range(1, 26)) + [25], dtype=np.intp)
SOURCE_RANK = np.array(list(range(1, 25)) + [26, 25], dtype=np.intp)
TOP_RANK = 26

_RNG = np.random.default_rng(20261129)
_ZOBRIST = _RNG.integers(0, 2**63, size=BOARD_SIZE, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
"""Odd 64-bit weights: key(board) = sum(board[i] * W[i]) mod 2**64, updated per move."""
_PARENT_WEIGHT = np.uint64(0x9E3779B97F4A7C15)
_EXTRA_ROLL_WEIGHT = np.uint64(0xD1B54A32D192ED03)


@dataclass(frozen=True)
class MoveList:
    """Flat result of ``generate_moves``; see the module docstring for shapes.

    named_double: ``(M,) int8``, Acey-Deucey 1-2 only: the double the player
        named (0 where none). extra_roll: ``(M,) bool``, Acey-Deucey 1-2 only:
        the named double was played in full, so the same player rolls again.
    """

    boards: np.ndarray
    parents: np.ndarray
    moves: np.ndarray
    named_double: np.ndarray
    extra_roll: np.ndarray

    def __len__(self) -> int:
        return len(self.parents)

    def counts(self, batch: int) -> np.ndarray:
        """``(batch,) int64``: number of rows per parent (1 for a pass)."""
        return np.bincount(self.parents, minlength=batch)

    def is_pass(self) -> np.ndarray:
        """``(M,) bool``: rows that are a pass (no checker moved)."""
        return self.moves[:, 0, 0] == NO_MOVE


def best_rows(scores: np.ndarray, parents: np.ndarray, batch: int) -> np.ndarray:
    """``(batch,) int64``: the row of each parent's highest score (every player's choice).

    scores: ``(M,)`` real, one per row of a ``MoveList`` (``-inf`` for rows that
    may not be chosen); parents: ``(M,)`` ascending with every parent
    0..batch-1 present (``MoveList.parents``). Ties go to the first row, i.e.
    move-generator order (deterministic). NaN scores rank below every other;
    a parent whose scores are all equal (all ``-inf``, all NaN) gets its first
    row. Linear time: two ``reduceat`` passes, no sort.
    """
    scores = np.asarray(scores)
    parents = np.asarray(parents)
    if batch == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.searchsorted(parents, np.arange(batch))
    top = np.fmax.reduceat(scores, starts)  # fmax: NaN only where all are NaN
    hit = scores == top[parents]
    undefined = np.isnan(top) if scores.dtype.kind == "f" else None
    if undefined is not None and undefined.any():
        hit |= undefined[parents]
    candidate = np.where(hit, np.arange(len(scores)), len(scores))
    return np.minimum.reduceat(candidate, starts).astype(np.int64)


@dataclass
class _Step:
    """Children of one die step. rows index the frontier they came from."""

    rows: np.ndarray  # (C,) intp, frontier row of each child
    sources: np.ndarray  # (C,) intp, board index moved from (25 bar, 28 hand)
    targets: np.ndarray  # (C,) intp, board index moved to (0 off)
    ranks: np.ndarray  # (C,) intp, SOURCE_RANK of the source
    boards: np.ndarray  # (C, 30) int8
    keys: np.ndarray  # (C,) uint64
    moved: np.ndarray  # (F,) bool, frontier rows that had at least one move


@dataclass
class _Plays:
    """Finished plays of one roll group: rows of boards with parent, moves and keys."""

    boards: np.ndarray  # (C, 30) int8
    parents: np.ndarray  # (C,) intp, row of the group's input
    moves: np.ndarray  # (C, width, 2) int8
    keys: np.ndarray  # (C,) uint64
    depth: np.ndarray  # (C,) intp, dice used

    @staticmethod
    def concat(parts: list[_Plays]) -> _Plays:
        if not parts:
            return _Plays.empty()
        return _Plays(*(np.concatenate([getattr(p, f) for p in parts]) for f in _PLAY_FIELDS))

    @staticmethod
    def empty(width: int = MAX_MOVES) -> _Plays:
        none = np.zeros(0, np.intp)
        return _Plays(
            np.zeros((0, BOARD_SIZE), BOARD_DTYPE),
            none,
            _empty_moves(0, width),
            np.zeros(0, np.uint64),
            none,
        )

    def take(self, rows: np.ndarray) -> _Plays:
        return _Plays(*(getattr(self, f)[rows] for f in _PLAY_FIELDS))


_PLAY_FIELDS = ("boards", "parents", "moves", "keys", "depth")


def _legal_sources(
    boards: np.ndarray, die: int, variant: Variant, max_rank: np.ndarray | None
) -> np.ndarray:
    """``(F, 26) bool``: may the checker of source column j move ``die``?

    Columns as SOURCE_INDEX (points 1..24, bar, hand). boards: ``(F, 30) int8``,
    mover's view. max_rank: ``(F,)`` highest SOURCE_RANK allowed per row (the
    canonical order of doubles) or None.
    """
    frontier = len(boards)
    has_checker = boards[:, POINTS_AND_BAR] > 0
    mask = np.zeros((frontier, 26), dtype=bool)
    # 2.2: "It may not end on a point held by two or more opposing checkers."
    # Sources die+1..25 land on points 1..25-die.
    landing = boards[:, 1 : 26 - die]
    if variant.no_hit_before_home:
        # Dutch: "a player may not hit until at least one of his own checkers
        # has reached his home board" (a checker borne off has reached it).
        reached = (boards[:, OFF_AND_HOME_BOARD] > 0).any(axis=1)
        open_point = (landing >= 0) | ((landing == -1) & reached[:, None])
    else:
        open_point = landing >= -1
    mask[:, die:25] = has_checker[:, die:] & open_point
    # Checkers in hand (variants) enter like checkers on the bar, on point 25 - die.
    in_hand = boards[:, MOVER_HAND] > 0
    any_in_hand = variant.start is None and in_hand.any()
    if any_in_hand:
        mask[:, 25] = in_hand & open_point[:, 24 - die]
        if variant.hand_enters_first:
            # Dutch: "all 15 must be entered before any checker may move on".
            mask[:, :24] &= ~in_hand[:, None]
    # 2.5: "A player with any checker on the bar must enter it before moving
    # anything else."
    off_bar = boards[:, MOVER_BAR] <= 0
    mask[:, :24] &= off_bar[:, None]
    if any_in_hand:
        mask[:, 25] &= off_bar
    # 3.1: "Bearing off is allowed only while all of the mover's remaining
    # checkers are in the home board (none on the bar, none on points 7-24)."
    all_home = ~(boards[:, OUTSIDE_HOME] > 0).any(axis=1)
    if any_in_hand:
        all_home &= ~in_hand
    if all_home.any():
        # 3.2: "A die of n bears off a checker from point n. If point n is empty,
        # the die must be played by a checker on a higher point if one exists; if
        # no checker stands higher than n, the die bears off a checker from the
        # highest occupied point."
        occupied = has_checker[:, :6]
        occupied_from = np.logical_or.accumulate(occupied[:, ::-1], axis=1)[:, ::-1]
        bear = has_checker[:, :die] & all_home[:, None]
        # A checker on point s < die may bear off only if no checker stands above s.
        bear[:, : die - 1] &= ~occupied_from[:, 1:die]
        mask[:, :die] = bear
    if max_rank is not None:
        mask &= SOURCE_RANK[None, :] <= max_rank[:, None]
    return mask


def _single_die_children(
    boards: np.ndarray,
    keys: np.ndarray,
    die: int,
    variant: Variant,
    max_rank: np.ndarray | None = None,
) -> _Step:
    """Play one die in every legal way on each frontier board.

    boards: ``(F, 30) int8`` mover's view; keys: ``(F,) uint64`` their keys.
    """
    mask = _legal_sources(boards, die, variant, max_rank)
    rows, columns = np.nonzero(mask)
    sources = SOURCE_INDEX[columns]
    targets = np.maximum(SOURCE_PIP[columns] - die, 0)
    children = boards[rows]
    flat = children.reshape(-1)
    base = np.arange(len(rows)) * BOARD_SIZE
    # 2.4: "Landing on a blot hits it: the hit checker goes to the bar."
    # Index 0 (mover off) is never negative, so bear-offs never "hit".
    hit = flat[base + targets] == -1
    flat[base + sources] -= 1
    flat[base + targets] += 1 + hit.astype(BOARD_DTYPE)
    flat[base + OPPONENT_BAR] -= hit.astype(BOARD_DTYPE)
    hit_weight = hit.astype(np.uint64)
    child_keys = (
        keys[rows]
        - _ZOBRIST[sources]
        + _ZOBRIST[targets] * (np.uint64(1) + hit_weight)
        - _ZOBRIST[OPPONENT_BAR] * hit_weight
    )
    moved = np.zeros(len(boards), dtype=bool)
    moved[rows] = True
    return _Step(rows, sources, targets, SOURCE_RANK[columns], children, child_keys, moved)


def board_keys(boards: np.ndarray) -> np.ndarray:
    """``(B,) uint64`` Zobrist-style keys: sum(board[i] * W[i]) mod 2**64.

    boards: ``(B, 30) int8``. Equal boards have equal keys; unequal boards
    collide with probability about 2**-63 (and de-duplication double-checks).
    """
    with np.errstate(over="ignore"):
        return (boards.astype(np.int64).astype(np.uint64) * _ZOBRIST[None, :]).sum(
            axis=1, dtype=np.uint64
        )


def _empty_moves(count: int, width: int = MAX_MOVES) -> np.ndarray:
    return np.full((count, width, 2), NO_MOVE, dtype=np.int8)


def _trace_moves(steps: list[_Step], last_rows: np.ndarray, depth: int) -> np.ndarray:
    """``(len(last_rows), 4, 2) int8``: moves of the children ``last_rows`` of step ``depth``.

    Walks the frontier row pointers back from step ``depth - 1`` to step 0.
    """
    moves = _empty_moves(len(last_rows))
    rows = last_rows
    for k in range(depth - 1, -1, -1):
        step = steps[k]
        moves[:, k, 0] = step.sources[rows]
        moves[:, k, 1] = step.targets[rows]
        rows = step.rows[rows]
    return moves


def _play_doubles(boards: np.ndarray, keys: np.ndarray, die: int, variant: Variant) -> _Plays:
    """All maximal plays of a double on ``boards (P, 30)``.

    2.3: "Doubles are played four times." Canonical order: each move's source
    ranks no higher than the previous one (see module docstring). Dutch's
    no-hit rule breaks the argument for that order (a checker reaching home
    first can make a later hit legal), so there every order is tried and each
    step's frontier is de-duplicated instead.
    """
    canonical = not variant.no_hit_before_home
    steps: list[_Step] = []
    frontier, frontier_keys = boards, keys
    max_rank = np.full(len(boards), TOP_RANK, dtype=np.intp) if canonical else None
    finished = []  # (depth, frontier rows that could not move on)
    for depth in range(MAX_MOVES):
        step = _single_die_children(frontier, frontier_keys, die, variant, max_rank)
        if not canonical and len(step.rows):
            parents = _parents_of(steps, step.rows, depth)
            step = _select_step(step, _first_of_each(step.keys, parents, step.boards))
        stuck = np.flatnonzero(~step.moved)
        if len(stuck):
            finished.append((depth, stuck))
        steps.append(step)
        frontier, frontier_keys = step.boards, step.keys
        max_rank = step.ranks if canonical else None
        if len(step.rows) == 0:
            break
    else:
        finished.append((MAX_MOVES, np.arange(len(frontier))))
    return _keep_most_dice(boards, keys, steps, finished, len(boards))


def _select_step(step: _Step, keep: np.ndarray) -> _Step:
    """The step with only the children ``keep`` (``moved`` is unchanged)."""
    return _Step(
        step.rows[keep],
        step.sources[keep],
        step.targets[keep],
        step.ranks[keep],
        step.boards[keep],
        step.keys[keep],
        step.moved,
    )


def _parents_of(steps: list[_Step], rows: np.ndarray, depth: int) -> np.ndarray:
    for k in range(depth - 1, -1, -1):
        rows = steps[k].rows[rows]
    return rows


def _keep_most_dice(boards, keys, steps, finished, parent_count) -> _Plays:
    """Keep, per parent, the finished sequences of the greatest depth (docs/rules.md 2.6)."""
    best_depth = np.zeros(parent_count, dtype=np.intp)
    traced = []
    for depth, rows in finished:  # ascending depth: later assignments win
        parents = _parents_of(steps, rows, depth)
        best_depth[parents] = depth
        traced.append((depth, rows, parents))
    parts = []
    for depth, rows, parents in traced:
        keep = best_depth[parents] == depth
        rows, parents = rows[keep], parents[keep]
        if depth:
            last = steps[depth - 1]
            part_boards, part_keys = last.boards[rows], last.keys[rows]
        else:
            part_boards, part_keys = boards[rows], keys[rows]
        depths = np.full(len(rows), depth, dtype=np.intp)
        parts.append(
            _Plays(part_boards, parents, _trace_moves(steps, rows, depth), part_keys, depths)
        )
    return _Plays.concat(parts)


def _one_die_plays(step: _Step, rows: np.ndarray) -> _Plays:
    moves = _empty_moves(len(rows))
    moves[:, 0, 0] = step.sources[rows]
    moves[:, 0, 1] = step.targets[rows]
    return _Plays(
        step.boards[rows], step.rows[rows], moves, step.keys[rows], np.ones(len(rows), np.intp)
    )


def _two_dice_plays(first: _Step, then: _Step) -> _Plays:
    moves = _empty_moves(len(then.rows))
    moves[:, 0, 0] = first.sources[then.rows]
    moves[:, 0, 1] = first.targets[then.rows]
    moves[:, 1, 0] = then.sources
    moves[:, 1, 1] = then.targets
    return _Plays(
        then.boards, first.rows[then.rows], moves, then.keys, np.full(len(then.rows), 2, np.intp)
    )


def _play_non_doubles(
    boards: np.ndarray, keys: np.ndarray, high: int, low: int, variant: Variant
) -> _Plays:
    """All maximal plays of ``high``-``low`` (high > low) on ``boards (P, 30)``."""
    first_high = _single_die_children(boards, keys, high, variant)
    then_low = _single_die_children(first_high.boards, first_high.keys, low, variant)
    first_low = _single_die_children(boards, keys, low, variant)
    then_high = _single_die_children(first_low.boards, first_low.keys, high, variant)

    # Two-dice plays from both orders, de-duplicated per parent.
    two = _Plays.concat(
        [_two_dice_plays(first_high, then_low), _two_dice_plays(first_low, then_high)]
    )
    parts = [two.take(_first_of_each(two.keys, two.parents, two.boards))]

    # 2.6: one die only -- "the larger one must be played when it can be; if
    # only the smaller one can be played, play it".
    has_two = np.zeros(len(boards), dtype=bool)
    has_two[two.parents] = True
    has_high = first_high.moved
    one_high = ~has_two & has_high
    one_low = ~has_two & ~has_high & first_low.moved
    for step, one in ((first_high, one_high), (first_low, one_low)):
        rows = np.flatnonzero(one[step.rows])
        if len(rows):
            parts.append(_one_die_plays(step, rows))
    # 2.6: "If nothing can be played, the turn passes."
    none = np.flatnonzero(~has_two & ~has_high & ~first_low.moved)
    if len(none):
        parts.append(
            _Plays(
                boards[none],
                none,
                _empty_moves(len(none)),
                keys[none],
                np.zeros(len(none), np.intp),
            )
        )
    return _Plays.concat(parts)


def _play_acey_deucey(boards: np.ndarray, keys: np.ndarray, variant: Variant):
    """Acey-Deucey's 1-2 on ``boards (P, 30)``: returns (plays, named_double, extra_roll).

    docs/rules.md 7: "a roll of 1-2 is played as 1 and 2, then the player names any
    double and plays it as four moves, then rolls again; if the 1 and the 2
    cannot both be played the turn ends at once, and if the named double cannot
    be played in full the extra roll is lost". Every named double is offered;
    rows are distinct per parent by (board, extra roll).
    """
    first = _play_non_doubles(boards, keys, 2, 1, variant)
    width = MAX_MOVES_ACEY_DEUCEY
    both = first.depth == 2
    parts, named, extra = [], [], []
    stopped = first.take(np.flatnonzero(~both))
    parts.append(_widen(stopped, width))
    named.append(np.zeros(len(stopped.parents), np.int8))
    extra.append(np.zeros(len(stopped.parents), bool))
    played = first.take(np.flatnonzero(both))
    for die in range(1, 7) if len(played.parents) else ():
        second = _play_doubles(played.boards, played.keys, die, variant)
        moves = _empty_moves(len(second.parents), width)
        moves[:, :2] = played.moves[second.parents, :2]
        moves[:, 2:] = second.moves
        parts.append(
            _Plays(
                second.boards, played.parents[second.parents], moves, second.keys, second.depth + 2
            )
        )
        named.append(np.full(len(second.parents), die, np.int8))
        extra.append(second.depth == MAX_MOVES)
    plays = _Plays.concat(parts)
    named_double, extra_roll = np.concatenate(named), np.concatenate(extra)
    with np.errstate(over="ignore"):
        keyed = plays.keys + extra_roll.astype(np.uint64) * _EXTRA_ROLL_WEIGHT
    keep = _first_of_each(keyed, plays.parents, plays.boards, extra_roll)
    return plays.take(keep), named_double[keep], extra_roll[keep]


def _widen(plays: _Plays, width: int) -> _Plays:
    moves = _empty_moves(len(plays.parents), width)
    moves[:, : plays.moves.shape[1]] = plays.moves
    return _Plays(plays.boards, plays.parents, moves, plays.keys, plays.depth)


def _first_of_each(
    keys: np.ndarray, parents: np.ndarray, boards: np.ndarray, tags: np.ndarray | None = None
) -> np.ndarray:
    """Indices (ascending) of one row per distinct (parent, board, tag).

    keys: ``(C,) uint64`` keys (already mixing in the tag, if any); parents
    ``(C,)``; boards ``(C, 30) int8``; tags ``(C,)`` or None. Rows with equal
    keys are merged after an exact comparison; on a (never yet seen) key
    collision the exact, slower row comparison decides.
    """
    tags = np.zeros(len(keys), dtype=np.int64) if tags is None else tags.astype(np.int64)
    with np.errstate(over="ignore"):
        combined = keys + parents.astype(np.uint64) * _PARENT_WEIGHT
    representative = _representatives(combined)
    duplicate = np.flatnonzero(representative != np.arange(len(keys)))
    original = representative[duplicate]
    same = (boards[duplicate] == boards[original]).all(axis=1)
    same &= parents[duplicate] == parents[original]
    same &= tags[duplicate] == tags[original]
    if not same.all():
        rows = np.concatenate(
            [parents[:, None].astype(np.int64), tags[:, None], boards.astype(np.int64)], axis=1
        )
        return np.sort(np.unique(rows, axis=0, return_index=True)[1])
    return np.flatnonzero(representative == np.arange(len(keys)))


def _representatives(keys: np.ndarray) -> np.ndarray:
    """``(C,) intp``: for each row, a row with the same key (itself for one per key).

    A hash table in numpy: every row writes its index into the slot given by
    some bits of its key; the row that owns the slot represents every row with
    the same key. Rows whose slot went to a different key try again with other
    bits; O(C) per round, against O(C log C) for np.unique's sort.
    """
    count = len(keys)
    representative = np.arange(count)
    bits = max(1, (2 * count).bit_length())
    table = np.empty(1 << bits, dtype=np.intp)
    slot_mask = np.uint64((1 << bits) - 1)
    pending = representative.copy()
    for shift in range(64 - bits, -1, -bits):
        slots = ((keys[pending] >> np.uint64(shift)) & slot_mask).astype(np.intp)
        table[slots[::-1]] = pending[::-1]  # the earliest row of a slot usually wins
        owner = table[slots]
        same = keys[owner] == keys[pending]
        representative[pending[same]] = owner[same]
        pending = pending[~same]
        if len(pending) == 0:
            return representative
    _, first, inverse = np.unique(keys[pending], return_index=True, return_inverse=True)
    representative[pending] = pending[first[inverse]]
    return representative


def generate_moves(
    boards: np.ndarray, dice: np.ndarray, variant: str | Variant | None = None
) -> MoveList:
    """Every legal play of every (board, roll) pair in the batch.

    boards: ``(B, 30)`` ints (int8 preferred), mover's view, assumed valid
    (``tdgammon.engine.rules.board.validate``). dice: ``(B, 2)`` ints 1..6. variant: a name
    or ``tdgammon.engine.rules.variants.Variant`` (default standard backgammon).
    Returns a MoveList (see module docstring), grouped by parent in input
    order; ``moves`` is ``(M, 4, 2)``, or ``(M, 6, 2)`` for Acey-Deucey.

    The variants whose checkers start on the board are played by the compiled
    generator (``tdgammon.engine.movegen.compiled``: the same rows in the same
    order, about 3-4x faster on large batches and far faster on small ones)
    when numba is available; the others, or ``TDGAMMON_NUMBA=0``, by the
    numpy code of this module.
    """
    variant = get_variant(variant)
    boards = np.ascontiguousarray(boards, dtype=BOARD_DTYPE)
    dice = np.asarray(dice)
    if boards.ndim != 2 or boards.shape[1] != BOARD_SIZE:
        raise FormatError(f"boards must have shape (B, {BOARD_SIZE}), got {boards.shape}")
    if dice.shape != (len(boards), 2):
        raise FormatError(f"dice must have shape ({len(boards)}, 2), got {dice.shape}")
    if len(dice) and (dice.min() < 1 or dice.max() > 6):
        raise FormatError("dice must be 1..6")
    if compiled.supports(variant) and compiled.available():
        children, parents, moves = compiled.generate_pairs(boards, dice)
        return MoveList(
            children,
            parents,
            moves,
            np.zeros(len(parents), np.int8),
            np.zeros(len(parents), bool),
        )
    return generate_moves_numpy(boards, dice, variant)


def generate_moves_numpy(boards: np.ndarray, dice: np.ndarray, variant: Variant) -> MoveList:
    """``generate_moves`` by this module's numpy code, for every variant.

    boards ``(B, 30) int8`` C-contiguous and dice ``(B, 2)`` already checked;
    ``tests/test_movegen_compiled.py`` compares the compiled generator with it.
    """
    width = MAX_MOVES_ACEY_DEUCEY if variant.acey_deucey_roll else MAX_MOVES
    high = dice.max(axis=1).astype(np.intp)
    low = dice.min(axis=1).astype(np.intp)
    code = high * 8 + low
    order = np.argsort(code, kind="stable")
    bounds = np.flatnonzero(np.diff(code[order])) + 1
    keys = board_keys(boards)
    parts, named, extra = [], [], []
    for group in np.split(order, bounds):
        if len(group) == 0:
            continue
        h, low_die = int(high[group[0]]), int(low[group[0]])
        group_boards, group_keys = boards[group], keys[group]
        named_double = extra_roll = None
        if variant.acey_deucey_roll and (h, low_die) == (2, 1):
            plays, named_double, extra_roll = _play_acey_deucey(group_boards, group_keys, variant)
        elif h == low_die:
            plays = _play_doubles(group_boards, group_keys, h, variant)
        else:
            plays = _play_non_doubles(group_boards, group_keys, h, low_die, variant)
        count = len(plays.parents)
        plays.parents = group[plays.parents]
        parts.append(_widen(plays, width) if plays.moves.shape[1] < width else plays)
        named.append(np.zeros(count, np.int8) if named_double is None else named_double)
        extra.append(np.zeros(count, bool) if extra_roll is None else extra_roll)
    if not parts:  # an empty batch
        parts, named, extra = [_Plays.empty(width)], [np.zeros(0, np.int8)], [np.zeros(0, bool)]
    parents = np.concatenate([p.parents for p in parts]).astype(np.int64)
    # A stable sort of 16-bit keys is a radix sort in numpy: O(M).
    sort_keys = parents.astype(np.int16) if len(boards) <= np.iinfo(np.int16).max else parents
    by_parent = np.argsort(sort_keys, kind="stable")
    return MoveList(
        np.concatenate([p.boards for p in parts])[by_parent],
        parents[by_parent],
        np.concatenate([p.moves for p in parts])[by_parent],
        np.concatenate(named)[by_parent],
        np.concatenate(extra)[by_parent],
    )
