"""London Bridge notation, docs/london_bridge.md 6: positions and moves, printed and parsed.

Round trips on every position of random games and on hypothesis-drawn texts;
malformed text raises ``FormatError`` naming what is wrong, never anything else.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tdgammon.engine.london_bridge.dials import COLOUR_DIAL, NO_DIAL, NUMBER_DIAL
from tdgammon.engine.london_bridge.movegen import generate_turns
from tdgammon.engine.london_bridge.notation import (
    format_move,
    format_position,
    listed_move,
    parse_move,
    parse_position,
)
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import pass_turn, start_state
from tdgammon.engine.london_bridge.turn import Move
from tdgammon.engine.rules.errors import FormatError, TdgammonError

CHAOS = os.environ.get("TDGAMMON_CHAOS_GAMES")
FUZZ = settings(max_examples=int(CHAOS) if CHAOS else 60, deadline=None)
START = "3/0 3/0 3/0 3/0 3/0 3/0 0/3 0/3 0/3 0/3 0/3 0/3 0:0 N1 R1 P1"


def test_start_position_text():
    assert format_position(start_state(Rules())) == START
    assert (parse_position(START) == start_state(Rules())).all()


def test_moves_print_as_in_the_rules():
    """6: ``4:oxo/N``; bonus moves joined with ``+``: ``6:o+2:oox/C``."""
    assert format_move(Move(((3, "oxo"),), NUMBER_DIAL)) == "4:oxo/N"
    assert format_move(Move(((5, "o"), (1, "oox")), COLOUR_DIAL)) == "6:o+2:oox/C"
    assert format_move(Move((), NUMBER_DIAL)) == "/N"
    assert format_move(Move(((5, "o"),), NO_DIAL)) == "6:o"
    assert parse_move(" 6:O + 2:oox / c ") == Move(((5, "o"), (1, "oox")), COLOUR_DIAL)


def test_every_listed_move_and_position_of_random_games_round_trips():
    rules = Rules()
    rng = np.random.default_rng(7)
    state = start_state(rules)
    for _ in range(60):
        assert (parse_position(format_position(state)) == state).all()
        moves = generate_turns(state[None], rules)
        for row in range(len(moves)):
            move = listed_move(moves, row)
            assert parse_move(format_move(move)) == move
        after = moves.states[rng.integers(len(moves))]
        if not after[:24].any():
            break
        state = pass_turn(after[None])[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty move"),
        ("4:ooo/X", "after '/' comes the dial"),
        ("4:ooo/NC", "after '/' comes the dial"),
        ("13:o/N", "pot 13 is not 1-12"),
        ("0:o/N", "pot 0 is not 1-12"),
        ("4:ooa/N", "is not pot:colours"),
        ("4/N", "is not pot:colours"),
        ("4:+1:ooo/N", "is not pot:colours"),
        ("4:ooo++1:ooo/N", "is not pot:colours"),
    ],
)
def test_malformed_moves_say_what_is_wrong(text, message):
    with pytest.raises(FormatError, match=message):
        parse_move(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3/0 3/0", "has 16 fields"),
        (START.replace("3/0", "3-0", 1), "pot 1: expected two bead counts"),
        (START.replace("0:0", "0-0"), "the goals: expected"),
        (START.replace("N1", "N5"), "number dial 'N5'"),
        (START.replace("R1", "R3"), "colour dial 'R3'"),
        (START.replace("P1", "P3"), "player to move 'P3'"),
        (START.replace("3/0", "19/0", 1), "more than 18 beads of the mover"),
        (START.replace("0:0", "30:0"), "more than 36 beads"),
        (START.replace("3/0", "３/0", 1), "pot 1: expected two bead counts"),
    ],
)
def test_malformed_positions_say_what_is_wrong(text, message):
    with pytest.raises(FormatError, match=message):
        parse_position(text)


@FUZZ
@given(st.text(max_size=40))
def test_any_text_is_a_move_or_a_format_error(text):
    try:
        move = parse_move(text)
    except FormatError:
        return
    assert parse_move(format_move(move)) == move


@FUZZ
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=12, max_size=12),
    st.integers(0, 4),
    st.integers(0, 4),
    st.sampled_from(["N1", "N2", "N3", "N4"]),
    st.sampled_from(["R1", "Y1", "B1", "R2", "B2", "Y2"]),
    st.sampled_from(["P1", "P2"]),
)
def test_positions_round_trip(pots, mine, theirs, number, colour, player):
    text = " ".join(f"{a}/{b}" for a, b in pots) + f" {mine}:{theirs} {number} {colour} {player}"
    try:
        state = parse_position(text)
    except FormatError:
        return  # too many beads of one colour
    assert format_position(state) == text


@FUZZ
@given(st.text(alphabet="0123456789/: NRYBCP x", max_size=80))
def test_any_position_text_parses_or_is_a_format_error(text):
    try:
        parse_position(text)
    except TdgammonError as error:
        assert isinstance(error, FormatError)
