"""Cubeless rollouts (engine/evaluation/rollout.py): dice, batch invariance, exact
checks against the bear-off database and the 1-ply search, the opening's zero,
and the variance reduction's unbiasedness and gain.

Statistical checks compare an estimate with a known value within a 99.7%
interval (3 standard errors), so that a legitimate change of the dice does not
fail them one time in twenty; the seeds are fixed, so the tests are
deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.evaluation.bearoff import evaluate_bearoff
from tdgammon.engine.evaluation.rollout import (
    DICE_PAIRS,
    OPENING_PAIRS,
    RolloutSettings,
    batch_invariant_evaluator,
    combine_trials,
    estimate,
    iter_rollout,
    rollout_plays,
    rollout_position,
    rollout_search,
    rollout_trials,
    trial_dice,
)
from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.rules.board import board_from_points, flip, starting_board
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outputs import equity, invert

CONTACT = board_from_points(
    {24: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {24: 1, 21: 2, 13: 5, 8: 2, 6: 4, 4: 1}
)
"""A middle game: both sides have anchors and blots."""
BEAROFF = board_from_points({6: 1, 4: 2, 2: 1, 1: 1}, {5: 2, 3: 1, 2: 2})
"""A pure bear-off: mover 5 checkers (16 pips) on roll against 5 (16 pips)."""


@pytest.fixture(scope="module")
def network_search():
    from tdgammon.engine.evaluation.evaluator import default_evaluator

    return Search(default_evaluator())


def z_score(value: float, expected: float, se: float) -> float:
    return abs(value - expected) / se if se > 0 else (0.0 if value == expected else np.inf)


# ----------------------------------------------------------------------------- dice


@pytest.mark.parametrize("first", [0, 777])
def test_quasi_random_first_two_rolls_cover_every_pair_once(first):
    trials = np.arange(first, first + DICE_PAIRS)
    a = trial_dice(5, trials, 0)
    b = trial_dice(5, trials, 1)
    pairs = {(int(x), int(y), int(u), int(v)) for (x, y), (u, v) in zip(a, b, strict=True)}
    assert len(pairs) == DICE_PAIRS
    # any 36 consecutive trials see every first roll once
    window = trial_dice(5, np.arange(first + 10, first + 46), 0)
    assert len({(int(x), int(y)) for x, y in window}) == 36


def test_quasi_random_dice_take_the_first_two_rolls_out_of_the_error():
    """Truncated after two plies, 1,296 trials see every pair of first rolls once
    whatever the seed: the estimate no longer depends on the seed."""
    search = Search(PipCountEvaluator())
    settings = {"truncate": 2, "variance_reduction": False}
    quasi = [
        rollout_position(search, CONTACT, DICE_PAIRS, RolloutSettings(seed=s, **settings))
        for s in (1, 2)
    ]
    assert quasi[0].equity == pytest.approx(quasi[1].equity, abs=1e-12)
    assert quasi[0].equity_se > 0.001  # the trials differ, the set of trials does not
    random = [
        rollout_position(
            search, CONTACT, DICE_PAIRS, RolloutSettings(seed=s, quasi_random=False, **settings)
        )
        for s in (1, 2)
    ]
    assert abs(random[0].equity - random[1].equity) > 1e-6


def test_quasi_random_rotation_depends_on_the_seed():
    trials = np.arange(36)
    assert not np.array_equal(trial_dice(1, trials, 0), trial_dice(2, trials, 0))


def test_opening_roll_is_never_a_double_and_stratified():
    trials = np.arange(30 * 36)
    opening = trial_dice(3, trials, 0, opening=True)
    second = trial_dice(3, trials, 1, opening=True)
    assert (opening[:, 0] != opening[:, 1]).all()
    assert len({tuple(p) for p in opening.tolist()}) == len(OPENING_PAIRS)
    pairs = {tuple(p) + tuple(q) for p, q in zip(opening.tolist(), second.tolist(), strict=True)}
    assert len(pairs) == len(trials)
    random_opening = trial_dice(3, trials, 0, opening=True, quasi_random=False)
    assert (random_opening[:, 0] != random_opening[:, 1]).all()


def test_dice_depend_only_on_seed_trial_and_ply():
    everything = np.arange(500)
    some = np.array([499, 3, 250, 0])
    for ply in (0, 1, 2, 40):
        for quasi in (True, False):
            whole = trial_dice(9, everything, ply, quasi_random=quasi)
            assert np.array_equal(trial_dice(9, some, ply, quasi_random=quasi), whole[some])
    assert not np.array_equal(trial_dice(9, everything, 5), trial_dice(10, everything, 5))
    assert not np.array_equal(trial_dice(9, everything, 5), trial_dice(9, everything, 6))


def test_pseudo_random_dice_are_uniform():
    dice = trial_dice(4, np.arange(36_000), 7)
    assert dice.min() == 1 and dice.max() == 6
    counts = np.bincount((dice[:, 0] - 1) * 6 + dice[:, 1] - 1, minlength=36)
    chi2 = ((counts - 1000) ** 2 / 1000).sum()
    assert chi2 < 70  # 35 degrees of freedom: P(chi2 > 70) < 0.001


# ----------------------------------------------------------------------------- evaluation


def test_batch_invariant_network_matches_the_network_in_any_batch(network_search):
    network = network_search.evaluator
    invariant = batch_invariant_evaluator(network)
    assert batch_invariant_evaluator(network) is invariant
    boards, _ = random_game_positions(3000, np.random.default_rng(11))
    whole = invariant.evaluate(boards)
    np.testing.assert_allclose(whole, network.evaluate(boards), atol=2e-6)
    rng = np.random.default_rng(0)
    for size in (1, 2, 3, 5, 17, 100, 999, 2999):
        rows = rng.choice(len(boards), size, replace=False)
        assert np.array_equal(invariant.evaluate(boards[rows]), whole[rows])
    assert np.array_equal(invariant.evaluate(boards[7]), whole[7])


def test_static_play_values_are_the_searchs():
    """The rollout's fast path for 0-ply play values gives ``Search.play_probabilities``."""
    from tdgammon.engine.evaluation.rollout import _static_play_values
    from tdgammon.engine.movegen.vectorized import generate_moves
    from tdgammon.engine.rules.dice import ALL_ROLLS

    search = Search(PipCountEvaluator())
    boards, dice = random_game_positions(400, np.random.default_rng(3))
    near_end = board_from_points({1: 2, 3: 1}, {2: 1, 6: 3})
    boards = np.concatenate([boards, np.repeat(np.stack([BEAROFF, near_end]), 21, axis=0)])
    dice = np.concatenate([dice, np.tile(ALL_ROLLS, (2, 1))])
    moves = generate_moves(boards, dice)
    expected = search.play_probabilities(moves.boards, 0, moves.extra_roll)
    assert np.array_equal(_static_play_values(search, moves.boards, moves.extra_roll), expected)


@pytest.mark.parametrize(
    ("preset", "variant", "table"),
    [("tiny", "standard", True), ("tiny_hand", "dutch", True), ("extended128", "standard", False)],
)
def test_batch_invariance_of_every_encoding(preset, variant, table):
    from tdgammon.engine.evaluation.evaluator import NetworkEvaluator
    from tdgammon.models.network import PRESETS, build_network

    network = NetworkEvaluator(
        build_network(PRESETS[preset], seed=3), PRESETS[preset], "n", variant
    )
    invariant = batch_invariant_evaluator(network)
    assert (invariant._table is not None) == table  # the table only for separable inputs
    boards, _ = random_game_positions(500, np.random.default_rng(5), variant=variant)
    whole = invariant.evaluate(boards)
    np.testing.assert_allclose(whole, network.evaluate(boards), atol=2e-6)
    for rows in (np.array([3]), np.arange(0, 500, 7), np.arange(1, 40)):
        assert np.array_equal(invariant.evaluate(boards[rows]), whole[rows])


def test_quick_ranking_makes_the_invariant_choice(network_search):
    """The 0-ply plays of the rollout (quick ranking, near-best valued again) are
    ``Search.choose_rows``'s with the batch-invariant network, with its values."""
    from tdgammon.engine.evaluation.rollout import _best_plays
    from tdgammon.engine.movegen.vectorized import generate_moves
    from tdgammon.engine.rules.dice import ALL_ROLLS

    search = rollout_search(network_search)
    boards, _ = random_game_positions(60, np.random.default_rng(9))
    boards = np.repeat(boards, len(ALL_ROLLS), axis=0)
    dice = np.tile(ALL_ROLLS, (60, 1))
    values, after, _ = _best_plays(search, boards, dice, 0)
    moves = generate_moves(boards, dice)
    rows = search.choose_rows(moves, len(boards), 0)
    assert np.array_equal(after, moves.boards[rows])
    assert np.array_equal(values, search.play_probabilities(after, 0))


# ----------------------------------------------------------------------------- trials


def test_split_trials_combine_to_the_same_rollout(network_search):
    """Same seed, any split of the trials, any batch: identical trials (full games,
    variance reduction, two roots so that the plays of a roll are covered)."""
    roots = np.stack([CONTACT, flip(starting_board())])
    settings = RolloutSettings(seed=21)
    whole = rollout_trials(network_search, roots, range(8), settings)
    first = rollout_trials(network_search, roots, range(0, 3), settings)
    second = rollout_trials(network_search, roots, np.array([7, 3, 4, 5, 6]), settings)
    for combined in (combine_trials([first, second]), combine_trials([second, first])):
        assert np.array_equal(combined.trials, whole.trials)
        assert np.array_equal(combined.plies, whole.plies)
        assert np.array_equal(combined.outcomes, whole.outcomes)
        assert np.array_equal(combined.probabilities, whole.probabilities)
    single = rollout_trials(network_search, roots[1], [6], settings)
    assert np.array_equal(single.probabilities[0], whole.probabilities[1, [6]])
    assert whole.plies.min() > 10  # whole games were played


def test_batches_of_a_rollout_are_its_trial_ranges():
    search = Search(PipCountEvaluator())
    settings = RolloutSettings(seed=5, truncate=6)
    whole = rollout_trials(search, CONTACT, range(3, 13), settings)
    batches = list(iter_rollout(search, CONTACT, 10, settings, first_trial=3, batch_trials=4))
    assert [list(b.trials) for b in batches] == [[3, 4, 5, 6], [7, 8, 9, 10], [11, 12]]
    assert np.array_equal(combine_trials(batches).probabilities, whole.probabilities)


def test_combine_trials_refuses_overlaps():
    search = Search(PipCountEvaluator())
    settings = RolloutSettings(truncate=2)
    a = rollout_trials(search, CONTACT, range(3), settings)
    with pytest.raises(TdgammonError):
        combine_trials([a, a])
    with pytest.raises(TdgammonError):
        combine_trials([])


def test_plain_rollout_is_the_unadjusted_outcomes(network_search):
    """The plays do not depend on the variance reduction: its unadjusted outcomes
    are the plain rollout of the same trials."""
    reduced = rollout_trials(
        network_search, CONTACT, range(10), RolloutSettings(seed=2, truncate=24)
    )
    plain = rollout_trials(
        network_search,
        CONTACT,
        range(10),
        RolloutSettings(seed=2, truncate=24, variance_reduction=False),
    )
    assert np.array_equal(plain.outcomes, reduced.outcomes)
    assert np.array_equal(plain.probabilities, plain.outcomes)
    assert np.array_equal(plain.plies, reduced.plies)


def test_one_ply_truncated_and_reduced_is_the_one_ply_evaluation(network_search):
    """Truncated after one ply with the luck taken out, every trial is the mean over
    the 21 rolls of the best play: exactly the 1-ply evaluation of the root."""
    search = rollout_search(network_search)
    settings = RolloutSettings(seed=1, truncate=1)
    results = rollout_trials(search, CONTACT, range(5), settings)
    assert (results.plies == 1).all()
    np.testing.assert_allclose(
        results.probabilities[0], np.tile(search.evaluate(CONTACT, 1), (5, 1)), atol=1e-6
    )
    plays = rollout_plays(search, starting_board(), (3, 1), 4, settings, top=3)
    assert len(plays) == 3
    for play in plays:
        one_ply = search.play_probabilities(play.play.board_after[None, :], 1)[0]
        np.testing.assert_allclose(play.estimate.probabilities, one_ply, atol=1e-6)
        assert play.estimate.equity_se < 1e-6
    assert plays[0].estimate.equity >= plays[1].estimate.equity >= plays[2].estimate.equity


def test_finished_game_rolls_out_to_its_result():
    search = Search(PipCountEvaluator())
    lost = board_from_points({1: 15}, {})  # the opponent has borne off all: a gammon
    results = rollout_trials(search, lost, range(4))
    assert (results.plies == 0).all()
    gammon_loss = invert(np.array([1.0, 1.0, 0.0, 0.0, 0.0]))
    np.testing.assert_array_equal(results.probabilities[0], np.tile(gammon_loss, (4, 1)))


# ----------------------------------------------------------------------------- correctness


def test_bearoff_rollout_agrees_with_the_database(network_search):
    exact = evaluate_bearoff(BEAROFF[None, :])[0].astype(np.float64)
    plain = rollout_position(
        network_search, BEAROFF, 2000, RolloutSettings(seed=8, variance_reduction=False)
    )
    assert z_score(plain.equity, float(equity(exact)), plain.equity_se) < 3
    for k in range(5):
        if plain.probabilities_se[k] > 0:
            assert z_score(plain.probabilities[k], exact[k], plain.probabilities_se[k]) < 3
    reduced = rollout_position(network_search, BEAROFF, 300, RolloutSettings(seed=8))
    assert reduced.equity_se < plain.equity_se / 3
    assert abs(reduced.equity - plain.equity) < 3 * plain.equity_se
    assert abs(reduced.equity - float(equity(exact))) < 0.01


def test_opening_rolls_out_to_zero(network_search):
    """With the opening roll either player may move first from the same board:
    the cubeless equity is 0 (over one full period of the quasi-random dice)."""
    settings = RolloutSettings(seed=4, truncate=4, opening=True)
    result = rollout_position(network_search, starting_board(), 30 * 36, settings)
    assert result.equity_se > 0
    assert z_score(result.equity, 0.0, result.equity_se) < 3
    assert abs(result.equity) < 0.02
    # the player on roll before rolling, doubles allowed, is ahead
    on_roll = rollout_position(network_search, starting_board(), 144, RolloutSettings(truncate=4))
    assert on_roll.equity > 0.03


def test_variance_reduction_is_unbiased_and_cuts_the_standard_error(network_search):
    results = rollout_trials(
        network_search, CONTACT, range(144), RolloutSettings(seed=3, truncate=10)
    )
    reduced = estimate(results)[0]
    plain = estimate(results, adjusted=False)[0]
    assert abs(reduced.equity - plain.equity) < 3 * plain.equity_se
    for k in range(5):
        assert abs(reduced.probabilities[k] - plain.probabilities[k]) <= 3 * max(
            plain.probabilities_se[k], 1e-9
        )
    assert plain.equity_se / reduced.equity_se >= 2


def test_rollouts_follow_the_variant():
    search = Search(PipCountEvaluator(), variant="hypergammon")
    start = search.variant.starting_board()
    results = rollout_trials(search, start, range(20), RolloutSettings(seed=1))
    assert (results.plies > 2).all()
    win = results.outcomes[0, :, 0]
    assert set(np.unique(win)) <= {0.0, 1.0}


# ----------------------------------------------------------------------------- settings


@pytest.mark.parametrize(
    "options",
    [{"seed": -1}, {"seed": 1.5}, {"plies": 4}, {"truncate": -2}, {"truncate": True}],
)
def test_bad_settings_are_refused(options):
    with pytest.raises(TdgammonError):
        RolloutSettings(**options)


def test_bad_rollout_arguments_are_refused():
    search = Search(PipCountEvaluator())
    with pytest.raises(TdgammonError):
        rollout_position(search, CONTACT, 0)
    with pytest.raises(TdgammonError):
        rollout_plays(search, CONTACT, (3, 1), 4, RolloutSettings(opening=True))
    with pytest.raises(TdgammonError):
        rollout_plays(search, CONTACT, (3, 1), 4, top=0)
    with pytest.raises(TdgammonError):
        rollout_trials(search, CONTACT, [1, 1])


# ----------------------------------------------------------------------------- cubeful


def test_cubeful_without_cube_access_is_the_cubeless_equity(network_search):
    """A cube that cannot be turned (limit 1): each trial's cubeful result is its
    cubeless equity, luck adjustment included, and the games are the cubeless ones."""
    from tdgammon.engine.cube.rollout import cubeful_rollout_trials
    from tdgammon.engine.rules.position import Position

    settings = RolloutSettings(seed=6)  # whole games: a truncated one gets cube theory's value
    position = Position(board=CONTACT, max_cube=1)
    cubeful = cubeful_rollout_trials(network_search, position, range(8), settings)
    cubeless = rollout_trials(network_search, CONTACT, range(8), settings)
    assert np.array_equal(cubeful.cubeless.probabilities, cubeless.probabilities)
    np.testing.assert_allclose(cubeful.raw_values, equity(cubeless.outcomes), atol=1e-12)
    np.testing.assert_allclose(cubeful.values, equity(cubeless.probabilities), atol=1e-9)


def test_cubeful_rollout_splits_like_the_cubeless_one(network_search):
    from tdgammon.engine.cube.rollout import combine_cubeful, cubeful_rollout_trials
    from tdgammon.engine.rules.position import Position

    settings = RolloutSettings(seed=2, truncate=16)
    for position in (
        Position(board=CONTACT),
        Position(board=CONTACT, match_length=7, mover_score=4, opponent_score=2),
    ):
        whole = cubeful_rollout_trials(network_search, position, range(8), settings)
        parts = [
            cubeful_rollout_trials(network_search, position, trials, settings)
            for trials in (range(5, 8), range(0, 5))
        ]
        combined = combine_cubeful(parts)
        assert np.array_equal(combined.values, whole.values)
        assert np.array_equal(combined.cubeless.probabilities, whole.cubeless.probabilities)
        assert whole.match == (not position.is_money)


def test_a_double_that_must_be_dropped_ends_every_game(network_search):
    """The player on roll is sure to win without gammons: he doubles, the opponent
    drops, and every trial is +1 (money) before a die is rolled."""
    from tdgammon.engine.cube.rollout import cubeful_estimate, cubeful_rollout_trials
    from tdgammon.engine.rules.position import Position

    sure = Position(board=board_from_points({1: 2}, {6: 3, 5: 3, 4: 3}))
    results = cubeful_rollout_trials(network_search, sure, range(6))
    assert (results.cubeless.plies == 0).all()
    assert np.array_equal(results.raw_values, np.ones((1, 6)))
    assert cubeful_estimate(results, sure)[0].equity == 1.0
    owned = sure.with_changes(cube_owner="opponent", cube_value=2)
    results = cubeful_rollout_trials(network_search, owned, range(6))
    assert (results.cubeless.plies > 0).all()  # no cube access: the games are played
    np.testing.assert_allclose(results.raw_values, 1.0)  # won, single games, at the root's cube


def test_crawford_game_has_no_cube_and_scores_by_the_match_table(network_search):
    from tdgammon.engine.cube.match_equity import MatchState, outcome_mwcs
    from tdgammon.engine.cube.rollout import cubeful_rollout_trials
    from tdgammon.engine.rules.position import Position

    position = Position(
        board=CONTACT, match_length=5, mover_score=4, opponent_score=2, crawford=True
    )
    results = cubeful_rollout_trials(
        network_search, position, range(10), RolloutSettings(seed=1, variance_reduction=False)
    )
    table = outcome_mwcs(MatchState.from_position(position), 1)
    kinds = np.rint(equity(results.cubeless.outcomes[0])).astype(int)
    expected = [table[0 if k > 0 else 1, abs(k) - 1] for k in kinds]
    np.testing.assert_allclose(results.raw_values[0], expected)


def test_cubeful_rollout_needs_a_cube():
    from tdgammon.engine.cube.rollout import cubeful_rollout_trials
    from tdgammon.engine.rules.position import Position

    search = Search(PipCountEvaluator(), variant="acey-deucey")
    with pytest.raises(TdgammonError, match="without the cube"):
        cubeful_rollout_trials(search, Position(), range(2))
