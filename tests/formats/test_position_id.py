"""GNU Backgammon Position ID: known IDs, the 80 test vectors, malformed input."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tdgammon.engine.formats.position_id import decode_position_id, encode_position_id
from tdgammon.engine.rules.board import (
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_OFF,
    board_from_points,
    starting_board,
)
from tdgammon.engine.rules.errors import FormatError, InvalidBoardError, TdgammonError

VECTORS = Path(__file__).resolve().parents[1] / "data" / "movegen_vectors.jsonl"
START_ID = "4HPwATDgc/ABMA"


def load_vectors() -> list[dict]:
    return [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]


def board_from_slots(mover: list[int], opponent: list[int]) -> np.ndarray:
    """Board (30,) int8 from two 25-slot arrays in own numbering (slot 24 = bar)."""
    return board_from_points(
        {s + 1: n for s, n in enumerate(mover) if n},
        {s + 1: n for s, n in enumerate(opponent) if n},
    )


def id_from_bits(bits: str) -> str:
    """Position ID of an explicit bit string (bit k = bit k % 8 of byte k // 8)."""
    bits = bits.ljust(80, "0")
    key = sum(1 << k for k, b in enumerate(bits) if b == "1")
    return base64.b64encode(key.to_bytes(10, "little")).decode()[:14]


def slots_bits(counts: list[int]) -> str:
    return "".join("1" * n + "0" for n in counts)


def test_starting_position_encodes_to_known_id():
    assert encode_position_id(starting_board()) == START_ID


def test_known_id_decodes_to_starting_position():
    assert np.array_equal(decode_position_id(START_ID), starting_board())


def test_decoded_board_is_int8_mover_view():
    board = decode_position_id(START_ID)
    assert board.shape == (30,) and board.dtype == np.int8
    assert board[6] == 5 and board[19] == -5  # mover's 6-point, opponent's 6-point


@pytest.mark.parametrize("row", load_vectors(), ids=lambda r: r["position_id"])
def test_vector_position_id_decodes_and_encodes(row):
    expected = board_from_slots(row["mover"], row["opponent"])
    board = decode_position_id(row["position_id"])
    assert np.array_equal(board, expected)
    assert encode_position_id(board) == row["position_id"]


def test_player_not_on_roll_is_written_first():
    # Opponent: one checker on its 1-point; mover: all 15 off but one on its bar.
    mover = [0] * 24 + [1]
    opponent = [1] + [0] * 24
    text = id_from_bits(slots_bits(opponent) + slots_bits(mover))
    board = decode_position_id(text)
    assert board[24] == -1  # opponent's 1-point is the mover's 24-point
    assert board[MOVER_BAR] == 1
    assert board[MOVER_OFF] == 14 and board[OPPONENT_OFF] == -14
    assert encode_position_id(board) == text


def test_bars_and_off_round_trip():
    board = board_from_points({25: 3, 1: 2}, {25: 1, 23: 2})
    assert board[OPPONENT_BAR] == -1
    assert np.array_equal(decode_position_id(encode_position_id(board)), board)


BOTH_OFF = "both players have borne off all their checkers"


def test_empty_board_both_players_off_is_refused():
    with pytest.raises(InvalidBoardError, match=f"Position ID 'AAAAAAAAAAAAAA': {BOTH_OFF}"):
        decode_position_id("AAAAAAAAAAAAAA")
    with pytest.raises(InvalidBoardError, match=BOTH_OFF):
        decode_position_id("AAAAAAAAAAAAAA", checkers_per_side=3)  # Hypergammon too
    board = np.zeros(30, dtype=np.int8)
    board[MOVER_OFF], board[OPPONENT_OFF] = 15, -15
    with pytest.raises(InvalidBoardError, match=BOTH_OFF):
        encode_position_id(board)


@pytest.mark.parametrize("mover_off", [True, False])
def test_one_player_borne_off_is_a_finished_game_and_reads(mover_off):
    mover, opponent = ({}, {6: 2, 1: 1}) if mover_off else ({3: 4}, {})
    board = board_from_points(mover, opponent)
    text = encode_position_id(board)
    assert np.array_equal(decode_position_id(text), board)
    assert bool(board[MOVER_OFF] == 15) == mover_off
    assert bool(board[OPPONENT_OFF] == -15) == (not mover_off)


def test_surrounding_whitespace_is_ignored():
    assert np.array_equal(decode_position_id(f"  {START_ID}\n"), starting_board())


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("4HPwATDgc/ABM", "14 characters, got 13"),
        ("4HPwATDgc/ABMAA", "14 characters, got 15"),
        ("4HPwATDgc/AB-A", "base64 alphabet"),
        ("4HPwATDgc/AB=A", "base64 alphabet"),
        ("4HPwATDgc/ABMé", "base64 alphabet"),
        ("4HPwATDgc/ABMB", "beyond the 80"),
        ("/////////////w", "too many checkers"),
    ],
)
def test_malformed_ids_raise_format_errors(text, fragment):
    with pytest.raises(TdgammonError, match=re.escape(fragment)):
        decode_position_id(text)


@pytest.mark.parametrize("value", [None, 12345, b"4HPwATDgc/ABMA", ["4HPwATDgc/ABMA"]])
def test_non_strings_raise_format_error(value):
    with pytest.raises(FormatError, match="must be a string"):
        decode_position_id(value)


def test_sixteen_checkers_for_the_mover_are_rejected():
    text = id_from_bits(slots_bits([0] * 25) + slots_bits([16] + [0] * 24))
    with pytest.raises(InvalidBoardError, match="player on roll.*16 checkers, more than 15"):
        decode_position_id(text)


def test_sixteen_checkers_for_the_opponent_are_rejected():
    text = id_from_bits(slots_bits([8, 8] + [0] * 23) + slots_bits([0] * 25))
    with pytest.raises(InvalidBoardError, match="not on roll.*16 checkers"):
        decode_position_id(text)


def test_both_players_on_one_point_is_rejected():
    # Opponent's 1-point is the mover's 24-point: put checkers of both there.
    opponent = [2] + [0] * 24
    mover = [0] * 23 + [1, 0]
    text = id_from_bits(slots_bits(opponent) + slots_bits(mover))
    with pytest.raises(
        InvalidBoardError, match="both players have checkers on the mover's point 24"
    ):
        decode_position_id(text)


def test_bits_after_the_last_slot_are_rejected():
    text = id_from_bits(slots_bits([0] * 50) + "0001")
    with pytest.raises(FormatError, match="1-bits after the last slot"):
        decode_position_id(text)


def test_encoding_rejects_checkers_in_hand():
    board = starting_board().astype(np.int64)
    board[6] -= 1
    board[MOVER_HAND] = 1
    with pytest.raises(FormatError, match="in hand"):
        encode_position_id(board)


def test_encoding_rejects_invalid_boards():
    board = starting_board().astype(np.int64)
    board[6] += 1
    with pytest.raises(InvalidBoardError, match="16 checkers"):
        encode_position_id(board)
    with pytest.raises(InvalidBoardError, match="shape"):
        encode_position_id(np.zeros(28, dtype=np.int8))


def test_hypergammon_board_with_three_checkers_per_side():
    text = id_from_bits(slots_bits([0] * 21 + [1, 1, 1, 0]) * 2)
    board = decode_position_id(text, checkers_per_side=3)
    assert board[MOVER_OFF] == 0 and board[24] == 1 and board[1] == -1
    assert encode_position_id(board, checkers_per_side=3) == text
