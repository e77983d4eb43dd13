"""parse_position dispatch and format_ids."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tdgammon.engine.formats.parse import format_ids, parse_position
from tdgammon.engine.rules.board import starting_board
from tdgammon.engine.rules.errors import FormatError, InvalidBoardError, TdgammonError
from tdgammon.engine.rules.position import Position

from .test_fibs import FIBS_EXAMPLE
from .test_position_id import load_vectors

OPENING_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


@pytest.mark.parametrize(
    "text",
    [
        OPENING_52,
        OPENING_52[5:],
        "4HPwATDgc/ABMA:cAkAAAAAAAAA",
        "4HPwATDgc/ABMA",
        FIBS_EXAMPLE,
        "  4HPwATDgc/ABMA\n",
    ],
)
def test_every_format_reads_the_start_position(text):
    assert np.array_equal(parse_position(text).board, starting_board())


def test_bare_position_id_is_money_centred_no_dice():
    position = parse_position("4HPwATDgc/ABMA")
    assert position == Position(board=starting_board())


def test_vectors_agree_across_formats():
    for row in load_vectors():
        a = parse_position(row["position_id"])
        b = parse_position(row["xgid"])
        c = parse_position(row["xgid_turn_top"])
        assert np.array_equal(a.board, b.board) and np.array_equal(a.board, c.board)
        ids = format_ids(c)
        assert ids["position_id"] == row["position_id"]
        assert ids["xgid"] == row["xgid_turn_top"]
        assert parse_position(f"{ids['position_id']}:{ids['match_id']}") == c


def test_format_ids_keys():
    ids = format_ids(Position(mover_seat=1))
    assert ids == {
        "position_id": "4HPwATDgc/ABMA",
        "match_id": "cAkAAAAAAAAE",  # bit 66 set: money play without Jacoby
        "xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10",
    }
    jacoby = format_ids(Position(mover_seat=1, jacoby=True))
    assert jacoby["match_id"] == "cAkAAAAAAAAA"
    assert jacoby["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:1:0:10"


@pytest.mark.parametrize(
    "text",
    ["hello", "4HPwATDgc", "a:b:c", "XGIDX", "board", "4HPwATDgc/ABMAQ", "1:2:3:4:5:6:7:8:9:10"],
)
def test_unrecognised_text(text):
    with pytest.raises(FormatError, match="is not an XGID, GNU Backgammon ID or FIBS board"):
        parse_position(text)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty position"),
        ("  \t", "empty position"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0", "9 fields, expected 10"),
        ("-b----E-C---eE---c-e----B-:0:0:1:59:0:0:0:0:10", "die 9"),
        ("4HPwATDgc/ABMA:cAkAAAAA", "Match ID after the Position ID must be 12"),
        ("4HPwATDgc/AB!A:cAkAAAAAAAAA", "base64 alphabet"),
        ("board:You:Them:1", "expected 53"),
        ("4HPwATDgc/AB!A", "base64 alphabet"),
    ],
)
def test_malformed_input_gets_its_formats_error(text, fragment):
    with pytest.raises(TdgammonError, match=re.escape(fragment)):
        parse_position(text)


@pytest.mark.parametrize("value", [None, 42, 3.5, b"4HPwATDgc/ABMA", ["x"]])
def test_non_strings(value):
    with pytest.raises(FormatError, match="must be a string"):
        parse_position(value)


@pytest.mark.parametrize(
    "text",
    [
        "AAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAA:cAkAAAAAAAAA",
        "AAAAAAAAAAAAAA:cAngAAAAAAAE",
        "XGID=--------------------------:0:0:1:52:0:0:0:0:10",
        "--------------------------:0:0:-1:00:0:0:0:0:10",
        "board:You:Them:9999:0:0:"
        + ":".join(["0"] * 26)
        + ":1:3:1:0:0:1:1:1:0:1:-1:0:25:15:15:0:0:0:0:0:0",
    ],
)
def test_every_format_refuses_a_board_where_both_players_are_off(text):
    with pytest.raises(InvalidBoardError, match="both players have borne off all their checkers"):
        parse_position(text)
