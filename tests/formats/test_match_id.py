"""GNU Backgammon Match ID and the PositionID:MatchID pair."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest

from tdgammon.engine.formats.match_id import (
    MatchId,
    decode_match_id,
    encode_match_id,
    match_id_from_position,
    position_from_gnubg,
    position_to_gnubg,
)
from tdgammon.engine.formats.position_id import encode_position_id
from tdgammon.engine.rules.board import board_from_points, flip, starting_board
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position

MONEY_START_PLAYER_1 = "cAkAAAAAAAAA"
START_ID = "4HPwATDgc/ABMA"
# As GNU Backgammon writes them (docs/formats.md, "GNU Backgammon Match ID"):
MONEY_JACOBY_ON_42 = "cAkKAAAAAAAA"
"""Money session, Jacoby on, just started: player 1 rolled 4-2 (bit 66 = 0)."""
MONEY_JACOBY_OFF_43 = "cAkOAAAAAAAE"
"""The same with Jacoby off: player 1 rolled 4-3 (bit 66 = 1)."""
MATCH_7_NEW = "cAngAAAAAAAE"
"""A new 7-point match, player 1 to roll (bit 66 = 1, as in every match-play ID)."""

# (field, width) from bit 0, written out independently of the module.
LAYOUT = [
    ("cube_log2", 4),
    ("cube_owner", 2),
    ("player_on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("player_on_turn", 1),
    ("double_offered", 1),
    ("resignation", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),
]


def pack(extra_bits: int = 0, **values: int) -> str:
    """A Match ID from raw field values (missing fields 0), packed by hand.

    extra_bits: OR-ed into the 72-bit key as is (to set bits past bit 66).
    """
    key, bit = 0, 0
    for name, width in LAYOUT:
        key |= int(values.get(name, 0)) << bit
        bit += width
    key |= extra_bits
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def test_money_game_just_started_player_1_to_roll():
    match = decode_match_id(MONEY_START_PLAYER_1)
    assert match == MatchId(player_on_roll=1, player_on_turn=1)
    assert match.cube_value == 1 and match.cube_owner == 3 and match.game_state == 1
    assert encode_match_id(match) == MONEY_START_PLAYER_1


def test_hand_packed_ids_match_the_module():
    fields = dict(
        cube_log2=3,
        cube_owner=1,
        player_on_roll=0,
        crawford=0,
        game_state=1,
        player_on_turn=0,
        double_offered=0,
        resignation=0,
        die1=5,
        die2=2,
        match_length=7,
        score0=4,
        score1=6,
    )
    text = pack(**fields)
    match = decode_match_id(text)
    assert match.cube_value == 8 and match.cube_owner == 1
    assert match.dice == (5, 2)
    assert (match.match_length, match.score0, match.score1) == (7, 4, 6)
    assert encode_match_id(match) == text


def test_every_field_lands_on_its_bits():
    match = MatchId(
        cube_log2=15,
        cube_owner=0,
        player_on_roll=1,
        crawford=True,
        game_state=4,
        player_on_turn=0,
        double_offered=False,
        resignation=3,
        dice=(6, 1),
        match_length=32767,
        score0=32766,
        score1=5,
    )
    expected = pack(
        cube_log2=15,
        cube_owner=0,
        player_on_roll=1,
        crawford=1,
        game_state=4,
        player_on_turn=0,
        resignation=3,
        die1=6,
        die2=1,
        match_length=32767,
        score0=32766,
        score1=5,
    )
    assert encode_match_id(match) == expected
    assert decode_match_id(expected) == match


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("cAkAAAAAAAA", "12 characters, got 11"),
        ("cAkAAAAAAAAA=", "12 characters, got 13"),
        ("cAkAAAAA*AAA", "base64 alphabet"),
        ("cAkAAAAAAAAI", "1-bits past bit 66 (bits 67-71 must be 0)"),
        ("cAkAAAAAAAAM", "1-bits past bit 66"),
        (pack(cube_owner=3, game_state=1, extra_bits=1 << 71), "1-bits past bit 66"),
        (pack(cube_owner=3, game_state=1, no_jacoby=1, extra_bits=1 << 67), "past bit 66"),
        (pack(cube_owner=2, game_state=1), "cube owner 2"),
        (pack(cube_owner=3, game_state=5), "game state 5"),
        (pack(cube_owner=3, game_state=1, die1=7, die2=2), "die 7 is out of range"),
        (pack(cube_owner=3, game_state=1, die1=3, die2=0), "one die is rolled"),
        (pack(cube_owner=3, game_state=1, match_length=5, score0=5), "not below the match length"),
        (pack(cube_owner=3, game_state=1, crawford=1), "Crawford game needs match play"),
        (
            pack(cube_owner=3, game_state=1, crawford=1, match_length=5, score0=2),
            "exactly one player must be 1-away",
        ),
        (
            pack(cube_owner=3, game_state=1, double_offered=1, die1=3, die2=1),
            "rolled while a double is offered",
        ),
    ],
)
def test_malformed_match_ids(text, fragment):
    with pytest.raises(TdgammonError, match=re.escape(fragment)):
        decode_match_id(text)


def test_start_pair_reads_as_money_position():
    position = position_from_gnubg("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert np.array_equal(position.board, starting_board())
    assert position.mover_seat == 1 and position.is_money and position.dice is None
    assert position.cube_owner == CUBE_CENTRED and position.cube_value == 1
    assert position_to_gnubg(position) == "4HPwATDgc/ABMA:cAkAAAAAAAAA"


def test_position_id_is_from_the_player_on_roll():
    board = board_from_points({6: 5, 8: 3, 13: 5, 24: 1, 25: 1}, {6: 5, 8: 3, 13: 5, 24: 2})
    for seat in (0, 1):
        position = Position(board=board, dice=(3, 1), mover_seat=seat)
        text = position_to_gnubg(position)
        assert text.split(":")[0] == encode_position_id(board)
        back = position_from_gnubg(text)
        assert back == position
        assert decode_match_id(text.split(":")[1]).player_on_roll == seat


def test_seats_scores_and_cube_owner_translate():
    position = Position(
        mover_seat=1,
        mover_score=3,
        opponent_score=1,
        match_length=7,
        cube_value=4,
        cube_owner=CUBE_OPPONENT,
        dice=(6, 4),
    )
    match = match_id_from_position(position)
    assert (match.score0, match.score1) == (1, 3)
    assert match.cube_owner == 0 and match.cube_log2 == 2
    assert match.player_on_roll == 1 and match.player_on_turn == 1
    assert position_from_gnubg(position_to_gnubg(position)) == position
    mine = position.with_changes(cube_owner=CUBE_MOVER)
    assert match_id_from_position(mine).cube_owner == 1


def test_double_offered_passes_the_turn_to_the_taker():
    position = Position(mover_seat=0, double_offered=True, cube_value=2, cube_owner=CUBE_MOVER)
    match = match_id_from_position(position)
    assert match.player_on_roll == 0 and match.player_on_turn == 1 and match.double_offered
    assert position_from_gnubg(position_to_gnubg(position)) == position


def test_unusual_decider_round_trips_via_decision_swapped():
    # A game ended by a drop: the dropper (not on roll) is still "on turn".
    text = "4HPwATDgc/ABMA:" + pack(
        cube_log2=1, cube_owner=3, player_on_roll=0, game_state=4, player_on_turn=1
    )
    position = position_from_gnubg(text)
    assert position.decision_swapped and position.game_state == 4
    assert position_to_gnubg(position) == text


# docs/rules.md 5, beavers, as GNU Backgammon's match state keeps them (player 0
# on roll doubled a centred cube of 1; money, Jacoby off):
#
#   state                   cube (owner)   on turn   double offered   beaver_stage
#   double waits            1 (centre)     1         yes              0
#   player 1 beavered       2 (player 1)   0         yes              1
#   player 0 raccooned      4 (player 1)   1         yes              2
def gnubg_state(cube_log2: int, owner: int, turn: int) -> str:
    return f"{START_ID}:" + pack(
        cube_log2=cube_log2,
        cube_owner=owner,
        game_state=1,
        player_on_turn=turn,
        double_offered=1,
        no_jacoby=1,
    )


@pytest.mark.parametrize(
    "cube_log2, owner, turn, stage",
    [(0, 3, 1, 0), (1, 1, 0, 1), (2, 1, 1, 2)],
)
def test_beaver_stages_read_from_the_decider_and_the_cube_owner(cube_log2, owner, turn, stage):
    text = gnubg_state(cube_log2, owner, turn)
    position = position_from_gnubg(text)
    assert position.double_offered and position.beaver_stage == stage
    assert position.beavers == (stage > 0) and not position.decision_swapped
    assert position.cube_value == 1 << cube_log2 and position.mover_seat == 0
    assert position_to_gnubg(position) == text


def test_a_games_beaver_stages_are_gnubgs():
    from tdgammon.engine.flow.game import Game
    from tdgammon.engine.flow.game_records import GameSettings

    game = Game.from_position(starting_board(), settings=GameSettings(beavers=True, raccoons=True))
    game.double(seat=0)
    assert position_to_gnubg(game.position()) == gnubg_state(0, 3, 1)
    game.beaver(seat=1)
    assert position_to_gnubg(game.position()) == gnubg_state(1, 1, 0)
    game.raccoon(seat=0)
    assert position_to_gnubg(game.position()) == gnubg_state(2, 1, 1)
    back = position_from_gnubg(gnubg_state(2, 1, 1))
    assert back == game.position().with_changes(raccoons=False)  # no format carries raccoons


def test_match_play_has_no_beaver_stage():
    # the decision with the doubler (on roll): in a match only an unusual decider
    text = f"{START_ID}:" + pack(
        cube_owner=3, game_state=1, double_offered=1, match_length=5, no_jacoby=1
    )
    position = position_from_gnubg(text)
    assert position.beaver_stage == 0 and position.decision_swapped
    assert position_to_gnubg(position) == text


def test_flipped_board_is_not_the_same_id():
    board = board_from_points({6: 15}, {1: 15})
    assert encode_position_id(board) != encode_position_id(flip(board))


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("4HPwATDgc/ABMA", "PositionID:MatchID"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA:x", "PositionID:MatchID"),
        ("4HPwATDgc/ABM:cAkAAAAAAAAA", "Position ID must be 14"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAA", "Match ID must be 12"),
    ],
)
def test_malformed_pairs(text, fragment):
    with pytest.raises(FormatError, match=re.escape(fragment)):
        position_from_gnubg(text)


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        (dict(cube_value=3), "not a power of two"),
        (dict(cube_value=1 << 16), "above a Match ID"),
        (dict(dice=(0, 3)), "out of range 1-6"),
        (dict(match_length=3, mover_score=3), "not below the match length"),
        (dict(mover_seat=2), "mover seat"),
        (dict(cube_owner="left"), "cube owner"),
    ],
)
def test_positions_a_match_id_cannot_hold(changes, fragment):
    with pytest.raises(FormatError, match=re.escape(fragment)):
        position_to_gnubg(Position(**changes))


# ------------------------------------------------- bit 66: Jacoby not in effect


def test_gnubg_new_seven_point_match_is_read():
    position = position_from_gnubg(f"{START_ID}:{MATCH_7_NEW}")
    assert np.array_equal(position.board, starting_board())
    assert position.match_length == 7 and (position.mover_score, position.opponent_score) == (0, 0)
    assert position.mover_seat == 1 and position.dice is None and not position.crawford
    assert position.jacoby is False
    assert decode_match_id(MATCH_7_NEW).no_jacoby is True
    assert position_to_gnubg(position) == f"{START_ID}:{MATCH_7_NEW}"


@pytest.mark.parametrize(
    ("text", "jacoby", "dice"),
    [(MONEY_JACOBY_ON_42, True, (4, 2)), (MONEY_JACOBY_OFF_43, False, (4, 3))],
)
def test_gnubg_money_ids_carry_the_jacoby_rule(text, jacoby, dice):
    match = decode_match_id(text)
    assert match.no_jacoby is (not jacoby)
    assert match.match_length == 0 and match.dice == dice and match.player_on_roll == 1
    assert encode_match_id(match) == text
    position = position_from_gnubg(f"{START_ID}:{text}")
    assert position.is_money and position.jacoby is jacoby and position.dice == dice
    assert position_to_gnubg(position) == f"{START_ID}:{text}"


@pytest.mark.parametrize("jacoby", [True, False])
@pytest.mark.parametrize("seat", [0, 1])
def test_money_positions_round_trip_with_either_value_of_bit_66(jacoby, seat):
    position = Position(jacoby=jacoby, mover_seat=seat, dice=(6, 5), cube_value=2)
    text = position_to_gnubg(position)
    assert decode_match_id(text.split(":")[1]).no_jacoby is (not jacoby)
    assert position_from_gnubg(text) == position


@pytest.mark.parametrize("no_jacoby", [True, False])
def test_match_id_fields_round_trip_with_either_value_of_bit_66(no_jacoby):
    text = pack(cube_owner=3, game_state=1, no_jacoby=int(no_jacoby))
    assert decode_match_id(text).no_jacoby is no_jacoby
    assert encode_match_id(decode_match_id(text)) == text
    match = MatchId(no_jacoby=no_jacoby, match_length=5, score0=1)
    assert decode_match_id(encode_match_id(match)) == match


@pytest.mark.parametrize(
    "changes",
    [
        dict(match_length=7),
        dict(match_length=7, jacoby=True),  # Jacoby never applies in a match
        dict(match_length=3, mover_score=2, crawford=True),
        dict(match_length=5, mover_score=1, opponent_score=3, dice=(3, 1)),
    ],
)
def test_match_play_ids_are_always_written_with_bit_66_set(changes):
    position = Position(**changes)
    text = position_to_gnubg(position).split(":")[1]
    assert decode_match_id(text).no_jacoby is True
    assert text[-1] in "EFGH"  # the last character holds key bits 64-69; 66 set, 67-69 clear
    assert position_from_gnubg(f"{START_ID}:{text}").jacoby is False


def test_match_play_id_without_bit_66_from_an_older_program_is_read():
    text = pack(cube_owner=3, game_state=1, player_on_roll=1, player_on_turn=1, match_length=7)
    assert text == "cAngAAAAAAAA"
    position = position_from_gnubg(f"{START_ID}:{text}")
    assert position.match_length == 7 and position.jacoby is False
    assert position_to_gnubg(position) == f"{START_ID}:{MATCH_7_NEW}"  # written as GNU Bg does


def test_bit_66_must_be_a_bool():
    with pytest.raises(FormatError, match="no_jacoby must be a bool"):
        encode_match_id(MatchId(no_jacoby=2))  # type: ignore[arg-type]
