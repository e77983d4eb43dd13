"""eXtreme Gammon XGID: read and write.

``XGID=PPPPPPPPPPPPPPPPPPPPPPPPPP:cube:cubepos:turn:dice:s1:s2:rules:len:maxcube``
(docs/formats.md, "XGID"):

- board: 26 characters, always from the bottom player's side. Character 0 is
  the top player's bar, characters 1..24 the bottom player's points 1..24,
  character 25 the bottom player's bar. ``-`` empty, ``A``..``O`` 1..15
  bottom checkers, ``a``..``o`` 1..15 top checkers.
- cube: log2 of the cube value; cubepos: 1 bottom owns it, -1 top, 0 centred.
- turn: 1 the bottom player is on roll, -1 the top player.
- dice: ``00`` about to roll; ``D`` the player on turn has doubled (``B`` the
  other has beavered, ``R`` and the doubler has raccooned); otherwise the two
  dice rolled, in the order written.
- s1, s2: bottom and top scores. rules: match play 1 = Crawford game; money
  play bit 0 Jacoby, bit 1 beavers. len: match length (0 money). maxcube:
  log2 of the cube limit.

Perspective: ``Position.board`` is the mover's view. Seat 0 is the bottom
player, seat 1 the top (``tdgammon.engine.rules.position``), so ``turn = 1`` gives
``mover_seat = 0`` and the board string is the mover's view; ``turn = -1``
gives ``mover_seat = 1`` and the board string is the opponent's view (flipped).
Writing uses the turn form of ``mover_seat``, so both forms round-trip.

Not carried: resignation, game state, ``decision_swapped`` (defaults on
reading). The rules field holds Crawford in match play and Jacoby/beavers in
money play only, so the other flags are not written; a beaver or raccoon on
the table (dice ``B``, ``R``) is written with the beaver bit, the rule being
in effect.

Impossible cube states are refused, reading and writing, by
``check_cube_context`` (``tdgammon.engine.formats.match_id``, shared with the
Match ID; docs/rules.md 5 and 6): a cube of 1 with an owner (cubepos not 0), a
turned cube in the Crawford game, a double (``D``) from the other player's
cube, a double that would pass maxcube, a ``B`` or ``R`` in match play, with
the beaver bit clear, or with a cube that does not hold what a refusal loses
(``B``: 2 or more, ``R``: 4 or more, owned by the player not on turn).
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.formats.match_id import (
    as_int,
    check_cube_context,
    check_dice_pair,
    check_match_context,
    log2_exact,
    parse_int,
)
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OFF,
    flip,
)
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.position import (
    CUBE_CENTRED,
    CUBE_MOVER,
    CUBE_OPPONENT,
    CUBE_OWNERS,
    Position,
)

XGID_PREFIX = "XGID="
BOARD_CHARS = 26
FIELD_NAMES = (
    "board",
    "cube",
    "cubepos",
    "turn",
    "dice",
    "s1",
    "s2",
    "rules",
    "len",
    "maxcube",
)
MAX_CUBE_LOG2 = 15
MAX_MATCH_LENGTH = (1 << 15) - 1
DOUBLE_CODES = ("D", "B", "R")
"""XGID dice codes of a pending double, indexed by ``Position.beaver_stage``."""
RULE_JACOBY = 1
RULE_BEAVERS = 2
TOP_BAR_CHAR = 0
BOTTOM_BAR_CHAR = 25


def _char_count(count: int, upper: bool) -> str:
    if count == 0:
        return "-"
    if count > CHECKERS_PER_SIDE:
        raise FormatError(f"an XGID cannot write {count} checkers on one point (15 at most)")
    return chr((ord("A") if upper else ord("a")) + count - 1)


def position_to_xgid(position: Position) -> str:
    """The XGID (with ``XGID=`` prefix) of a Position.

    ``turn`` is 1 when ``position.mover_seat`` is 0 (bottom player on roll),
    else -1; the board string is always from the bottom player's side.
    Raises FormatError for what an XGID cannot hold (a cube that is not a
    power of two, dice together with a pending double, checkers in hand) and
    for impossible cube states (``check_cube_context``).
    """
    seat = position.mover_seat
    if seat not in (0, 1):
        raise FormatError(f"mover seat must be 0 or 1, got {seat!r}")
    board = np.asarray(position.board, dtype=np.int64)
    if board[MOVER_HAND] or board[OPPONENT_HAND]:
        raise FormatError("an XGID cannot record checkers in hand (variants)")
    bottom = board if seat == 0 else flip(board)  # bottom player's view, bottom positive
    chars = [_char_count(int(-bottom[OPPONENT_BAR]), upper=False)]
    for point in range(1, 25):
        n = int(bottom[point])
        chars.append(_char_count(n, upper=True) if n >= 0 else _char_count(-n, upper=False))
    chars.append(_char_count(int(bottom[MOVER_BAR]), upper=True))

    cube = log2_exact(position.cube_value, "cube value")
    max_cube = log2_exact(position.max_cube, "cube limit (max_cube)")
    if position.cube_owner not in CUBE_OWNERS:
        raise FormatError(f"cube owner must be one of {CUBE_OWNERS}, got {position.cube_owner!r}")
    if position.cube_owner == CUBE_CENTRED:
        cubepos = 0
    else:
        owner_seat = seat if position.cube_owner == CUBE_MOVER else 1 - seat
        cubepos = 1 if owner_seat == 0 else -1
    turn = 1 if seat == 0 else -1

    dice = check_dice_pair(position.dice)
    if position.double_offered:
        if dice is not None:
            raise FormatError(f"dice {dice} are rolled while a double is offered")
        stage = as_int(position.beaver_stage, "beaver stage")
        if not 0 <= stage < len(DOUBLE_CODES):
            raise FormatError(f"beaver stage {stage} is not 0, 1 or 2")
        dice_text = DOUBLE_CODES[stage]
    elif dice is None:
        dice_text = "00"
    else:
        dice_text = f"{dice[0]}{dice[1]}"

    if max_cube > MAX_CUBE_LOG2:
        raise FormatError(f"cube limit {position.max_cube} is above 2^{MAX_CUBE_LOG2}")
    if cube > max_cube:
        raise FormatError(
            f"cube value {position.cube_value} is above the cube limit {position.max_cube}"
        )
    scores = [0, 0]
    scores[seat] = as_int(position.mover_score, "mover score")
    scores[1 - seat] = as_int(position.opponent_score, "opponent score")
    match_length = as_int(position.match_length, "match length")
    for value in (*scores, match_length):
        if value > MAX_MATCH_LENGTH:
            raise FormatError(f"score or match length {value} is above {MAX_MATCH_LENGTH}")
    check_match_context(
        match_length=match_length,
        scores=(scores[0], scores[1]),
        crawford=bool(position.crawford) and match_length > 0,
        dice=dice,
        double_offered=bool(position.double_offered),
        where="position",
    )
    stage = as_int(position.beaver_stage, "beaver stage") if position.double_offered else 0
    # A beaver on the table says the beaver rule is in effect (as a Match ID says it).
    beavers = not match_length and (bool(position.beavers) or stage > 0)
    check_cube_context(
        cube_value=position.cube_value,
        cube_owner=position.cube_owner,
        double_offered=bool(position.double_offered),
        beaver_stage=stage,
        match_length=match_length,
        crawford=bool(position.crawford) and match_length > 0,
        beavers=beavers,
        max_cube=position.max_cube,
        where="position",
    )
    if match_length:
        rules = int(bool(position.crawford))
    else:
        rules = RULE_JACOBY * bool(position.jacoby) + RULE_BEAVERS * beavers
    fields = [
        "".join(chars),
        str(cube),
        str(cubepos),
        str(turn),
        dice_text,
        str(scores[0]),
        str(scores[1]),
        str(rules),
        str(match_length),
        str(max_cube),
    ]
    return XGID_PREFIX + ":".join(fields)


def _read_board(text: str) -> np.ndarray:
    """26 XGID board characters -> ``(30,) int64`` from the BOTTOM player's view."""
    if len(text) != BOARD_CHARS:
        raise FormatError(
            f"XGID board must be {BOARD_CHARS} characters, got {len(text)}: {text[:40]!r}"
        )
    board = np.zeros(BOARD_SIZE, dtype=np.int64)
    totals = {"bottom": 0, "top": 0}
    for i, c in enumerate(text):
        if c == "-":
            continue
        if "A" <= c <= "O":
            who, n = "bottom", ord(c) - ord("A") + 1
        elif "a" <= c <= "o":
            who, n = "top", ord(c) - ord("a") + 1
        else:
            raise FormatError(
                f"XGID board character {i} is {c!r}; expected '-', A-O (bottom player) "
                "or a-o (top player)"
            )
        totals[who] += n
        if i == TOP_BAR_CHAR:
            if who != "top":
                raise FormatError(
                    f"XGID board character 0 (the top player's bar) holds {c!r}, "
                    "bottom-player checkers"
                )
            board[OPPONENT_BAR] = -n
        elif i == BOTTOM_BAR_CHAR:
            if who != "bottom":
                raise FormatError(
                    f"XGID board character 25 (the bottom player's bar) holds {c!r}, "
                    "top-player checkers"
                )
            board[MOVER_BAR] = n
        else:
            board[i] = n if who == "bottom" else -n
    for who, total in totals.items():
        if total > CHECKERS_PER_SIDE:
            raise FormatError(
                f"XGID board gives the {who} player {total} checkers, more than {CHECKERS_PER_SIDE}"
            )
    board[MOVER_OFF] = CHECKERS_PER_SIDE - totals["bottom"]
    board[OPPONENT_OFF] = -(CHECKERS_PER_SIDE - totals["top"])
    return board


def _field_int(fields: list[str], index: int, low: int, high: int) -> int:
    name = FIELD_NAMES[index]
    value = parse_int(fields[index], f"XGID field {index} ({name})")
    if not low <= value <= high:
        raise FormatError(f"XGID {name} {value} is out of range {low}..{high}")
    return value


def position_from_xgid(text: str) -> Position:
    """Read an XGID (with or without the ``XGID=`` prefix) into a Position.

    The Position's board is ``(30,) int8`` from the mover's view. Both turn
    forms are read: ``turn = 1`` (bottom player on roll, mover_seat 0) and
    ``turn = -1`` (top player on roll, mover_seat 1, the bottom-side board
    string flipped to the mover's view). Raises FormatError (or InvalidBoardError) naming what is
    wrong: field count, board characters, non-integer or out-of-range fields,
    dice, impossible match states, impossible cube states (``check_cube_context``).
    """
    if not isinstance(text, str):
        raise FormatError(f"XGID must be a string, got {type(text).__name__}")
    raw = text.strip()
    if raw[: len(XGID_PREFIX)].upper() == XGID_PREFIX:
        raw = raw[len(XGID_PREFIX) :]
    if not raw:
        raise FormatError("XGID is empty")
    fields = raw.split(":")
    if len(fields) != len(FIELD_NAMES):
        raise FormatError(
            f"XGID has {len(fields)} fields, expected {len(FIELD_NAMES)} "
            "(board:cube:cubepos:turn:dice:s1:s2:rules:len:maxcube)"
        )
    bottom_board = _read_board(fields[0])
    cube = _field_int(fields, 1, 0, MAX_CUBE_LOG2)
    cubepos = _field_int(fields, 2, -1, 1)
    turn = parse_int(fields[3], "XGID field 3 (turn)")
    if turn not in (1, -1):
        raise FormatError(f"XGID turn must be 1 (bottom) or -1 (top), got {turn}")
    s1 = _field_int(fields, 5, 0, MAX_MATCH_LENGTH)
    s2 = _field_int(fields, 6, 0, MAX_MATCH_LENGTH)
    rules = _field_int(fields, 7, 0, 3)
    match_length = _field_int(fields, 8, 0, MAX_MATCH_LENGTH)
    max_cube = _field_int(fields, 9, 0, MAX_CUBE_LOG2)
    if cube > max_cube:
        raise FormatError(f"XGID cube 2^{cube} is above the cube limit 2^{max_cube}")

    dice_text = fields[4].strip()
    dice: tuple[int, int] | None = None
    double_offered = False
    beaver_stage = 0
    if dice_text in DOUBLE_CODES:
        double_offered = True
        beaver_stage = DOUBLE_CODES.index(dice_text)
    elif dice_text == "00":
        pass
    elif len(dice_text) == 2 and all("0" <= c <= "9" for c in dice_text):
        d1, d2 = int(dice_text[0]), int(dice_text[1])
        for d in (d1, d2):
            if not 1 <= d <= 6:
                raise FormatError(f"XGID die {d} in dice {dice_text!r} is out of range 1-6")
        dice = (d1, d2)
    else:
        raise FormatError(
            f"XGID dice must be 00, D, B, R or two dice 1-6 such as 52, got {dice_text[:10]!r}"
        )

    if match_length:
        if rules > 1:
            raise FormatError(f"XGID rules {rules} in match play must be 0 or 1 (Crawford)")
        crawford, jacoby, beavers = rules == 1, False, False
    else:
        crawford, jacoby, beavers = False, bool(rules & RULE_JACOBY), bool(rules & RULE_BEAVERS)
    check_match_context(
        match_length=match_length,
        scores=(s1, s2),
        crawford=crawford,
        dice=dice,
        double_offered=double_offered,
        where="XGID",
    )

    seat = 0 if turn == 1 else 1
    board = bottom_board if seat == 0 else flip(bottom_board)
    if cubepos == 0:
        owner = CUBE_CENTRED
    else:
        owner_seat = 0 if cubepos == 1 else 1
        owner = CUBE_MOVER if owner_seat == seat else CUBE_OPPONENT
    check_cube_context(
        cube_value=1 << cube,
        cube_owner=owner,
        double_offered=double_offered,
        beaver_stage=beaver_stage,
        match_length=match_length,
        crawford=crawford,
        beavers=beavers,
        max_cube=1 << max_cube,
        where="XGID",
    )
    scores = (s1, s2)
    return Position(
        board=board.astype(BOARD_DTYPE),
        dice=dice,
        cube_value=1 << cube,
        cube_owner=owner,
        mover_score=scores[seat],
        opponent_score=scores[1 - seat],
        match_length=match_length,
        crawford=crawford,
        jacoby=jacoby,
        beavers=beavers,
        double_offered=double_offered,
        max_cube=1 << max_cube,
        mover_seat=seat,
        beaver_stage=beaver_stage,
    )
