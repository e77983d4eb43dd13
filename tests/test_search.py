"""tdgammon.engine.evaluation.search: 0-ply scoring, n-ply expectimax checked against its
definition, filters."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.evaluation.bearoff import evaluate_bearoff, is_bearoff_position
from tdgammon.engine.evaluation.search import (
    MoveFilter,
    PipCountEvaluator,
    Search,
    probabilities_dict,
    rank_per_parent,
    top_per_parent,
)
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.board import board_from_points, flip, starting_board
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outputs import equity, invert


@pytest.fixture(scope="module")
def search() -> Search:
    return Search(PipCountEvaluator())


@pytest.fixture(scope="module")
def contact_boards() -> np.ndarray:
    boards, _ = random_game_positions(40, np.random.default_rng(11))
    keep = ~is_bearoff_position(boards)
    # a spread of positions, the opening included
    return np.concatenate([starting_board()[None, :], boards[keep][::5]])


def _static_after(search: Search, board_after: np.ndarray) -> np.ndarray:
    """0-ply value of one play, mover's view: flip, score for the opponent, invert."""
    return invert(search.static(flip(np.asarray(board_after))))


# ------------------------------------------------------------------ helpers


def test_invert_is_an_involution_and_swaps_gammons():
    p = np.array([0.6, 0.2, 0.05, 0.1, 0.01], dtype=np.float32)
    q = invert(p)
    np.testing.assert_allclose(q, [0.4, 0.1, 0.01, 0.2, 0.05], atol=1e-7)
    np.testing.assert_allclose(invert(q), p, atol=1e-7)
    assert equity(q) == pytest.approx(-equity(p), abs=1e-6)


def test_equity_is_the_architecture_formula():
    p = np.array([0.6, 0.2, 0.05, 0.1, 0.01])
    assert equity(p) == pytest.approx(2 * 0.6 - 1 + 0.2 - 0.1 + 0.05 - 0.01)
    assert list(probabilities_dict(p)) == [
        "win",
        "win_gammon",
        "win_backgammon",
        "lose_gammon",
        "lose_backgammon",
    ]


def test_top_per_parent_keeps_best_within_threshold():
    scores = np.array([0.1, 0.5, 0.45, 0.3, -1.0, 0.2, 0.2])
    parents = np.array([0, 0, 0, 0, 1, 2, 2])
    kept = top_per_parent(scores, parents, keep=2, threshold=0.1)
    assert kept.tolist() == [False, True, True, False, True, True, True]
    kept = top_per_parent(scores, parents, keep=1)
    assert kept.tolist() == [False, True, False, False, True, True, False]  # tie: first row


def test_rank_per_parent_orders_each_parents_rows_best_first():
    scores = np.array([0.1, 0.5, 0.45, 0.3, -1.0, 0.2, 0.2])
    parents = np.array([2, 0, 2, 0, 1, 2, 2])
    order, rank = rank_per_parent(scores, parents)
    assert order.tolist() == [1, 3, 4, 2, 5, 6, 0]  # parent 0, 1, 2; tie 5/6: earlier row first
    assert rank.tolist() == [0, 1, 0, 0, 1, 2, 3]


# ------------------------------------------------------------------ 0-ply


def test_static_scores_finished_games_exactly(search):
    # opponent has borne off all 15; mover still has a checker on the bar: backgammon lost
    lost = board_from_points({25: 1, 6: 14}, {})
    np.testing.assert_array_equal(search.static(lost), [0, 0, 0, 1, 1])
    won = flip(lost)
    np.testing.assert_array_equal(search.static(won), [1, 1, 1, 0, 0])


def test_static_uses_bearoff_database_for_pure_races(search):
    board = board_from_points({1: 3, 2: 2, 6: 4}, {1: 2, 3: 5, 5: 1})
    assert is_bearoff_position(board[None, :])[0]
    np.testing.assert_allclose(search.static(board), evaluate_bearoff(board[None, :])[0])
    no_db = Search(PipCountEvaluator(), use_bearoff=False)
    np.testing.assert_allclose(no_db.static(board), PipCountEvaluator().evaluate(board))


def test_static_uses_the_evaluator_elsewhere(search, contact_boards):
    np.testing.assert_allclose(
        search.static(contact_boards), PipCountEvaluator().evaluate(contact_boards)
    )


def test_batch_equals_one_at_a_time(search, contact_boards):
    together = search.evaluate(contact_boards[:4], 1)
    for i in range(4):
        np.testing.assert_allclose(search.evaluate(contact_boards[i], 1), together[i], atol=1e-6)


def test_expansion_in_blocks_changes_no_value(search, contact_boards, monkeypatch):
    """Search.evaluate expands EXPAND_BLOCK positions at a time (memory): with
    blocks of 3 the 1- and 2-ply values are those of one block."""
    import tdgammon.engine.evaluation.search as search_module

    boards = contact_boards[:7]
    whole = [search.evaluate(boards, plies) for plies in (1, 2)]
    monkeypatch.setattr(search_module, "EXPAND_BLOCK", 3)
    for plies, expected in zip((1, 2), whole, strict=True):
        np.testing.assert_allclose(search.evaluate(boards, plies), expected, atol=1e-6)


# ------------------------------------------------------------------ n-ply


def test_one_ply_equals_average_of_best_zero_ply_reply(search, contact_boards):
    """Acceptance (issue 5): 1-ply = sum over the 21 rolls of w(roll) x the best
    0-ply play, computed directly with the reference move generator."""
    for board in contact_boards[:4]:
        expected = np.zeros(5)
        for roll, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
            plays = legal_plays(board.tolist(), tuple(int(d) for d in roll))
            afters = [np.array(p.board, dtype=np.int8) for p in plays] or [board]
            values = [_static_after(search, after) for after in afters]
            best = max(values, key=lambda v: float(equity(v)))
            expected += weight * best
        np.testing.assert_allclose(search.evaluate(board, 1), expected, atol=2e-6)


def test_two_ply_full_expectimax_matches_its_definition(contact_boards):
    full = Search(PipCountEvaluator(), inner_keep=0)
    board = contact_boards[1]
    expected = np.zeros(5)
    for roll, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        moves = generate_moves(board[None, :], roll[None, :])
        values = invert(full.evaluate(flip(moves.boards), 1))
        expected += weight * values[int(np.argmax(equity(values)))]
    np.testing.assert_allclose(full.evaluate(board, 2), expected, atol=2e-6)


def test_two_ply_inner_play_is_chosen_at_zero_ply(search, contact_boards):
    """GNU Backgammon's choice inside the tree: the 0-ply best play of each roll,
    then valued at 1-ply."""
    board = contact_boards[2]
    expected = np.zeros(5)
    for roll, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        moves = generate_moves(board[None, :], roll[None, :])
        zero = invert(search.static(flip(moves.boards)))
        best = moves.boards[int(np.argmax(equity(zero)))]
        expected += weight * invert(search.evaluate(flip(best), 1))
    np.testing.assert_allclose(search.evaluate(board, 2), expected, atol=2e-6)


def test_bearoff_positions_are_not_expanded(search):
    board = board_from_points({1: 3, 2: 2, 6: 4}, {1: 2, 3: 5, 5: 1})
    for plies in (1, 2):
        np.testing.assert_allclose(search.evaluate(board, plies), search.static(board))


def test_nply_probabilities_are_consistent(search, contact_boards):
    p = search.evaluate(contact_boards, 1)
    assert p.shape == (len(contact_boards), 5) and p.dtype == np.float32
    assert (p[:, 0] >= p[:, 1] - 1e-6).all() and (p[:, 1] >= p[:, 2] - 1e-6).all()
    assert (1 - p[:, 0] >= p[:, 3] - 1e-6).all() and (p[:, 3] >= p[:, 4] - 1e-6).all()


@pytest.mark.parametrize("plies", [-1, 4, 1.5, True])
def test_bad_plies_are_refused(search, plies):
    with pytest.raises(TdgammonError, match="plies"):
        search.evaluate(starting_board(), plies)


# ------------------------------------------------------------------ move analysis


def test_analyse_zero_ply_ranks_every_play_by_equity(search):
    board = starting_board()
    plays = search.analyse(board, (5, 2), 0)
    moves = generate_moves(board[None, :], np.array([[5, 2]]))
    assert len(plays) == len(moves)
    equities = [p.equity for p in plays]
    assert equities == sorted(equities, reverse=True)
    assert all(p.plies == 0 for p in plays)
    for play in plays:
        np.testing.assert_allclose(play.probabilities, _static_after(search, play.board_after))


def test_analyse_filters_candidates_per_level(search, contact_boards):
    board, dice = contact_boards[3], (6, 4)
    zero = {p.moves: p.equity for p in search.analyse(board, dice, 0)}
    plays = search.analyse(board, dice, 2)
    depths = [p.plies for p in plays]
    assert depths == sorted(depths, reverse=True)  # deeper plays first
    deep1 = [p for p in plays if p.plies >= 1]
    assert 1 <= len(deep1) <= 8
    best0 = max(zero.values())
    assert all(zero[p.moves] >= best0 - 0.16 - 1e-6 for p in deep1)
    assert 1 <= sum(p.plies == 2 for p in plays) <= 2
    for play in plays[:2]:
        if play.plies == 2:
            expected = invert(search.evaluate(flip(play.board_after), 2))
            np.testing.assert_allclose(play.probabilities, expected, atol=1e-6)


def test_custom_filters():
    narrow = Search(PipCountEvaluator(), filters=[MoveFilter(1, 0.0)])
    plays = narrow.analyse(starting_board(), (3, 1), 2)
    assert [p.plies for p in plays].count(2) == 1 and [p.plies for p in plays].count(1) == 0
    with pytest.raises(ValueError):
        Search(PipCountEvaluator(), filters=[MoveFilter(0, 0.1)])


def test_no_legal_play_gives_an_empty_analysis(search):
    # mover on the bar against a closed board
    board = board_from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    assert search.analyse(board, (6, 6), 1) == []


def test_choose_rows_picks_the_analysed_best(search, contact_boards):
    rng = np.random.default_rng(3)
    boards = contact_boards[:5]
    dice = ALL_ROLLS[rng.integers(0, 21, len(boards))]
    moves = generate_moves(boards, dice)
    for plies in (0, 1):
        rows = search.choose_rows(moves, len(boards), plies)
        for i, row in enumerate(rows):
            best = search.analyse(boards[i], dice[i], plies)[0]
            np.testing.assert_array_equal(moves.boards[row], best.board_after)
