"""One named test per variant rule clause of docs/rules.md section 7, with diagrams,
plus the differential test of both generators on every variant.

Diagrams: the first line names the columns (mover point numbers, ``bar``,
``hand``); the ``X`` row gives the mover's counts, the ``O`` row the
opponent's, both in the MOVER's numbering (an O under 20 is on the mover's
20-point, the opponent's 5-point). ``O`` under ``bar``/``hand`` is the
opponent's bar/hand. Checkers not drawn are borne off. Expected plays are
written by hand; the vectorized generator must agree with the reference.
"""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.movegen.vectorized import NO_MOVE, generate_moves
from tdgammon.engine.rules.board import (
    BOARD_SIZE,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OFF,
    validate,
)
from tdgammon.engine.rules.outcome import is_game_over
from tdgammon.engine.rules.variants import (
    ACEY_DEUCEY,
    DUTCH,
    HYPERGAMMON,
    NACKGAMMON,
    VARIANTS,
    Variant,
)

SEED = int(os.environ.get("TDGAMMON_TEST_SEED", "20261129"))
HAND = MOVER_HAND


def diagram(text: str, checkers: int = 15) -> np.ndarray:
    """``(30,) int8`` board from a diagram (see module docstring)."""
    lines = [line.split("#")[0].rstrip() for line in text.splitlines()]
    lines = [line for line in lines if line.strip()]
    columns = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", lines[0])]
    board = np.zeros(BOARD_SIZE, dtype=np.int64)
    for row in lines[1:]:
        tokens = list(re.finditer(r"\S+", row))
        side = tokens[0].group()
        for token in tokens[1:]:
            (name,) = [c[2] for c in columns if token.start() < c[1] and c[0] < token.end()]
            count = int(token.group())
            if side == "X":
                index = {"bar": MOVER_BAR, "hand": MOVER_HAND}.get(name) or int(name)
                board[index] += count
            else:
                index = {"bar": OPPONENT_BAR, "hand": OPPONENT_HAND}.get(name) or int(name)
                board[index] -= count
    board[MOVER_OFF] = checkers - board[board > 0].sum()
    board[OPPONENT_OFF] = -(checkers + board[board < 0].sum())
    validate(board, checkers)
    return board.astype(np.int8)


def after(board, text: str) -> tuple[int, ...]:
    """The board after hand-written moves such as ``"hand/20 13/8*"``, applied
    independently of the engine (checks the source holds a checker, the target
    is not a made point, and that ``*`` is written exactly where a blot is hit)."""
    names = {"bar": MOVER_BAR, "hand": MOVER_HAND, "off": MOVER_OFF}
    result = [int(x) for x in board]
    for step in text.split():
        source, target = step.split("/")
        marked = target.endswith("*")
        source, target = (names[x] if x in names else int(x) for x in (source, target.rstrip("*")))
        assert result[source] > 0, step
        result[source] -= 1
        if target == MOVER_OFF:
            result[MOVER_OFF] += 1
            continue
        assert result[target] >= -1, step
        assert (result[target] == -1) == marked, step
        if marked:
            result[target] = 0
            result[OPPONENT_BAR] -= 1
        result[target] += 1
    return tuple(result)


def plays(board, dice, variant: Variant) -> set[tuple[tuple[int, ...], bool]]:
    """Reference plays as a set of (resulting board, extra roll); asserts that
    the vectorized generator gives exactly the same set."""
    reference = {(p.board, p.extra_roll) for p in legal_plays(board, dice, variant)}
    result = generate_moves(board[None, :], np.array([dice]), variant)
    got = [
        (tuple(int(x) for x in result.boards[r]), bool(result.extra_roll[r]))
        for r in range(len(result))
        if result.moves[r, 0, 0] != NO_MOVE
    ]
    assert len(got) == len(set(got)) and set(got) == reference
    return reference


def expect(board, *written: str, extra_roll: bool = False) -> set:
    return {(after(board, text), extra_roll) for text in written}


# ------------------------------------------------------------------ starts


def test_nackgammon_start():
    """docs/rules.md 7: "start: 2 on 24, 2 on 23, 4 on 13, 3 on 8, 4 on 6"."""
    expected = diagram(
        """
          1  2  6  8 12 13 17 19 23 24
        X       4  3     4        2  2
        O 2  2        4     3  4
        """
    )
    assert np.array_equal(NACKGAMMON.starting_board(), expected)


def test_hypergammon_start_has_three_checkers_each():
    """docs/rules.md 7: "3 checkers each, on the 24, 23 and 22 points"."""
    expected = diagram(
        """
          1  2  3 22 23 24
        X          1  1  1
        O 1  1  1
        """,
        checkers=3,
    )
    assert np.array_equal(HYPERGAMMON.starting_board(), expected)


@pytest.mark.parametrize("variant", [DUTCH, ACEY_DEUCEY], ids=lambda v: v.name)
def test_all_checkers_start_in_hand(variant):
    """docs/rules.md 7: "all 15 checkers start off the board, in hand"."""
    expected = diagram(
        """
          hand
        X 15
        O 15
        """
    )
    assert np.array_equal(variant.starting_board(), expected)


def test_hypergammon_is_over_when_three_are_off():
    board = diagram(
        """
          1 24
        X
        O    3
        """,
        checkers=3,
    )
    assert bool(is_game_over(board, 3)) and not bool(is_game_over(board))


# ------------------------------------------------------------------ Dutch


def test_dutch_checkers_in_hand_enter_like_bar_checkers():
    """Dutch: checkers in hand "enter into the opponent's home board like
    checkers on the bar": a 6 enters on the mover's 19-point, a 3 on 22."""
    board = diagram(
        """
          hand
        X 15
        O 15
        """
    )
    assert plays(board, (6, 3), DUTCH) == expect(board, "hand/19 hand/22")


def test_dutch_all_must_enter_before_any_checker_moves_on():
    """Dutch: "all 15 must be entered before any checker may move on". With one
    checker in hand, the 5 or the 1 must enter it first; only then may the
    other die move a checker on."""
    board = diagram(
        """
          hand  5 14 20 24
        X  1       14
        O  5    5     5
        """
    )
    # 5 enters on 20 (O blot? no: O holds 20 with 5): blocked. 1 enters on 24.
    assert plays(board, (5, 1), DUTCH) == expect(board, "hand/24 24/19", "hand/24 14/9")


def test_dutch_no_hit_before_a_checker_reaches_home():
    """Dutch: "a player may not hit until at least one of his own checkers has
    reached his home board". The 4 would enter on 21, an O blot; no X checker is
    home (none on 1-6, none off), so it cannot; only the 2 can be played."""
    board = diagram(
        """
          hand  3  5 15 21
        X  2          13
        O       9  5     1
        """
    )
    assert plays(board, (4, 2), DUTCH) == expect(board, "hand/23")


def test_dutch_hits_are_allowed_once_a_checker_is_home():
    """The same kind of blot may be hit when an X checker stands in its home board."""
    board = diagram(
        """
          3  5 10 18 20
        X 1    13     1
        O   14     1
        """
    )
    got = plays(board, (2, 1), DUTCH)
    assert (after(board, "20/18* 18/17"), False) in got
    assert (after(board, "20/18* 10/9"), False) in got


def test_dutch_cannot_hit_without_a_checker_home():
    """Without a checker home, 20/18* is illegal, directly or via 19.

    Hand-worked plays of 2-1: 10/8 20/19, 10/8 10/9, 10/7 (via 8 or 9), 20/17."""
    board = diagram(
        """
          5 10 18 20
        X   14     1
        O 14    1
        """
    )
    assert plays(board, (2, 1), DUTCH) == expect(
        board, "10/8 20/19", "10/8 10/9", "10/8 8/7", "20/19 19/17"
    )


# ------------------------------------------------------------------ Acey-Deucey


def test_acey_deucey_checkers_in_hand_need_not_enter_first():
    """Acey-Deucey: "checkers in hand need not all be entered before others move"."""
    board = diagram(
        """
          hand 13
        X 14    1
        O 15
        """
    )
    assert plays(board, (6, 5), ACEY_DEUCEY) == expect(
        board,
        "hand/19 hand/20",
        "13/7 7/2",
        "hand/19 13/8",
        "hand/20 13/7",
        "hand/19 19/14",
    )


def test_acey_deucey_bar_checker_must_enter_first():
    """Acey-Deucey: "a checker hit later goes to the bar and follows the normal
    bar rule": a checker on the bar enters before any checker in hand or on the
    board moves."""
    board = diagram(
        """
          bar hand 13
        X  1   13   1
        O      15
        """
    )
    assert plays(board, (6, 5), ACEY_DEUCEY) == expect(
        board, "bar/19 hand/20", "bar/19 13/8", "bar/19 19/14", "bar/20 13/7"
    )


def test_acey_deucey_one_two_names_a_double_and_rolls_again():
    """Acey-Deucey: "a roll of 1-2 is played as 1 and 2, then the player names
    any double and plays it as four moves, then rolls again". One X checker on
    24, open board: 24/21, then four of the named double, every one in full."""
    board = diagram(
        """
          24
        X  1
        O
        """
    )
    expected = expect(
        board,
        "24/23 23/21 21/20 20/19 19/18 18/17",
        "24/23 23/21 21/19 19/17 17/15 15/13",
        "24/23 23/21 21/18 18/15 15/12 12/9",
        "24/23 23/21 21/17 17/13 13/9 9/5",
        "24/23 23/21 21/16 16/11 11/6 6/1",
        "24/23 23/21 21/15 15/9 9/3 3/off",
        extra_roll=True,
    )
    assert plays(board, (1, 2), ACEY_DEUCEY) == expected
    named = {p.named_double for p in legal_plays(board, (2, 1), ACEY_DEUCEY)}
    assert named == {1, 2, 3, 4, 5, 6}
    result = generate_moves(board[None, :], np.array([[2, 1]]), ACEY_DEUCEY)
    assert result.moves.shape[1:] == (6, 2) and sorted(result.named_double) == [1, 2, 3, 4, 5, 6]


def test_acey_deucey_turn_ends_when_one_and_two_cannot_both_be_played():
    """ "if the 1 and the 2 cannot both be played the turn ends at once": the 2
    is blocked on 22 and, after 24/23, on 21. Only 24/23; no double, no extra roll."""
    board = diagram(
        """
          hand 21 22 24
        X             1
        O  11   2  2
        """
    )
    assert plays(board, (1, 2), ACEY_DEUCEY) == expect(board, "24/23")
    assert [p.named_double for p in legal_plays(board, (1, 2), ACEY_DEUCEY)] == [0]


def test_acey_deucey_extra_roll_lost_when_named_double_not_played_in_full():
    """ "if the named double cannot be played in full the extra roll is lost".
    After 14/11 with O holding 8: 3s are blocked at once (no move), 1s stop at
    9 (9/8 blocked), 2s run 11/3 in full (extra roll), 4s, 5s and 6s bear the
    checker off in fewer than four moves (no extra roll, same board)."""
    board = diagram(
        """
          hand  8 14
        X          1
        O  13   2
        """
    )
    assert plays(board, (1, 2), ACEY_DEUCEY) == (
        expect(board, "14/13 13/11", "14/13 13/11 11/10 10/9", "14/13 13/11 11/7 7/3 3/off")
        | expect(board, "14/13 13/11 11/9 9/7 7/5 5/3", extra_roll=True)
    )


# ------------------------------------------------------------------ differential


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_vectorized_equals_reference(name):
    variant = VARIANTS[name]
    rng = np.random.default_rng(SEED)
    boards, dice = random_game_positions(2000, rng, variant=variant)
    if variant.acey_deucey_roll:
        dice[dice.sum(axis=1) == 3] = [4, 4]  # the 1-2 is checked separately below
    result = generate_moves(boards, dice, variant)
    validate(result.boards, variant.checkers)
    starts = np.searchsorted(result.parents, np.arange(len(boards) + 1))
    for i in range(len(boards)):
        expected = {p.board for p in legal_plays(boards[i], dice[i], variant)}
        rows = range(starts[i], starts[i + 1])
        got = [tuple(int(x) for x in result.boards[r]) for r in rows]
        if not expected:
            assert len(got) == 1 and result.moves[rows[0], 0, 0] == NO_MOVE
        else:
            assert len(got) == len(set(got)) and set(got) == expected, (
                f"seed {SEED} {name}: {boards[i].tolist()} {dice[i].tolist()}"
            )


def test_acey_deucey_one_two_vectorized_equals_reference():
    rng = np.random.default_rng(SEED)
    boards, _ = random_game_positions(600, rng, variant=ACEY_DEUCEY)
    # Keep the reference affordable: positions with several checkers in hand.
    boards = boards[boards[:, MOVER_HAND] >= 8][:12]
    dice = np.tile([1, 2], (len(boards), 1))
    result = generate_moves(boards, dice, ACEY_DEUCEY)
    starts = np.searchsorted(result.parents, np.arange(len(boards) + 1))
    for i in range(len(boards)):
        expected = {(p.board, p.extra_roll) for p in legal_plays(boards[i], (1, 2), ACEY_DEUCEY)}
        rows = range(starts[i], starts[i + 1])
        got = [(tuple(int(x) for x in result.boards[r]), bool(result.extra_roll[r])) for r in rows]
        assert len(got) == len(set(got)) and set(got) == expected, f"seed {SEED}"
