"""Interchange formats: GNU Backgammon Position/Match IDs, XGID, FIBS boards.

Every reader returns boards from the view of the player on roll (the mover)
and raises only ``TdgammonError`` subclasses (FormatError, InvalidBoardError)
with a message naming what is wrong. Layouts: docs/formats.md.
"""

from tdgammon.engine.formats.fibs import position_from_fibs
from tdgammon.engine.formats.match_id import (
    MatchId,
    decode_match_id,
    encode_match_id,
    match_id_from_position,
    position_from_gnubg,
    position_from_match_id,
    position_to_gnubg,
)
from tdgammon.engine.formats.parse import format_ids, parse_position
from tdgammon.engine.formats.position_id import decode_position_id, encode_position_id
from tdgammon.engine.formats.xgid import position_from_xgid, position_to_xgid

__all__ = [
    "MatchId",
    "decode_match_id",
    "decode_position_id",
    "encode_match_id",
    "encode_position_id",
    "format_ids",
    "match_id_from_position",
    "parse_position",
    "position_from_fibs",
    "position_from_gnubg",
    "position_from_match_id",
    "position_from_xgid",
    "position_to_gnubg",
    "position_to_xgid",
]
