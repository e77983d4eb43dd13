"""Bear-off database: ranking, hand-worked distributions, race evaluation, cache.

The full 15-checker database is built once per session (about 15 s on one
core) or loaded from the user cache (``$TDGAMMON_CACHE`` / ``~/.cache/tdgammon``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tdgammon.engine.evaluation import bearoff
from tdgammon.engine.rules.board import board_from_points, starting_board
from tdgammon.engine.rules.dice import ALL_ROLLS


@pytest.fixture(scope="session")
def db():
    return bearoff.get_database(15)


@pytest.fixture(scope="session")
def small_db():
    return bearoff.build_database(6)


def home(**points):
    """Home counts (6,) from keyword p1..p6."""
    counts = [0] * 6
    for name, n in points.items():
        counts[int(name[1:]) - 1] = n
    return counts


# --------------------------------------------------------------------- ranking


def test_position_count_and_ranks_are_a_bijection():
    assert bearoff.position_count(15) == 54264
    positions = bearoff.all_positions(5)
    assert len(positions) == bearoff.position_count(5) == 462
    assert np.array_equal(bearoff.position_index(positions), np.arange(462))
    assert positions[0].sum() == 0  # the empty position is index 0


def test_smaller_database_is_a_prefix_of_a_larger_one(small_db):
    tiny = bearoff.build_database(3)
    n = len(tiny.positions)
    assert np.array_equal(small_db.positions[:n], tiny.positions)
    assert np.allclose(small_db.bearoff[:n], tiny.bearoff)
    assert np.allclose(small_db.gammon[:n], tiny.gammon)


def test_every_play_lowers_the_index(small_db):
    """A play moves checkers down or off: the t_k only shrink, so the rank does too."""
    assert np.all(small_db.bearoff.sum(axis=1) == pytest.approx(1.0))
    before = small_db.positions[1:]
    after = before.copy()
    top = 5 - np.argmax(before[:, ::-1] > 0, axis=1)  # highest occupied point (0-based)
    after[np.arange(len(after)), top] -= 1  # bear the top checker off
    assert np.all(bearoff.position_index(after) < bearoff.position_index(before))


def test_successor_indices_of_one_checker_on_the_six_point():
    """2-1 plays 6/4/3 or 6/5/3: one resulting position; 6-5 and 1-1 as worked out in
    test_one_checker_on_the_six_point (off at once; 6/5/4/3/2)."""
    parents, children = bearoff.successor_indices(np.array([home(p6=1)]))
    rolls = [tuple(r) for r in ALL_ROLLS]
    after = {roll: [] for roll in rolls}
    for parent, child in zip(parents, children, strict=True):
        after[rolls[parent]].append(int(child))
    assert after[(2, 1)] == [bearoff.position_index(home(p3=1))]
    assert after[(6, 5)] == [0]
    assert after[(1, 1)] == [bearoff.position_index(home(p2=1))]
    assert np.all(np.diff(parents) >= 0) and sorted(set(parents)) == list(range(21))


# --------------------------------------------------------------- hand-worked


def test_one_checker_on_the_ace_point_needs_one_roll(small_db):
    dist = bearoff.one_sided_distribution(home(p1=1), database=small_db)
    assert dist[1] == pytest.approx(1.0) and dist.sum() == pytest.approx(1.0)


def test_one_checker_on_the_six_point(small_db):
    """Expected rolls 1.25, derived by hand.

    A roll bears the checker off at once when it holds a 6, when the two dice
    of a non-double sum to 6 or more (move one die, bear off with the other:
    bearing off from a lower point with a larger die is legal with no checker
    above), or for a double 2-2 .. 6-6 (4 x 2 = 8 >= 6 pips). It fails only for
    1-1 (4 pips), 2-1, 3-1, 4-1 and 3-2 (3, 4, 5, 5 pips): 1 + 4 x 2 = 9 of 36.
    After a failure the checker sits on the 1, 2 or 3 point, from which every
    roll (even 1-1) bears it off. So P(1 roll) = 27/36, P(2 rolls) = 9/36 and
    E = 1 + 9/36 = 1.25.
    """
    dist = bearoff.one_sided_distribution(home(p6=1), database=small_db)
    assert dist[1] == pytest.approx(27 / 36)
    assert dist[2] == pytest.approx(9 / 36)
    assert dist @ np.arange(bearoff.MAX_ROLLS) == pytest.approx(1.25)


def test_two_checkers_on_the_ace_point_need_one_roll(small_db):
    """Each die of a non-double bears one off; a double bears off up to four."""
    assert bearoff.one_sided_distribution(home(p1=2), database=small_db)[1] == pytest.approx(1.0)


def test_three_checkers_on_the_ace_point(small_db):
    """Non-doubles (30/36) take two off, so two rolls; doubles (6/36) take all three."""
    dist = bearoff.one_sided_distribution(home(p1=3), database=small_db)
    assert dist[1] == pytest.approx(6 / 36) and dist[2] == pytest.approx(30 / 36)


def test_fifteen_on_the_ace_point(db):
    """Each roll removes 2 checkers (non-double, 5/6) or 4 (double, 1/6): exact recursion."""
    dist = {0: np.eye(1, bearoff.MAX_ROLLS)[0]}
    for n in range(1, 16):
        two = dist[max(n - 2, 0)]
        four = dist[max(n - 4, 0)]
        dist[n] = np.roll(5 / 6 * two + 1 / 6 * four, 1)
    got = bearoff.one_sided_distribution(home(p1=15), database=db)
    assert np.allclose(got, dist[15], atol=1e-12)
    assert got @ np.arange(bearoff.MAX_ROLLS) == pytest.approx(dist[15] @ np.arange(32))


def test_gammon_distribution_of_fifteen_on_the_six_point(db):
    """First checker off in the first roll: 17/36, derived by hand.

    With 14 other checkers left on the six point a die larger than needed may
    not bear off from a lower point, so the checker must come off exactly:
    a 6 (6-1 .. 6-5: 10/36), two dice summing to 6 (5-1, 4-2: 4/36), or a
    double that lands on zero (2-2, 3-3, 6-6: 3/36; not 1-1, 4-4, 5-5).
    """
    dist = bearoff.one_sided_distribution(home(p6=15), gammon=True, database=db)
    assert dist[1] == pytest.approx(17 / 36)
    assert bearoff.one_sided_distribution(home(p1=15), gammon=True, database=db)[
        1
    ] == pytest.approx(1.0)


def test_mean_rolls_grow_with_checkers(small_db):
    means = [small_db.mean_rolls[bearoff.position_index(home(p6=n))] for n in range(1, 7)]
    assert all(a < b for a, b in zip(means, means[1:], strict=False))


# ------------------------------------------------------------ race evaluation


def test_is_bearoff_position():
    assert not bearoff.is_bearoff_position(starting_board())
    race = board_from_points({1: 3, 6: 2}, {2: 4, 5: 1})
    assert bearoff.is_bearoff_position(race)
    outside = board_from_points({7: 1, 6: 2}, {2: 4})
    bar = board_from_points({6: 2}, {25: 1, 2: 4})
    out = bearoff.is_bearoff_position(np.stack([race, outside, bar]))
    assert out.tolist() == [True, False, False]


def test_race_probabilities_small_cases(db):
    on_ace = board_from_points({1: 1}, {6: 3})
    assert bearoff.race_probabilities(on_ace, db) == pytest.approx([1, 0, 0, 0, 0])
    six_vs_ace = board_from_points({6: 1}, {1: 1})
    assert bearoff.race_probabilities(six_vs_ace, db)[0] == pytest.approx(27 / 36)


def test_gammons_in_the_race(db):
    # The mover bears off two ace-point checkers at once; the opponent has none off.
    win_gammon = board_from_points({1: 2}, {6: 15})
    assert bearoff.race_probabilities(win_gammon, db) == pytest.approx([1, 1, 0, 0, 0])
    # The mover (15 on his six point) cannot finish first; the opponent finishes in
    # his first roll; the mover saves the gammon only with his 17/36 first rolls
    # (test_gammon_distribution_of_fifteen_on_the_six_point).
    lose_gammon = board_from_points({6: 15}, {1: 1})
    assert bearoff.race_probabilities(lose_gammon, db) == pytest.approx([0, 0, 0, 19 / 36, 0])


def test_evaluate_bearoff_is_batched_float32(db):
    boards = np.stack(
        [board_from_points({1: 2, 4: 3}, {3: 4, 6: 1}), board_from_points({6: 15}, {1: 1})]
    )
    out = bearoff.evaluate_bearoff(boards, db)
    assert out.shape == (2, 5) and out.dtype == np.float32
    for row, board in zip(out, boards, strict=True):
        assert np.allclose(row, bearoff.race_probabilities(board, db), atol=1e-6)


def test_evaluate_rejects_non_bearoff(db):
    with pytest.raises(Exception, match="bear-off"):
        bearoff.evaluate_bearoff(starting_board()[None, :], db)


@pytest.mark.parametrize(
    "mover, opponent",
    [({6: 3, 5: 2, 1: 1}, {6: 2, 4: 2, 2: 2}), ({1: 2, 2: 2, 3: 1}, {6: 8, 5: 7})],
)
def test_race_agrees_with_simulation(db, mover, opponent):
    """10k games with the database's own policies agree within 4 standard errors.

    A side with no checker off plays the gammon policy (first checker off
    soonest), as the gammon distribution assumes; the others minimise the
    expected rolls to bear off all.
    """
    board = board_from_points(mover, opponent)
    exact = bearoff.race_probabilities(board, db)
    games = 10_000
    sim = bearoff.simulate_race(board, games, seed=7, database=db, gammon_policy=True)
    se = np.sqrt(np.maximum(exact * (1 - exact), 1e-4) / games)
    assert np.all(np.abs(sim - exact) < 4 * se), (exact, sim)


# ---------------------------------------------------------------------- cache


def test_cache_round_trip_and_corrupt_cache_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("TDGAMMON_CACHE", str(tmp_path))
    bearoff.get_database.cache_clear()
    try:
        first = bearoff.get_database(3)
        path = bearoff.cache_path(3)
        assert path.exists() and path.parent == tmp_path
        bearoff.get_database.cache_clear()
        loaded = bearoff.get_database(3)
        assert np.array_equal(loaded.bearoff, first.bearoff)
        path.write_bytes(b"not a zip file")
        bearoff.get_database.cache_clear()
        with pytest.warns(UserWarning, match="rebuilding"):
            rebuilt = bearoff.get_database(3)
        assert np.array_equal(rebuilt.gammon, first.gammon)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            bearoff.load_database(path, 3)  # the rebuilt file is valid again
    finally:
        bearoff.get_database.cache_clear()


def test_tampered_cache_fails_the_checksum(tmp_path):
    database = bearoff.build_database(2)
    path = tmp_path / "db.npz"
    bearoff.save_database(database, path)
    with np.load(path) as data:
        fields = dict(data)
    fields["bearoff"] = fields["bearoff"].copy()
    fields["bearoff"][3, 1] += 0.5
    np.savez(path, **fields)
    with pytest.raises(ValueError, match="checksum"):
        bearoff.load_database(path, 2)
