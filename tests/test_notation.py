"""Tests of tdgammon.engine.formats.notation: parse_move, format_move, match_move (docs/rules.md 8).

Positions are built with board_from_points(mover, opponent), each dict in its
owner's numbering (the opponent's point k is the mover's point 25 - k; 25 is
the bar). All point numbers in move strings are the mover's.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tdgammon.engine.formats.move_matching import match_move
from tdgammon.engine.formats.notation import (
    format_move,
    format_move_plain,
    parse_move,
    parse_move_marked,
)
from tdgammon.engine.movegen.reference import Play, legal_plays
from tdgammon.engine.rules.board import board_from_points, flip, starting_board
from tdgammon.engine.rules.errors import FormatError, IllegalMoveError, TdgammonError

START = {24: 2, 13: 5, 8: 3, 6: 5}


def opponent_with(extra: dict[int, int], base: dict[int, int] | None = None) -> dict[int, int]:
    """The opponent's start (own numbering) with some points changed."""
    points = dict(START if base is None else base)
    points.update(extra)
    return {p: n for p, n in points.items() if n}


# --------------------------------------------------------------------------
# parse_move: every form of docs/rules.md 8
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24/18 13/11", ((24, 18), (13, 11))),
        ("24/18,13/11", ((24, 18), (13, 11))),
        ("24/18, 13/11", ((24, 18), (13, 11))),
        ("  24/18   13/11  ", ((24, 18), (13, 11))),
        ("24 / 18", ((24, 18),)),
        ("bar/22", ((25, 22),)),
        ("25/22", ((25, 22),)),
        ("BAR/22", ((25, 22),)),
        ("Bar/22 13/9", ((25, 22), (13, 9))),
        ("6/off", ((6, 0),)),
        ("6/0", ((6, 0),)),
        ("6/Off 5/OFF", ((6, 0), (5, 0))),
        ("13/7*", ((13, 7),)),
        ("24/18*/13", ((24, 18), (18, 13))),
        ("8/5(2)", ((8, 5), (8, 5))),
        ("8/5(2) 6/3(2)", ((8, 5), (8, 5), (6, 3), (6, 3))),
        ("8/5(4)", ((8, 5),) * 4),
        ("8/5 (2)", ((8, 5), (8, 5))),
        ("13/7*(2)", ((13, 7), (13, 7))),
        ("24/18/13", ((24, 18), (18, 13))),
        ("bar/20/14", ((25, 20), (20, 14))),
        ("24/13", ((24, 13),)),
        ("24/21/18/15/12", ((24, 21), (21, 18), (18, 15), (15, 12))),
        ("24/18/13(2)", ((24, 18), (18, 13)) * 2),
        ("08/05", ((8, 5),)),
        ("3/off 2/off", ((3, 0), (2, 0))),
    ],
)
def test_parse_move_forms(text, expected):
    assert parse_move(text) == expected


def test_parse_move_hit_marks():
    assert parse_move_marked("24/18*/13").hit_marks == {18}
    assert parse_move_marked("13/7* 6/2*").hit_marks == {7, 2}
    assert parse_move_marked("13/7*(2)").hit_marks == {7}
    assert parse_move_marked("13/7").hit_marks == set()


@pytest.mark.parametrize("text", ["", "   ", " , ", "pass", "PASS", "no move", "Cannot  Move"])
def test_parse_move_empty_play(text):
    assert parse_move(text) == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("garbage", "not a move"),
        ("13-7", "not a move"),
        ("13", "not a move"),
        ("13/", "is not a point"),
        ("/7", "is not a point"),
        ("13//7", "is not a point"),
        ("13/7/", "is not a point"),
        ("x/y", "is not a point"),
        ("13/7)", "cannot read"),
        ("13/7(2", "cannot read"),
        ("13/7(2)(2)", "cannot read"),
        ("26/20", "outside 0..25"),
        ("13/99", "outside 0..25"),
        ("1234567890123456789/1", "outside 0..25"),
        ("7/13", "must be above"),
        ("13/13", "must be above"),
        ("6/off/3", "off (0) cannot be a from-point"),
        ("off/3", "off (0) cannot be a from-point"),
        ("0/3", "off (0) cannot be a from-point"),
        ("13/bar", "the bar (25) cannot be a to-point"),
        ("13/25", "the bar (25) cannot be a to-point"),
        ("8/5(0)", "repeat count"),
        ("8/5(5)", "repeat count"),
        ("8/5(x)", "repeat count"),
        ("8/5()", "repeat count"),
        ("8/5(-1)", "repeat count"),
        ("24/18 13/11 8/5 6/3 6/1", "more than 4"),
        ("8/5(3) 6/3(2)", "more than 4"),
        ("24/18/12/6/1/off", "more than 4"),
        ("bar*/20", "never on the bar or off"),
        ("6/off*", "never on the bar or off"),
        ("pas", "not a move"),
        ("13/\u0667", "is not a point"),
    ],
)
def test_parse_move_errors(text, message):
    with pytest.raises(FormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_move(text)


@pytest.mark.parametrize("value", [None, 13, b"13/7", ["13/7"]])
def test_parse_move_rejects_non_strings(value):
    with pytest.raises(FormatError, match="must be a string"):
        parse_move(value)


# --------------------------------------------------------------------------
# format_move: GNU Backgammon style
# --------------------------------------------------------------------------


def test_format_opening_31():
    board = starting_board()
    assert format_move(board, ((8, 5), (6, 5))) == "8/5 6/5"
    assert format_move(board, ((6, 5), (8, 5))) == "8/5 6/5"


def test_format_opening_52_orders_ties_by_to_point():
    # GNU Backgammon sorts by from-point, then to-point, both highest first.
    assert format_move(starting_board(), ((13, 8), (13, 11))) == "13/11 13/8"


def test_format_run_65_joins_one_checker():
    board = starting_board()
    assert format_move(board, ((24, 18), (18, 13))) == "24/13"
    assert format_move(board, ((18, 13), (24, 18))) == "24/13"


def test_format_hit():
    #  opponent blot on the mover's 7 (its own 18)
    board = board_from_points(START, opponent_with({18: 1, 6: 4}))
    assert format_move(board, ((13, 7), (8, 7))) == "13/7* 8/7"
    assert format_move(board, ((13, 7), (13, 8))) == "13/8 13/7*"


def test_format_doubles_grouped():
    board = starting_board()
    assert format_move(board, ((8, 5), (8, 5), (6, 3), (6, 3))) == "8/5(2) 6/3(2)"
    assert format_move(board, ((13, 7), (13, 7), (13, 7), (13, 7))) == "13/7(4)"


def test_format_hit_on_the_way():
    #  opponent blot on the mover's 18 (its own 7)
    board = board_from_points(START, opponent_with({7: 1, 6: 4}))
    assert format_move(board, ((24, 18), (18, 13))) == "24/18*/13"


def test_format_doubles_hit_on_the_way_grouped():
    #  4-4: both back checkers run through the blot on the mover's 20
    board = board_from_points(START, opponent_with({5: 1, 6: 4}))
    moves = ((24, 20), (20, 16), (24, 20), (20, 16))
    assert format_move(board, moves) == "24/20*/16(2)"


def test_format_doubles_hit_grouped_star_once():
    #  6-6: two checkers hit and stay on the mover's 7
    board = board_from_points(START, opponent_with({18: 1, 6: 4}))
    moves = ((13, 7), (13, 7), (24, 18), (24, 18))
    assert format_move(board, moves) == "24/18(2) 13/7*(2)"


def test_format_three_steps_of_one_checker():
    board = starting_board()
    assert format_move(board, ((24, 21), (21, 18), (18, 15), (13, 10))) == "24/15 13/10"


def test_format_bar_entering():
    mover = {25: 1, 24: 1, 13: 5, 8: 3, 6: 5}
    board = board_from_points(mover, START)
    assert format_move(board, ((25, 22), (13, 8))) == "bar/22 13/8"
    assert format_move(board, ((25, 22), (22, 17))) == "bar/17"
    #  entering on a blot (the opponent's 5 is the mover's 20)
    hit_board = board_from_points(mover, opponent_with({5: 1, 6: 4}))
    assert format_move(hit_board, ((25, 20), (13, 10))) == "bar/20* 13/10"


def test_format_bearing_off():
    board = board_from_points({6: 3, 5: 4, 4: 4, 2: 4}, START)
    assert format_move(board, ((6, 0), (5, 0))) == "6/off 5/off"
    assert format_move(board, ((6, 0), (6, 0), (6, 0), (5, 0))) == "6/off(3) 5/off"
    assert format_move(board, ((6, 2), (2, 0))) == "6/off"
    assert format_move(board, ((6, 2), (4, 0))) == "6/2 4/off"


def test_format_empty_play():
    assert format_move(starting_board(), ()) == ""
    assert format_move_plain(()) == ""


def test_format_accepts_a_play():
    board = starting_board()
    play = Play(((24, 18), (18, 13)), tuple(board))
    assert format_move(board, play) == "24/13"


def test_format_plain_writes_every_step():
    assert format_move_plain(((24, 18), (18, 13))) == "24/18 18/13"
    assert format_move_plain(((25, 20), (6, 0))) == "bar/20 6/off"
    assert format_move_plain(((8, 5), (8, 5))) == "8/5 8/5"


@pytest.mark.parametrize("moves", [((13, 13),), ((26, 20),), ((5, -1),), (("a", 3),), (1, 2)])
def test_format_rejects_bad_moves(moves):
    with pytest.raises(FormatError):
        format_move(starting_board(), moves)


# --------------------------------------------------------------------------
# match_move: legal strings
# --------------------------------------------------------------------------


def test_match_opening_plays():
    board = starting_board()
    play = match_move(board, (3, 1), "8/5 6/5")
    after = play.board_array()
    assert after[5] == 2 and after[8] == 2 and after[6] == 4


def test_match_is_on_the_resulting_board():
    board = starting_board()
    a = match_move(board, (3, 1), "8/5 6/5")
    b = match_move(board, (1, 3), "6/5, 8/5")
    assert a.board == b.board


@pytest.mark.parametrize("text", ["24/13", "24/18/13", "24/18 18/13", "18/13 24/18", "24/18/13(1)"])
def test_match_one_checker_any_written_form(text):
    board = starting_board()
    assert match_move(board, (6, 5), text).board == match_move(board, (6, 5), "24/13").board


def test_match_jump_through_the_only_open_stop():
    #  mover's 18 held by 2 (opponent's 7): 24/13 can only go through 19... which
    #  is also the opponent's 6 (5 checkers) -- so open 19 by moving them.
    board = board_from_points(START, opponent_with({7: 2, 6: 3}))
    with pytest.raises(IllegalMoveError, match="point 18 is blocked"):
        match_move(board, (6, 5), "24/18/13")
    board = board_from_points(START, opponent_with({7: 2, 6: 0, 5: 5, 8: 1}))
    assert match_move(board, (6, 5), "24/13").board == match_move(board, (6, 5), "24/19/13").board
    with pytest.raises(IllegalMoveError, match="point 18 is blocked"):
        match_move(board, (6, 5), "24/18/13")


def test_match_hit_marks_optional_and_choose_the_path():
    #  a blot on the mover's 18 (opponent's 7); 19 is open
    opponent = opponent_with({7: 1, 6: 0, 5: 5, 8: 2})
    board = board_from_points(START, opponent)
    through_19 = match_move(board, (6, 5), "24/19/13")
    through_18 = match_move(board, (6, 5), "24/18/13")
    assert through_18.board != through_19.board
    assert match_move(board, (6, 5), "24/13").board == through_19.board
    assert match_move(board, (6, 5), "24/18*/13").board == through_18.board
    #  a hit written without its mark still matches when there is one way only
    assert (
        match_move(board, (6, 5), "24/18 13/8").board
        == match_move(board, (6, 5), "24/18* 13/8").board
    )


def test_match_star_where_nothing_is_hit():
    board = starting_board()
    with pytest.raises(IllegalMoveError, match=r"'\*' on point 7, but the play hits nothing there"):
        match_move(board, (6, 1), "13/7* 8/7")


def test_match_ambiguous_lists_candidates():
    #  blots on both stops, the mover's 18 and 19 (opponent's 7 and 6)
    board = board_from_points(START, opponent_with({7: 1, 6: 1, 5: 3, 8: 3}))
    with pytest.raises(IllegalMoveError, match="ambiguous") as info:
        match_move(board, (6, 5), "24/13")
    assert "24/18* 18/13" in str(info.value) and "24/19* 19/13" in str(info.value)


def test_match_pass_when_nothing_can_be_played():
    #  mover on the bar against a closed board: no play with any roll
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}
    board = board_from_points({25: 1, 6: 14}, closed)
    for text in ("", "pass", "No move"):
        play = match_move(board, (6, 5), text)
        assert play.moves == () and play.board == tuple(int(x) for x in board)
    with pytest.raises(IllegalMoveError, match="point 20 is blocked.*the turn passes"):
        match_move(board, (6, 5), "bar/20")


def test_match_pass_when_a_play_exists():
    with pytest.raises(IllegalMoveError, match="only when nothing can be played.*2 dice"):
        match_move(starting_board(), (6, 5), "pass")


def test_match_bad_text_or_dice_raise_format_error():
    with pytest.raises(FormatError):
        match_move(starting_board(), (6, 5), "24-13")
    with pytest.raises(FormatError):
        match_move(starting_board(), (7, 5), "24/13")


# --------------------------------------------------------------------------
# match_move: one test per reason a string is illegal
# --------------------------------------------------------------------------


def test_illegal_bar_checker_must_enter_first():
    #  mover has a checker on the bar; 13/7 8/7 leaves it there
    board = board_from_points({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, START)
    with pytest.raises(IllegalMoveError, match="a checker on the bar must enter first"):
        match_move(board, (6, 1), "13/7 8/7")


def test_illegal_second_bar_checker_must_enter_too():
    board = board_from_points({25: 2, 13: 5, 8: 3, 6: 5}, START)
    with pytest.raises(IllegalMoveError, match="a checker on the bar must enter first"):
        match_move(board, (4, 3), "bar/21 13/10")


def test_illegal_landing_point_blocked():
    #  the opponent holds the mover's 5-point (its own 20) with 3 checkers
    board = board_from_points(START, opponent_with({20: 3, 6: 2}))
    with pytest.raises(
        IllegalMoveError, match=r"point 5 is blocked \(held by 3 opposing checkers\)"
    ):
        match_move(board, (3, 1), "8/5 6/5")


def test_illegal_entering_point_blocked():
    board = board_from_points({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, START)
    with pytest.raises(IllegalMoveError, match=r"point 19 is blocked \(held by 5 opposing"):
        match_move(board, (6, 1), "bar/19 24/23")


def test_illegal_no_checker_on_from_point():
    with pytest.raises(IllegalMoveError, match="no checker on point 12"):
        match_move(starting_board(), (5, 1), "12/7 6/5")


def test_illegal_no_checker_on_the_bar():
    with pytest.raises(IllegalMoveError, match="no checker on the bar"):
        match_move(starting_board(), (5, 1), "bar/20 6/5")


def test_illegal_distance_matches_no_die():
    with pytest.raises(
        IllegalMoveError, match="24/15 is 9 pips, which no die or sum of dice of the roll 6-5 makes"
    ):
        match_move(starting_board(), (6, 5), "24/15")


def test_illegal_bear_off_needs_more_pips_than_the_roll():
    board = board_from_points({6: 5, 5: 5, 4: 5}, START)
    with pytest.raises(IllegalMoveError, match="bearing off from point 6 needs at least 6 pips"):
        match_move(board, (2, 1), "6/off")


def test_illegal_bear_off_with_checkers_outside():
    #  one checker on the 9-point: 9/7 does not bring it home
    board = board_from_points({9: 1, 6: 14}, START)
    with pytest.raises(
        IllegalMoveError,
        match=r"cannot bear off while checkers are outside the home board \(on point 7\)",
    ):
        match_move(board, (6, 2), "6/off 9/7")


def test_illegal_bear_off_from_lower_point_while_higher_occupied():
    #  5-point: 2 checkers, 3-point: 13; 5/1 leaves one on the 5-point
    board = board_from_points({5: 2, 3: 13}, {13: 5, 8: 5, 7: 5})
    with pytest.raises(
        IllegalMoveError,
        match="cannot bear off from point 3 with a 6 while a checker stands on higher point 5",
    ):
        match_move(board, (6, 4), "3/off 5/1")


def test_illegal_larger_die_must_be_played():
    #  the mover's 2-point is held (opponent's 23): 13/7/2 and 13/8/2 are blocked,
    #  the checkers on 1 cannot move, so only one die plays -- and it must be the 6.
    board = board_from_points({13: 1, 1: 14}, {23: 2, 6: 13})
    assert [p.moves for p in legal_plays(board, (6, 5))] == [((13, 7),)]
    with pytest.raises(IllegalMoveError, match=r"the larger die \(6\) must be played"):
        match_move(board, (6, 5), "13/8")
    assert match_move(board, (6, 5), "13/7").moves == ((13, 7),)


def test_illegal_not_using_as_many_dice_as_possible():
    with pytest.raises(IllegalMoveError, match="2 dice must be used, this uses 1"):
        match_move(starting_board(), (6, 5), "13/7")
    with pytest.raises(IllegalMoveError, match="4 dice must be used, this uses 2"):
        match_move(starting_board(), (3, 3), "8/5(2)")


def test_illegal_intermediate_stop_blocked():
    #  both stops of 24/13 held: 18 (opponent's 7) by 2, 19 (opponent's 6) by 3
    board = board_from_points(START, opponent_with({7: 2, 6: 3}))
    with pytest.raises(IllegalMoveError) as info:
        match_move(board, (6, 5), "24/13")
    message = str(info.value)
    assert "the intermediate stop 18 is blocked (held by 2 opposing checkers)" in message
    assert "the intermediate stop 19 is blocked (held by 3 opposing checkers)" in message


def test_illegal_too_many_moves_for_the_dice():
    with pytest.raises(IllegalMoveError, match="too many moves for the dice: 3 moves written"):
        match_move(starting_board(), (6, 5), "24/18 13/8 8/2")
    with pytest.raises(IllegalMoveError, match="too many moves for the dice: 24/13, 13/8 together"):
        match_move(starting_board(), (6, 5), "24/13 13/8")
    with pytest.raises(IllegalMoveError, match="too many moves for the dice"):
        match_move(starting_board(), (6, 5), "24/18 13/7")


# --------------------------------------------------------------------------
# Round trip on random positions
# --------------------------------------------------------------------------


def random_positions(seed: int, count: int):
    """Yield (board, dice, plays) along random games played with legal_plays."""
    rng = np.random.default_rng(seed)
    board = starting_board()
    for _ in range(count):
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        plays = legal_plays(board, dice)
        yield board, dice, plays
        if plays:
            board = plays[int(rng.integers(len(plays)))].board_array()
        board = starting_board() if board[0] == 15 else flip(board)


def test_round_trip_random_positions():
    seed = int(os.environ.get("TDGAMMON_SEED", "20240611"))
    checked = 0
    for board, dice, plays in random_positions(seed, 400):
        if not plays:
            assert match_move(board, dice, format_move(board, ())).moves == ()
            continue
        for play in plays:
            text = format_move(board, play.moves)
            try:
                found = match_move(board, dice, text, plays=plays)
                plain = match_move(board, dice, format_move_plain(play.moves), plays=plays)
                backwards = format_move_plain(play.moves[::-1])
                reverse = match_move(board, dice, backwards, plays=plays)
            except TdgammonError as error:
                pytest.fail(f"seed {seed}: {text!r} with {dice} on {board.tolist()}: {error}")
            assert found.board == play.board, f"seed {seed}: {text!r} with {dice}"
            assert plain.board == play.board, f"seed {seed}: {text!r} with {dice}"
            assert reverse.board == play.board, f"seed {seed}: {backwards!r} with {dice}"
            checked += 1
    assert checked > 1000


# --------------------------------------------------------------------------
# Property: any text gives a result or a TdgammonError, never another exception
# --------------------------------------------------------------------------

MOVE_ALPHABET = "0123456789/*() ,barofBAROFps-x\t"
POSITIONS = [
    starting_board(),
    board_from_points({25: 2, 13: 5, 8: 3, 6: 5}, opponent_with({5: 1, 6: 4})),
    board_from_points({6: 3, 5: 4, 3: 4, 1: 2}, {1: 2, 2: 2, 21: 1, 6: 10}),
    board_from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}),
]


def check_text(text: str, position: int, dice: tuple[int, int]) -> None:
    try:
        segments = parse_move(text)
    except FormatError:
        segments = None
    assert segments is None or len(segments) <= 4
    board = POSITIONS[position]
    try:
        play = match_move(board, dice, text)
    except (FormatError, IllegalMoveError) as error:
        assert str(error)
        return
    assert play.board in {p.board for p in legal_plays(board, dice)} | {
        tuple(int(x) for x in board)
    }


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(max_size=30),
    position=st.integers(0, len(POSITIONS) - 1),
    dice=st.tuples(st.integers(1, 6), st.integers(1, 6)),
)
def test_any_text_raises_only_tdgammon_errors(text, position, dice):
    check_text(text, position, dice)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.text(alphabet=MOVE_ALPHABET, max_size=30),
    position=st.integers(0, len(POSITIONS) - 1),
    dice=st.tuples(st.integers(1, 6), st.integers(1, 6)),
)
def test_move_like_text_raises_only_tdgammon_errors(text, position, dice):
    check_text(text, position, dice)


move_token = st.builds(
    lambda points, stars, count: (
        "/".join(str(p) + ("*" if s else "") for p, s in zip(points, stars, strict=False))
        + (f"({count})" if count else "")
    ),
    st.lists(st.sampled_from(["bar", "off", *map(str, range(0, 26))]), min_size=2, max_size=4),
    st.lists(st.booleans(), min_size=4, max_size=4),
    st.sampled_from([None, None, 1, 2, 3, 4]),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tokens=st.lists(move_token, min_size=0, max_size=4),
    position=st.integers(0, len(POSITIONS) - 1),
    dice=st.tuples(st.integers(1, 6), st.integers(1, 6)),
)
def test_well_formed_tokens_raise_only_tdgammon_errors(tokens, position, dice):
    check_text(" ".join(tokens), position, dice)
