"""The compiled expert encoding (numba) against the numpy reference, row for row.

``tdgammon.models.features.expert_features`` and
``tdgammon.models.encoding.expert_encoding`` run a numba kernel when numba can be
imported (``models/_compiled_features.py``); the numpy code stays as the
reference (``expert_features_numpy``, ``expert_encoding_numpy``). The two must
give the same float32 bits on every row: positions of random and pubeval games,
arbitrary boards (tall stacks, closed boards, crowded bars, bear-offs), the
variants, hand-built corner cases; at batch size 1 and in large batches.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.players.agents import PubevalAgent
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    MOVER_BAR,
    OPPONENT_BAR,
    board_from_points,
    flip,
    has_contact,
    starting_board,
)
from tdgammon.models import encoding, features
from tdgammon.models.encoding import EXPERT_SIZE, expert_encoding, expert_encoding_numpy
from tdgammon.models.features import FEATURE_SIZE, expert_features, expert_features_numpy

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(
    not features.compiled_available(),
    reason="compiled expert features switched off (TDGAMMON_NUMBA=0)",
)


def assert_same_bits(got: np.ndarray, expected: np.ndarray, boards=None) -> None:
    """Bit-identical float32 arrays (reporting the first differing value otherwise)."""
    assert got.dtype == expected.dtype == np.float32 and got.shape == expected.shape
    same = got.view(np.int32) == expected.view(np.int32)
    if not same.all():
        row, column = np.argwhere(~same)[0]
        diff = np.abs(got.astype(np.float64) - expected)
        board = None if boards is None else boards[row].tolist()
        pytest.fail(
            f"{(~same).sum()} values differ (max abs diff {diff.max():.3g}); first: row "
            f"{row}, column {column}: compiled {got[row, column]!r}, numpy "
            f"{expected[row, column]!r}, board {board}"
        )


def check(boards: np.ndarray) -> None:
    """Compiled == numpy for the features and the whole encoding of ``boards``."""
    boards = np.asarray(boards, dtype=BOARD_DTYPE)
    assert_same_bits(expert_features(boards), expert_features_numpy(boards), boards)
    assert_same_bits(expert_encoding(boards), expert_encoding_numpy(boards), boards)


# ----------------------------------------------------------------- position sets


@pytest.fixture(scope="module")
def game_boards() -> np.ndarray:
    boards, _ = random_game_positions(20_000, np.random.default_rng(11), parallel_games=256)
    return boards


@pytest.fixture(scope="module")
def pubeval_boards() -> np.ndarray:
    boards, _ = random_game_positions(
        6_000,
        np.random.default_rng(12),
        parallel_games=128,
        choose_plays=PubevalAgent().choose_plays,
    )
    return boards


@pytest.fixture(scope="module")
def arbitrary_boards() -> np.ndarray:
    return random_boards(5_000, np.random.default_rng(13))


def test_random_games(game_boards):
    check(game_boards)
    # the sample covers what the kernel branches on
    assert (game_boards[:, MOVER_BAR] > 0).sum() > 500
    assert (game_boards[:, OPPONENT_BAR] < 0).sum() > 500
    assert (~has_contact(game_boards)).sum() > 500


def test_pubeval_games(pubeval_boards):
    check(pubeval_boards)
    assert (~has_contact(pubeval_boards)).sum() > 200  # races and bear-offs


def test_arbitrary_boards(arbitrary_boards):
    check(arbitrary_boards)


def test_both_views(game_boards, arbitrary_boards):
    check(flip(game_boards[:5000]))
    check(flip(arbitrary_boards))


@pytest.mark.parametrize("variant", ["nackgammon", "hypergammon", "dutch", "acey-deucey"])
def test_variants(variant):
    # checkers in hand (Dutch, Acey-Deucey) are ignored by both implementations
    boards, _ = random_game_positions(3_000, np.random.default_rng(14), variant=variant)
    check(boards)


def test_bar_closed_boards_races_and_bear_offs(game_boards, pubeval_boards, arbitrary_boards):
    everything = np.concatenate([game_boards, pubeval_boards, arbitrary_boards])
    on_bar = everything[(everything[:, MOVER_BAR] > 0) | (everything[:, OPPONENT_BAR] < 0)]
    two_on_bar = everything[(everything[:, MOVER_BAR] >= 2) | (everything[:, OPPONENT_BAR] <= -2)]
    races = everything[~has_contact(everything)]
    mover_home = (everything[:, 7:26].clip(0, None).sum(axis=1) == 0) & (everything[:, 0] > 0)
    made_home = (everything[:, 1:7] >= 2).sum(axis=1)
    closed = everything[made_home >= 5]
    for subset in (on_bar, two_on_bar, races, everything[mover_home], closed):
        assert len(subset) > 50
        check(subset)


def handmade_boards() -> np.ndarray:
    """Corner cases: the start, closed boards against checkers on the bar, one side all
    off, primes, back games, tall stacks."""
    points = [
        ({25: 2, 6: 13}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2, 13: 3}),
        ({25: 4, 13: 11}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3}),
        ({25: 1, 24: 1, 13: 13}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 25: 1, 19: 4}),
        ({25: 15}, {25: 15}),
        ({1: 15}, {1: 15}),
        ({}, {1: 1}),  # the mover has borne off everything
        ({6: 1, 4: 1, 2: 1}, {}),
        ({24: 2, 23: 2, 22: 2, 21: 2, 20: 2, 19: 2, 18: 3}, {12: 2, 11: 2, 10: 2, 9: 2, 8: 7}),
        ({24: 1, 22: 1, 20: 1, 18: 1, 16: 1, 14: 1, 12: 1, 10: 8}, {25: 3, 24: 1, 23: 11}),
        ({23: 2, 25: 1, 13: 2, 6: 5, 5: 5}, {6: 2, 5: 2, 4: 2, 3: 2, 1: 7}),
        ({20: 1, 9: 1, 8: 1, 7: 1, 1: 11}, {25: 2, 14: 1, 13: 1, 12: 1, 11: 1, 1: 9}),
        ({13: 15}, {13: 15}),
    ]
    boards = [starting_board()] + [board_from_points(m, o) for m, o in points]
    return np.array(boards, dtype=BOARD_DTYPE)


def test_handmade_positions():
    boards = handmade_boards()
    check(boards)
    check(flip(boards))


# ----------------------------------------------------------------- batches and inputs


def test_one_board_at_a_time_and_large_batches(game_boards, arbitrary_boards):
    boards = np.concatenate([game_boards, arbitrary_boards])  # 25k: several numpy chunks
    whole = expert_encoding(boards)
    assert_same_bits(whole, expert_encoding_numpy(boards))
    rows = np.random.default_rng(15).choice(len(boards), 600, replace=False)
    for row in rows:  # batch size 1, and a 1-D board
        assert_same_bits(expert_encoding(boards[row : row + 1]), whole[row : row + 1])
        assert_same_bits(expert_encoding(boards[row]), whole[row : row + 1])
        assert_same_bits(
            expert_features(boards[row]), whole[row : row + 1, EXPERT_SIZE - FEATURE_SIZE :]
        )


def test_inputs_of_other_layouts_and_dtypes(game_boards):
    boards = game_boards[:3000]
    expected = expert_encoding_numpy(boards)
    assert_same_bits(expert_encoding(boards[::-1]), expected[::-1])  # negative stride
    assert_same_bits(expert_encoding(boards.astype(np.int64)), expected)
    fortran = np.asfortranarray(boards)
    assert_same_bits(expert_encoding(fortran), expected)
    assert_same_bits(encoding.ENCODINGS["expert"].encode(boards), expected)
    empty = np.zeros((0, BOARD_SIZE), dtype=BOARD_DTYPE)
    assert expert_encoding(empty).shape == (0, EXPERT_SIZE)
    assert expert_features(empty).shape == (0, FEATURE_SIZE)


def test_fill_compiled_checks_its_output_array(game_boards):
    boards = game_boards[:10]
    with pytest.raises(ValueError):
        features.fill_compiled(boards, np.empty((10, FEATURE_SIZE), np.float64), False)
    with pytest.raises(ValueError):
        features.fill_compiled(boards, np.empty((10, FEATURE_SIZE), np.float32), True)
    with pytest.raises(ValueError):  # the kernel reads 28 columns: never fewer
        features.fill_compiled(boards[:, :27], np.empty((10, FEATURE_SIZE), np.float32), False)
    out = np.empty((10, EXPERT_SIZE), np.float32)
    assert features.fill_compiled(boards, out, True)
    assert_same_bits(out, expert_encoding_numpy(boards))


def test_the_raw_point_table_is_the_encodings():
    np.testing.assert_array_equal(features._POINT_UNITS, encoding._POINT_TABLE)


# ----------------------------------------------------------------- switching it off


def test_tdgammon_numba_0_runs_the_numpy_code():
    script = textwrap.dedent(
        """
        import numpy as np
        from tdgammon.engine.flow.random_play import random_game_positions
        from tdgammon.models import features
        from tdgammon.models.encoding import expert_encoding, expert_encoding_numpy

        boards, _ = random_game_positions(300, np.random.default_rng(5))
        x = expert_encoding(boards)
        assert not features.compiled_available()
        assert features._kernel is None and features._unavailable == "TDGAMMON_NUMBA=0"
        assert not features.fill_compiled(boards, np.empty_like(x), True)
        np.testing.assert_array_equal(x, expert_encoding_numpy(boards))
        print("numpy path")
        """
    )
    env = dict(os.environ, TDGAMMON_NUMBA="0")
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "numpy path" in result.stdout
