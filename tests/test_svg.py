"""tdgammon.engine.display.svg: the board picture shows what the position holds.

The SVG is parsed back (every checker is a circle with class ``checker x|o``
and ``data-point``; borne-off checkers are ``rect`` with class ``off x|o``)
and the counts per point, bar and tray must equal the board, for hand-made
positions, random ones, and the picture ``tdgammon show --svg`` writes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest

from tdgammon.engine.display.svg import HEIGHT, WIDTH, board_shapes, board_svg, draw_board, save_png
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.rules.board import (
    MOVER_BAR,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_OFF,
    board_from_points,
    starting_board,
)
from tdgammon.engine.rules.position import CUBE_MOVER, Position

SVG = "{http://www.w3.org/2000/svg}"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


def read_svg(text: str) -> tuple[Counter, Counter, ET.Element]:
    """(checkers per (side, point), borne off per side, root) read back from an SVG."""
    root = ET.fromstring(text)
    checkers, off = Counter(), Counter()
    for element in root.iter():
        classes = element.get("class", "").split()
        if element.tag == SVG + "circle" and "checker" in classes:
            side = "x" if "x" in classes else "o"
            assert ("o" in classes) != (side == "x"), classes
            checkers[side, element.get("data-point")] += 1
        elif element.tag == SVG + "rect" and "off" in classes:
            off["x" if "x" in classes else "o"] += 1
    return checkers, off, root


def expected(board: np.ndarray) -> tuple[Counter, Counter]:
    board = np.asarray(board).astype(int)
    checkers = Counter()
    for point in range(1, 25):
        if board[point] > 0:
            checkers["x", str(point)] = board[point]
        elif board[point] < 0:
            checkers["o", str(point)] = -board[point]
    if board[MOVER_BAR]:
        checkers["x", "bar"] = board[MOVER_BAR]
    if board[OPPONENT_BAR]:
        checkers["o", "bar"] = -board[OPPONENT_BAR]
    off = Counter({"x": board[MOVER_OFF], "o": -board[OPPONENT_OFF]})
    return checkers, +off


def assert_matches(position) -> None:
    board = position.board if isinstance(position, Position) else position
    checkers, off, root = read_svg(board_svg(position))
    want_checkers, want_off = expected(board)
    assert checkers == want_checkers
    assert off == want_off
    assert root.tag == SVG + "svg"


def test_starting_position_checkers_on_the_right_points():
    checkers, off, root = read_svg(board_svg(START_XGID))
    assert checkers == Counter(
        {
            ("x", "24"): 2,
            ("x", "13"): 5,
            ("x", "8"): 3,
            ("x", "6"): 5,
            ("o", "1"): 2,
            ("o", "12"): 5,
            ("o", "17"): 3,
            ("o", "19"): 5,
        }
    )
    assert sum(n for (side, _), n in checkers.items() if side == "x") == 15
    assert sum(n for (side, _), n in checkers.items() if side == "o") == 15
    assert not off
    dice = sorted(d.get("data-value") for d in root.iter(SVG + "rect") if d.get("class") == "die")
    assert dice == ["2", "5"]
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "64" in texts  # centred cube
    assert any("pips X 167, O 167" in (t or "") for t in texts)


def test_bar_off_tall_stacks_cube_and_score():
    board = board_from_points({6: 7, 5: 2, 4: 1, 25: 2, 13: 1}, {1: 2, 2: 2, 3: 3, 25: 1, 22: 2})
    position = Position(
        board=board,
        dice=(6, 6),
        cube_value=4,
        cube_owner=CUBE_MOVER,
        match_length=7,
        mover_score=2,
        opponent_score=4,
    )
    assert_matches(position)
    checkers, off, root = read_svg(board_svg(position))
    assert checkers["x", "bar"] == 2 and checkers["o", "bar"] == 1
    assert off == Counter({"x": 2, "o": 5})
    texts = [t.text for t in root.iter(SVG + "text")]
    assert "7" in texts  # the count written on the 7-checker stack
    assert "4" in texts  # the cube
    assert any("match to 7: X 2, O 4" in (t or "") for t in texts)


def test_random_positions_match_the_board():
    boards, dice = random_game_positions(60, np.random.default_rng(11))
    for board, roll in zip(boards, dice, strict=True):
        assert_matches(Position(board=board, dice=(int(roll[0]), int(roll[1]))))


def test_every_shape_is_inside_the_picture():
    board = board_from_points({6: 15}, {1: 15})
    for shape in board_shapes(Position(board=board, dice=(3, 1))):
        if shape.kind == "circle":
            cx, cy, r = shape.geometry
            assert 0 <= cx - r and cx + r <= WIDTH and 0 <= cy - r and cy + r <= HEIGHT
        elif shape.kind == "rect":
            x, y, w, h = shape.geometry
            assert 0 <= x and x + w <= WIDTH + 1e-9 and 0 <= y and y + h <= HEIGHT + 1e-9


def test_show_writes_the_svg(tmp_path, capsys):
    out = tmp_path / "board.svg"
    assert main(["show", START_XGID, "--svg", str(out)]) == 0
    assert "Position ID" in capsys.readouterr().out
    checkers, _, _ = read_svg(out.read_text())
    assert checkers == read_svg(board_svg(START_XGID))[0]
    assert main(["show", START_XGID, "--svg", str(tmp_path / "missing" / "b.svg")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_notebook_picture_and_png(tmp_path):
    pytest.importorskip("matplotlib")
    picture = draw_board(starting_board())
    assert picture._repr_svg_().startswith("<svg")
    path = save_png(START_XGID, tmp_path / "board.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
