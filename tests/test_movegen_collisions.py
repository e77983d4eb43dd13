"""The vectorized generator's fallback on Zobrist key collisions.

``tdgammon.engine.movegen.vectorized`` de-duplicates two-move plays (and, in the
variants, Dutch doubles and Acey-Deucey 1-2 plays) by 64-bit keys in a numpy hash
table and confirms every merge by an exact comparison of the boards; on a
collision the exact comparison decides. Real collisions are never seen (about
2**-63), so these tests force them: they replace the key weights of the module by
degenerate ones under which distinct boards share keys, and check that the plays
are still exactly the reference generator's, as sets of resulting boards.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.movegen import compiled, vectorized
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.movegen.vectorized import NO_MOVE, board_keys, generate_moves
from tdgammon.engine.rules.board import BOARD_SIZE, board_from_points, starting_board
from tdgammon.engine.rules.dice import ALL_ROLLS

SEED = 20261130


def _all_ones():
    """Every weight 1: a board's key is its checker sum, the same for every play of a
    position (moves, hits and bear-offs keep it), so all plays of a parent collide."""
    return np.ones(BOARD_SIZE, dtype=np.uint64)


def _few_values():
    """Weights 1 or 3 (odd, as the module's are): many, not all, plays collide."""
    rng = np.random.default_rng(5)
    return rng.choice(np.array([1, 3], dtype=np.uint64), size=BOARD_SIZE)


TABLES = {"all_equal": _all_ones, "two_values": _few_values}


def _positions(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions from random games and arbitrary boards, each paired with every
    distinct roll (21)."""
    rng = np.random.default_rng(SEED)
    # 8 games side by side, every 10th position: openings, middle games and bear-offs
    boards, _ = random_game_positions(10 * count, rng, parallel_games=8)
    boards = np.concatenate([starting_board()[None, :], boards[::10], random_boards(count, rng)])
    rolls = np.array(sorted({tuple(sorted(r)) for r in ALL_ROLLS.tolist()}), dtype=np.int8)
    return np.repeat(boards, len(rolls), axis=0), np.tile(rolls, (len(boards), 1))


def _reference(boards, dice, variant):
    return [
        {(p.board, p.extra_roll) for p in legal_plays(b, tuple(int(x) for x in d), variant)}
        for b, d in zip(boards, dice, strict=True)
    ]


def _compare(boards, dice, expected, result):
    starts = np.searchsorted(result.parents, np.arange(len(boards) + 1))
    for i in range(len(boards)):
        rows = range(starts[i], starts[i + 1])
        got = [(tuple(int(x) for x in result.boards[r]), bool(result.extra_roll[r])) for r in rows]
        where = f"board {boards[i].tolist()} dice {dice[i].tolist()}"
        if not expected[i]:  # no legal play: one pass row, the board unchanged
            assert len(got) == 1 and result.moves[rows[0], 0, 0] == NO_MOVE, where
            assert got[0][0] == tuple(int(x) for x in boards[i]), where
        else:
            assert len(got) == len(set(got)), f"{where}: a play listed twice"
            assert set(got) == expected[i], f"{where}: {len(got)} vs {len(expected[i])}"


@pytest.fixture(autouse=True)
def numpy_generator(monkeypatch):
    """These tests patch the numpy generator's keys: route every variant to it."""
    monkeypatch.setattr(compiled, "available", lambda: False)


@pytest.fixture(scope="module")
def standard_sample():
    boards, dice = _positions(30)
    return boards, dice, _reference(boards, dice, "standard")


@pytest.mark.parametrize("table", sorted(TABLES))
@pytest.mark.parametrize("parent_weight", [True, False], ids=["parent_weight", "no_parent_weight"])
def test_forced_collisions_give_the_reference_plays(
    monkeypatch, standard_sample, table, parent_weight
):
    boards, dice, expected = standard_sample
    monkeypatch.setattr(vectorized, "_ZOBRIST", TABLES[table]())
    if not parent_weight:  # rows of different parents collide too
        monkeypatch.setattr(vectorized, "_PARENT_WEIGHT", np.uint64(0))
    # the premise: distinct resulting boards of one position now share keys
    plays = np.array(sorted(board for board, _ in expected[dice.tolist().index([5, 6])]))
    keys = board_keys(plays.astype(np.int8))
    assert len(np.unique(keys)) < len(plays)
    # whole batch at once, and in small batches
    _compare(boards, dice, expected, generate_moves(boards, dice))
    for start in range(0, len(boards), 97):
        part = slice(start, start + 97)
        _compare(boards[part], dice[part], expected[part], generate_moves(boards[part], dice[part]))


def test_all_equal_keys_would_merge_distinct_plays_without_the_exact_check(
    monkeypatch, standard_sample
):
    # Under the all-equal table every play of a parent has the same key: keys alone
    # would leave one play per position. The generator must still list them all.
    boards, dice, expected = standard_sample
    monkeypatch.setattr(vectorized, "_ZOBRIST", _all_ones())
    result = generate_moves(boards, dice)
    counts = result.counts(len(boards))
    np.testing.assert_array_equal(counts, [max(1, len(e)) for e in expected])
    assert counts.max() > 1
    np.testing.assert_array_equal(
        np.unique(board_keys(result.boards[result.parents == 0])), board_keys(boards[:1])
    )


def test_forced_collisions_in_dutch_doubles(monkeypatch, standard_sample):
    # Dutch's no-hit rule de-duplicates every step of a double (no canonical order).
    # The boards have nothing in hand, so the checkers can move freely.
    boards = np.unique(standard_sample[0], axis=0)
    doubles = np.array([[d, d] for d in range(1, 7)], dtype=np.int8)
    boards, dice = np.repeat(boards, 6, axis=0), np.tile(doubles, (len(boards), 1))
    expected = _reference(boards, dice, "dutch")
    assert max(len(e) for e in expected) > 100
    monkeypatch.setattr(vectorized, "_ZOBRIST", _all_ones())
    _compare(boards, dice, expected, generate_moves(boards, dice, "dutch"))


def test_forced_collisions_in_acey_deucey_1_2(monkeypatch):
    # Acey-Deucey's 1-2 keys a play by (board, extra roll). In the third position
    # some boards are reached both with and without the extra roll: with the extra
    # roll's key weight zeroed as well, only the exact comparison tells them apart.
    boards = np.stack(
        [
            board_from_points({6: 3, 5: 2, 3: 1}, {6: 4, 4: 2}),
            board_from_points({13: 2, 4: 2}, {16: 2, 17: 2, 18: 2, 19: 2, 20: 2}),
            board_from_points({12: 1, 9: 2, 6: 2}, {17: 1, 15: 1, 3: 2, 22: 2}),
        ]
    )
    dice = np.array([[1, 2]] * len(boards), dtype=np.int8)
    expected = _reference(boards, dice, "acey-deucey")
    both = {board for board, extra in expected[2] if extra} & {
        board for board, extra in expected[2] if not extra
    }
    assert both
    monkeypatch.setattr(vectorized, "_ZOBRIST", _all_ones())
    monkeypatch.setattr(vectorized, "_EXTRA_ROLL_WEIGHT", np.uint64(0))
    _compare(boards, dice, expected, generate_moves(boards, dice, "acey-deucey"))


def test_unpatched_keys_are_distinct_on_the_sample(standard_sample):
    # Sanity of the premise above: with the real weights the same plays do not collide.
    boards, dice, expected = standard_sample
    plays = np.array(sorted(board for board, _ in expected[dice.tolist().index([5, 6])]))
    assert len(np.unique(board_keys(plays.astype(np.int8)))) == len(plays)


def test_the_compiled_generator_with_all_keys_equal_lists_every_play(monkeypatch, standard_sample):
    # Its de-duplication key is a Zobrist sum too; with every weight zero all plays
    # of a parent share one key and only the exact comparison keeps them apart.
    monkeypatch.undo()  # the compiled generator, not the autouse numpy route
    if not compiled.available():
        pytest.skip("numba is not available")
    boards, dice, expected = standard_sample
    monkeypatch.setattr(compiled, "_WEIGHTS", np.zeros(BOARD_SIZE, dtype=np.int64))
    children, parents, moves = compiled.generate_pairs(boards, dice)
    result = vectorized.MoveList(
        children, parents, moves, np.zeros(len(parents), np.int8), np.zeros(len(parents), bool)
    )
    _compare(boards, dice, expected, result)
