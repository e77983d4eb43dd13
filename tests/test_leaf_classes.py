"""The vectorized leaf tests of a search (``has_contact``, ``is_bearoff_position``)
against slow per-board references written from their definitions
(docs/rules.md: a race once no checker has to pass an opponent's checker; a
pure bear-off once both sides have every checker home or off)."""

from __future__ import annotations

import numpy as np

from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.rules.board import (
    MOVER_BAR,
    MOVER_HAND,
    OPPONENT_BAR,
    OPPONENT_HAND,
    has_contact,
)


def mover_rearmost(board) -> int:
    """The mover's rearmost checker in its own numbering (bar or hand 25; none left 0)."""
    if board[MOVER_HAND] > 0 or board[MOVER_BAR] > 0:
        return 25
    return max((point for point in range(1, 25) if board[point] > 0), default=0)


def opponent_rearmost(board) -> int:
    """The opponent's rearmost checker in the mover's numbering (bar or hand 0; none 25)."""
    if board[OPPONENT_HAND] < 0 or board[OPPONENT_BAR] < 0:
        return 0
    return min((point for point in range(1, 25) if board[point] < 0), default=25)


def reference_contact(board) -> bool:
    return mover_rearmost(board) > opponent_rearmost(board)


def reference_bearoff(board, max_checkers: int = 15) -> bool:
    mover_home = sum(int(board[point]) for point in range(1, 7) if board[point] > 0)
    opponent_home = sum(-int(board[point]) for point in range(19, 25) if board[point] < 0)
    return (
        mover_rearmost(board) <= 6
        and opponent_rearmost(board) >= 19
        and mover_home <= max_checkers
        and opponent_home <= max_checkers
    )


def sample_boards() -> np.ndarray:
    """Scattered boards (every kind of stack, bar and bear-off) and positions of
    random games (contact, races and bear-offs as play meets them)."""
    rng = np.random.default_rng(20261202)
    played, _ = random_game_positions(6000, rng)
    return np.concatenate([random_boards(4000, rng), played])


def test_has_contact_matches_the_reference():
    boards = sample_boards()
    expected = np.array([reference_contact(board) for board in boards])
    assert 0.1 < expected.mean() < 0.9  # both kinds are met
    assert np.array_equal(has_contact(boards), expected)
    assert has_contact(boards[0]) == expected[0]


def test_is_bearoff_position_matches_the_reference():
    boards = sample_boards()
    for most in (15, 6, 3):
        expected = np.array([reference_bearoff(board, most) for board in boards])
        assert expected.any() and not expected.all()
        assert np.array_equal(is_bearoff_position(boards, most), expected), most
    assert is_bearoff_position(boards[0]) == reference_bearoff(boards[0])
