"""FIBS board strings: colour, direction, turn, cube, and malformed input."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tdgammon.engine.formats.fibs import position_from_fibs
from tdgammon.engine.rules.board import (
    MOVER_BAR,
    OPPONENT_BAR,
    board_from_points,
    flip,
    starting_board,
)
from tdgammon.engine.rules.errors import FormatError, InvalidBoardError, TdgammonError
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT

# The example of the FIBS client protocol: you are O (+1), moving 24 -> 1, to play 6-2.
FIBS_EXAMPLE = (
    "board:You:someplayer:3:0:0:"
    "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
)


def fibs_string(
    you_board,
    *,
    colour=1,
    direction=-1,
    your_turn=True,
    your_dice=(0, 0),
    opponent_dice=(0, 0),
    cube=1,
    may_double=(1, 1),
    was_doubled=0,
    match_length=9999,
    scores=(0, 0),
    did_crawford=0,
    redoubles=0,
    bar_sign_of_owner=True,
):
    """Write a FIBS board from a board seen by "You" (yours positive), per the protocol."""
    b = np.asarray(you_board, dtype=int)
    cells = [0] * 26
    for point in range(1, 25):
        field = point if direction == -1 else 25 - point
        cells[field] = int(b[point]) * colour
    your_bar, their_bar = (25, 0) if direction == -1 else (0, 25)
    cells[your_bar] = int(b[MOVER_BAR]) * (colour if bar_sign_of_owner else 1)
    cells[their_bar] = -int(b[OPPONENT_BAR]) * (-colour if bar_sign_of_owner else 1)
    home, bar = (0, 25) if direction == -1 else (25, 0)
    turn = colour if your_turn else -colour
    fields = (
        ["board", "You", "Them", match_length, *scores]
        + cells
        + [turn, *your_dice, *opponent_dice, cube, *may_double, was_doubled, colour, direction]
        + [home, bar, int(b[0]), int(-b[27]), int(b[MOVER_BAR]), int(-b[OPPONENT_BAR])]
        + [0, 0, did_crawford, redoubles]
    )
    return ":".join(str(f) for f in fields)


SAMPLE = board_from_points({6: 4, 8: 3, 13: 4, 24: 2, 25: 1, 3: 1}, {6: 5, 7: 2, 13: 5, 25: 2})


def test_protocol_example():
    position = position_from_fibs(FIBS_EXAMPLE)
    assert np.array_equal(position.board, starting_board())
    assert position.dice == (6, 2) and position.mover_seat == 0
    assert position.match_length == 3 and not position.crawford


@pytest.mark.parametrize("colour", [1, -1])
@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize("bar_sign_of_owner", [True, False])
def test_colour_and_direction_are_read_not_assumed(colour, direction, bar_sign_of_owner):
    text = fibs_string(
        SAMPLE,
        colour=colour,
        direction=direction,
        your_dice=(4, 1),
        bar_sign_of_owner=bar_sign_of_owner,
    )
    position = position_from_fibs(text)
    assert np.array_equal(position.board, SAMPLE)
    assert position.dice == (4, 1) and position.mover_seat == 0


@pytest.mark.parametrize("colour", [1, -1])
@pytest.mark.parametrize("direction", [1, -1])
def test_opponents_turn_flips_to_their_view(colour, direction):
    text = fibs_string(
        SAMPLE,
        colour=colour,
        direction=direction,
        your_turn=False,
        your_dice=(0, 0),
        opponent_dice=(5, 5),
        match_length=7,
        scores=(2, 5),
    )
    position = position_from_fibs(text)
    assert np.array_equal(position.board, flip(SAMPLE))
    assert position.mover_seat == 1 and position.dice == (5, 5)
    assert (position.mover_score, position.opponent_score) == (5, 2)


def test_unlimited_match_is_money():
    position = position_from_fibs(fibs_string(SAMPLE, match_length=9999, scores=(3, 8)))
    assert position.is_money and (position.mover_score, position.opponent_score) == (3, 8)


def test_cube_owner_from_may_double_flags():
    mine = position_from_fibs(fibs_string(SAMPLE, cube=2, may_double=(1, 0)))
    theirs = position_from_fibs(fibs_string(SAMPLE, cube=2, may_double=(0, 1)))
    both = position_from_fibs(fibs_string(SAMPLE, cube=1, may_double=(1, 1)))
    assert mine.cube_owner == CUBE_MOVER and mine.cube_value == 2
    assert theirs.cube_owner == CUBE_OPPONENT
    assert both.cube_owner == CUBE_CENTRED
    flipped = position_from_fibs(fibs_string(SAMPLE, cube=4, may_double=(1, 0), your_turn=False))
    assert flipped.cube_owner == CUBE_OPPONENT  # you own it; the opponent is the mover


def test_opponent_doubled_makes_the_opponent_the_mover():
    text = fibs_string(SAMPLE, was_doubled=1, your_turn=True, cube=1, may_double=(0, 0))
    position = position_from_fibs(text)
    assert position.double_offered and position.mover_seat == 1 and position.dice is None
    assert np.array_equal(position.board, flip(SAMPLE))


def test_crawford_detection():
    crawford = position_from_fibs(fibs_string(SAMPLE, match_length=5, scores=(4, 2)))
    assert crawford.crawford
    post = position_from_fibs(fibs_string(SAMPLE, match_length=5, scores=(4, 2), redoubles=1))
    assert not post.crawford
    no_rule = position_from_fibs(fibs_string(SAMPLE, match_length=5, scores=(4, 2), did_crawford=3))
    assert not no_rule.crawford
    both = position_from_fibs(fibs_string(SAMPLE, match_length=5, scores=(4, 4)))
    assert not both.crawford


def _replace(text: str, index: int, value: str) -> str:
    fields = text.split(":")
    fields[index] = value
    return ":".join(fields)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "must start with 'board:'"),
        ("board", "has 1 fields, expected 53"),
        (FIBS_EXAMPLE + ":0:0", "has 55 fields, expected 53"),
        (FIBS_EXAMPLE.rsplit(":", 1)[0], "has 52 fields, expected 53"),
        ("bored" + FIBS_EXAMPLE[5:], "must start with 'board:'"),
        (_replace(FIBS_EXAMPLE, 3, "three"), "match length must be an integer"),
        (_replace(FIBS_EXAMPLE, 10, "x"), "board field 4 must be an integer"),
        (_replace(FIBS_EXAMPLE, 41, "0"), "colour is 0"),
        (_replace(FIBS_EXAMPLE, 42, "2"), "direction is 2"),
        (_replace(FIBS_EXAMPLE, 32, "0"), "the game is over"),
        (_replace(FIBS_EXAMPLE, 33, "7"), "your die 1 is 7"),
        (_replace(FIBS_EXAMPLE, 34, "0"), "one die rolled"),
        (_replace(FIBS_EXAMPLE, 37, "3"), "not a power of two"),
        (_replace(FIBS_EXAMPLE, 37, "0"), "power of two >= 1"),
        (_replace(FIBS_EXAMPLE, 38, "2"), "you may double is 2"),
        (_replace(FIBS_EXAMPLE, 12, "6"), "16 checkers, more than 15"),
        (_replace(FIBS_EXAMPLE, 6, "-16"), "holds 16 checkers"),
        (_replace(FIBS_EXAMPLE, 45, "1"), "your checkers off is 1"),
        (_replace(FIBS_EXAMPLE, 4, "3"), "not below the match length"),
        (_replace(FIBS_EXAMPLE, 49, "5"), "can move is 5"),
        (_replace(FIBS_EXAMPLE, 49, "-1"), "can move is -1"),
        (_replace(FIBS_EXAMPLE, 50, "2"), "forced move is 2"),
        (_replace(FIBS_EXAMPLE, 51, "-1"), "did Crawford is -1, expected >= 0"),
        (_replace(FIBS_EXAMPLE, 52, "-1"), "redoubles is -1, expected >= 0"),
        (_replace(FIBS_EXAMPLE, 43, "7"), "home is 7, expected one of 0, 25"),
        (_replace(FIBS_EXAMPLE, 44, "-25"), "bar is -25, expected one of 0, 25"),
        (_replace(FIBS_EXAMPLE, 47, "16"), "your checkers on the bar is 16, expected 0-15"),
        (_replace(FIBS_EXAMPLE, 48, "-1"), "opponent's checkers on the bar is -1, expected 0-15"),
    ],
)
def test_malformed_fibs(text, fragment):
    with pytest.raises(TdgammonError, match=re.escape(fragment)):
        position_from_fibs(text)


def test_non_string():
    with pytest.raises(FormatError, match="must be a string"):
        position_from_fibs(None)


@pytest.mark.parametrize(("colour", "direction"), [(1, -1), (-1, 1)])
def test_empty_board_both_players_off_is_refused(colour, direction):
    board = np.zeros(30, dtype=int)
    board[0], board[27] = 15, -15
    text = fibs_string(board, colour=colour, direction=direction, your_dice=(3, 1))
    with pytest.raises(InvalidBoardError, match="both players have borne off all their checkers"):
        position_from_fibs(text)


def test_one_player_borne_off_is_a_finished_game_and_reads():
    board = board_from_points({1: 2}, {})
    position = position_from_fibs(fibs_string(board, your_dice=(3, 1)))
    assert np.array_equal(position.board, board)
