"""The vectorized batch move generator.

``generate_moves(boards, dice)`` plays every roll of a batch at once with
numpy array code and returns flat arrays, with no Python objects in the hot
path (architecture.md, "Array conventions"):

- ``boards``  ``(M, 30) int8``: each distinct resulting board, still from the
  mover's view (not flipped);
- ``parents`` ``(M,) int64``: the input row each came from, ascending;
- ``moves``   ``(M, 4, 2) int8``: the (from, to) pairs that made it, in play
  order, padded with -1 (25 = bar, 0 = off).

A parent with no legal play gets exactly one row: its own board with moves all
-1 (rules.md 2.6: "If nothing can be played, the turn passes"), so every
parent has at least one child. ``engine.movegen_reference`` is the slow
reference it is tested against.

How it works
------------
The batch is sorted by roll, so inside one roll group the dice are scalars and
every rule is a fixed slice of the ``(F, 30)`` board array. One kernel,
``_single_die_children``, plays one die on a frontier of boards in every legal
way (rules.md 2.2, 2.5, 3.1-3.3); plays are built die by die, so each die sees
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

from engine.board import BOARD_DTYPE, BOARD_SIZE, MOVER_BAR, MOVER_HAND, OPPONENT_BAR
from engine.errors import FormatError

MAX_MOVES = 4
NO_MOVE = -1
SOURCE_POINTS = np.arange(1, 26)
"""Column j of a source mask is point j + 1 (25 = the bar)."""

_RNG = np.random.default_rng(20261129)
_ZOBRIST = _RNG.integers(0, 2**63, size=BOARD_SIZE, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
"""Odd 64-bit weights: key(board) = sum(board[i] * W[i]) mod 2**64, updated per move."""
_PARENT_WEIGHT = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class MoveList:
    """Flat result of ``generate_moves``; see the module docstring for shapes."""

    boards: np.ndarray
    parents: np.ndarray
    moves: np.ndarray

    def __len__(self) -> int:
        return len(self.parents)

    def counts(self, batch: int) -> np.ndarray:
        """``(batch,) int64``: number of rows per parent (1 for a pass)."""
        return np.bincount(self.parents, minlength=batch)

    def is_pass(self) -> np.ndarray:
        """``(M,) bool``: rows that are a pass (no checker moved)."""
        return self.moves[:, 0, 0] == NO_MOVE


@dataclass
class _Step:
    """Children of one die step. rows index the frontier they came from."""

    rows: np.ndarray  # (C,) intp, frontier row of each child
    sources: np.ndarray  # (C,) intp
    targets: np.ndarray  # (C,) intp
    boards: np.ndarray  # (C, 30) int8
    keys: np.ndarray  # (C,) uint64
    moved: np.ndarray  # (F,) bool, frontier rows that had at least one move


def _legal_sources(boards: np.ndarray, die: int, max_source: np.ndarray | None) -> np.ndarray:
    """``(F, 25) bool``: column j is True when a checker on point j + 1 may move ``die``.

    boards: ``(F, 30) int8``, mover's view. max_source: ``(F,)`` highest source
    allowed per row (canonical order for doubles) or None.
    """
    frontier = len(boards)
    has_checker = boards[:, 1:26] > 0
    mask = np.zeros((frontier, 25), dtype=bool)
    # 2.2: "It may not end on a point held by two or more opposing checkers."
    # Sources die+1..25 land on points 1..25-die.
    mask[:, die:] = has_checker[:, die:] & (boards[:, 1 : 26 - die] >= -1)
    # 2.5: "A player with any checker on the bar must enter it before moving
    # anything else."
    mask[:, :24] &= (boards[:, MOVER_BAR] <= 0)[:, None]
    # 3.1: "Bearing off is allowed only while all of the mover's remaining
    # checkers are in the home board (none on the bar, none on points 7-24)."
    all_home = ~(boards[:, 7:26] > 0).any(axis=1) & (boards[:, MOVER_HAND] <= 0)
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
    if max_source is not None:
        mask &= SOURCE_POINTS[None, :] <= max_source[:, None]
    return mask


def _single_die_children(
    boards: np.ndarray, keys: np.ndarray, die: int, max_source: np.ndarray | None = None
) -> _Step:
    """Play one die in every legal way on each frontier board.

    boards: ``(F, 30) int8`` mover's view; keys: ``(F,) uint64`` their keys.
    """
    mask = _legal_sources(boards, die, max_source)
    rows, columns = np.nonzero(mask)
    sources = columns + 1
    targets = np.maximum(sources - die, 0)
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
    return _Step(rows, sources, targets, children, child_keys, moved)


def board_keys(boards: np.ndarray) -> np.ndarray:
    """``(B,) uint64`` Zobrist-style keys: sum(board[i] * W[i]) mod 2**64.

    boards: ``(B, 30) int8``. Equal boards have equal keys; unequal boards
    collide with probability about 2**-63 (and de-duplication double-checks).
    """
    with np.errstate(over="ignore"):
        return (boards.astype(np.int64).astype(np.uint64) * _ZOBRIST[None, :]).sum(
            axis=1, dtype=np.uint64
        )


def _empty_moves(count: int) -> np.ndarray:
    return np.full((count, MAX_MOVES, 2), NO_MOVE, dtype=np.int8)


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


def _play_doubles(boards: np.ndarray, keys: np.ndarray, die: int):
    """All maximal plays of a double on ``boards (P, 30)``; returns (boards, parents, moves).

    2.3: "Doubles are played four times." Canonical order: each move's source
    is no higher than the previous one (see module docstring).
    """
    steps: list[_Step] = []
    frontier, frontier_keys = boards, keys
    max_source = np.full(len(boards), 25, dtype=np.intp)
    finished = []  # (depth, frontier rows that could not move on)
    for depth in range(MAX_MOVES):
        step = _single_die_children(frontier, frontier_keys, die, max_source)
        stuck = np.flatnonzero(~step.moved)
        if len(stuck):
            finished.append((depth, stuck))
        steps.append(step)
        frontier, frontier_keys, max_source = step.boards, step.keys, step.sources
        if len(step.rows) == 0:
            break
    else:
        finished.append((MAX_MOVES, np.arange(len(frontier))))
    return _keep_most_dice(boards, steps, finished, len(boards))


def _parents_of(steps: list[_Step], rows: np.ndarray, depth: int) -> np.ndarray:
    for k in range(depth - 1, -1, -1):
        rows = steps[k].rows[rows]
    return rows


def _keep_most_dice(boards, steps, finished, parent_count):
    """Keep, per parent, the finished sequences of the greatest depth (rules.md 2.6)."""
    best_depth = np.zeros(parent_count, dtype=np.intp)
    traced = []
    for depth, rows in finished:  # ascending depth: later assignments win
        parents = _parents_of(steps, rows, depth)
        best_depth[parents] = depth
        traced.append((depth, rows, parents))
    out_boards, out_parents, out_moves = [], [], []
    for depth, rows, parents in traced:
        keep = best_depth[parents] == depth
        rows, parents = rows[keep], parents[keep]
        if len(rows) == 0:
            continue
        out_boards.append(steps[depth - 1].boards[rows] if depth else boards[rows])
        out_parents.append(parents)
        out_moves.append(_trace_moves(steps, rows, depth))
    return out_boards, out_parents, out_moves


def _play_non_doubles(boards: np.ndarray, keys: np.ndarray, high: int, low: int):
    """All maximal plays of ``high``-``low`` (high > low) on ``boards (P, 30)``."""
    parent_count = len(boards)
    first_high = _single_die_children(boards, keys, high)
    then_low = _single_die_children(first_high.boards, first_high.keys, low)
    first_low = _single_die_children(boards, keys, low)
    then_high = _single_die_children(first_low.boards, first_low.keys, high)

    # Two-dice plays from both orders, de-duplicated per parent.
    parents_hl = first_high.rows[then_low.rows]
    parents_lh = first_low.rows[then_high.rows]
    two_parents = np.concatenate([parents_hl, parents_lh])
    two_keys = np.concatenate([then_low.keys, then_high.keys])
    two_boards = np.concatenate([then_low.boards, then_high.boards])
    two_moves = _empty_moves(len(two_parents))
    n_hl = len(parents_hl)
    two_moves[:n_hl, 0, 0] = first_high.sources[then_low.rows]
    two_moves[:n_hl, 0, 1] = first_high.targets[then_low.rows]
    two_moves[:n_hl, 1, 0] = then_low.sources
    two_moves[:n_hl, 1, 1] = then_low.targets
    two_moves[n_hl:, 0, 0] = first_low.sources[then_high.rows]
    two_moves[n_hl:, 0, 1] = first_low.targets[then_high.rows]
    two_moves[n_hl:, 1, 0] = then_high.sources
    two_moves[n_hl:, 1, 1] = then_high.targets
    keep = _first_of_each(two_keys, two_parents, two_boards)
    out_boards = [two_boards[keep]]
    out_parents = [two_parents[keep]]
    out_moves = [two_moves[keep]]

    # 2.6: one die only -- "the larger one must be played when it can be; if
    # only the smaller one can be played, play it".
    has_two = np.zeros(parent_count, dtype=bool)
    has_two[two_parents] = True
    has_high = first_high.moved
    one_high = ~has_two & has_high
    one_low = ~has_two & ~has_high & first_low.moved
    for step, one in ((first_high, one_high), (first_low, one_low)):
        rows = np.flatnonzero(one[step.rows])
        if len(rows):
            out_boards.append(step.boards[rows])
            out_parents.append(step.rows[rows])
            moves = _empty_moves(len(rows))
            moves[:, 0, 0] = step.sources[rows]
            moves[:, 0, 1] = step.targets[rows]
            out_moves.append(moves)
    # 2.6: "If nothing can be played, the turn passes."
    none = np.flatnonzero(~has_two & ~has_high & ~first_low.moved)
    if len(none):
        out_boards.append(boards[none])
        out_parents.append(none)
        out_moves.append(_empty_moves(len(none)))
    return out_boards, out_parents, out_moves


def _first_of_each(keys: np.ndarray, parents: np.ndarray, boards: np.ndarray) -> np.ndarray:
    """Indices (ascending) of one row per distinct (parent, board).

    keys: ``(C,) uint64`` board keys; parents ``(C,)``; boards ``(C, 30) int8``.
    Rows with equal keys are merged after an exact board comparison; on a
    (never yet seen) key collision the exact, slower row comparison decides.
    """
    with np.errstate(over="ignore"):
        combined = keys + parents.astype(np.uint64) * _PARENT_WEIGHT
    representative = _representatives(combined)
    duplicate = np.flatnonzero(representative != np.arange(len(keys)))
    original = representative[duplicate]
    same = (boards[duplicate] == boards[original]).all(axis=1)
    if not (same & (parents[duplicate] == parents[original])).all():
        rows = np.concatenate([parents[:, None].astype(np.int64), boards.astype(np.int64)], axis=1)
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


def generate_moves(boards: np.ndarray, dice: np.ndarray) -> MoveList:
    """Every legal play of every (board, roll) pair in the batch.

    boards: ``(B, 30)`` ints (int8 preferred), mover's view, assumed valid
    (``engine.board.validate``). dice: ``(B, 2)`` ints 1..6.
    Returns a MoveList (see module docstring), grouped by parent in input order.
    """
    boards = np.ascontiguousarray(boards, dtype=BOARD_DTYPE)
    dice = np.asarray(dice)
    if boards.ndim != 2 or boards.shape[1] != BOARD_SIZE:
        raise FormatError(f"boards must have shape (B, {BOARD_SIZE}), got {boards.shape}")
    if dice.shape != (len(boards), 2):
        raise FormatError(f"dice must have shape ({len(boards)}, 2), got {dice.shape}")
    if len(dice) and (dice.min() < 1 or dice.max() > 6):
        raise FormatError("dice must be 1..6")
    high = dice.max(axis=1).astype(np.intp)
    low = dice.min(axis=1).astype(np.intp)
    code = high * 8 + low
    order = np.argsort(code, kind="stable")
    sorted_code = code[order]
    bounds = np.flatnonzero(np.diff(sorted_code)) + 1
    keys = board_keys(boards)
    out_boards, out_parents, out_moves = [], [], []
    for group in np.split(order, bounds):
        if len(group) == 0:
            continue
        h, low_die = int(high[group[0]]), int(low[group[0]])
        group_boards = boards[group]
        group_keys = keys[group]
        if h == low_die:
            parts = _play_doubles(group_boards, group_keys, h)
        else:
            parts = _play_non_doubles(group_boards, group_keys, h, low_die)
        out_boards.extend(parts[0])
        out_parents.extend(group[p] for p in parts[1])
        out_moves.extend(parts[2])
    if not out_parents:
        return MoveList(
            np.zeros((0, BOARD_SIZE), BOARD_DTYPE), np.zeros(0, np.int64), _empty_moves(0)
        )
    parents = np.concatenate(out_parents).astype(np.int64)
    # A stable sort of 16-bit keys is a radix sort in numpy: O(M).
    sort_keys = parents.astype(np.int16) if len(boards) <= np.iinfo(np.int16).max else parents
    by_parent = np.argsort(sort_keys, kind="stable")
    return MoveList(
        np.concatenate(out_boards)[by_parent],
        parents[by_parent],
        np.concatenate(out_moves)[by_parent],
    )
