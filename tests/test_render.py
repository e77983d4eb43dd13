"""tdgammon.engine.display.render.render_board: the text board shows what the position holds.

The board part is read back by ``read_board`` (columns located from the point
numbers in the two header lines), and every point's and bar's count must equal
the board, for hand-made positions and for a few hundred random ones.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tdgammon.engine.display.render import render_board
from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.rules.board import (
    BOARD_SIZE,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OFF,
    board_from_points,
    pip_counts,
    starting_board,
    validate,
)
from tdgammon.engine.rules.position import CUBE_MOVER, CUBE_OPPONENT, Position

START_IDS = {
    "position_id": "4HPwATDgc/ABMA",
    "match_id": "cAkAAAAAAAAA",
    "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
}


def read_column(cells: list[str]) -> tuple[str, int]:
    """(mark, count) of one column given its five 2-character cells, edge first."""
    marks = {c.strip() for c in cells if c.strip() and not c.strip().isdigit()}
    assert len(marks) <= 1, f"two kinds of checker in one column: {cells}"
    mark = marks.pop() if marks else ""
    if cells[-1].strip().isdigit():
        assert all(c.strip() == mark for c in cells[:-1]), f"count without a full stack: {cells}"
        return mark, int(cells[-1])
    filled = [c.strip() != "" for c in cells]
    assert filled == sorted(filled, reverse=True), f"gap in a stack: {cells}"
    return mark, sum(filled)


def read_board(text: str) -> dict:
    """Counts shown on the drawn board: {point or 'X bar' / 'O bar': (mark, count)}."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(" +13-"))
    bottom = next(i for i, line in enumerate(lines) if line.startswith(" +12-"))
    assert bottom == top + 12, "five rows, the BAR row, five rows"
    middle = lines[top + 6]
    assert "|BAR|" in middle
    halves = (
        (lines[top], lines[top + 1 : top + 6]),
        (lines[bottom], lines[bottom - 5 : bottom][::-1]),  # edge row first
    )
    shown = {}
    points_in_order = []
    for header, rows in halves:
        assert all(len(row) == len(header) for row in rows)
        for token in re.finditer(r"\d+", header):
            point = int(token.group())
            points_in_order.append(point)
            end = token.end()
            shown[point] = read_column([row[end - 2 : end] for row in rows])
        bar = middle.index("BAR")
        shown["X bar" if header is lines[top] else "O bar"] = read_column(
            [row[bar : bar + 2] for row in rows]
        )
    assert points_in_order == list(range(13, 25)) + list(range(12, 0, -1))
    return shown


def expected_shown(board) -> dict:
    """What read_board must find for ``board``."""
    expected = {}
    for point in range(1, 25):
        count = int(board[point])
        expected[point] = ("X", count) if count > 0 else ("O", -count) if count < 0 else ("", 0)
    bars = (("X bar", "X", int(board[MOVER_BAR])), ("O bar", "O", -int(board[OPPONENT_BAR])))
    for name, mark, count in bars:
        expected[name] = (mark, count) if count else ("", 0)
    return expected


def info(text: str, label: str) -> tuple[int, int]:
    """The X and O numbers of an info line such as ``Pip count   X: 167   O: 167``."""
    match = re.search(rf"{label}\s+X:\s*(\d+)\s+O:\s*(\d+)", text)
    assert match, f"no {label!r} line in\n{text}"
    return int(match.group(1)), int(match.group(2))


def test_starting_position_shows_counts_pips_cube_score_dice_and_ids():
    position = Position(dice=(5, 2))
    text = render_board(position, ids=START_IDS)
    lines = text.splitlines()
    assert lines[0] == " Position ID: 4HPwATDgc/ABMA"
    assert lines[1] == " Match ID   : cAkAAAAAAAAA"
    assert lines[2] == " XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    assert read_board(text) == expected_shown(starting_board())
    assert info(text, "Pip count") == (167, 167)
    assert info(text, "Borne off") == (0, 0)
    assert "Money game, score X 0, O 0" in text
    assert "Cube: 1, centred" in text
    assert "X on roll, rolled 5-2" in text
    assert "On the bar" not in text and "In hand" not in text


def test_starting_position_matches_gnubg_layout():
    """The board part is the GNU Backgammon text board of the opening position."""
    drawn = render_board(Position()).splitlines()[:13]
    assert drawn == [
        " +13-14-15-16-17-18------19-20-21-22-23-24-+",
        " | X           O    |   | O              X |",
        " | X           O    |   | O              X |",
        " | X           O    |   | O                |",
        " | X                |   | O                |",
        " | X                |   | O                |",
        " |                  |BAR|                  |",
        " | O                |   | X                |",
        " | O                |   | X                |",
        " | O           X    |   | X                |",
        " | O           X    |   | X              O |",
        " | O           X    |   | X              O |",
        " +12-11-10--9--8--7-------6--5--4--3--2--1-+",
    ]


def test_no_ids_no_id_lines_and_xgid_prefix_added():
    assert render_board(Position()).startswith(" +13-")
    text = render_board(Position(), ids={"xgid": START_IDS["xgid"][len("XGID=") :]})
    assert text.splitlines()[0] == " " + START_IDS["xgid"]


def test_unknown_id_key_is_rejected():
    with pytest.raises(ValueError, match="gnubg"):
        render_board(Position(), ids={"gnubg": "4HPwATDgc/ABMA"})


def test_fifteen_on_one_point_and_on_the_bar():
    board = board_from_points({6: 15}, {25: 15})
    text = render_board(Position(board=board))
    assert read_board(text) == expected_shown(board)
    assert read_board(text)[6] == ("X", 15) and read_board(text)["O bar"] == ("O", 15)
    assert info(text, "On the bar") == (0, 15)
    assert info(text, "Pip count") == (90, 375)


def test_tall_stacks_show_count_in_fifth_place():
    # O's own 6- and 8-points are X's 19 and 17.
    board = board_from_points({24: 6, 13: 9}, {6: 7, 8: 5, 25: 3})
    text = render_board(Position(board=board))
    shown = read_board(text)
    assert shown[24] == ("X", 6) and shown[13] == ("X", 9)
    assert shown[19] == ("O", 7) and shown[17] == ("O", 5) and shown["O bar"] == ("O", 3)
    assert shown == expected_shown(board)
    assert info(text, "On the bar") == (0, 3)


def test_mover_on_bar_and_borne_off_counts():
    board = board_from_points({25: 2, 3: 4}, {24: 2, 20: 3})
    text = render_board(Position(board=board, dice=(6, 6)))
    assert read_board(text) == expected_shown(board)
    assert read_board(text)["X bar"] == ("X", 2)
    assert info(text, "Borne off") == (9, 10)
    assert info(text, "On the bar") == (2, 0)
    assert info(text, "Pip count") == pip_counts(board)
    assert "rolled 6-6" in text


def test_checkers_in_hand_are_listed():
    board = np.zeros(BOARD_SIZE, dtype=np.int8)
    board[MOVER_HAND], board[MOVER_BAR], board[10] = 12, 1, 2
    board[OPPONENT_HAND], board[OPPONENT_OFF], board[5] = -14, 0, -1
    validate(board)
    text = render_board(Position(board=board))
    assert info(text, "In hand") == (12, 14)
    assert info(text, "Pip count") == pip_counts(board)
    assert read_board(text) == expected_shown(board)


def test_cube_owner_match_score_and_crawford():
    owned = Position(
        cube_value=4, cube_owner=CUBE_OPPONENT, match_length=7, mover_score=3, opponent_score=5
    )
    text = render_board(owned)
    assert "Match to 7, score X 3, O 5" in text
    assert "Cube: 4, owned by O" in text
    assert "X on roll, to roll" in text and "or double" not in text

    mine = render_board(Position(cube_value=2, cube_owner=CUBE_MOVER, jacoby=True))
    assert "Cube: 2, owned by X" in mine
    assert "Money game (Jacoby), score X 0, O 0" in mine
    assert "to roll or double" in mine

    crawford = render_board(Position(match_length=5, mover_score=4, crawford=True))
    assert "Match to 5, Crawford game, score X 4, O 0" in crawford
    assert "Cube: 1, centred (not used: Crawford game)" in crawford
    assert "or double" not in crawford


def test_turn_lines_for_seat_double_and_game_over():
    text = render_board(Position(mover_seat=1, double_offered=True, cube_value=2))
    assert "X: player 1 (on roll)   O: player 0" in text
    assert "X doubles to 4; O to take or pass" in text

    gammon = board_from_points({}, {5: 15})  # O's 5-point is X's 20
    assert "Game over: X wins a gammon" in render_board(Position(board=gammon))


def test_random_positions_show_every_count_and_pip_count():
    rng = np.random.default_rng(7)
    game_boards, game_dice = random_game_positions(150, rng)
    boards = np.concatenate([game_boards, random_boards(150, rng)])
    for i, board in enumerate(boards):
        dice = tuple(int(d) for d in game_dice[i]) if i < len(game_dice) else None
        text = render_board(Position(board=board, dice=dice))
        assert read_board(text) == expected_shown(board), text
        assert info(text, "Pip count") == pip_counts(board)
        assert info(text, "Borne off") == (int(board[MOVER_OFF]), -int(board[OPPONENT_OFF]))
        if board[MOVER_BAR] or board[OPPONENT_BAR]:
            assert info(text, "On the bar") == (int(board[MOVER_BAR]), -int(board[OPPONENT_BAR]))
        if dice:
            assert f"rolled {dice[0]}-{dice[1]}" in text


def test_render_is_pure(capsys):
    position = Position(dice=(3, 1))
    before = position.board.copy()
    first = render_board(position, ids=START_IDS)
    assert render_board(position, ids=START_IDS) == first
    assert np.array_equal(position.board, before)
    assert capsys.readouterr() == ("", "")
