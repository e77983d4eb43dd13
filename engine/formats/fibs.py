"""FIBS ``board:`` strings (input only).

Fields (docs/formats.md, "FIBS board strings"; the FIBS client protocol), split on
``:``, 53 in all:

=======  ==================================================================
index    field
=======  ==================================================================
0        ``board``
1, 2     your name, opponent's name
3        match length (9999 = unlimited, read as money play)
4, 5     your score, opponent's score
6..31    board fields 0..25: 0 and 25 the bars, 1..24 the points; positive
         counts are O's checkers, negative X's
32       turn: colour of the player to act (+1 O, -1 X; 0 game over)
33, 34   your dice (0 0 before rolling); 35, 36 opponent's dice
37       cube value
38, 39   you may double, opponent may double (1/0)
40       was doubled: your opponent has just doubled
41       colour: +1 you are O (positive), -1 you are X (negative)
42       direction: -1 you move from field 24 to field 1, +1 from 1 to 24
43, 44   home and bar (obsolete; not used, but each must be 0 or 25)
45, 46   checkers borne off by you / by the opponent
47, 48   checkers on the bar (redundant with fields 0 and 25; not used, as
         some writers leave them 0; each must be 0-15)
49..52   can move (0-4 checkers), forced move (0/1), did Crawford (0: no),
         redoubles (a count >= 0)
=======  ==================================================================

How it is read (colour and direction are read, never assumed):

- Your checkers are the board fields whose sign is your colour. With direction
  -1 board field f (1..24) is your point f and your bar is field 25; with
  direction +1 field f is your point 25 - f and your bar is field 0. The other
  bar is the opponent's. Bar fields are read as counts whatever their sign
  (writers differ), as GNU Backgammon does.
- The mover (player on roll) is you when turn equals your colour, else the
  opponent; the board is then flipped to the mover's view. Seat 0 is you,
  seat 1 the opponent (``tdgammon.engine.rules.position``).
- A pending double (was doubled != 0) was offered by the player NOT on turn,
  who becomes the mover with ``double_offered``; dice fields are then ignored.
  (GNU Backgammon also guesses a pending double from both may-double flags
  being 0; this reader does not, since other writers use that for a dead cube.)
- Cube owner: cube 1 is centred; otherwise the one player who may double owns
  it, and when both or neither may double it is centred.
- Crawford: in a match where exactly one player is 1-away and the "did
  Crawford" and "redoubles" fields are both 0 (FIBS sets them once the
  Crawford game is over or when the rule is off).
- Cube limit (not carried): ``cube_limit_read``, 1024 or what the board needs.
  Impossible cube states, as read, are refused by ``check_cube_context``
  (shared with the XGID and the Match ID): a turned cube in the Crawford game,
  a double offered from the other player's cube.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.formats.match_id import (
    check_cube_context,
    check_match_context,
    cube_limit_read,
    log2_exact,
    parse_int,
)
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    MOVER_BAR,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_OFF,
    flip,
)
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position

FIBS_FIELDS = 53
FIBS_UNLIMITED = 9999
"""FIBS match length of an unlimited (money) session."""
BOARD_FIRST = 6
TURN = 32
YOUR_DICE = (33, 34)
OPPONENT_DICE = (35, 36)
CUBE = 37
YOU_MAY_DOUBLE = 38
OPPONENT_MAY_DOUBLE = 39
WAS_DOUBLED = 40
COLOUR = 41
DIRECTION = 42
YOUR_OFF = 45
OPPONENT_OFF_FIELD = 46
CAN_MOVE = 49
FORCED_MOVE = 50
DID_CRAWFORD = 51
REDOUBLES = 52
_NAMES = {
    3: "match length",
    4: "your score",
    5: "opponent's score",
    TURN: "turn",
    33: "your die 1",
    34: "your die 2",
    35: "opponent's die 1",
    36: "opponent's die 2",
    CUBE: "cube",
    YOU_MAY_DOUBLE: "you may double",
    OPPONENT_MAY_DOUBLE: "opponent may double",
    WAS_DOUBLED: "was doubled",
    COLOUR: "colour",
    DIRECTION: "direction",
    43: "home",
    44: "bar",
    YOUR_OFF: "your checkers off",
    OPPONENT_OFF_FIELD: "opponent's checkers off",
    47: "your checkers on the bar",
    48: "opponent's checkers on the bar",
    CAN_MOVE: "can move",
    FORCED_MOVE: "forced move",
    DID_CRAWFORD: "did Crawford",
    REDOUBLES: "redoubles",
}


def _name(index: int) -> str:
    if BOARD_FIRST <= index < BOARD_FIRST + 26:
        return f"board field {index - BOARD_FIRST}"
    return _NAMES.get(index, f"field {index}")


def _dice(values: list[int], indices: tuple[int, int]) -> tuple[int, int] | None:
    d1, d2 = values[indices[0]], values[indices[1]]
    for d, index in ((d1, indices[0]), (d2, indices[1])):
        if not 0 <= d <= 6:
            raise FormatError(f"FIBS board: {_name(index)} is {d}, out of range 1-6 (0 = none)")
    if (d1 == 0) != (d2 == 0):
        raise FormatError(f"FIBS board: dice {d1}-{d2} have one die rolled and one not (0)")
    return None if d1 == 0 else (d1, d2)


def _one_of(values: list[int], index: int, allowed: tuple[int, ...]) -> int:
    value = values[index]
    if value not in allowed:
        choices = ", ".join(str(a) for a in allowed)
        raise FormatError(f"FIBS board: {_name(index)} is {value}, expected one of {choices}")
    return value


def position_from_fibs(text: str) -> Position:
    """Read a FIBS ``board:You:Opponent:...`` string into a Position.

    Returns a Position whose ``board`` is ``(30,) int8`` from the view of the
    player to act (you when turn equals your colour, else the opponent; the
    doubler when a double is pending); ``mover_seat`` 0 means you. Raises
    FormatError for a wrong field count, non-integers, out-of-range flags or
    dice, and InvalidBoardError / FormatError for impossible boards.
    """
    if not isinstance(text, str):
        raise FormatError(f"FIBS board must be a string, got {type(text).__name__}")
    raw = text.strip()
    fields = raw.split(":")
    if len(fields) == FIBS_FIELDS + 1 and fields[-1] == "":
        fields = fields[:-1]  # a trailing colon
    if not fields or fields[0].strip().lower() != "board":
        raise FormatError(f"FIBS board must start with 'board:', got {raw[:20]!r}")
    if len(fields) != FIBS_FIELDS:
        raise FormatError(f"FIBS board has {len(fields)} fields, expected {FIBS_FIELDS}")
    values = [0, 0, 0] + [parse_int(f, f"FIBS {_name(i)}") for i, f in enumerate(fields) if i >= 3]

    colour = _one_of(values, COLOUR, (1, -1))
    direction = _one_of(values, DIRECTION, (-1, 1))
    turn = values[TURN]
    if turn == 0:
        raise FormatError("FIBS board: turn is 0, the game is over")
    _one_of(values, TURN, (1, -1))
    _one_of(values, YOU_MAY_DOUBLE, (0, 1))
    _one_of(values, OPPONENT_MAY_DOUBLE, (0, 1))
    _one_of(values, WAS_DOUBLED, (-1, 0, 1))
    _one_of(values, CAN_MOVE, (0, 1, 2, 3, 4))  # checkers the roll lets the mover move
    _one_of(values, FORCED_MOVE, (0, 1))
    for index in (43, 44):  # the home and bar fields name field 0 or 25, whichever they say
        _one_of(values, index, (0, 25))
    for index in (47, 48):  # bar counts (not used: field 0 and 25 hold them)
        if not 0 <= values[index] <= CHECKERS_PER_SIDE:
            raise FormatError(
                f"FIBS board: {_name(index)} is {values[index]}, expected 0-{CHECKERS_PER_SIDE}"
            )
    for index in (DID_CRAWFORD, REDOUBLES):  # a flag (non-zero: yes) and a count
        if values[index] < 0:
            raise FormatError(f"FIBS board: {_name(index)} is {values[index]}, expected >= 0")

    # Board from your view: index = your point number, yours positive.
    cells = values[BOARD_FIRST : BOARD_FIRST + 26]
    you = np.zeros(BOARD_SIZE, dtype=np.int64)
    for field in range(1, 25):
        n = cells[field]
        if abs(n) > CHECKERS_PER_SIDE:
            raise FormatError(f"FIBS board: board field {field} holds {abs(n)} checkers")
        point = field if direction == -1 else 25 - field
        you[point] = n * colour  # your colour -> positive, theirs -> negative
    your_bar, their_bar = (25, 0) if direction == -1 else (0, 25)
    for field, index, sign in ((your_bar, MOVER_BAR, 1), (their_bar, OPPONENT_BAR, -1)):
        n = abs(cells[field])
        if n > CHECKERS_PER_SIDE:
            raise FormatError(f"FIBS board: board field {field} (a bar) holds {n} checkers")
        you[index] = sign * n
    for who, sign, off_index, off_field in (
        ("you", 1, MOVER_OFF, YOUR_OFF),
        ("the opponent", -1, OPPONENT_OFF, OPPONENT_OFF_FIELD),
    ):
        on_board = int((sign * you)[(sign * you) > 0].sum())
        if on_board > CHECKERS_PER_SIDE:
            raise FormatError(
                f"FIBS board gives {who} {on_board} checkers, more than {CHECKERS_PER_SIDE}"
            )
        off = CHECKERS_PER_SIDE - on_board
        if values[off_field] != off:
            raise FormatError(
                f"FIBS board: {_name(off_field)} is {values[off_field]} but the board "
                f"shows {on_board} of {who} on the board, so {off} off"
            )
        you[off_index] = sign * off

    your_turn = turn == colour
    double_offered = values[WAS_DOUBLED] != 0
    you_move = not your_turn if double_offered else your_turn
    your_dice = _dice(values, YOUR_DICE)
    their_dice = _dice(values, OPPONENT_DICE)
    dice = None if double_offered else (your_dice if you_move else their_dice)

    match_length = values[3]
    if match_length == FIBS_UNLIMITED:
        match_length = 0
    your_score, their_score = values[4], values[5]
    cube_value = values[CUBE]
    log2_exact(cube_value, "FIBS cube")
    you_may, they_may = values[YOU_MAY_DOUBLE], values[OPPONENT_MAY_DOUBLE]
    if cube_value > 1 and you_may != they_may:
        owner_is_you = bool(you_may)
        owner = CUBE_MOVER if owner_is_you == you_move else CUBE_OPPONENT
    else:
        owner = CUBE_CENTRED
    crawford = bool(
        match_length
        and [your_score, their_score].count(match_length - 1) == 1
        and values[DID_CRAWFORD] == 0
        and values[REDOUBLES] == 0
    )
    check_match_context(
        match_length=match_length,
        scores=(your_score, their_score),
        crawford=crawford,
        dice=dice,
        double_offered=double_offered,
        where="FIBS board",
    )

    max_cube = cube_limit_read(cube_value, double_offered)
    check_cube_context(
        cube_value=cube_value,
        cube_owner=owner,
        double_offered=double_offered,
        beaver_stage=0,
        match_length=match_length,
        crawford=crawford,
        beavers=False,
        max_cube=max_cube,
        where="FIBS board",
    )
    board = you if you_move else flip(you)
    return Position(
        board=board.astype(BOARD_DTYPE),
        dice=dice,
        cube_value=cube_value,
        cube_owner=owner,
        mover_score=your_score if you_move else their_score,
        opponent_score=their_score if you_move else your_score,
        match_length=match_length,
        crawford=crawford,
        double_offered=double_offered,
        max_cube=max_cube,
        mover_seat=0 if you_move else 1,
    )
