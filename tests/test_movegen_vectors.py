"""The 80 shared move-generation vectors: boards, IDs and legal-play counts.

Each row of ``tests/data/movegen_vectors.jsonl`` (a copy of the project's
shared reference data) gives a position from a random game, its Position ID,
its XGID in both turn forms, a roll and the number of distinct legal plays.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tdgammon.engine.formats import decode_position_id, parse_position
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.board import board_from_points

VECTORS = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "movegen_vectors.jsonl").read_text().splitlines()
    if line.strip()
]


def _board(row):
    mover = {i + 1: n for i, n in enumerate(row["mover"]) if n}
    opponent = {i + 1: n for i, n in enumerate(row["opponent"]) if n}
    return board_from_points(mover, opponent)


def test_there_are_80_vectors_with_every_kind_of_count():
    assert len(VECTORS) == 80
    assert any(row["n_legal"] == 0 for row in VECTORS)
    assert any(row["n_legal"] > 100 for row in VECTORS)


@pytest.mark.parametrize("row", VECTORS, ids=[r["position_id"] for r in VECTORS])
def test_vector_ids_and_play_counts(row):
    board = _board(row)
    assert np.array_equal(decode_position_id(row["position_id"]), board)
    assert np.array_equal(parse_position(row["xgid"]).board, board)
    assert np.array_equal(parse_position(row["xgid_turn_top"]).board, board)
    assert len(legal_plays(board, row["dice"])) == row["n_legal"]
    result = generate_moves(board[None, :], np.array([row["dice"]]))
    assert int((~result.is_pass()).sum()) == row["n_legal"]


def test_all_vectors_in_one_batch():
    boards = np.stack([_board(row) for row in VECTORS])
    dice = np.array([row["dice"] for row in VECTORS])
    result = generate_moves(boards, dice)
    plays = np.bincount(result.parents[~result.is_pass()], minlength=len(VECTORS))
    assert plays.tolist() == [row["n_legal"] for row in VECTORS]
