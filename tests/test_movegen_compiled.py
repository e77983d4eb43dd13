"""The compiled move generator against the numpy generator: the same plays, in
the same order, with the same moves, row for row.

Both are tested against the slow reference generator elsewhere
(``tests/test_movegen_differential.py`` goes through ``generate_moves``, which
uses the compiled one for these variants; ``tests/test_movegen_collisions.py``
forces the numpy one). Order matters as much as the set: ``best_rows`` breaks
ties by row, so a different order would change plays. Sample: 24,000 (position,
roll) pairs from random and pubeval games, arbitrary boards and closed boards
with checkers on the bar, for each variant the compiled generator plays. Seed
from TDGAMMON_TEST_SEED (default 20261129).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from test_movegen_differential import closed_board_positions

from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.movegen import compiled
from tdgammon.engine.movegen.vectorized import generate_moves, generate_moves_numpy
from tdgammon.engine.players.agents import PubevalAgent
from tdgammon.engine.rules.board import BOARD_DTYPE
from tdgammon.engine.rules.dice import ALL_ROLLS, roll_dice
from tdgammon.engine.rules.variants import VARIANTS, get_variant

SEED = int(os.environ.get("TDGAMMON_TEST_SEED", "20261129"))

pytestmark = pytest.mark.skipif(not compiled.available(), reason="numba is not available")


def _sample(variant: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    played, played_dice = random_game_positions(10_000, rng, variant=variant)
    pubeval, pubeval_dice = random_game_positions(
        10_000, rng, choose_plays=PubevalAgent().choose_plays, variant=variant
    )
    boards = [played, pubeval]
    dice = [played_dice, pubeval_dice]
    if variant == "standard":
        odd = np.concatenate([random_boards(2000, rng), closed_board_positions(2000, rng)])
        boards.append(odd)
        dice.append(roll_dice(rng, len(odd)))
    return np.concatenate(boards).astype(BOARD_DTYPE), np.concatenate(dice)


def _assert_identical(boards, dice, variant):
    expected = generate_moves_numpy(boards, dice, get_variant(variant))
    children, parents, moves = compiled.generate_pairs(boards, dice)
    np.testing.assert_array_equal(parents, expected.parents, err_msg=f"seed {SEED}")
    np.testing.assert_array_equal(children, expected.boards, err_msg=f"seed {SEED}")
    np.testing.assert_array_equal(moves, expected.moves, err_msg=f"seed {SEED}")


COMPILED_VARIANTS = sorted(name for name, v in VARIANTS.items() if compiled.supports(v))


def test_the_compiled_variants_are_those_that_start_on_the_board():
    assert COMPILED_VARIANTS == ["hypergammon", "nackgammon", "standard"]
    assert not compiled.supports(get_variant("dutch"))
    assert not compiled.supports(get_variant("acey-deucey"))


@pytest.mark.parametrize("variant", COMPILED_VARIANTS)
def test_compiled_equals_numpy_row_for_row(variant):
    boards, dice = _sample(variant)
    assert {tuple(sorted(d)) for d in dice.tolist()} == {
        tuple(sorted(r)) for r in ALL_ROLLS.tolist()
    }
    for start in range(0, len(boards), 8192):
        part = slice(start, start + 8192)
        _assert_identical(boards[part], dice[part], variant)


def test_compiled_equals_numpy_one_pair_at_a_time():
    boards, dice = _sample("standard")
    for i in range(0, len(boards), 23):
        _assert_identical(boards[i : i + 1], dice[i : i + 1], "standard")


def test_every_roll_of_every_position_and_an_empty_batch():
    boards, _ = _sample("standard")
    boards = boards[::40]
    pairs = np.repeat(boards, len(ALL_ROLLS), axis=0)
    _assert_identical(pairs, np.tile(ALL_ROLLS, (len(boards), 1)), "standard")
    _assert_identical(pairs[:0], np.zeros((0, 2), dtype=np.int64), "standard")


def test_generate_moves_uses_the_compiled_generator(monkeypatch):
    boards, dice = _sample("standard")
    calls = []
    original = compiled.generate_pairs

    def spy(*args):
        calls.append(len(args[0]))
        return original(*args)

    monkeypatch.setattr(compiled, "generate_pairs", spy)
    generate_moves(boards[:10], dice[:10])
    generate_moves(boards[:10], dice[:10], "dutch")
    assert calls == [10]


def test_tdgammon_numba_0_switches_it_off():
    code = "from tdgammon.engine.movegen import compiled; print(compiled.available())"
    env = dict(os.environ, TDGAMMON_NUMBA="0")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"
