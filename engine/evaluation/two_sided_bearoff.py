"""Exact two-sided bear-off database: cubeless winning chances and cubeful money equities.

What it covers
--------------
Pure bear-offs (``tdgammon.engine.evaluation.bearoff.is_bearoff_position``) in
which each side has between 1 and ``max_checkers`` (6 by default) checkers
left, all on its six home points. With the one-sided ranking of
``tdgammon.engine.evaluation.bearoff`` (``position_index``: 924 positions of
up to 6 checkers, the empty one = 0) it holds, for every pair (roller ``x``,
opponent ``y``), the player on roll's

- ``win[x, y]``: exact cubeless probability of winning, both sides playing to
  maximise their own winning chances;
- ``no_double[c, x, y]``: exact cubeful money equity, normalised to the
  current stake, of *rolling without doubling now* with the cube where
  ``CUBE_OWNERS[c]`` says (centred, owned by the player on roll, owned by the
  opponent), both sides then playing and handling the cube perfectly.

No gammons: docs/rules.md 4, "gammon (2 x cube) when the loser has borne off
none". A side with at most 6 of its 15 checkers left has borne off at least 9,
so every game here is a single game, the cubeless equity is ``2 win - 1`` and
the Jacoby rule changes nothing. (In a variant with fewer checkers a side with
all of them left could still be gammoned: ``covers`` asks for fewer than the
variant's checkers left on each side.)

Recursion (backward induction)
------------------------------
A pure bear-off has no contact, so each side's legal plays depend on its own
checkers only: ``bearoff.successor_indices`` lists the positions each roll can
leave (the project's move generator on a board holding that side alone). With
``w_r`` the 21 roll weights and ``x'`` the positions roll ``r`` leaves from x:

    win[x, y] = sum_r w_r max_x' (1 - win[y, x'])

The cube (docs/rules.md 5): "A double is offered only at the start of one's
own turn, before rolling. The opponent then takes (game continues at twice
the stake; the taker now owns the cube and only the owner may redouble) or
drops (passes: loses the current stake at once)." Money play, no cube limit,
no beavers: equities scale with the stake, so with ``V_c`` the value after
the best cube action of the player on roll (cube state ``c``, his view),

    V_opponent = ND_opponent                       (he cannot double)
    V_c = max(ND_c, min(2 ND_opponent, 1))         c = centred or his own cube
    ND_c[x, y] = sum_r w_r max_x' (-V_c'[y, x'])   c' = c seen by the opponent

where a double taken leaves the same position with the opponent owning a cube
of twice the value (``DT = 2 ND_opponent``) and a pass gives +1 (``DP``); the
opponent sees a centred cube as centred and swaps the two owners. A play that
bears off the last checker wins the stake: column 0 (an empty side) holds
``win = 0`` and ``ND = -1`` for the player on roll whose opponent has finished
(row 0 is never used: the player on roll always has a checker left).

Every play lowers the mover's pip count, so ``(y, x')`` has a smaller total
pip count than ``(x, y)``: pairs are processed in increasing total pips, each
total in one vectorized pass (a gather of the successors' values, a maximum
per (pair, roll) and the roll-weighted sum).

Cube decisions (``two_sided_cube_equities``): ``ND``, ``DT``, ``DP`` in the
cube layer's convention (``tdgammon.engine.cube.theory``): the player on roll
doubles when the cube is available to him and ``min(DT, DP) >= ND``, the
opponent takes when ``DT <= DP``; the value is ``max(ND, min(DT, DP))``.

Cache: built on first use (``get_two_sided``) and cached next to the one-sided
database (``bearoff.cache_dir``) as
``bearoff_two_sided_v{TWO_SIDED_VERSION}_{max_checkers}.npz`` with a version
tag and a SHA-256 checksum; a bad cache is rebuilt with a warning
(``bearoff.load_or_build``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from tdgammon.engine.evaluation.bearoff import (
    HOME_POINTS,
    all_positions,
    cache_dir,
    evaluate_bearoff,
    home_counts_of,
    is_bearoff_position,
    load_or_build,
    position_count,
    position_index,
    read_tables,
    successor_indices,
    write_tables,
)
from tdgammon.engine.rules.board import CHECKERS_PER_SIDE
from tdgammon.engine.rules.dice import ROLL_WEIGHTS
from tdgammon.engine.rules.errors import InvalidBoardError
from tdgammon.engine.rules.outputs import N_OUTPUTS, WIN
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, CUBE_OWNERS

TWO_SIDED_VERSION = 1
"""Bumped whenever the file layout or the recursion changes; part of the cache name."""

TWO_SIDED_CHECKERS = 6
"""Checkers per side of the default database: 924 one-sided positions, 853,776 pairs."""

_N_ROLLS = len(ROLL_WEIGHTS)
_CENTRED, _MOVER, _OPPONENT = (
    CUBE_OWNERS.index(c) for c in (CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT)
)
_SEEN_BY_OPPONENT = (_CENTRED, _OPPONENT, _MOVER)
"""Cube state index as the opponent sees it, indexed by the roller's."""


@dataclass(frozen=True, eq=False)
class TwoSidedDatabase:
    """The exact two-sided tables (module docstring). N = ``position_count(max_checkers)``.

    win: ``(N, N) float64``, [roller index, opponent index] -> roller's cubeless
    winning chance before rolling. no_double: ``(3, N, N) float64``, cube state
    (``CUBE_OWNERS`` order, roller's view) first: the roller's equity for not
    doubling, normalised to the stake.
    """

    max_checkers: int
    win: np.ndarray
    no_double: np.ndarray
    generation_seconds: float = 0.0


def _after_cube_action(no_double: np.ndarray) -> np.ndarray:
    """``V_c`` from ``ND_c`` (module docstring): ``(3, ...)`` -> ``(3, ...)``, same order."""
    double = np.minimum(2.0 * no_double[_OPPONENT], 1.0)
    values = np.empty_like(no_double)
    values[_CENTRED] = np.maximum(no_double[_CENTRED], double)
    values[_MOVER] = np.maximum(no_double[_MOVER], double)
    values[_OPPONENT] = no_double[_OPPONENT]
    return values


def _pairs_by_total_pips(pips: np.ndarray):
    """Yield ``(xs, ys)`` index arrays of the pairs of non-empty positions, one total
    pip count at a time, in increasing order. pips: ``(N,)`` pips of each index."""
    live = np.flatnonzero(pips > 0)
    totals = (pips[live, None] + pips[None, live]).ravel()
    order = np.argsort(totals, kind="stable")
    for chunk in np.split(order, np.flatnonzero(np.diff(totals[order])) + 1):
        yield live[chunk // len(live)], live[chunk % len(live)]


def _layer_gather(xs, ys, roll_start, children, count) -> tuple[np.ndarray, np.ndarray]:
    """Where to read one layer's successor values, and how to group them.

    xs, ys: ``(L,)`` roller and opponent indices of the layer's pairs.
    roll_start: ``(N * 21 + 1,)`` offsets into ``children`` of each (x, roll).
    Returns ``flat (E,)``, the flat index ``y * count + x'`` of every (pair,
    roll, play), and ``segments (L * 21,)``, where each (pair, roll) starts in it.
    """
    start = roll_start[xs * _N_ROLLS]
    lengths = roll_start[xs * _N_ROLLS + _N_ROLLS] - start
    base = np.cumsum(lengths) - lengths
    entry = np.repeat(start - base, lengths) + np.arange(lengths.sum())
    flat = np.repeat(ys * count, lengths) + children[entry]
    rolls = roll_start[xs[:, None] * _N_ROLLS + np.arange(_N_ROLLS)]
    return flat, (rolls - start[:, None] + base[:, None]).ravel()


def _best_average(values: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """``(L,)``: per pair, the roll-weighted mean of the best of ``values (E,)`` per roll."""
    best = np.maximum.reduceat(values, segments).reshape(-1, _N_ROLLS)
    return best @ ROLL_WEIGHTS


def build_two_sided(max_checkers: int = TWO_SIDED_CHECKERS) -> TwoSidedDatabase:
    """Compute the tables for up to ``max_checkers`` (1..14) checkers a side, in memory."""
    if not 1 <= max_checkers < CHECKERS_PER_SIDE:
        raise ValueError(f"max_checkers must be 1..{CHECKERS_PER_SIDE - 1}, got {max_checkers}")
    start = time.perf_counter()
    positions = all_positions(max_checkers)
    count = len(positions)
    parents, children = successor_indices(positions)
    roll_start = np.searchsorted(parents, np.arange(count * _N_ROLLS + 1))
    pips = positions.astype(np.int64) @ np.arange(1, HOME_POINTS + 1)
    win = np.zeros((count, count))
    no_double = np.zeros((len(CUBE_OWNERS), count, count))
    no_double[:, :, 0] = -1.0  # the opponent has borne off his last checker
    values = no_double.copy()  # V_c, kept beside ND_c while building
    win_flat, values_flat = win.reshape(-1), values.reshape(len(CUBE_OWNERS), -1)
    for xs, ys in _pairs_by_total_pips(pips):
        flat, segments = _layer_gather(xs, ys, roll_start, children, count)
        win[xs, ys] = _best_average(1.0 - win_flat[flat], segments)
        for cube, seen in enumerate(_SEEN_BY_OPPONENT):
            no_double[cube, xs, ys] = _best_average(-values_flat[seen, flat], segments)
        values[:, xs, ys] = _after_cube_action(no_double[:, xs, ys])
    np.clip(win, 0.0, 1.0, out=win)  # sums of 1 - win leave 1e-17 dust
    np.clip(no_double, -1.0, 1.0, out=no_double)
    return TwoSidedDatabase(max_checkers, win, no_double, time.perf_counter() - start)


# ----------------------------------------------------------------------------- cache


def two_sided_cache_path(max_checkers: int = TWO_SIDED_CHECKERS) -> Path:
    """Where the two-sided database for ``max_checkers`` is cached."""
    return cache_dir() / f"bearoff_two_sided_v{TWO_SIDED_VERSION}_{max_checkers}.npz"


def save_two_sided(database: TwoSidedDatabase, path: Path) -> None:
    """Write ``database`` to ``path`` atomically (compressed npz with version and checksum)."""
    write_tables(
        path,
        TWO_SIDED_VERSION,
        database.max_checkers,
        database.generation_seconds,
        win=database.win,
        no_double=database.no_double,
    )


def load_two_sided(path: Path, max_checkers: int = TWO_SIDED_CHECKERS) -> TwoSidedDatabase:
    """Read and validate a cached database; raises ValueError when it is not usable."""
    tables, seconds = read_tables(path, TWO_SIDED_VERSION, max_checkers, ("win", "no_double"))
    win, no_double = tables["win"], tables["no_double"]
    count = position_count(max_checkers)
    if win.shape != (count, count) or no_double.shape != (len(CUBE_OWNERS), count, count):
        raise ValueError(f"{path}: shape {win.shape}, expected {(count, count)}")
    if not (0.0 <= win.min() and win.max() <= 1.0 and np.abs(no_double).max() <= 1.0):
        raise ValueError(f"{path}: values out of range")
    return TwoSidedDatabase(max_checkers, win, no_double, seconds)


@lru_cache(maxsize=2)
def get_two_sided(
    max_checkers: int = TWO_SIDED_CHECKERS, use_cache: bool = True
) -> TwoSidedDatabase:
    """The two-sided database for ``max_checkers``: from the cache file, else built (and cached)."""
    return load_or_build(
        two_sided_cache_path(max_checkers),
        lambda path: load_two_sided(path, max_checkers),
        lambda: build_two_sided(max_checkers),
        save_two_sided,
        use_cache,
        "two-sided bear-off",
    )


# ----------------------------------------------------------------------------- queries


def covers(
    boards: np.ndarray,
    checkers_per_side: int = CHECKERS_PER_SIDE,
    max_checkers: int = TWO_SIDED_CHECKERS,
) -> np.ndarray:
    """``(B,) bool``: positions the two-sided database of ``max_checkers`` values exactly.

    boards: ``(B, 30)`` or ``(30,)`` signed ints, view of the player on roll. A
    pure bear-off (``is_bearoff_position``) in which each side has 1 to
    ``max_checkers`` checkers left, and fewer than ``checkers_per_side`` (the
    variant's checkers: none can be gammoned). Does not load the database.
    """
    mover, opponent = home_counts_of(boards)
    most = min(max_checkers, checkers_per_side - 1)
    left = np.stack([mover.sum(axis=-1), opponent.sum(axis=-1)])
    return is_bearoff_position(boards, max_checkers) & ((left >= 1) & (left <= most)).all(axis=0)


def _pair_indices(boards: np.ndarray, database: TwoSidedDatabase) -> tuple[np.ndarray, np.ndarray]:
    """(roller, opponent) one-sided indices ``(B,) int64`` of covered ``boards (B, 30)``."""
    if not covers(boards, max_checkers=database.max_checkers).all():
        raise InvalidBoardError(
            f"not a bear-off with 1 to {database.max_checkers} checkers left on each side"
        )
    mover, opponent = home_counts_of(boards)
    return position_index(mover), position_index(opponent)


def two_sided_probabilities(
    boards: np.ndarray, database: TwoSidedDatabase | None = None
) -> np.ndarray:
    """Exact cubeless probabilities: ``(B, 30)`` -> ``(B, 5) float32`` (or ``(30,)`` -> ``(5,)``).

    boards: covered positions (``covers``; InvalidBoardError otherwise), view
    of the player on roll. GNU order win, wg, wbg, lg, lbg for that player:
    ``[win, 0, 0, 0, 0]``, no gammons (module docstring).
    """
    b = np.asarray(boards)
    db = database or get_two_sided()
    roller, opponent = _pair_indices(b.reshape(-1, b.shape[-1]), db)
    out = np.zeros((len(roller), N_OUTPUTS), dtype=np.float32)
    out[:, WIN] = db.win[roller, opponent]
    return out if b.ndim == 2 else out[0]


def two_sided_cube_equities(
    boards: np.ndarray, cube_owner: str = CUBE_CENTRED, database: TwoSidedDatabase | None = None
) -> np.ndarray:
    """Exact money cube decision: ``(B, 30)`` -> ``(B, 3) float64`` (``(30,)`` -> ``(3,)``).

    boards: covered positions (``covers``), view of the player on roll.
    cube_owner: ``CUBE_CENTRED``, ``CUBE_MOVER`` (the player on roll) or
    ``CUBE_OPPONENT``. Columns: ND, his equity rolling without doubling with
    the cube where it is; DT, after doubling and a take (the opponent owns a
    cube of twice the value); DP = 1; all normalised to the current stake.
    With the cube available (not ``CUBE_OPPONENT``) the value is
    ``max(ND, min(DT, DP))``, otherwise ND. ``2 x ND`` with ``CUBE_MOVER`` is
    the cube layer's ``KEEP`` (a redoubler who keeps the cube; no beavers here).
    """
    if cube_owner not in CUBE_OWNERS:
        raise ValueError(f"cube owner must be one of {CUBE_OWNERS}, got {cube_owner!r}")
    b = np.asarray(boards)
    db = database or get_two_sided()
    roller, opponent = _pair_indices(b.reshape(-1, b.shape[-1]), db)
    nd = db.no_double[CUBE_OWNERS.index(cube_owner), roller, opponent]
    dt = 2.0 * db.no_double[_OPPONENT, roller, opponent]
    out = np.stack([nd, dt, np.ones_like(nd)], axis=-1)
    return out if b.ndim == 2 else out[0]


def bearoff_probabilities(
    boards: np.ndarray, checkers_per_side: int = CHECKERS_PER_SIDE
) -> np.ndarray:
    """Pure bear-offs valued as exactly as the databases allow: ``(B, 30)`` -> ``(B, 5) float32``.

    boards: ``(B, 30)`` pure bear-offs (``is_bearoff_position``), view of the
    player on roll. The rows ``covers`` names get ``two_sided_probabilities``
    (exact); the others the one-sided estimate ``bearoff.evaluate_bearoff``.
    A drop-in for ``evaluate_bearoff`` where its database is the default one.
    """
    b = np.asarray(boards)
    exact = covers(b, checkers_per_side)
    out = np.empty((len(b), N_OUTPUTS), dtype=np.float32)
    if exact.any():
        out[exact] = two_sided_probabilities(b[exact])
    if (~exact).any():
        out[~exact] = evaluate_bearoff(b[~exact], checkers_per_side=checkers_per_side)
    return out
