"""One entry point for every position string the engine reads.

``parse_position`` recognises, in this order:

1. an XGID, with the ``XGID=`` prefix or without it (26 board characters
   then ``:`` and the other fields);
2. a FIBS board string (``board:...``);
3. GNU Backgammon's ``PositionID:MatchID`` (14 + 12 characters);
4. a bare 14-character Position ID: money play, cube centred, no dice, the
   board from the view of the player on roll (seat 0).

A string that has the shape of one format but is malformed gets that format's
own error; anything else is "not an XGID, GNU Backgammon ID or FIBS board".
"""

from __future__ import annotations

from tdgammon.engine.formats.fibs import position_from_fibs
from tdgammon.engine.formats.match_id import (
    MATCH_ID_LENGTH,
    encode_match_id,
    match_id_from_position,
    position_from_gnubg,
)
from tdgammon.engine.formats.position_id import (
    POSITION_ID_LENGTH,
    decode_position_id,
    encode_position_id,
)
from tdgammon.engine.formats.xgid import (
    BOARD_CHARS,
    XGID_PREFIX,
    position_from_xgid,
    position_to_xgid,
)
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.position import Position


def _not_recognised(raw: str) -> FormatError:
    shown = raw if len(raw) <= 60 else raw[:60] + "..."
    return FormatError(f"{shown!r} is not an XGID, GNU Backgammon ID or FIBS board")


def parse_position(text: str) -> Position:
    """Read a position in any supported format into a Position (mover's view).

    Accepts an XGID (prefix optional), ``PositionID:MatchID``, a bare Position
    ID or a FIBS board string; raises FormatError / InvalidBoardError otherwise.
    """
    if not isinstance(text, str):
        raise FormatError(
            f"a position must be a string (XGID, GNU Backgammon ID or FIBS board), "
            f"got {type(text).__name__}"
        )
    raw = text.strip()
    if not raw:
        raise FormatError("empty position: expected an XGID, GNU Backgammon ID or FIBS board")
    if raw[: len(XGID_PREFIX)].upper() == XGID_PREFIX:
        return position_from_xgid(raw)
    if raw[:6].lower() == "board:":
        return position_from_fibs(raw)
    parts = raw.split(":")
    if len(parts) > 1 and len(parts[0]) == BOARD_CHARS:
        return position_from_xgid(raw)  # an XGID without prefix (errors name its fields)
    if len(parts) == 2 and len(parts[0]) == POSITION_ID_LENGTH:
        if len(parts[1]) == MATCH_ID_LENGTH:
            return position_from_gnubg(raw)
        raise FormatError(
            f"Match ID after the Position ID must be {MATCH_ID_LENGTH} characters, "
            f"got {len(parts[1])}"
        )
    if len(parts) == 1 and len(raw) == POSITION_ID_LENGTH:
        return Position(board=decode_position_id(raw))
    raise _not_recognised(raw)


def format_ids(position: Position) -> dict[str, str]:
    """The position's interchange strings.

    Returns ``{"position_id": ..., "match_id": ..., "xgid": ...}``: the Position
    ID from the mover's view, the Match ID (seats from ``mover_seat``) and the
    XGID with its ``XGID=`` prefix.
    """
    return {
        "position_id": encode_position_id(position.board),
        "match_id": encode_match_id(match_id_from_position(position)),
        "xgid": position_to_xgid(position),
    }
