"""Lambda-returns by hand, and self-play invariants."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.evaluation.evaluator import NetworkEvaluator
from tdgammon.engine.rules.board import CHECKERS_PER_SIDE, MOVER_OFF, OPPONENT_OFF
from tdgammon.engine.rules.outputs import invert
from tdgammon.models.network import PRESETS, build_network
from tdgammon.train.selfplay import SelfPlay, lambda_returns


def _values(rows):
    return np.array(rows, dtype=np.float32)[None]


def test_lambda_returns_by_hand():
    #  three plies; ply 2 bore off (true outcome: win, no gammon)
    v = _values([[0.6, 0.1, 0, 0.1, 0], [0.3, 0.1, 0, 0.2, 0], [1, 0, 0, 0, 0]])
    lengths = np.array([3])
    g = lambda_returns(v, lengths, 0.5)[0]
    np.testing.assert_allclose(g[2], v[0, 2])
    g1 = 0.5 * v[0, 1] + 0.5 * invert(g[2][None])[0]
    np.testing.assert_allclose(g[1], g1, rtol=1e-6)
    g0 = 0.5 * v[0, 0] + 0.5 * invert(g1[None])[0]
    np.testing.assert_allclose(g[0], g0, rtol=1e-6)


def test_lambda_zero_is_td0_and_one_is_the_outcome():
    v = _values([[0.6, 0.1, 0, 0.1, 0], [0.3, 0.1, 0, 0.2, 0], [1, 1, 0, 0, 0]])
    lengths = np.array([3])
    np.testing.assert_allclose(lambda_returns(v, lengths, 0.0)[0], v[0])
    g = lambda_returns(v, lengths, 1.0)[0]
    np.testing.assert_allclose(g[2], [1, 1, 0, 0, 0])
    np.testing.assert_allclose(g[1], [0, 0, 0, 1, 0])  # the other player lost a gammon
    np.testing.assert_allclose(g[0], [1, 1, 0, 0, 0])


def test_padding_and_mixed_lengths():
    v = np.zeros((2, 3, 5), dtype=np.float32)
    v[0, 0] = [1, 0, 0, 0, 0]
    v[1, :3] = [[0.5, 0, 0, 0, 0], [0.5, 0, 0, 0, 0], [1, 0, 0, 0, 0]]
    g = lambda_returns(v, np.array([1, 3]), 0.7)
    np.testing.assert_allclose(g[0, 0], [1, 0, 0, 0, 0])
    np.testing.assert_array_equal(g[0, 1:], 0)
    assert g[1, 0, 0] == pytest.approx(0.3 * 0.5 + 0.7 * (1 - (0.3 * 0.5 + 0.7 * 0)))


def test_selfplay_games_finish_with_consistent_histories():
    evaluator = NetworkEvaluator(build_network(PRESETS["tiny"], seed=1), PRESETS["tiny"])
    play = SelfPlay(32, np.random.default_rng(0))
    while play.games_finished < 40:
        play.step(evaluator)
        # every game in flight keeps exactly 15 checkers a side (points, bar and off
        # counted) and is not over: nobody has borne off all 15 yet
        assert (np.where(play.boards > 0, play.boards, 0).sum(axis=1) == CHECKERS_PER_SIDE).all()
        assert (np.where(play.boards < 0, -play.boards, 0).sum(axis=1) == CHECKERS_PER_SIDE).all()
        assert (play.boards[:, MOVER_OFF] < CHECKERS_PER_SIDE).all()
        assert (-play.boards[:, OPPONENT_OFF] < CHECKERS_PER_SIDE).all()
    boards, targets, games = play.take_finished(0.7)
    assert games == play.games_finished >= 40
    assert len(boards) == len(targets) and targets.shape[1] == 5
    assert ((targets >= 0) & (targets <= 1)).all()
    assert (targets[:, 1] <= targets[:, 0] + 1e-6).all()
    assert play.finished_positions == 0


def test_games_stop_where_contact_ends_with_the_race_value():
    """stop_at_race: a game ends on the play that breaks contact, every stored
    position has contact, and such a game's last value is the race evaluator's
    value of the race its greedy play left (checked against the 21 rolls)."""
    from tdgammon.engine.evaluation.one_sided_race import OneSidedRaceEvaluator
    from tdgammon.engine.movegen.vectorized import best_rows, generate_moves
    from tdgammon.engine.rules.board import has_contact
    from tdgammon.engine.rules.dice import ALL_ROLLS
    from tdgammon.engine.rules.outcome import variant_equity
    from tdgammon.models.race_distributions import build_race_net

    race = OneSidedRaceEvaluator(build_race_net(16, seed=3))
    network = build_network(PRESETS["tiny"], seed=1)
    evaluator = NetworkEvaluator(network, PRESETS["tiny"], race=race)
    play = SelfPlay(32, np.random.default_rng(0), stop_at_race=True)
    while play.games_finished < 40:
        play.step(evaluator)
        assert has_contact(play.boards).all()  # the games in flight
    raced = 0
    for boards, values in zip(play.finished_boards, play.finished_values, strict=True):
        assert has_contact(boards).all()
        if np.isin(values[-1], (0.0, 1.0)).all():
            continue  # ended by a bear-off (a race evaluator value is never exact)
        raced += 1
        last = np.repeat(boards[-1][None, :], len(ALL_ROLLS), axis=0)
        moves = generate_moves(last, ALL_ROLLS)
        probs = evaluator.play_probabilities(moves)
        best = best_rows(variant_equity(probs), moves.parents, len(last))
        hits = [r for r in range(len(last)) if np.array_equal(probs[best[r]], values[-1])]
        assert hits and not has_contact(moves.boards[best[hits[0]]][None, :]).any()
    assert raced > 0
    boards, targets, games = play.take_finished(0.7)
    assert games >= 40 and has_contact(boards).all()
