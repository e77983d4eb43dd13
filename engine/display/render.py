"""A readable ASCII board, in the style of GNU Backgammon's text board.

The board is drawn from the side of the player on roll: X is the mover (on
roll, moving from 24 down to 1, home board bottom right), O the opponent.
Points 13-24 are along the top, 12-1 along the bottom, the bar in the middle::

     +13-14-15-16-17-18------19-20-21-22-23-24-+
     | X           O    |   | O              X |
     | X           O    |   | O              X |
     | X           O    |   | O                |
     | X                |   | O                |
     | X                |   | O                |
     |                  |BAR|                  |
     | O                |   | X                |
     | O                |   | X                |
     | O           X    |   | X                |
     | O           X    |   | X              O |
     | O           X    |   | X              O |
     +12-11-10--9--8--7-------6--5--4--3--2--1-+

Each point shows up to five checkers; a point with more shows four letters and
the count in the fifth place (``15`` for fifteen). X's checkers on the bar are
drawn in the top half of the bar column (they enter into O's home board, top
right), O's in the bottom half. Borne-off checkers, checkers in hand (variants),
pip counts, cube, score, dice and turn are written below the board.

Variants (``variant=``, docs/rules.md 7): the variant is named below the board,
the end of the game uses its number of checkers (Hypergammon 3), Acey-Deucey
shows no cube and its result in points per checker left.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tdgammon.engine.rules.board import (
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OFF,
    pip_counts,
)
from tdgammon.engine.rules.outcome import NO_WINNER, RESULT_NAMES, game_values, result_kind, winner
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, Position
from tdgammon.engine.rules.variants import SCORING_CHECKERS_LEFT, STANDARD, Variant, get_variant

STACK = 5
"""Checkers drawn per point; beyond this the fifth place shows the count."""

MOVER_MARK = "X"
OPPONENT_MARK = "O"

TOP_POINTS = (tuple(range(13, 19)), tuple(range(19, 25)))
"""Top half, left and right of the bar (mover's numbering)."""
BOTTOM_POINTS = (tuple(range(12, 6, -1)), tuple(range(6, 0, -1)))
"""Bottom half, left and right of the bar (mover's numbering)."""

ID_LINES = (
    ("position_id", "Position ID: {}"),
    ("match_id", "Match ID   : {}"),
    ("xgid", "{}"),
)
"""Keys accepted in ``ids`` and how each is written, in this order."""


def render_board(
    position: Position,
    ids: dict | None = None,
    variant: str | Variant | None = None,
    seat_names: Sequence[str] = ("player 0", "player 1"),
) -> str:
    """Draw ``position`` as text (no trailing newline). Pure: prints nothing.

    position: the board is read from the mover's view (X on roll, at the bottom).
    ids: optional ``{"position_id": ..., "match_id": ..., "xgid": ...}`` (any
    subset) written above the board; an XGID without its ``XGID=`` prefix gets
    one. Raises ValueError for any other key. variant: the rules (default standard).
    seat_names: what the line under the board calls seats 0 and 1 (a session at
    the terminal: "you" and the bot's name).
    """
    rules = get_variant(variant)
    # Game.position() counts the checkers not in play (Hypergammon) as off.
    board = rules.board_in_play(position.board).astype(np.int64)
    lines = _id_lines(ids)
    lines += _board_lines(board)
    lines += _info_lines(position, board, rules, seat_names)
    return "\n".join(lines)


def _id_lines(ids: dict | None) -> list[str]:
    if not ids:
        return []
    known = {key for key, _ in ID_LINES}
    unknown = sorted(set(ids) - known)
    if unknown:
        raise ValueError(f"unknown id keys {unknown}; expected some of {sorted(known)}")
    lines = []
    for key, template in ID_LINES:
        value = ids.get(key)
        if value is None:
            continue
        value = str(value)
        if key == "xgid" and not value.startswith("XGID="):
            value = "XGID=" + value
        lines.append(" " + template.format(value))
    return lines


def _cell(count: int, mark: str, row: int) -> str:
    """Text of one 3-character cell: row 0 is nearest the edge of the board."""
    if count <= row:
        return "   "
    if row == STACK - 1 and count > STACK:
        return f"{count:>2} "
    return f" {mark} "


def _point_cell(board: np.ndarray, point: int, row: int) -> str:
    count = int(board[point])
    mark = MOVER_MARK if count > 0 else OPPONENT_MARK
    return _cell(abs(count), mark, row)


def _half_rows(board: np.ndarray, points, bar_count: int, bar_mark: str) -> list[str]:
    """Five rows of one half, row 0 at the board's edge."""
    left, right = points
    rows = []
    for row in range(STACK):
        left_text = "".join(_point_cell(board, p, row) for p in left)
        right_text = "".join(_point_cell(board, p, row) for p in right)
        bar_text = _cell(bar_count, bar_mark, row)
        rows.append(f" |{left_text}|{bar_text}|{right_text}|")
    return rows


def _header(points) -> str:
    left, right = points
    left_text = "".join(f"{p:->2}-" for p in left)
    right_text = "".join(f"{p:->2}-" for p in right)
    return f" +{left_text}-----{right_text}+"


def _board_lines(board: np.ndarray) -> list[str]:
    top = _half_rows(board, TOP_POINTS, int(board[MOVER_BAR]), MOVER_MARK)
    bottom = _half_rows(board, BOTTOM_POINTS, -int(board[OPPONENT_BAR]), OPPONENT_MARK)
    middle = " |" + " " * 18 + "|BAR|" + " " * 18 + "|"
    return [_header(TOP_POINTS), *top, middle, *reversed(bottom), _header(BOTTOM_POINTS)]


def _info_lines(
    position: Position, board: np.ndarray, rules: Variant, seat_names: Sequence[str]
) -> list[str]:
    x_pips, o_pips = pip_counts(board)
    x_seat, o_seat = position.mover_seat, 1 - position.mover_seat
    lines = [f" Variant: {rules.name}"] if rules is not STANDARD else []
    lines += [
        f" X: {seat_names[x_seat]} (on roll)   O: {seat_names[o_seat]}",
        f" Pip count   X: {x_pips:3d}   O: {o_pips:3d}",
        f" Borne off   X: {int(board[MOVER_OFF]):3d}   O: {-int(board[OPPONENT_OFF]):3d}",
    ]
    x_bar, o_bar = int(board[MOVER_BAR]), -int(board[OPPONENT_BAR])
    if x_bar or o_bar:
        lines.append(f" On the bar  X: {x_bar:3d}   O: {o_bar:3d}")
    x_hand, o_hand = int(board[MOVER_HAND]), -int(board[OPPONENT_HAND])
    if x_hand or o_hand:
        lines.append(f" In hand     X: {x_hand:3d}   O: {o_hand:3d}")
    lines.append(" " + _score_text(position))
    lines.append(" " + (_cube_text(position) if rules.cube else "Cube: none in " + rules.name))
    lines.append(" " + _turn_text(position, board, rules))
    return lines


def _score_text(position: Position) -> str:
    score = f"X {position.mover_score}, O {position.opponent_score}"
    if position.is_money:
        options = [
            name for name, on in (("Jacoby", position.jacoby), ("beavers", position.beavers)) if on
        ]
        extra = f" ({', '.join(options)})" if options else ""
        return f"Money game{extra}, score {score}"
    crawford = ", Crawford game" if position.crawford else ""
    return f"Match to {position.match_length}{crawford}, score {score}"


def _cube_text(position: Position) -> str:
    if position.cube_owner == CUBE_CENTRED:
        owner = "centred"
    else:
        owner = f"owned by {MOVER_MARK if position.cube_owner == CUBE_MOVER else OPPONENT_MARK}"
    unusable = " (not used: Crawford game)" if position.crawford and not position.is_money else ""
    return f"Cube: {position.cube_value}, {owner}{unusable}"


def _turn_text(position: Position, board: np.ndarray, rules: Variant = STANDARD) -> str:
    won = int(winner(board, rules.checkers))
    if won != NO_WINNER:
        who = MOVER_MARK if won > 0 else OPPONENT_MARK
        if rules.scoring == SCORING_CHECKERS_LEFT:
            value = abs(int(game_values(board[None, :], rules)[0]))
            unit = "point" if value == 1 else "points"
            return f"Game over: {who} wins {value} {unit} (checkers not borne off)"
        return f"Game over: {who} wins a {RESULT_NAMES[int(result_kind(board, rules.checkers))]}"
    if position.double_offered:
        # docs/rules.md 5; from a beaver on, cube_value is what a refusal loses.
        if position.beaver_stage == 1:
            return f"O beavers (cube {2 * position.cube_value}); X to take, drop or raccoon"
        if position.beaver_stage == 2:
            return f"X raccoons (cube {2 * position.cube_value}); O to take or drop"
        return f"X doubles to {2 * position.cube_value}; O to take or pass"
    if position.resign_offered:
        if rules.scoring == SCORING_CHECKERS_LEFT:
            return f"X offers to resign {position.resign_offered} points"
        return f"X offers to resign a {RESULT_NAMES[position.resign_offered]}"
    if position.dice is not None:
        d1, d2 = position.dice
        return f"X on roll, rolled {d1}-{d2}"
    may_double = rules.cube and _may_double(position)
    return "X on roll, to roll or double" if may_double else "X on roll, to roll"


def _may_double(position: Position) -> bool:
    """docs/rules.md 5 and 6: centred or own cube, below the limit, not the Crawford game."""
    if position.crawford and not position.is_money:
        return False
    if position.cube_owner not in (CUBE_CENTRED, CUBE_MOVER):
        return False
    return position.cube_value < position.max_cube
