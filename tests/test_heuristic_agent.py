"""The hand-written heuristic player: sensible choices on hand-made positions, every variant."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.players.agents import RandomAgent
from tdgammon.engine.players.duel import play_duel
from tdgammon.engine.players.heuristic import SHOTS, HeuristicAgent, heuristic_scores
from tdgammon.engine.rules.board import MOVER_HAND, OPPONENT_BAR, OPPONENT_HAND, board_from_points
from tdgammon.engine.rules.variants import VARIANTS, get_variant


def _choose(board, dice, variant="standard"):
    boards = np.asarray(board, dtype=np.int8)[None, :]
    moves = generate_moves(boards, np.array([dice]), variant)
    row = HeuristicAgent(variant).choose_plays(boards, np.array([dice]), moves)[0]
    return moves.boards[row], moves


def test_shot_table_counts_rolls():
    assert SHOTS[6] == 17 and SHOTS[1] == 11 and SHOTS[12] == 3 and SHOTS[24] == 1
    assert SHOTS[13] == 0 and SHOTS[14] == 0


def test_hits_a_blot_when_it_can():
    # mover: checkers on 8 and 6; opponent blot on the mover's 5 point (its 20)
    board = board_from_points({8: 3, 6: 12}, {20: 1, 1: 14})
    after, _ = _choose(board, (3, 1))
    assert after[OPPONENT_BAR] == -1


def test_makes_a_point_rather_than_leaving_two_blots():
    # 3-1 from the start: make the 5 point (8/5 6/5)
    board = get_variant("standard").starting_board()
    after, _ = _choose(board, (3, 1))
    assert after[5] == 2 and after[8] == 2 and after[6] == 4


def test_takes_the_winning_play():
    board = board_from_points({1: 1, 2: 1}, {6: 15})
    board[0] = 13
    after, _ = _choose(board, (2, 1))
    assert after[0] == 15


def test_scores_positions_with_checkers_in_hand():
    for name in ("dutch", "acey-deucey"):
        start = get_variant(name).starting_board()
        moves = generate_moves(start[None, :], np.array([[6, 5]]), name)
        scores = heuristic_scores(moves.boards, name)
        assert np.isfinite(scores).all() and len(scores) == len(moves)
        # a checker entered from the hand lowers the mover's pips by exactly the dice
        assert (moves.boards[:, MOVER_HAND] < 15).all()


def _rest(board, variant):
    """Score minus the race term: points, blots, stacks, off."""
    from tdgammon.engine.players.heuristic import _pips
    from tdgammon.engine.rules.board import flip

    b = np.asarray(board, dtype=np.int16)[None, :]
    race = _pips(flip(b)) - _pips(b)
    return float(heuristic_scores(b, variant)[0] - race[0])


def test_checkers_in_hand_threaten_blots():
    # Acey-Deucey: the mover's blot on its 3 point; the opponent enters from its hand
    # onto the mover's points 1..6, so the blot is 3 pips in front of it: 14 rolls hit.
    board = np.zeros(30, dtype=np.int8)
    board[3], board[MOVER_HAND], board[OPPONENT_HAND] = 1, 14, -15
    assert _rest(board, "acey-deucey") == pytest.approx(-14 / 36 * (22 + 6))
    # Nothing behind the blot: no risk.
    board[OPPONENT_HAND], board[24] = 0, -15
    assert _rest(board, "acey-deucey") == pytest.approx(0.0)


def test_dutch_blots_are_safe_until_the_opponent_may_hit():
    board = np.zeros(30, dtype=np.int8)
    board[10], board[MOVER_HAND] = 1, 14
    board[OPPONENT_HAND] = -14
    board[25 - 20] = -1  # opponent's checker on its 20 point = mover's index 5, behind the blot
    assert _rest(board, "dutch") == 0.0  # the opponent has no checker home yet
    assert _rest(board, "acey-deucey") < 0.0


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_beats_random_in_every_variant(name):
    games = 4 if name == "acey-deucey" else 10
    result = play_duel(HeuristicAgent(name), RandomAgent(seed=1), games, 3, variant=name)
    assert result.games == games and result.ppg > 0
    assert np.all(np.abs(result.points) >= 1)
