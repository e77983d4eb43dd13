"""tdgammon.engine.flow.batch: the one batched game driver, and the opening-roll rule."""

from __future__ import annotations

import numpy as np

from tdgammon.engine.flow.batch import play_ply
from tdgammon.engine.flow.random_play import pick_random_children, random_game_positions
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.rules.board import MOVER_HAND, MOVER_OFF, flip
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.variants import get_variant


def random_chooser(rng):
    def choose(boards, dice, moves):
        return pick_random_children(moves.counts(len(boards)), rng)

    return choose


def test_opening_rolls_are_never_doubles_and_other_rolls_are_uniform():
    # docs/rules.md 1: "Equal numbers: both roll again."
    rng = np.random.default_rng(1)
    opening = np.arange(36_000) % 2 == 0
    dice = roll_dice(rng, len(opening), opening=opening)
    doubles = dice[:, 0] == dice[:, 1]
    assert not doubles[opening].any()
    # The other rows keep the 1/6 chance of a double (6,000 expected of 18,000).
    assert abs(int(doubles[~opening].sum()) - 3000) < 300
    assert dice.min() == 1 and dice.max() == 6


def test_one_ply_plays_the_chosen_row_and_passes_the_turn():
    variant = get_variant("standard")
    rng = np.random.default_rng(2)
    boards = np.repeat(variant.starting_board()[None], 4, axis=0)
    dice = np.array([[3, 1], [6, 5], [4, 2], [2, 1]], dtype=np.int8)
    ply = play_ply(boards, dice, random_chooser(rng), variant)
    assert np.array_equal(ply.moves.parents[ply.chosen], np.arange(4))
    for g in range(4):
        legal = {p.board for p in legal_plays(boards[g], tuple(dice[g]))}
        assert tuple(int(v) for v in ply.after[g]) in legal
    assert not ply.over.any() and not ply.again.any()
    assert np.array_equal(ply.next_boards, flip(ply.after))


def test_a_game_ends_when_the_mover_bears_off_the_last_checker():
    variant = get_variant("standard")
    board = np.zeros(30, dtype=np.int8)
    board[1], board[MOVER_OFF] = 1, 14  # one checker left on the ace point
    board[24], board[27] = -1, -14
    ply = play_ply(
        board[None], np.array([[6, 5]], np.int8), random_chooser(np.random.default_rng(0)), variant
    )
    assert ply.over[0] and not ply.again[0]
    assert ply.after[0, MOVER_OFF] == 15


def test_acey_deucey_extra_roll_keeps_the_mover_to_roll():
    # docs/rules.md 7: after the named double of a 1-2 is played in full the
    # same player rolls again: the next board is NOT flipped.
    variant = get_variant("acey-deucey")
    start = variant.starting_board()
    ply = play_ply(
        start[None], np.array([[1, 2]], np.int8), random_chooser(np.random.default_rng(3)), variant
    )
    if ply.moves.extra_roll[ply.chosen[0]]:
        assert ply.again[0]
        assert np.array_equal(ply.next_boards[0], ply.after[0])
        assert ply.next_boards[0, MOVER_HAND] < 15
    # Over many random 1-2s from the start, most plays earn the extra roll.
    boards = np.repeat(start[None], 64, axis=0)
    dice = np.repeat(np.array([[1, 2]], np.int8), 64, axis=0)
    ply = play_ply(boards, dice, random_chooser(np.random.default_rng(4)), variant)
    assert ply.again.any()
    assert np.array_equal(ply.next_boards[ply.again], ply.after[ply.again])
    assert np.array_equal(ply.next_boards[~ply.again], flip(ply.after[~ply.again]))


def test_random_game_samples_open_without_doubles():
    # Samples taken at the start of a game hold the opening roll: never a double.
    variant = get_variant("standard")
    boards, dice = random_game_positions(20_000, np.random.default_rng(5), parallel_games=64)
    at_start = (boards == variant.starting_board()).all(axis=1)
    assert at_start.sum() >= 64
    assert not (dice[at_start, 0] == dice[at_start, 1]).any()
