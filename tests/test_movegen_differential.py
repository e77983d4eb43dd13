"""Differential test: the vectorized generator against the reference generator.

20,000 (position, roll) pairs from games with random dice (half played by
random plays, half by pubeval, whose games make points, primes and closed
boards), plus arbitrary random boards and constructed closed-board positions,
compared as sets of resulting boards at batch size 1 and at large batch sizes.
The seed comes from TDGAMMON_TEST_SEED (default 20261129) and is printed in
every failure message.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.movegen.reference import apply_move, legal_plays
from tdgammon.engine.movegen.vectorized import NO_MOVE, generate_moves
from tdgammon.engine.players.agents import PubevalAgent
from tdgammon.engine.rules.board import BOARD_DTYPE, MOVER_BAR, flip, validate
from tdgammon.engine.rules.dice import ALL_ROLLS, roll_dice

SEED = int(os.environ.get("TDGAMMON_TEST_SEED", "20261129"))
GAME_POSITIONS = 20_000


def closed_board_positions(count: int, rng: np.random.Generator) -> np.ndarray:
    """Boards where the opponent holds 5 or 6 points of its home board
    (the mover's points 19-24) and the mover often has checkers on the bar.

    Returns ``(count, 30) int8``, mover's view.
    """
    boards = np.zeros((count, 30), dtype=np.int64)
    for row in range(count):
        board = boards[row]
        held = rng.permutation(np.arange(19, 25))[: rng.integers(5, 7)]
        board[held] = -2
        spare = 15 - 2 * len(held)
        for _ in range(spare):
            point = rng.choice(list(held) + [int(rng.integers(1, 19))])
            if board[point] <= 0:
                board[point] -= 1
            else:
                board[27] -= 1
        on_bar = int(rng.integers(0, 4))
        board[MOVER_BAR] = on_bar
        for _ in range(15 - on_bar):
            point = int(rng.integers(0, 25))
            if point == 0 or board[point] < 0:
                board[0] += 1
            else:
                board[point] += 1
    validate(boards)
    return boards.astype(BOARD_DTYPE)


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(SEED)
    random_boards_, random_dice = random_game_positions(GAME_POSITIONS // 2, rng)
    pubeval_boards, pubeval_dice = random_game_positions(
        GAME_POSITIONS // 2, rng, choose_plays=PubevalAgent().choose_plays
    )
    game_boards = np.concatenate([random_boards_, pubeval_boards])
    game_dice = np.concatenate([random_dice, pubeval_dice])
    odd_boards = np.concatenate([random_boards(2000, rng), closed_board_positions(1000, rng)])
    odd_dice = roll_dice(rng, len(odd_boards))
    boards = np.concatenate([game_boards, odd_boards])
    dice = np.concatenate([game_dice, odd_dice])
    references = [
        frozenset(p.board for p in legal_plays(b, d)) for b, d in zip(boards, dice, strict=True)
    ]
    return boards, dice, references


def _check_against_reference(boards, dice, references, result, offset=0):
    """Compare a MoveList to the reference sets; return a list of failure messages."""
    failures = []
    starts = np.searchsorted(result.parents, np.arange(len(boards) + 1))
    for i in range(len(boards)):
        rows = range(starts[i], starts[i + 1])
        got = [tuple(int(x) for x in result.boards[r]) for r in rows]
        expected = references[offset + i]
        if not expected:
            ok = len(got) == 1 and result.moves[rows[0], 0, 0] == NO_MOVE
            ok = ok and got[0] == tuple(int(x) for x in boards[i])
        else:
            ok = len(got) == len(set(got)) and set(got) == expected
        if not ok:
            failures.append(
                f"seed {SEED}: board {boards[i].tolist()} dice {dice[i].tolist()}: "
                f"{len(got)} vectorized vs {len(expected)} reference plays"
            )
    return failures


def test_sample_covers_every_roll_and_kind_of_position(sample):
    boards, dice, _ = sample
    rolls = {tuple(sorted(d)) for d in dice.tolist()}
    assert rolls == {tuple(sorted(r)) for r in ALL_ROLLS.tolist()}
    mover_back = np.array([max([p for p in range(1, 26) if b[p] > 0], default=0) for b in boards])
    # The opponent moves up from the mover's point 1; its bar lies behind point 1 (0).
    opponent_back = np.array(
        [min([p for p in range(1, 25) if b[p] < 0] + [0 if b[26] < 0 else 25]) for b in boards]
    )
    contact = mover_back > opponent_back
    bear_off = (boards[:, 7:26] <= 0).all(axis=1)
    on_bar = boards[:, MOVER_BAR] > 0
    closed = (boards[:, 19:25] <= -2).all(axis=1)
    games = slice(0, GAME_POSITIONS)
    assert (closed[games] & on_bar[games]).sum() >= 20, "games should reach closed boards"
    counts = {
        "contact": contact.sum(),
        "race": (~contact).sum(),
        "bear-off": bear_off.sum(),
        "bar": on_bar.sum(),
        "two or more on the bar": (boards[:, MOVER_BAR] >= 2).sum(),
        "closed board with a checker on the bar": (closed & on_bar).sum(),
    }
    assert len(boards) >= 20_000
    for kind, count in counts.items():
        assert count >= 200, f"only {count} {kind} positions (seed {SEED})"


def test_vectorized_equals_reference_at_large_batch(sample):
    boards, dice, references = sample
    failures = []
    for start in range(0, len(boards), 8192):
        chunk = slice(start, start + 8192)
        result = generate_moves(boards[chunk], dice[chunk])
        failures += _check_against_reference(
            boards[chunk], dice[chunk], references, result, offset=start
        )
    assert not failures, "\n".join(failures[:10])


def test_vectorized_equals_reference_at_batch_size_one(sample):
    boards, dice, references = sample
    failures = []
    for i in range(len(boards)):
        result = generate_moves(boards[i : i + 1], dice[i : i + 1])
        failures += _check_against_reference(
            boards[i : i + 1], dice[i : i + 1], references, result, offset=i
        )
    assert not failures, "\n".join(failures[:10])


def test_recorded_moves_replay_to_the_resulting_board(sample):
    boards, dice, _ = sample
    result = generate_moves(boards[:3000], dice[:3000])
    for row in range(len(result)):
        board = [int(x) for x in boards[result.parents[row]]]
        used = 0
        for source, target in result.moves[row]:
            if source == NO_MOVE:
                break
            board = apply_move(board, (int(source), int(target)))
            used += 1
        assert tuple(board) == tuple(int(x) for x in result.boards[row]), f"seed {SEED}"
        d1, d2 = (int(x) for x in dice[result.parents[row]])
        assert used <= (4 if d1 == d2 else 2)


def test_invariants_on_every_ply(sample):
    """Checker totals stay 15 a side and flip is an involution on every result."""
    boards, dice, _ = sample
    result = generate_moves(boards[:5000], dice[:5000])
    validate(result.boards)
    validate(flip(result.boards))
    assert np.array_equal(flip(flip(result.boards)), result.boards)
    assert np.all(np.diff(result.parents) >= 0)
    assert np.array_equal(np.unique(result.parents), np.arange(5000))
