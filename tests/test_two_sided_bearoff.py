"""Two-sided bear-off database: brute force, hand-worked positions, cube consistency, cache.

The 6-checker database is built once per session (about 10 s on one core) or
loaded from the user cache (``$TDGAMMON_CACHE`` / ``~/.cache/tdgammon``).
"""

from __future__ import annotations

import warnings
from functools import cache
from itertools import product

import numpy as np
import pytest

from tdgammon.engine.evaluation import bearoff, two_sided_bearoff
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.rules.board import board_from_points, starting_board
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.errors import InvalidBoardError
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, CUBE_OWNERS

CENTRED, MOVER, OPPONENT = (CUBE_OWNERS.index(c) for c in (CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT))


@pytest.fixture(scope="session")
def db():
    return two_sided_bearoff.get_two_sided()


@pytest.fixture(scope="session")
def one_sided():
    return bearoff.build_database(6)


def counts(points: dict[int, int]) -> tuple[int, ...]:
    """Home counts (points 1..6) of a {point: checkers} map."""
    return tuple(points.get(p, 0) for p in range(1, 7))


def cube_values(nd: np.ndarray) -> np.ndarray:
    """Values after the best cube action, ``(..., 3)`` ND by owner -> ``(..., 3)``."""
    double = np.minimum(2 * nd[..., OPPONENT], 1.0)
    return np.stack(
        [
            np.maximum(nd[..., CENTRED], double),
            np.maximum(nd[..., MOVER], double),
            nd[..., OPPONENT],
        ],
        axis=-1,
    )


# ------------------------------------------------------------------ brute force


@cache
def reference_successors(mover: tuple[int, ...], roll: int) -> tuple[tuple[int, ...], ...]:
    """Mover's home counts after each legal play (reference generator, opponent on the board)."""
    points = {p + 1: n for p, n in enumerate(mover) if n}
    plays = legal_plays(board_from_points(points, {1: 1}), ALL_ROLLS[roll])
    return tuple(tuple(play.board[1:7]) for play in plays)


@cache
def brute_force(
    mover: tuple[int, ...], opponent: tuple[int, ...]
) -> tuple[float, float, float, float]:
    """(win, ND centred, ND mover's cube, ND opponent's cube) of the player on roll, by
    plain recursion over every roll and play; the opponent then rolls from (opponent, after)."""
    win = 0.0
    nd = np.zeros(3)
    for roll, weight in enumerate(ROLL_WEIGHTS):
        best_win, best_nd = -np.inf, np.full(3, -np.inf)
        for after in reference_successors(mover, roll):
            if sum(after) == 0:  # borne off the last checker: a single game won
                best_win, best_nd = 1.0, np.ones(3)
                break
            reply_win, *reply_nd = brute_force(opponent, after)
            reply = cube_values(np.array(reply_nd))
            best_win = max(best_win, 1 - reply_win)
            # my centred cube is his centred cube; mine owned is his unavailable and back
            best_nd = np.maximum(best_nd, -reply[[CENTRED, OPPONENT, MOVER]])
        win += weight * best_win
        nd += weight * best_nd
    return (win, *nd)


def small_positions(max_checkers: int) -> list[tuple[int, ...]]:
    return [c for c in product(range(max_checkers + 1), repeat=6) if 0 < sum(c) <= max_checkers]


def test_agrees_with_brute_force_for_up_to_two_checkers_a_side(db):
    positions = small_positions(2)
    assert len(positions) == 27
    for mover, opponent in product(positions, positions):
        m, o = bearoff.position_index(mover), bearoff.position_index(opponent)
        got = (db.win[m, o], *db.no_double[:, m, o])
        assert got == pytest.approx(brute_force(mover, opponent), abs=1e-12), (mover, opponent)


def test_agrees_with_brute_force_on_three_checker_positions(db):
    cases = [
        ({6: 2, 5: 1}, {4: 1, 3: 1, 2: 1}),
        ({6: 3}, {6: 2, 1: 1}),
        ({4: 1, 2: 2}, {5: 3}),
        ({3: 3}, {6: 1, 5: 1, 4: 1}),
    ]
    for mover, opponent in cases:
        m, o = bearoff.position_index(counts(mover)), bearoff.position_index(counts(opponent))
        got = (db.win[m, o], *db.no_double[:, m, o])
        assert got == pytest.approx(brute_force(counts(mover), counts(opponent)), abs=1e-12)


def test_a_smaller_database_is_the_corner_of_a_larger_one(db):
    small = two_sided_bearoff.build_two_sided(3)
    n = bearoff.position_count(3)
    assert np.allclose(small.win[1:, 1:], db.win[1:n, 1:n], atol=1e-12)
    assert np.allclose(small.no_double[:, 1:, 1:], db.no_double[:, 1:n, 1:n], atol=1e-12)


# ------------------------------------------------------------------ hand-worked


def test_one_checker_each_on_the_ace_point_wins_at_once(db):
    position = board_from_points({1: 1}, {1: 1})
    assert two_sided_bearoff.two_sided_probabilities(position, db).tolist() == [1, 0, 0, 0, 0]
    for owner in CUBE_OWNERS:
        nd, dt, dp = two_sided_bearoff.two_sided_cube_equities(position[None], owner, db)[0]
        assert (nd, dt, dp) == pytest.approx((1, 2, 1))


def test_last_roll_six_point_against_the_ace_point_is_exactly_the_take_point(db):
    """27/36 to bear off at once (test_bearoff.test_one_checker_on_the_six_point),
    else the opponent bears off. Not doubling: 27/36 - 9/36 = 0.5; doubled, the
    opponent's take is worth 2 x 0.5 = 1 to the doubler, exactly what a pass
    gives: the classic 25% take point, taker indifferent, doubler must double."""
    position = board_from_points({6: 1}, {1: 1})
    assert two_sided_bearoff.two_sided_probabilities(position, db)[0] == pytest.approx(27 / 36)
    nd, dt, dp = two_sided_bearoff.two_sided_cube_equities(position[None], CUBE_CENTRED, db)[0]
    assert (nd, dt, dp) == pytest.approx((0.5, 1.0, 1.0))


def test_every_last_roll_position(db, one_sided):
    """Opponent on his ace point: the roller wins iff he bears all off now
    (probability p = one-sided P(1 roll)), so ND = 2p - 1 whoever owns the
    cube, DT = 2 ND: double when p > 1/2, the opponent passes when p > 3/4."""
    ace = bearoff.position_index(counts({1: 1}))
    p = one_sided.bearoff[1:, 1]
    assert np.allclose(db.win[1:, ace], p, atol=1e-12)
    for owner in range(3):
        assert np.allclose(db.no_double[owner, 1:, ace], 2 * p - 1, atol=1e-12)


@pytest.mark.parametrize("point", range(1, 7))
def test_recube_vig_three_on_the_ace_against_one_checker(db, one_sided, point):
    """Roller: three on the ace (a double bears all off, 1/6; else one is left
    and surely goes next roll). Opponent: one checker on ``point``, off at
    once with q = one-sided P(1 roll), else surely next roll. So the game ends
    on the opponent's first roll unless the roller rolls a double:
    win = 1/6 + 5/6 (1 - q). The opponent's first roll is a last roll for him:
    worth 2q - 1 without cube access, max(2q - 1, min(4q - 2, 1)) with it. He
    has access unless the roller owns the cube, which is worth a lot here
    (at q = 3/4: -1/4 owned against -2/3 centred)."""
    q = one_sided.bearoff[bearoff.position_index(counts({point: 1})), 1]
    position = board_from_points({1: 3}, {point: 1})
    last_roll = max(2 * q - 1, min(4 * q - 2, 1))
    assert two_sided_bearoff.two_sided_probabilities(position, db)[0] == pytest.approx(
        1 / 6 + 5 / 6 * (1 - q)
    )
    expected = {
        CUBE_CENTRED: 1 / 6 - 5 / 6 * last_roll,
        CUBE_MOVER: 1 / 6 - 5 / 6 * (2 * q - 1),
        CUBE_OPPONENT: 1 / 6 - 5 / 6 * last_roll,
    }
    for owner, nd in expected.items():
        got = two_sided_bearoff.two_sided_cube_equities(position[None], owner, db)[0]
        assert got == pytest.approx((nd, 2 * expected[CUBE_OPPONENT], 1.0))


def test_two_roll_race_of_single_checkers_on_the_six_points(db):
    """Each bears off at once with 27/36, else surely next roll.

    win = 27/36 + (9/36)^2 = 0.8125. Not doubling with the cube centred: the
    opponent, when the roller misses, is in the last-roll position at 75%
    (test above) and doubles, worth +1 to him: 27/36 - 9/36 = 0.5. Owning the
    cube, the roller denies him that: 27/36 - 9/36 x 0.5 = 0.625. Doubled and
    taken the opponent redoubles after a miss: DT = 2 x 0.5 = 1 = DP.
    """
    position = board_from_points({6: 1}, {6: 1})
    assert two_sided_bearoff.two_sided_probabilities(position, db)[0] == pytest.approx(0.8125)
    got = {
        o: two_sided_bearoff.two_sided_cube_equities(position[None], o, db)[0] for o in CUBE_OWNERS
    }
    assert got[CUBE_CENTRED] == pytest.approx((0.5, 1.0, 1.0))
    assert got[CUBE_MOVER] == pytest.approx((0.625, 1.0, 1.0))
    assert got[CUBE_OPPONENT] == pytest.approx((0.5, 1.0, 1.0))


# ------------------------------------------------------------------ invariants


def test_ranges_and_cube_ownership_order(db):
    """win in [0, 1], |ND| <= 1; owning the cube is worth at least a centred cube,
    which is worth at least the opponent owning it; the cubeless equity 2 win - 1
    (a dead cube) lies between the opponent's cube and one's own."""
    win, nd = db.win[1:, 1:], np.moveaxis(db.no_double[:, 1:, 1:], 0, -1)
    assert win.min() >= -1e-12 and win.max() <= 1 + 1e-12
    assert np.abs(nd).max() <= 1 + 1e-12
    value = cube_values(nd)
    assert np.all(value[..., OPPONENT] <= value[..., CENTRED] + 1e-12)
    assert np.all(value[..., CENTRED] <= value[..., MOVER] + 1e-12)
    assert np.all(value[..., OPPONENT] <= 2 * win - 1 + 1e-12)
    assert np.all(2 * win - 1 <= value[..., MOVER] + 1e-12)


# ------------------------------------------------------------------ queries


def test_covers():
    covered = board_from_points({6: 3, 1: 3}, {2: 6})
    seven = board_from_points({6: 7}, {1: 1})
    contact = board_from_points({6: 1}, {1: 1, 20: 1})
    bar = board_from_points({6: 1}, {25: 1})
    out = two_sided_bearoff.covers(np.stack([covered, seven, contact, bar, starting_board()]))
    assert out.tolist() == [True, False, False, False, False]
    assert not two_sided_bearoff.covers(board_from_points({1: 3}, {1: 1}), checkers_per_side=3)
    assert two_sided_bearoff.covers(board_from_points({1: 2}, {1: 1}), checkers_per_side=3)


def test_queries_reject_uncovered_positions(db):
    with pytest.raises(InvalidBoardError, match="bear-off"):
        two_sided_bearoff.two_sided_probabilities(board_from_points({6: 7}, {1: 1}), db)
    with pytest.raises(ValueError, match="cube owner"):
        two_sided_bearoff.two_sided_cube_equities(
            board_from_points({6: 1}, {1: 1})[None], "nobody", db
        )


def test_bearoff_probabilities_uses_the_two_sided_values_where_it_can(db):
    boards = np.stack(
        [
            board_from_points({6: 2, 5: 2}, {3: 6}),
            board_from_points({6: 9}, {1: 2}),
            board_from_points({4: 1}, {6: 1}),
        ]
    )
    out = two_sided_bearoff.bearoff_probabilities(boards)
    assert out.dtype == np.float32 and out.shape == (3, 5)
    assert np.allclose(out[[0, 2]], two_sided_bearoff.two_sided_probabilities(boards[[0, 2]], db))
    assert np.allclose(out[1], bearoff.evaluate_bearoff(boards[1:2])[0])


# ------------------------------------------------------------------ cache


def test_cache_round_trip_and_corrupt_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("TDGAMMON_CACHE", str(tmp_path))
    two_sided_bearoff.get_two_sided.cache_clear()
    try:
        first = two_sided_bearoff.get_two_sided(2)
        path = two_sided_bearoff.two_sided_cache_path(2)
        assert path.exists() and path.parent == tmp_path
        two_sided_bearoff.get_two_sided.cache_clear()
        assert np.array_equal(two_sided_bearoff.get_two_sided(2).no_double, first.no_double)
        path.write_bytes(b"not a zip file")
        two_sided_bearoff.get_two_sided.cache_clear()
        with pytest.warns(UserWarning, match="two-sided bear-off cache rejected"):
            rebuilt = two_sided_bearoff.get_two_sided(2)
        assert np.array_equal(rebuilt.win, first.win)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            two_sided_bearoff.load_two_sided(path, 2)  # the rebuilt file is valid again
    finally:
        two_sided_bearoff.get_two_sided.cache_clear()


def test_tampered_cache_fails_the_checksum(tmp_path):
    path = tmp_path / "two_sided.npz"
    two_sided_bearoff.save_two_sided(two_sided_bearoff.build_two_sided(2), path)
    with np.load(path) as data:
        fields = dict(data)
    fields["win"] = fields["win"].copy()
    fields["win"][3, 4] -= 0.25
    np.savez(path, **fields)
    with pytest.raises(ValueError, match="checksum"):
        two_sided_bearoff.load_two_sided(path, 2)
