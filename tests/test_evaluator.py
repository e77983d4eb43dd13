"""NetworkEvaluator and NetworkAgent: perspective, terminal plays, greedy choice."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.evaluation.evaluator import (
    NetworkAgent,
    NetworkEvaluator,
    default_evaluator,
)
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen.vectorized import best_rows, generate_moves
from tdgammon.engine.rules.board import board_from_points, flip
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.outputs import equity, invert
from tdgammon.models import shipped_model
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


def _best_rows_by_sorting(scores, parents, batch):
    """The sort-based definition that best_rows replaced (agents.best_per_parent,
    search.top_rows): highest score, then first row; NaN sorts last."""
    order = np.lexsort((np.arange(len(scores)), -np.asarray(scores, np.float64), parents))
    return order[np.searchsorted(parents[order], np.arange(batch))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_best_rows_is_the_highest_score_first_row_on_ties(dtype):
    rng = np.random.default_rng(5)
    counts = rng.integers(1, 6, size=300)
    parents = np.repeat(np.arange(300), counts)
    scores = rng.integers(0, 4, size=len(parents)).astype(dtype)  # many ties
    if dtype is not np.int64:
        scores[rng.random(len(scores)) < 0.2] = -np.inf  # rows that may not be chosen
        scores[rng.random(len(scores)) < 0.1] = np.nan
        scores[parents == 7] = -np.inf  # all excluded: the first row
        scores[parents == 8] = np.nan
    chosen = best_rows(scores, parents, 300)
    assert chosen.dtype == np.int64
    np.testing.assert_array_equal(chosen, _best_rows_by_sorting(scores, parents, 300))
    assert best_rows(np.zeros(0), np.zeros(0, np.int64), 0).shape == (0,)


def test_agent_maximises_equity(evaluator):
    boards, dice = random_game_positions(128, np.random.default_rng(6))
    moves = generate_moves(boards, dice)
    chosen = NetworkAgent(evaluator).choose_plays(boards, dice, moves)
    eq = equity(evaluator.play_probabilities(moves))
    for parent in range(0, 128, 17):
        rows = np.flatnonzero(moves.parents == parent)
        assert eq[chosen[parent]] == eq[rows].max()


@pytest.mark.skipif(not shipped_model().is_file(), reason="no shipped model yet")
def test_default_evaluator_loads_the_shipped_model():
    ev = default_evaluator()
    assert ev is default_evaluator("standard") and ev.name == "tdgammon"
    from tdgammon.engine.rules.board import starting_board

    p = ev.evaluate(starting_board())
    assert 0.4 < p[0] < 0.6  # the opening position is close to even


@pytest.mark.parametrize("variant", ["dutch", "acey-deucey"])
def test_default_evaluator_loads_the_shipped_network_of_a_variant(variant):
    if not shipped_model(variant).is_file():
        pytest.skip(f"no shipped {variant} model")
    ev = default_evaluator(variant)
    assert ev.variant.name == variant and ev.name == f"tdgammon-{variant}"


def test_a_missing_shipped_network_is_a_clear_error(monkeypatch, tmp_path):
    import tdgammon.engine.evaluation.evaluator as evaluator_module

    monkeypatch.setattr(evaluator_module, "shipped_model", lambda v: tmp_path / f"{v}.pt")
    monkeypatch.setattr(evaluator_module, "_SHIPPED", {})
    with pytest.raises(FormatError, match="no trained network for dutch: .*dutch.pt is missing"):
        default_evaluator("dutch")
