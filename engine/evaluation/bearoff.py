"""Exact one-sided bear-off database (cubeless; knows nothing of the cube).

What it holds
-------------
For every way of placing up to ``max_checkers`` (15 by default) checkers of one
player on that player's six home points (54,264 positions for 15, the empty
one included) two probability distributions, each ``(MAX_ROLLS,) float64``
indexed by a number of rolls ``k = 0, 1, ..., MAX_ROLLS - 1``:

- ``bearoff[k]``: probability that the player needs exactly ``k`` rolls to
  bear off every checker still on the board;
- ``gammon[k]``: probability that the player needs exactly ``k`` rolls to bear
  off at least one of the checkers now on the board (its first checker off
  when none is off yet; this is what saves a gammon, docs/rules.md 4: "gammon
  (2 x cube) when the loser has borne off none"). The empty position has
  ``gammon[0] = 1``.

Policy (documented because the distributions depend on it): for ``bearoff``
the player picks, for every roll, the legal play whose resulting position has
the smallest expected number of further rolls to bear off all checkers (the
classical "minimise expected rolls" one-sided policy of GNU Backgammon's
one-sided database). For ``gammon`` the player picks the play minimising the
expected number of rolls to get a checker off (a play that bears a checker off
counts 0 further rolls). Ties go to the resulting position of lowest index
(deterministic). Each side's two distributions are therefore computed under
one fixed policy each and independently of the opponent; this is the standard
one-sided approximation (exact for the policies stated, not the race-optimal
two-sided play).

Generation: positions are processed in increasing order of pip count; every
legal play in a pure bear-off strictly lowers the pip count, so all successors
of a layer are known when it is reached. Each layer is one vectorized call to
``tdgammon.engine.movegen.vectorized.generate_moves`` for all (position, roll) pairs of the layer.

Index scheme (combinatorial ranking)
------------------------------------
``home_counts = (c1, ..., c6)``: checkers on points 1 (ace) .. 6. Let
``t_k = c6 + c5 + ... + c(7-k)`` for ``k = 1..6`` (counts from the six-point
down; ``t_6`` is the number of checkers). The numbers ``b_k = t_k + k - 1``
are strictly increasing, so ``{b_1 < ... < b_6}`` is a 6-subset of
``{0, ..., max_checkers + 5}`` ("stars and bars"), and its colex rank

    index = sum_{k=1..6} C(b_k, k)

is a bijection onto ``0 .. C(max_checkers + 6, 6) - 1`` (empty position = 0).
Colex rank does not depend on ``max_checkers``, so a smaller database is a
prefix of a larger one, and any play (which moves checkers towards the ace
point or off) only lowers the ``t_k``, hence the index.

Cache
-----
The database is built on first use (15-20 s on one core for 15 checkers, see
``scripts/bench_bearoff.py``) and cached in ``$TDGAMMON_CACHE`` or
``$XDG_CACHE_HOME/tdgammon`` (default ``~/.cache/tdgammon``) as
``bearoff_v{BEAROFF_VERSION}_{max_checkers}.npz`` with a version tag and a
SHA-256 checksum. A cache that cannot be read, has the wrong version, shape or
checksum, or whose distributions do not sum to one is rebuilt with a warning,
never a crash; an unwritable cache directory only costs a warning.

Boards are ``(B, 30)`` signed ints in the side-to-move view of
``tdgammon.engine.rules.board``; probabilities are ``(B, 5)`` in the GNU Backgammon order
win, win gammon, win backgammon, lose gammon, lose backgammon for the player
on roll, before rolling.
"""

from __future__ import annotations

import hashlib
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from pathlib import Path
from typing import TypeVar

import numpy as np

from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    HOME_BOARD,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OFF,
    OPPONENT_OUTSIDE_HOME,
    OUTSIDE_HOME,
    flip,
)
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.errors import InvalidBoardError
from tdgammon.engine.rules.outputs import (
    LOSE_GAMMON,
    N_OUTPUTS,
    WIN,
    WIN_GAMMON,
)

BEAROFF_VERSION = 1
"""Bumped whenever the file layout or the policy changes; part of the cache name."""

HOME_POINTS = 6
MAX_ROLLS = 32
"""Length of every distribution; the slowest position (15 on the six point) needs at
most 30 rolls, and generation raises if any probability would fall off the end."""


_BINOMIAL = np.array([[comb(n, k) for k in range(HOME_POINTS + 1)] for n in range(64)], np.int64)
# Mover indices 1..6 are the mover's home points 1..6; the opponent's home
# points 1..6 are the mover's indices 24..19 (board.py index table).
_OPPONENT_HOME = np.arange(24, 18, -1)
_OPPONENT_PARKING = 24
"""Generation boards park the 15 opponent checkers here (its ace point), out of the way."""


def position_count(max_checkers: int = CHECKERS_PER_SIDE) -> int:
    """Number of one-sided positions with at most ``max_checkers`` checkers: C(max+6, 6)."""
    return comb(max_checkers + HOME_POINTS, HOME_POINTS)


def position_index(home_counts) -> np.ndarray:
    """Combinatorial rank (module docstring) of ``home_counts``.

    home_counts: ``(..., 6)`` non-negative ints, checkers on points 1..6 of one
    player in that player's numbering. Returns ``(...,) int64``.
    """
    c = np.asarray(home_counts, dtype=np.int64)
    if c.shape[-1:] != (HOME_POINTS,):
        raise InvalidBoardError(f"home counts must have 6 entries, got shape {c.shape}")
    if (c < 0).any():
        raise InvalidBoardError("home counts must not be negative")
    t = np.cumsum(c[..., ::-1], axis=-1)  # t_1 .. t_6
    k = np.arange(1, HOME_POINTS + 1)
    return _BINOMIAL[t + k - 1, k].sum(axis=-1)


def all_positions(max_checkers: int = CHECKERS_PER_SIDE) -> np.ndarray:
    """``(position_count(max_checkers), 6) int8``: row i holds the home counts of index i."""
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(HOME_POINTS):
        used = rows.sum(axis=1)
        parts = [
            np.column_stack([rows[used + n <= max_checkers], np.full(n_ok, n)])
            for n in range(max_checkers + 1)
            if (n_ok := int((used + n <= max_checkers).sum()))
        ]
        rows = np.concatenate(parts)
    out = np.zeros((len(rows), HOME_POINTS), dtype=np.int8)
    out[position_index(rows)] = rows
    return out


@dataclass(frozen=True, eq=False)
class BearoffDatabase:
    """The two one-sided distributions of every position (module docstring).

    bearoff, gammon: ``(position_count(max_checkers), MAX_ROLLS) float64``,
    row = position index, column = number of rolls.
    positions: ``(N, 6) int8`` home counts of each index.
    """

    max_checkers: int
    positions: np.ndarray
    bearoff: np.ndarray
    gammon: np.ndarray
    generation_seconds: float = 0.0

    @property
    def mean_rolls(self) -> np.ndarray:
        """``(N,) float64``: expected rolls to bear off all checkers."""
        return self.bearoff @ np.arange(MAX_ROLLS)

    @property
    def mean_gammon_rolls(self) -> np.ndarray:
        """``(N,) float64``: expected rolls to bear off the first checker."""
        return self.gammon @ np.arange(MAX_ROLLS)

    def index_of(self, home_counts) -> np.ndarray:
        """Rank of ``home_counts (..., 6)``, checked against ``max_checkers``."""
        c = np.asarray(home_counts)
        if (np.asarray(c).sum(axis=-1) > self.max_checkers).any():
            raise InvalidBoardError(
                f"more than {self.max_checkers} checkers: not in this bear-off database"
            )
        return position_index(c)


def _home_boards(positions: np.ndarray) -> np.ndarray:
    """``(N, 30) int8`` boards with the mover's checkers as ``positions (N, 6)``."""
    boards = np.zeros((len(positions), BOARD_SIZE), dtype=BOARD_DTYPE)
    boards[:, HOME_BOARD] = positions
    boards[:, MOVER_OFF] = CHECKERS_PER_SIDE - positions.sum(axis=1)
    boards[:, _OPPONENT_PARKING] = -CHECKERS_PER_SIDE
    return boards


def successor_indices(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every legal play of every (position, roll) of one side: ``(parents, children)``.

    positions: ``(N, 6)`` home counts of one player (points 1..6, his numbering).
    Returns ``(M,) intp`` parents, ``n * 21 + r`` for row ``n`` of ``positions``
    and roll ``ALL_ROLLS[r]``, and ``(M,) int64`` the position index after each
    distinct play, grouped by parent in increasing order (every pair has at
    least one play: in a pure bear-off some die can always be played).
    """
    n_rolls = len(ALL_ROLLS)
    boards = np.repeat(_home_boards(positions), n_rolls, axis=0)
    plays = generate_moves(boards, np.tile(ALL_ROLLS, (len(positions), 1)))
    return plays.parents, position_index(plays.boards[:, HOME_BOARD])


def choose_smallest(
    parents: np.ndarray, values: np.ndarray, ranks: np.ndarray, count: int
) -> np.ndarray:
    """Row of the smallest ``values`` per parent (ties: lowest rank), for parents
    ``0 .. count - 1`` in order. Returns ``(count,) intp``; RuntimeError when a
    parent has no row."""
    order = np.lexsort((ranks, values, parents))
    first = np.ones(len(order), dtype=bool)
    first[1:] = parents[order][1:] != parents[order][:-1]
    chosen = order[first]
    if len(chosen) != count:
        raise RuntimeError("bear-off generation: a (position, roll) pair has no play")
    return chosen


def build_database(max_checkers: int = CHECKERS_PER_SIDE) -> BearoffDatabase:
    """Compute the database for up to ``max_checkers`` (1..15) checkers, in memory."""
    if not 0 <= max_checkers <= CHECKERS_PER_SIDE:
        raise ValueError(f"max_checkers must be 0..{CHECKERS_PER_SIDE}, got {max_checkers}")
    start = time.perf_counter()
    positions = all_positions(max_checkers)
    count = len(positions)
    checkers = positions.sum(axis=1).astype(np.int64)
    pips = positions.astype(np.int64) @ np.arange(1, HOME_POINTS + 1)
    bearoff = np.zeros((count, MAX_ROLLS))
    gammon = np.zeros((count, MAX_ROLLS))
    bearoff[0, 0] = gammon[0, 0] = 1.0  # the empty position: nothing left to do
    mean_all = np.zeros(count)
    mean_first = np.zeros(count)
    rolls_k = np.arange(MAX_ROLLS)
    n_rolls = len(ALL_ROLLS)
    for layer in range(1, int(pips.max(initial=0)) + 1):
        members = np.flatnonzero(pips == layer)
        if len(members) == 0:
            continue
        parents, child = successor_indices(positions[members])
        pairs = len(members) * n_rolls
        # Bear off everything: minimise expected further rolls.
        best = child[choose_smallest(parents, mean_all[child], child, pairs)]
        # First checker off: a play that bears one off needs 0 further rolls.
        bore_off = checkers[child] < checkers[members][parents // n_rolls]
        first_value = np.where(bore_off, 0.0, mean_first[child])
        pick = choose_smallest(parents, first_value, child, pairs)
        best_first, first_done = child[pick], bore_off[pick]
        weights = np.tile(ROLL_WEIGHTS, len(members))
        after = (bearoff[best] * weights[:, None]).reshape(len(members), n_rolls, MAX_ROLLS)
        after_first = np.where(first_done[:, None], np.eye(1, MAX_ROLLS)[0], gammon[best_first])
        after_first = (after_first * weights[:, None]).reshape(len(members), n_rolls, MAX_ROLLS)
        for table, part in ((bearoff, after.sum(axis=1)), (gammon, after_first.sum(axis=1))):
            if part[:, -1].max() > 0:
                raise RuntimeError("bear-off generation: MAX_ROLLS too small")
            table[members, 1:] = part[:, :-1]
        mean_all[members] = bearoff[members] @ rolls_k
        mean_first[members] = gammon[members] @ rolls_k
    return BearoffDatabase(max_checkers, positions, bearoff, gammon, time.perf_counter() - start)


# ----------------------------------------------------------------------------- cache


def cache_dir() -> Path:
    """``$TDGAMMON_CACHE``, else ``$XDG_CACHE_HOME/tdgammon``, else ``~/.cache/tdgammon``."""
    if os.environ.get("TDGAMMON_CACHE"):
        return Path(os.environ["TDGAMMON_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "tdgammon"


def cache_path(max_checkers: int = CHECKERS_PER_SIDE) -> Path:
    """Where the database for ``max_checkers`` is cached."""
    return cache_dir() / f"bearoff_v{BEAROFF_VERSION}_{max_checkers}.npz"


def checksum(*arrays: np.ndarray) -> str:
    """SHA-256 of the float64 bytes of ``arrays``, in order (the caches' integrity tag)."""
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return digest.hexdigest()


def write_npz(path: Path, **fields) -> None:
    """Write ``fields`` to ``path`` as a compressed npz, atomically (temp file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        np.savez_compressed(handle, **fields)
    os.replace(tmp, path)


def write_tables(path: Path, version: int, max_checkers: int, seconds: float, **tables) -> None:
    """Write a database's float tables to ``path`` atomically, with its format
    version, size, a checksum of the tables (in keyword order) and build time."""
    write_npz(
        path,
        version=np.int64(version),
        max_checkers=np.int64(max_checkers),
        **tables,
        checksum=np.array(checksum(*tables.values())),
        generation_seconds=np.float64(seconds),
    )


def read_tables(
    path: Path, version: int, max_checkers: int, names: tuple[str, ...]
) -> tuple[dict[str, np.ndarray], float]:
    """The float64 tables ``names`` of a file ``write_tables`` wrote, and its build
    time; ValueError when it cannot be read, is of another version or size, or
    its checksum does not match. Shapes and values are the caller's to check."""
    try:
        with np.load(path, allow_pickle=False) as data:
            stored_version = int(data["version"])
            stored_max = int(data["max_checkers"])
            tables = {name: np.asarray(data[name], dtype=np.float64) for name in names}
            stored_checksum = str(data["checksum"])
            seconds = float(data["generation_seconds"])
    except Exception as error:  # any unreadable file: zip, pickle, key or dtype errors
        raise ValueError(f"cannot read {path}: {error}") from error
    if stored_version != version or stored_max != max_checkers:
        raise ValueError(f"{path}: version {stored_version}/{stored_max}, expected {version}")
    if stored_checksum != checksum(*tables.values()):
        raise ValueError(f"{path}: checksum mismatch")
    return tables, seconds


def save_database(database: BearoffDatabase, path: Path) -> None:
    """Write ``database`` to ``path`` atomically (compressed npz with version and checksum)."""
    write_tables(
        path,
        BEAROFF_VERSION,
        database.max_checkers,
        database.generation_seconds,
        bearoff=database.bearoff,
        gammon=database.gammon,
    )


def load_database(path: Path, max_checkers: int = CHECKERS_PER_SIDE) -> BearoffDatabase:
    """Read and validate a cached database; raises ValueError when it is not usable."""
    tables, seconds = read_tables(path, BEAROFF_VERSION, max_checkers, ("bearoff", "gammon"))
    bearoff, gammon = tables["bearoff"], tables["gammon"]
    shape = (position_count(max_checkers), MAX_ROLLS)
    if bearoff.shape != shape or gammon.shape != shape:
        raise ValueError(f"{path}: shape {bearoff.shape}, expected {shape}")
    for table in (bearoff, gammon):
        if not np.allclose(table.sum(axis=1), 1.0, atol=1e-9) or (table < 0).any():
            raise ValueError(f"{path}: distributions do not sum to one")
    return BearoffDatabase(max_checkers, all_positions(max_checkers), bearoff, gammon, seconds)


Database = TypeVar("Database")


def load_or_build(
    path: Path,
    load: Callable[[Path], Database],
    build: Callable[[], Database],
    save: Callable[[Database, Path], None],
    use_cache: bool,
    what: str,
) -> Database:
    """``load(path)`` when a usable cache file is there, else ``build()`` and ``save`` it.

    ``load`` raises ValueError for an unusable file: a warning, then a rebuild;
    a ``save`` that fails with OSError only costs a warning. ``what`` names the
    database in the warnings. ``use_cache=False`` neither reads nor writes.
    """
    if use_cache and path.exists():
        try:
            return load(path)
        except ValueError as error:
            warnings.warn(f"{what} cache rejected, rebuilding: {error}", stacklevel=3)
    database = build()
    if use_cache:
        try:
            save(database, path)
        except OSError as error:
            warnings.warn(f"{what} cache not written ({error}); kept in memory", stacklevel=3)
    return database


@lru_cache(maxsize=4)
def get_database(max_checkers: int = CHECKERS_PER_SIDE, use_cache: bool = True) -> BearoffDatabase:
    """The database for ``max_checkers``: from the cache file, else built (and cached)."""
    return load_or_build(
        cache_path(max_checkers),
        lambda path: load_database(path, max_checkers),
        lambda: build_database(max_checkers),
        save_database,
        use_cache,
        "bear-off",
    )


# ----------------------------------------------------------------------------- queries


def one_sided_distribution(
    home_counts, *, gammon: bool = False, database: BearoffDatabase | None = None
) -> np.ndarray:
    """Distribution of rolls for one side: ``(MAX_ROLLS,) float64``, entry k = P(exactly k rolls).

    home_counts: 6 ints, that player's checkers on its points 1..6 (ace first).
    gammon=False: rolls to bear off all of them; True: rolls to bear off the first one.
    """
    db = database or get_database()
    return db.gammon[db.index_of(home_counts)] if gammon else db.bearoff[db.index_of(home_counts)]


def is_bearoff_position(boards: np.ndarray, max_checkers: int = CHECKERS_PER_SIDE) -> np.ndarray:
    """``(B,) bool``: both sides have all their checkers home or off (a pure bear-off).

    boards: ``(B, 30)`` or ``(30,)`` signed ints, mover's view. Mover checkers
    only on indices 1..6 (and off), opponent checkers only on indices 19..24
    (its points 6..1) and off; nobody on the bar or in hand; at most
    ``max_checkers`` on the board per side (counted only when it is below
    ``CHECKERS_PER_SIDE``: a valid board never holds more). Such positions have
    no contact.
    """
    b = np.asarray(boards)
    # boolean tests on the int8 board (no int64 copy): this runs on every leaf of a search
    anywhere_else = (
        (b[..., OUTSIDE_HOME] > 0).any(axis=-1)
        | (b[..., MOVER_BAR] != 0)  # (inside OUTSIDE_HOME; an opponent's checker there too)
        | (b[..., MOVER_HAND] > 0)
        | (b[..., OPPONENT_OUTSIDE_HOME] < 0).any(axis=-1)
        | (b[..., OPPONENT_BAR] < 0)
        | (b[..., OPPONENT_HAND] < 0)
    )
    pure = ~anywhere_else
    if max_checkers < CHECKERS_PER_SIDE:
        mover_home = np.where(b[..., HOME_BOARD] > 0, b[..., HOME_BOARD], 0).sum(axis=-1)
        opponent_home = np.where(b[..., _OPPONENT_HOME] < 0, -b[..., _OPPONENT_HOME], 0)
        pure &= (mover_home <= max_checkers) & (opponent_home.sum(axis=-1) <= max_checkers)
    return pure


def home_counts_of(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(mover, opponent) home counts ``(B, 6) int64`` each, each in its owner's numbering."""
    b = np.asarray(boards).astype(np.int64)
    return np.clip(b[..., HOME_BOARD], 0, None), np.clip(-b[..., _OPPONENT_HOME], 0, None)


def evaluate_bearoff(
    boards: np.ndarray,
    database: BearoffDatabase | None = None,
    checkers_per_side: int = CHECKERS_PER_SIDE,
) -> np.ndarray:
    """Cubeless probabilities of pure bear-off positions: ``(B, 5) float32``.

    boards: ``(B, 30)`` signed ints, mover's view, every row a bear-off position
    (``is_bearoff_position``; raises InvalidBoardError otherwise). Output per
    row, for the mover before rolling, GNU order (win, wg, wbg, lg, lbg).

    With ``a[k]`` / ``b[k]`` = P(mover / opponent needs exactly k rolls), the
    mover rolls first, so he wins when ``T_mover <= T_opponent``:
    ``win = sum_k a[k] P(T_opp >= k)``. The mover wins a gammon when the
    opponent has all ``checkers_per_side`` checkers on the board and has not
    got one off in the ``k - 1`` rolls he had: ``wg = sum_k a[k] P(G_opp >= k)``;
    the mover loses a gammon when he has none off and
    ``lg = sum_k b[k] P(G_mover >= k + 1)`` (the opponent's k-th roll comes
    after the mover's k-th). Backgammons are impossible: the loser's checkers
    are all in his own home board, not on the bar or in the winner's home.
    """
    return _evaluate(np.asarray(boards), database, checkers_per_side).astype(np.float32)


def _evaluate(boards, database, checkers_per_side) -> np.ndarray:
    b = boards[None, :] if boards.ndim == 1 else boards
    db = database or get_database()
    if not is_bearoff_position(b, db.max_checkers).all():
        raise InvalidBoardError("not a pure bear-off position for this database")
    mover, opponent = home_counts_of(b)
    rank_m, rank_o = position_index(mover), position_index(opponent)
    a, bo = db.bearoff[rank_m], db.bearoff[rank_o]
    ga, gb = db.gammon[rank_m], db.gammon[rank_o]

    def at_least(dist):  # column k: P(X >= k)
        cdf = np.cumsum(dist, axis=1)
        return 1.0 - np.concatenate([np.zeros((len(dist), 1)), cdf[:, :-1]], axis=1)

    out = np.zeros((len(b), N_OUTPUTS))
    out[:, WIN] = (a * at_least(bo)).sum(axis=1)
    opp_none_off = opponent.sum(axis=1) == checkers_per_side
    mover_none_off = mover.sum(axis=1) == checkers_per_side
    out[:, WIN_GAMMON] = np.where(opp_none_off, (a * at_least(gb)).sum(axis=1), 0.0)
    more_than = np.concatenate([at_least(ga)[:, 1:], np.zeros((len(b), 1))], axis=1)
    out[:, LOSE_GAMMON] = np.where(mover_none_off, (bo * more_than).sum(axis=1), 0.0)
    np.clip(out, 0.0, 1.0, out=out)  # 1 - cumsum leaves -1e-17 dust
    return out if boards.ndim == 2 else out[0]


def race_probabilities(board: np.ndarray, database: BearoffDatabase | None = None) -> np.ndarray:
    """``(5,) float64`` cubeless probabilities of one bear-off board ``(30,)`` (mover's view).

    Same definitions as ``evaluate_bearoff``, without the float32 rounding.
    """
    board = np.asarray(board)
    if board.shape != (BOARD_SIZE,):
        raise InvalidBoardError(f"board must have shape ({BOARD_SIZE},), got {board.shape}")
    return _evaluate(board, database, CHECKERS_PER_SIDE)


def best_plays(
    boards: np.ndarray, dice: np.ndarray, database: BearoffDatabase | None = None, *, gammon=None
) -> np.ndarray:
    """The database's own play for each (bear-off board, roll): ``(B, 30) int8`` boards after.

    boards: ``(B, 30)`` mover's view, mover's checkers all home; dice ``(B, 2)``.
    gammon: optional ``(B,) bool``; True rows play to get a first checker off
    soonest (the gammon policy), the others to bear off all soonest. The
    boards returned are still from the mover's view (not flipped).
    """
    db = database or get_database()
    boards = np.asarray(boards, dtype=BOARD_DTYPE)
    plays = generate_moves(boards, np.asarray(dice))
    child = position_index(plays.boards[:, HOME_BOARD])
    values = db.mean_rolls[child]
    if gammon is not None:
        on_board = np.clip(boards[:, HOME_BOARD].astype(np.int64), 0, None).sum(axis=1)
        child_checkers = plays.boards[:, HOME_BOARD].astype(np.int64).sum(axis=1)
        bore_off = child_checkers < on_board[plays.parents]
        first = np.where(bore_off, 0.0, db.mean_gammon_rolls[child])
        values = np.where(np.asarray(gammon)[plays.parents], first, values)
    return plays.boards[choose_smallest(plays.parents, values, child, len(boards))]


def simulate_race(
    board: np.ndarray,
    games: int,
    seed: int = 0,
    database: BearoffDatabase | None = None,
    gammon_policy: bool = False,
) -> np.ndarray:
    """Monte Carlo check of ``race_probabilities``: ``(5,) float64`` outcome frequencies.

    Plays ``games`` games from ``board (30,)`` (mover's view, mover to roll)
    with random dice, both sides using ``best_plays``; with ``gammon_policy``
    a side with all its checkers still on the board and the opponent able to
    finish plays the gammon policy. Vectorized over games.
    """
    db = database or get_database()
    rng = np.random.default_rng(seed)
    boards = np.repeat(np.asarray(board, dtype=BOARD_DTYPE)[None, :], games, axis=0)
    mover_is_first = np.ones(games, dtype=bool)  # is the side to move the original mover?
    result = np.zeros((games, N_OUTPUTS))
    active = np.ones(games, dtype=bool)
    for _ in range(4 * MAX_ROLLS):
        rows = np.flatnonzero(active)
        if len(rows) == 0:
            break
        current = boards[rows]
        dice = rng.integers(1, 7, size=(len(rows), 2))
        use_gammon = None
        if gammon_policy:
            use_gammon = current[:, MOVER_OFF] == 0
        after = best_plays(current, dice, db, gammon=use_gammon)
        done = after[:, MOVER_OFF] == CHECKERS_PER_SIDE
        gammon_win = done & (after[:, OPPONENT_OFF] == 0)
        finished = rows[done]
        first = mover_is_first[finished]
        result[finished[first], WIN] = 1
        result[finished[first & gammon_win[done]], WIN_GAMMON] = 1
        result[finished[~first & gammon_win[done]], LOSE_GAMMON] = 1
        active[finished] = False
        boards[rows] = flip(after)
        mover_is_first[rows] = ~mover_is_first[rows]
    if active.any():
        raise RuntimeError("simulate_race: games did not finish")
    return result.mean(axis=0)
