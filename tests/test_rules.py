"""One named test per rule clause of docs/rules.md sections 2 (moving), 3 (bearing off)
and 4 (end of game and scoring).

Every position is drawn as a compact diagram from the mover's view in the test
body, and the board is built *from that drawing* (``diagram``), so the picture
cannot drift from the position tested. In a diagram the first line names the
columns (the mover's point numbers, or ``bar``); the ``X`` row gives the
mover's checker counts and the ``O`` row the opponent's, each number under its
column, both in the mover's numbering. Checkers that are not drawn are borne
off. The mover (X) moves from 24 towards 1; its home board is 1-6.

Expected plays are written by hand in move notation (``13/10 10/9``, ``bar/21``,
``4/off``, ``*`` on every move that hits and only there) and were worked out
from docs/rules.md, not from a generator. ``assert_plays`` applies them with its own
small move function and compares the resulting boards with
``tdgammon.engine.movegen.reference.legal_plays``; ``plays_both`` also checks that the
vectorized ``tdgammon.engine.movegen.vectorized.generate_moves`` gives the same boards.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.movegen.vectorized import NO_MOVE, generate_moves
from tdgammon.engine.rules.board import (
    MOVER_BAR,
    MOVER_OFF,
    OPPONENT_BAR,
    board_from_points,
    starting_board,
)
from tdgammon.engine.rules.outcome import (
    BACKGAMMON,
    GAMMON,
    MOVER_WINS,
    NO_WINNER,
    NOT_OVER,
    OPPONENT_WINS,
    SINGLE,
    points_won,
    result_kind,
    winner,
)

# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def diagram(text: str) -> np.ndarray:
    """Build a ``(30,) int8`` board from a compact diagram (see module docstring).

    Column headers are mover point numbers 1..24 or ``bar``; the O row is also
    in the mover's numbering (an O count under 5 is the opponent's 20-point).
    Anything after ``#`` on a line is a comment.
    """
    lines = [line.split("#")[0].rstrip() for line in text.splitlines()]
    lines = [line for line in lines if line.strip()]
    header, rows = lines[0], lines[1:]
    columns = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", header)]
    sides: dict[str, dict[int, int]] = {"X": {}, "O": {}}
    for row in rows:
        tokens = list(re.finditer(r"\S+", row))
        tag = tokens[0].group()
        assert tag in sides, f"diagram row must start with X or O: {row!r}"
        for token in tokens[1:]:
            hits = [c for c in columns if token.start() < c[1] and c[0] < token.end()]
            assert len(hits) == 1, f"count {token.group()!r} is not under one column: {row!r}"
            name = hits[0][2]
            point = 25 if name == "bar" else int(name)
            if tag == "O" and point != 25:
                point = 25 - point  # the opponent's own numbering
            sides[tag][point] = sides[tag].get(point, 0) + int(token.group())
    return board_from_points(sides["X"], sides["O"])


def parse_play(text: str) -> list[tuple[int, int, bool]]:
    """``"bar/21 13/7*"`` -> ``[(25, 21, False), (13, 7, True)]``: (from, to, marked hit)."""
    names = {"bar": MOVER_BAR, "off": MOVER_OFF}
    moves = []
    for step in text.split():
        source, target = step.split("/")
        hit = target.endswith("*")
        target = target.rstrip("*")
        point = [names[x] if x in names else int(x) for x in (source, target)]
        moves.append((point[0], point[1], hit))
    return moves


def apply_moves(board, moves) -> tuple[int, ...]:
    """Apply (from, to[, marked_hit]) moves to a board, independently of the engine.

    Checks only what a hand-written expectation could get wrong: a checker
    must be on the source, the target must not hold two or more opposing
    checkers, and a move marked ``*`` must hit a blot (and an unmarked one not).
    """
    after = [int(x) for x in board]
    for move in moves:
        source, target = int(move[0]), int(move[1])
        marked = move[2] if len(move) > 2 else None
        assert after[source] > 0, f"no mover checker on {source} for {source}/{target}"
        after[source] -= 1
        if target == MOVER_OFF:
            after[MOVER_OFF] += 1
            continue
        assert after[target] >= -1, f"{source}/{target} lands on a made point"
        hit = after[target] == -1
        if marked is not None:
            assert hit == marked, f"{source}/{target}: hit marker {marked} but hit is {hit}"
        if hit:
            after[target] = 0
            after[OPPONENT_BAR] -= 1
        after[target] += 1
    return tuple(after)


def vectorized_boards(board, dice) -> set[tuple[int, ...]]:
    """The vectorized generator's resulting boards for one position.

    Checks the MoveList contract on the way: every row belongs to parent 0,
    boards are distinct, each row's moves lead from the input board to the row's
    board, and a position with no legal play gets exactly one row, the input
    board with every move ``-1``.
    """
    boards = np.asarray(board, dtype=np.int8)[None, :]
    result = generate_moves(boards, np.asarray([dice], dtype=np.int8))
    assert result.boards.shape[1:] == (30,)
    assert result.moves.shape[1:] == (4, 2)
    assert (np.asarray(result.parents) == 0).all()
    got = [tuple(int(x) for x in row) for row in result.boards]
    assert len(set(got)) == len(got), "vectorized generator returned a board twice"
    for row, moves in zip(got, result.moves, strict=True):
        real = [(int(s), int(t)) for s, t in moves if s != NO_MOVE]
        assert all(s == NO_MOVE and t == NO_MOVE for s, t in moves[len(real) :])
        assert apply_moves(board, real) == row, f"moves {real} do not give the row's board"
    return set(got)


def plays_both(board, dice) -> set[tuple[int, ...]]:
    """Resulting boards of every legal play, by the reference generator.

    The vectorized ``tdgammon.engine.movegen.vectorized.generate_moves`` must give the same set (and
    for no legal play: the single pass row holding the input board).
    """
    plays = legal_plays(board, dice)
    reference = {p.board for p in plays}
    assert len(reference) == len(plays), "reference returned a board twice"
    for play in plays:
        assert apply_moves(board, play.moves) == play.board, f"moves {play.moves} are wrong"
    expected = reference if plays else {tuple(int(x) for x in board)}
    assert vectorized_boards(board, dice) == expected, "vectorized generator disagrees"
    return reference


def assert_plays(board, dice, expected: list[str]) -> None:
    """The legal plays of ``dice`` on ``board`` are exactly ``expected`` (move strings).

    Compared as resulting boards: two orders of the same checkers (13/10 10/9 and
    13/12 12/9) are one play. Also checks that every legal play uses as many
    dice as the expected plays do.
    """
    wanted = {}
    for text in expected:
        moves = parse_play(text)
        wanted[apply_moves(board, moves)] = (text, len(moves))
    assert len(wanted) == len(expected), "two expected plays give the same board"
    got = plays_both(board, dice)
    reference = {p.board: p.moves for p in legal_plays(board, dice)}
    missing = sorted(text for b, (text, _) in wanted.items() if b not in got)
    extra = sorted(str(reference[b]) for b in got if b not in wanted)
    assert not missing and not extra, f"missing plays {missing}, unexpected plays {extra}"
    dice_used = {n for _, n in wanted.values()}
    assert len(dice_used) == 1, "expected plays use different numbers of dice"
    assert {len(m) for m in reference.values()} == dice_used


# --------------------------------------------------------------------------
# Self-checks of the helpers (so that a wrong helper cannot hide a wrong rule)
# --------------------------------------------------------------------------


def test_diagram_builds_the_board_it_draws():
    board = diagram(
        """
           bar 24 13  8  6  1
        X       2  5  3  5
        O    1              2  # O: 1 on its bar, 2 on its 24-point (our 1)
        """
    )
    assert board[24] == 2 and board[13] == 5 and board[8] == 3 and board[6] == 5
    assert board[1] == -2 and board[OPPONENT_BAR] == -1
    assert board[MOVER_OFF] == 0 and board[27] == -(15 - 3)
    assert np.array_equal(
        diagram(
            """
                24 13  8  6  1 12 17 19
            X    2  5  3  5
            O                2  5  3  5
            """
        ),
        starting_board(),
    )


def test_parse_and_apply_moves():
    assert parse_play("bar/21 13/7* 4/off") == [(25, 21, False), (13, 7, True), (4, 0, False)]
    board = diagram(
        """
            13  7
        X    1
        O       1
        """
    )
    after = apply_moves(board, parse_play("13/7*"))
    assert after[7] == 1 and after[13] == 0 and after[OPPONENT_BAR] == -1
    with pytest.raises(AssertionError):
        apply_moves(board, parse_play("13/7"))  # a hit must be marked


# --------------------------------------------------------------------------
# Section 2: moving checkers
# --------------------------------------------------------------------------


def test_one_checker_may_take_both_dice_or_two_checkers_one_each():
    """docs/rules.md 2.1: "each number is a separate move of one checker by that many
    points. One checker may take both moves, or two checkers one each."

    roll 3-1
    """
    board = diagram(
        """
            24 13 12 11 10  9  8  7  6  5  4
        X       1              1
        O    2
        """
    )
    assert_plays(
        board,
        (3, 1),
        [
            "13/10 10/9",  # one checker both dice (also 13/12 12/9)
            "8/5 5/4",  # one checker both dice (also 8/7 7/4)
            "13/10 8/7",  # two checkers, one die each
            "13/12 8/5",
        ],
    )


def test_landing_on_point_with_two_opposing_checkers_is_illegal():
    """docs/rules.md 2.2: "A move may end on a point that is empty, holds the mover's
    own checkers, or holds exactly one opposing checker (a blot). It may not end
    on a point held by two or more opposing checkers."

    roll 4-3: 9/6 is never legal (two O on 6); 9/5* and 8/5* hit the blot,
    8/4 and 5/2 land on empty points, 8/5 (after 9/5*) and 4/1 on own checkers.
       The checker on 1 cannot bear off (8 and 9 are outside the home board).
    """
    board = diagram(
        """
             9  8  7  6  5  4  3  2  1
        X    1  1                    1
        O             2  1
        """
    )
    assert_plays(board, (4, 3), ["9/5* 8/5", "9/5* 5/2", "8/4 4/1", "8/5* 5/1"])


def test_intermediate_stop_must_be_open():
    """docs/rules.md 2.2: "when one checker plays both dice the point where the first die
    lands must itself be open: 13/5 with 5-3 needs 8 or 10 open as a stop."

    roll 5-3 (the checker on 4 cannot bear off: 13 is outside)
    """
    only_8_blocked = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1                          1
        O                   2
        """
    )
    # 13/8 is blocked, so 13/5 must stop on 10; 4/1 leaves the 5 unplayable.
    assert_plays(only_8_blocked, (5, 3), ["13/10 10/5"])

    only_10_blocked = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1                          1
        O             2
        """
    )
    assert_plays(only_10_blocked, (5, 3), ["13/8 8/5", "13/8 4/1"])

    both_blocked = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1                          1
        O             2     2
        """
    )
    # 5 is open but 13/5 is not a play: neither stop is open. Only the 3 fits (4/1);
    # afterwards the 5 still cannot be played (13/8 blocked, no bear-off from 1).
    assert_plays(both_blocked, (5, 3), ["4/1"])


def test_doubles_are_played_four_times():
    """docs/rules.md 2.3: "Doubles are played four times (6-6 is four moves of 6)."

    roll 2-2: four moves of 2 shared 4+0, 3+1 or 2+2 between the two checkers
    """
    board = diagram(
        """
            24 13 12 11 10  9  8  7  6  5
        X       2
        O    2
        """
    )
    assert_plays(
        board,
        (2, 2),
        [
            "13/11 11/9 9/7 7/5",
            "13/11 11/9 9/7 13/11",
            "13/11 11/9 13/11 11/9",
        ],
    )


def test_hitting_sends_blot_to_bar():
    """docs/rules.md 2.4: "Landing on a blot hits it: the hit checker goes to the bar."

    roll 2-1
    """
    board = diagram(
        """
            24  8  7  6  5
        X       1
        O    2        1
        """
    )
    assert_plays(board, (2, 1), ["8/6* 6/5", "8/7 7/5"])
    after = {p.moves[0]: p.board for p in legal_plays(board, (2, 1))}
    hit = next(b for b in after.values() if b[OPPONENT_BAR] != 0)
    quiet = next(b for b in after.values() if b[OPPONENT_BAR] == 0)
    assert hit[OPPONENT_BAR] == -1 and hit[6] == 0 and hit[5] == 1
    assert quiet[6] == -1 and quiet[5] == 1


def test_hitting_checker_may_continue():
    """docs/rules.md 2.4: "A checker that has just hit may go on moving in the same turn."

    roll 6-2: 13/11*/5* hits twice with one checker
    """
    board = diagram(
        """
            24 13 12 11 10  9  8  7  6  5
        X       1
        O    2        1                 1
        """
    )
    assert_plays(board, (6, 2), ["13/11* 11/5*", "13/7 7/5*"])
    double_hit = apply_moves(board, parse_play("13/11* 11/5*"))
    assert double_hit[OPPONENT_BAR] == -2


def test_bar_checker_must_enter_before_any_other_move():
    """docs/rules.md 2.5: "A player with any checker on the bar must enter it before
    moving anything else."

    roll 4-2: 13/9 13/... without entering is never legal
    """
    board = diagram(
        """
           bar 24 23 22 21 20 19 13 12 11 10  9  1
        X    1                    1
        O                                        2
        """
    )
    assert_plays(board, (4, 2), ["bar/21 21/19", "bar/21 13/11", "bar/23 13/9"])
    assert all(p.moves[0][0] == MOVER_BAR for p in legal_plays(board, (4, 2)))

    two_on_bar = diagram(
        """
           bar 24 23 22 21 20 19 13  1
        X    2                    1
        O                            2
        """
    )
    # Both checkers on the bar take both dice.
    assert_plays(two_on_bar, (4, 2), ["bar/21 bar/23"])


def test_die_n_enters_on_opponents_n_point():
    """docs/rules.md 2.5: "A die of n enters on the opponent's n-point, which is the
    mover's point 25-n." Entering may hit a blot (2.4).

    roll 5-3: the 5 enters on 20 (hitting), the 3 on 22
    """
    board = diagram(
        """
           bar 24 23 22 21 20 19  6
        X    2                    3
        O                   1
        """
    )
    assert_plays(board, (5, 3), ["bar/20* bar/22"])


def test_die_that_cannot_enter_cannot_be_used_elsewhere():
    """docs/rules.md 2.5: "If a die cannot enter, it cannot be used for any other checker
    while a checker is still on the bar."

    roll 6-4: the 4 enters (bar/21); the 6 cannot enter on 19, so 13/7 is illegal
    """
    board = diagram(
        """
           bar 24 23 22 21 20 19 13  9  7
        X    2                    1
        O                      2
        """
    )
    assert_plays(board, (6, 4), ["bar/21"])

    neither_enters = diagram(
        """
           bar 24 23 22 21 20 19 13  9  7
        X    1                    1
        O                2     2
        """
    )
    # 13/7 and 13/9 are open, but with the checker still on the bar nothing moves.
    assert plays_both(neither_enters, (6, 4)) == set()


def test_must_use_both_dice_when_possible():
    """docs/rules.md 2.6: "if there is any legal way to play both dice (all four for
    doubles), the mover must play a sequence that uses the most dice possible."

    roll 6-1: 3/2 alone would leave the 6 unplayable (13/7 blocked), so it is
       illegal; 13/12/6 plays both dice
    """
    board = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1                             1
        O                      2
        """
    )
    assert_plays(board, (6, 1), ["13/12 12/6"])


def test_must_play_larger_die_when_only_one_fits():
    """docs/rules.md 2.6: "If only one die of a non-double can be played, the larger one
    must be played when it can be."

    roll 6-5: 13/7 or 13/8 alone, but 7/2 and 8/2 are blocked: the 6 is played
    """
    board = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1
        O                                     2
        """
    )
    assert_plays(board, (6, 5), ["13/7"])


def test_plays_smaller_die_when_larger_cannot_be_played():
    """docs/rules.md 2.6: "if only the smaller one can be played, play it."

    roll 6-5: 13/7 is blocked; 13/8 then 8/2 is blocked
    """
    board = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1
        O                      2              2
        """
    )
    assert_plays(board, (6, 5), ["13/8"])


@pytest.mark.parametrize("dice", [(6, 5), (3, 1), (2, 2), (6, 6)])
def test_no_legal_move_passes(dice):
    """docs/rules.md 2.6: "If nothing can be played, the turn passes."

    every roll: no entry, and nothing else may move
    """
    board = diagram(
        """
           bar 24 23 22 21 20 19  6
        X    1                    5
        O       2  2  2  2  2  2
        """
    )
    assert plays_both(board, dice) == set()


def test_no_legal_move_passes_without_bar():
    """docs/rules.md 2.6: "If nothing can be played, the turn passes."

    roll 6-6: 8/2 is blocked, and bear-off is not allowed (8 is outside)
    """
    board = diagram(
        """
             8  7  6  5  4  3  2
        X    2
        O                      2
        """
    )
    assert plays_both(board, (6, 6)) == set()


def test_die_unplayable_at_first_becomes_playable_after_other_die():
    """docs/rules.md 2.6: "After each die the position has changed, so a die that was
    unplayable at first can become playable."

    roll 6-3: at first the 6 cannot be played (19 is blocked and the checker on
       8 may not move while one is on the bar); after bar/22 it can
    """
    board = diagram(
        """
           bar 24 23 22 21 20 19 16  8  2
        X    1                       1
        O                      2
        """
    )
    assert_plays(board, (6, 3), ["bar/22 22/16", "bar/22 8/2"])


def test_doubles_partial_play_when_only_two_of_four_dice_fit():
    """docs/rules.md 2.3 and 2.6: doubles are four moves, but a die that cannot be played
    is lost and the rest of the turn with it.

    roll 3-3: 13/10/7, then 7/4 is blocked; the checkers on 2 cannot bear off
       because the checker on 7 is outside the home board
    """
    board = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1                                2
        O                               2
        """
    )
    assert_plays(board, (3, 3), ["13/10 10/7"])


def test_doubles_partial_play_when_only_three_of_four_dice_fit():
    """docs/rules.md 2.6 with 3.2: after 13/10/7/4 all checkers are home, but the fourth 3
    cannot be played: point 3 is empty, the higher checker on 4 must move (3.2) and
    4/1 is blocked, so the checkers on 2 may not bear off with it.

    roll 3-3
    """
    board = diagram(
        """
            13 12 11 10  9  8  7  6  5  4  3  2  1
        X    1                                2
        O                                        2
        """
    )
    assert_plays(board, (3, 3), ["13/10 10/7 7/4"])


# --------------------------------------------------------------------------
# Section 3: bearing off
# --------------------------------------------------------------------------


def test_bear_off_only_when_all_home():
    """docs/rules.md 3.1: "Bearing off is allowed only while all of the mover's remaining
    checkers are in the home board (none on the bar, none on points 7-24)."

    roll 2-1: 2/off and 1/off are never legal while the checker on 10 is out
    (10/7 with both dice does not bring it home either)
    """
    board = diagram(
        """
            24 10  9  8  7  6  5  4  3  2  1
        X       1                    1  1
        O    2
        """
    )
    assert_plays(board, (2, 1), ["10/8 8/7", "10/8 3/2", "10/8 2/1", "10/9 3/1", "3/1 2/1"])
    assert all(b[MOVER_OFF] == 12 for b in plays_both(board, (2, 1)))


def test_bear_off_rechecked_before_every_die():
    """docs/rules.md 3.1: "This is checked again before every single die."

    roll 6-4: neither die can bear off at first (8 is outside), but whichever
    brings the checker on 8 home lets the other die bear off: 8/2 then 4/off,
    or 8/4 then the 6 bears off from the highest point, 4
    """
    board = diagram(
        """
            24  8  7  6  5  4  3  2  1
        X       1           1
        O    2
        """
    )
    assert_plays(board, (6, 4), ["8/2 4/off", "8/4 4/off"])


def test_exact_die_bears_off_from_its_point():
    """docs/rules.md 3.2: "A die of n bears off a checker from point n."

    roll 4-3: 4/off and 3/off with the exact numbers; or 4/1 first, after which
    the 4 bears off from the highest point, 3 (3.2, last part)
    """
    board = diagram(
        """
            20  6  5  4  3  2  1
        X             1  1     1
        O   15
        """
    )
    assert_plays(board, (4, 3), ["4/off 3/off", "4/1 3/off"])


def test_higher_point_must_move_when_die_point_empty():
    """docs/rules.md 3.2: "If point n is empty, the die must be played by a checker on a
    higher point if one exists."

    roll 4-1: the 4 cannot bear off the checker on 2 (6 is higher): 6/2 and 2/1
    (or 6/5/1) are the only play
    """
    board = diagram(
        """
            24  6  5  4  3  2  1
        X       1           1
        O    2
        """
    )
    assert_plays(board, (4, 1), ["6/2 2/1"])


def test_highest_point_bears_off_when_die_exceeds():
    """docs/rules.md 3.2: "if no checker stands higher than n, the die bears off a checker
    from the highest occupied point."

    roll 6-1: the 6 bears off from 3, never from 2 while 3 is occupied
    """
    board = diagram(
        """
            24  6  5  4  3  2  1
        X                1  1
        O    2
        """
    )
    assert_plays(board, (6, 1), ["3/off 2/1", "3/2 2/off"])


def test_bear_off_not_compulsory():
    """docs/rules.md 3.3: "Bearing off is never compulsory when another legal play with
    that die exists (a player may move 6/2 instead of bearing off with a 4)."

    roll 4-1
    """
    board = diagram(
        """
            24  6  5  4  3  2  1
        X       1     1
        O    2
        """
    )
    assert_plays(board, (4, 1), ["6/2 4/3", "6/2 2/1", "4/off 6/5"])


def test_hit_checker_during_bear_off_must_reenter():
    """docs/rules.md 3.4: "A checker hit during the bear-off must re-enter and come home
    before bearing off resumes." X was hit while bearing off (12 already off).
    """
    board = diagram(
        """
           bar 24 23 22 19 16 13  7  1
        X    1                       2
        O                  13
        """
    )
    # 2-1: the entered checker is outside, so 1/off is never legal.
    assert_plays(board, (2, 1), ["bar/23 23/22"])
    # 6-6: bar/19/13/7/1 comes home with the last die; nothing is left to bear off.
    assert_plays(board, (6, 6), ["bar/19 19/13 13/7 7/1"])


# --------------------------------------------------------------------------
# Section 4: end of game and scoring
# --------------------------------------------------------------------------


def test_first_to_bear_off_all_fifteen_wins():
    """docs/rules.md 4: "The first player to bear off all 15 checkers wins."

    roll 2-1: 2/off 1/off wins; 2/1 then 1/off (highest point) is also legal
    """
    board = diagram(
        """
            20  6  5  4  3  2  1
        X                   1  1
        O   14           1
        """
    )
    assert_plays(board, (2, 1), ["2/off 1/off", "2/1 1/off"])
    won = apply_moves(board, parse_play("2/off 1/off"))
    not_yet = apply_moves(board, parse_play("2/1 1/off"))
    assert winner(np.array(won)) == MOVER_WINS
    assert winner(np.array(not_yet)) == NO_WINNER
    # The loser has none off and a checker on the winner's 3-point: backgammon.
    assert result_kind(np.array(won)) == BACKGAMMON


def test_single_game_when_loser_has_borne_off_a_checker():
    """docs/rules.md 4: "single game (1 x cube value) when the loser has borne off at
    least one" -- even with a checker on the bar or in the winner's home board.
    X has borne off all 15; O has 1 off.
    """
    board = diagram(
        """
           bar 20  3
        O    1 12  1
        """
    )
    assert winner(board) == MOVER_WINS
    assert result_kind(board) == SINGLE
    assert points_won(board) == 1
    assert points_won(board, cube_value=4) == 4


def test_gammon_when_loser_has_borne_off_none():
    """docs/rules.md 4: "gammon (2 x cube) when the loser has borne off none."
    X has borne off all 15; O none, with no checker on the bar or in points 1-6
    (a checker on 7, the winner's outer board, does not make a backgammon).
    """
    board = diagram(
        """
            20  7
        O   14  1
        """
    )
    assert result_kind(board) == GAMMON
    assert points_won(board) == 2
    assert points_won(board, cube_value=8) == 16


def test_backgammon_when_loser_has_checker_on_bar():
    """docs/rules.md 4: "backgammon (3 x cube) when the loser has borne off none and
    still has a checker on the bar ..." X has borne off all 15; O none.
    """
    board = diagram(
        """
           bar 20
        O    1 14
        """
    )
    assert result_kind(board) == BACKGAMMON
    assert points_won(board) == 3
    assert points_won(board, cube_value=2) == 6


def test_backgammon_when_loser_has_checker_in_winners_home_board():
    """docs/rules.md 4: "backgammon (3 x cube) when the loser has borne off none and
    still has a checker ... in the winner's home board." X has borne off all 15;
    O none, one O checker on X's 6-point.
    """
    board = diagram(
        """
            20  6
        O   14  1
        """
    )
    assert result_kind(board) == BACKGAMMON
    assert points_won(board) == 3


def test_opponent_win_is_scored_for_the_opponent():
    """docs/rules.md 4, seen from the loser's side: the opponent has borne off all 15,
    the mover none, one mover checker is still on 19 (the opponent's 6-point, its
    home board): a backgammon won by the opponent.

    """
    backgammon = diagram(
        """
            19 18  5
        X    1    14
        """
    )
    assert winner(backgammon) == OPPONENT_WINS
    assert result_kind(backgammon) == BACKGAMMON
    assert points_won(backgammon, cube_value=2) == -6

    gammon = diagram(
        """
            19 18  5
        X       1 14
        """
    )
    assert result_kind(gammon) == GAMMON
    assert points_won(gammon) == -2


def test_game_not_over_has_no_winner():
    """docs/rules.md 4: nobody wins before one side has borne off all 15: the starting
    position, and a race where X has borne off 14 (one short) and O none.
    """
    for board in (
        starting_board(),
        diagram(
            """
                20  1
            X       1
            O   15
            """
        ),
    ):
        assert winner(board) == NO_WINNER
        assert result_kind(board) == NOT_OVER
        with pytest.raises(ValueError):
            points_won(board)
