"""XGID: the 80 vectors in both turn forms, fields, and malformed input."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tdgammon.engine.formats.xgid import position_from_xgid, position_to_xgid
from tdgammon.engine.rules.board import board_from_points, flip, starting_board
from tdgammon.engine.rules.errors import FormatError, InvalidBoardError, TdgammonError
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position

from .test_position_id import board_from_slots, load_vectors

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
BOARD = "-b----E-C---eE---c-e----B-"


def xgid(
    board=BOARD, cube=0, cubepos=0, turn=1, dice="00", s1=0, s2=0, rules=0, length=0, maxcube=10
):
    return f"XGID={board}:{cube}:{cubepos}:{turn}:{dice}:{s1}:{s2}:{rules}:{length}:{maxcube}"


def test_opening_example():
    position = position_from_xgid(OPENING_52)
    assert np.array_equal(position.board, starting_board())
    assert position.dice == (5, 2) and position.mover_seat == 0 and position.is_money
    assert position.max_cube == 1024 and position.cube_value == 1
    assert position_to_xgid(position) == OPENING_52


@pytest.mark.parametrize("row", load_vectors(), ids=lambda r: r["position_id"])
def test_vector_xgid_both_turn_forms(row):
    expected = board_from_slots(row["mover"], row["opponent"])
    bottom = position_from_xgid(row["xgid"])
    top = position_from_xgid(row["xgid_turn_top"])
    assert np.array_equal(bottom.board, expected)
    assert np.array_equal(top.board, expected)
    assert bottom.mover_seat == 0 and top.mover_seat == 1
    assert bottom.dice == top.dice == tuple(row["dice"])
    assert position_to_xgid(bottom) == row["xgid"]
    assert position_to_xgid(top) == row["xgid_turn_top"]


def test_prefix_is_optional():
    assert position_from_xgid(OPENING_52[5:]) == position_from_xgid(OPENING_52)
    assert position_from_xgid("  xgid=" + OPENING_52[5:] + "\n") == position_from_xgid(OPENING_52)


def test_board_characters_map_to_bars_and_points():
    # Bottom: 2 on the bar, 13 on its 6-point. Top: 1 on its bar, 14 on its 6-point
    # (the bottom's 19-point).
    board = "a" + "-----M" + "-" * 12 + "n" + "-----" + "B"
    position = position_from_xgid(xgid(board=board))
    expected = board_from_points({25: 2, 6: 13}, {25: 1, 6: 14})
    assert np.array_equal(position.board, expected)
    top = position_from_xgid(xgid(board=board, turn=-1))
    assert np.array_equal(top.board, flip(expected))


def test_cube_owner_is_translated_to_the_mover():
    assert position_from_xgid(xgid(cube=1, cubepos=1)).cube_owner == CUBE_MOVER
    assert position_from_xgid(xgid(cube=1, cubepos=-1)).cube_owner == CUBE_OPPONENT
    assert position_from_xgid(xgid(cube=1, cubepos=-1, turn=-1)).cube_owner == CUBE_MOVER
    assert position_from_xgid(xgid(cube=1, cubepos=1, turn=-1)).cube_owner == CUBE_OPPONENT
    assert position_from_xgid(xgid(cube=1, cubepos=0)).cube_owner == CUBE_CENTRED


def test_scores_follow_the_seats():
    bottom = position_from_xgid(xgid(s1=2, s2=4, length=7))
    top = position_from_xgid(xgid(s1=2, s2=4, length=7, turn=-1))
    assert (bottom.mover_score, bottom.opponent_score) == (2, 4)
    assert (top.mover_score, top.opponent_score) == (4, 2)


@pytest.mark.parametrize(("code", "stage"), [("D", 0), ("B", 1), ("R", 2)])
def test_pending_double_codes(code, stage):
    # docs/rules.md 5: D from the doubler's own cube; after a beaver (B) or a
    # raccoon (R) the cube holds what a refusal loses (2, 4), the beaverer (the
    # top player, not on turn) owns it, and the rules field allows beavers.
    fields = dict(cube=1, cubepos=1) if stage == 0 else dict(cube=stage, cubepos=-1, rules=2)
    text = xgid(dice=code, **fields)
    position = position_from_xgid(text)
    assert position.double_offered and position.dice is None and position.beaver_stage == stage
    assert position_to_xgid(position) == text


def test_rules_flags():
    crawford = position_from_xgid(xgid(rules=1, length=5, s1=4, s2=2))
    assert crawford.crawford and not crawford.jacoby
    money = position_from_xgid(xgid(rules=3))
    assert money.jacoby and money.beavers and not money.crawford
    assert position_from_xgid(xgid(rules=2)).beavers
    assert position_to_xgid(money) == xgid(rules=3)


def test_cube_and_max_cube():
    position = position_from_xgid(xgid(cube=3, maxcube=6, cubepos=-1))
    assert position.cube_value == 8 and position.max_cube == 64


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("XGID=", "empty"),
        (OPENING_52 + ":0", "11 fields, expected 10"),
        (OPENING_52.rsplit(":", 1)[0], "9 fields, expected 10"),
        (xgid(board=BOARD[:-1]), "26 characters, got 25"),
        (xgid(board=BOARD + "-"), "26 characters, got 27"),
        (xgid(board="-b----E-C---eE---c-e----Bx"), "character 25 is 'x'"),
        (xgid(board="-b----E-C---eP---c-e----B-"), "character 13 is 'P'"),
        (xgid(board="Ab----E-C---eE---c-e----B-"), "top player's bar"),
        (xgid(board="-b----E-C---eE---c-e----Bb"), "bottom player's bar"),
        (xgid(board="-b----F-C---eE---c-e----B-"), "bottom player 16 checkers"),
        (xgid(board="-b----E-C---eE---c-f----B-"), "top player 16 checkers"),
        (xgid(cube="x"), "field 1 (cube) must be an integer"),
        (xgid(cube="1.0"), "must be an integer"),
        (xgid(cube=16), "cube 16 is out of range 0..15"),
        (xgid(cube=5, maxcube=4), "above the cube limit"),
        (xgid(cubepos=2), "cubepos 2 is out of range"),
        (xgid(turn=0), "turn must be 1 (bottom) or -1 (top)"),
        (xgid(turn=""), "turn) must be an integer"),
        (xgid(dice="72"), "die 7"),
        (xgid(dice="50"), "die 0"),
        (xgid(dice="5"), "dice must be 00, D, B, R"),
        (xgid(dice="523"), "dice must be 00, D, B, R"),
        (xgid(dice="d"), "dice must be 00, D, B, R"),
        (xgid(s1=-1), "s1 -1 is out of range"),
        (xgid(s1=7, length=7), "not below the match length"),
        (xgid(rules=4), "rules 4 is out of range"),
        (xgid(rules=2, length=5), "must be 0 or 1 (Crawford)"),
        (xgid(rules=1, length=5, s1=1, s2=1), "exactly one player must be 1-away"),
        (xgid(length=-3), "len -3 is out of range"),
        (xgid(maxcube="9" * 30), "must be an integer"),
        (xgid(dice="D", rules=1, length=3, s1=2), "double is offered in the Crawford game"),
        ("XGID=" + ":".join(["x"] * 10), "26 characters"),
    ],
)
def test_malformed_xgids(text, fragment):
    with pytest.raises(TdgammonError, match=re.escape(fragment)):
        position_from_xgid(text)


@pytest.mark.parametrize("value", [None, 5, b"XGID="])
def test_non_strings(value):
    with pytest.raises(FormatError, match="must be a string"):
        position_from_xgid(value)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        (dict(cube_value=6), "not a power of two"),
        (dict(max_cube=100), "not a power of two"),
        (dict(cube_value=64, max_cube=32), "above the cube limit"),
        (dict(double_offered=True, dice=(3, 1)), "rolled while a double is offered"),
        (dict(double_offered=True, beaver_stage=3), "beaver stage 3"),
        (dict(dice=(7, 1)), "die 7"),
        (dict(mover_seat=-1), "mover seat"),
        (dict(match_length=5, crawford=True), "exactly one player must be 1-away"),
    ],
)
def test_positions_an_xgid_cannot_hold(changes, fragment):
    with pytest.raises(FormatError, match=re.escape(fragment)):
        position_to_xgid(Position(**changes))


def test_invalid_board_in_position_is_rejected_at_construction():
    with pytest.raises(InvalidBoardError):
        Position(board=np.zeros(30, dtype=np.int8))


@pytest.mark.parametrize("turn", [1, -1])
def test_empty_board_both_players_off_is_refused(turn):
    with pytest.raises(InvalidBoardError, match="both players have borne off all their checkers"):
        position_from_xgid(xgid(board="-" * 26, turn=turn))


def test_one_player_borne_off_is_a_finished_game_and_reads():
    board = "-" * 19 + "bc" + "-" * 5  # bottom all off; top 2 and 3 on its 6- and 5-points
    position = position_from_xgid(xgid(board=board))
    assert position.board[0] == 15 and position.board[27] == -10
    assert position_to_xgid(position) == xgid(board=board)
