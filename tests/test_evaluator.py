"""NetworkEvaluator and NetworkAgent: perspective, terminal plays, greedy choice."""

from __future__ import annotations

import numpy as np
import pytest
from tdgammon.engine.evaluation.evaluator import (
    NetworkAgent,
    NetworkEvaluator,
    best_rows,
    default_evaluator,
)
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.players.agents import best_per_parent
from tdgammon.engine.rules.board import board_from_points, flip
from tdgammon.engine.rules.outputs import equity, invert
from tdgammon.models import SHIPPED_MODEL
from tdgammon.models.network import PRESETS, build_network


@pytest.fixture(scope="module")
def evaluator():
    return NetworkEvaluator(build_network(PRESETS["tesauro80"], seed=4), PRESETS["tesauro80"])


def test_play_probabilities_flip_evaluate_invert(evaluator):
    boards, dice = random_game_positions(64, np.random.default_rng(3))
    moves = generate_moves(boards, dice)
    probs = evaluator.play_probabilities(moves)
    assert probs.shape == (len(moves), 5) and probs.dtype == np.float32
    expected = invert(evaluator.evaluate(flip(moves.boards)))
    np.testing.assert_allclose(probs, expected, rtol=1e-6, atol=1e-6)


def test_evaluate_one_board_equals_batch(evaluator):
    boards, _ = random_game_positions(10, np.random.default_rng(4))
    np.testing.assert_allclose(
        evaluator.evaluate(boards[3]), evaluator.evaluate(boards)[3], atol=1e-6
    )


def test_bearing_off_the_last_checker_is_an_exact_win(evaluator):
    #  mover: last checker on its 1 point; opponent has 15 on its 23 (never got home:
    #  a backgammon, the opponent has checkers in the mover's home board).
    board = board_from_points({1: 1}, {23: 15})
    moves = generate_moves(board[None, :], np.array([[6, 5]]))
    probs = evaluator.play_probabilities(moves)
    np.testing.assert_array_equal(probs, [[1, 1, 1, 0, 0]])
    agent = NetworkAgent(evaluator)
    assert agent.choose_plays(board[None, :], np.array([[6, 5]]), moves).tolist() == [0]
    # and the loser's view of that finished board is an exact loss
    np.testing.assert_array_equal(evaluator.evaluate(flip(moves.boards))[0], [0, 0, 0, 1, 1])


def test_agent_takes_the_win_when_it_can(evaluator):
    #  two checkers left on 1 and 2: 2-1 bears both off; any roll does
    board = board_from_points({1: 1, 2: 1}, {1: 15})
    dice = np.array([[2, 1]])
    moves = generate_moves(board[None, :], dice)
    row = NetworkAgent(evaluator).choose_plays(board[None, :], dice, moves)[0]
    assert moves.boards[row][0] == 15


def test_best_rows_matches_best_per_parent():
    rng = np.random.default_rng(5)
    counts = rng.integers(1, 6, size=300)
    parents = np.repeat(np.arange(300), counts)
    scores = rng.integers(0, 4, size=len(parents)).astype(np.float32)  # many ties
    np.testing.assert_array_equal(
        best_rows(scores, parents, 300), best_per_parent(scores, parents, 300)
    )


def test_agent_maximises_equity(evaluator):
    boards, dice = random_game_positions(128, np.random.default_rng(6))
    moves = generate_moves(boards, dice)
    chosen = NetworkAgent(evaluator).choose_plays(boards, dice, moves)
    eq = equity(evaluator.play_probabilities(moves))
    for parent in range(0, 128, 17):
        rows = np.flatnonzero(moves.parents == parent)
        assert eq[chosen[parent]] == eq[rows].max()


@pytest.mark.skipif(not SHIPPED_MODEL.is_file(), reason="no shipped model yet")
def test_default_evaluator_loads_the_shipped_model():
    ev = default_evaluator()
    from tdgammon.engine.rules.board import starting_board

    p = ev.evaluate(starting_board())
    assert 0.4 < p[0] < 0.6  # the opening position is close to even
