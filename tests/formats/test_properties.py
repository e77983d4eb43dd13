"""Property-based tests: round trips on random boards and match states, and
arbitrary text into every reader raising nothing but TdgammonError."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tdgammon.engine.formats import (
    MatchId,
    decode_match_id,
    decode_position_id,
    encode_match_id,
    encode_position_id,
    format_ids,
    parse_position,
    position_from_fibs,
    position_from_gnubg,
    position_from_xgid,
    position_to_gnubg,
    position_to_xgid,
)
from tdgammon.engine.rules.board import (
    BOARD_SIZE,
    MOVER_BAR,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_OFF,
    flip,
)
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.position import (
    CUBE_CENTRED,
    CUBE_MOVER,
    CUBE_OPPONENT,
    CUBE_OWNERS,
    Position,
)

from .test_fibs import fibs_string

BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
FAST = settings(
    max_examples=int(os.environ.get("TDGAMMON_FORMAT_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Examples per property; raise ``TDGAMMON_FORMAT_EXAMPLES`` for a longer fuzzing run."""


@st.composite
def boards(draw) -> np.ndarray:
    """A random valid ``(30,) int8`` board, mover's view, 15 checkers a side.

    One side may have borne off every checker (a finished game), never both.
    """
    board = np.zeros(BOARD_SIZE, dtype=np.int64)
    # Mover: each checker goes off (0), onto a point (1..24) or the bar (25).
    for place in draw(st.lists(st.integers(0, 25), min_size=15, max_size=15)):
        board[place] += 1
    free = [OPPONENT_OFF, OPPONENT_BAR] + [p for p in range(1, 25) if board[p] == 0]
    for place in draw(st.lists(st.sampled_from(free), min_size=15, max_size=15)):
        board[place] -= 1
    if board[MOVER_OFF] == 15 and board[OPPONENT_OFF] == -15:
        # Both sides borne off cannot occur (validate refuses it): one opponent checker stays.
        board[OPPONENT_OFF] += 1
        board[draw(st.integers(1, 24))] -= 1
    return board.astype(np.int8)


dice_pairs = st.tuples(st.integers(1, 6), st.integers(1, 6))


@st.composite
def match_context(draw) -> dict:
    """Consistent score, match length, Crawford and dice fields, and a cube owner
    (the callers draw the cube value and make the cube state possible:
    ``possible_cube``)."""
    match_length = draw(st.one_of(st.just(0), st.integers(1, 25), st.integers(26, 32767)))
    if match_length:
        scores = [draw(st.integers(0, match_length - 1)) for _ in range(2)]
        if draw(st.booleans()):  # often reach the 1-away scores
            scores[draw(st.integers(0, 1))] = match_length - 1
    else:
        scores = [draw(st.integers(0, 1000)) for _ in range(2)]
    crawford = bool(match_length and scores.count(match_length - 1) == 1 and draw(st.booleans()))
    phase = draw(st.sampled_from(["before roll", "rolled", "double"]))
    if crawford and phase == "double":
        phase = "before roll"
    return dict(
        board=draw(boards()),
        match_length=match_length,
        mover_score=scores[0],
        opponent_score=scores[1],
        crawford=crawford,
        dice=draw(dice_pairs) if phase == "rolled" else None,
        double_offered=phase == "double",
        cube_owner=draw(st.sampled_from(CUBE_OWNERS)),
        mover_seat=draw(st.integers(0, 1)),
    )


def possible_cube(fields: dict, cube_log2: int, stage: int, max_log2: int) -> dict:
    """``fields`` with a cube that can occur (docs/rules.md 5 and 6,
    ``check_cube_context``): 1 and centred in the Crawford game; a cube of 1
    centred; a double (stage 0) from a centred or own cube; after a beaver
    (stage 1) or a raccoon (stage 2) at least 2 or 4, the beaverer's; twice the
    cube within the limit while a double is on the table."""
    fields = dict(fields)
    if fields["crawford"]:
        cube_log2 = 0
    elif fields["double_offered"]:
        cube_log2 = min(max(cube_log2, stage), max_log2 - 1)
    if cube_log2 == 0 or fields["crawford"]:
        fields["cube_owner"] = CUBE_CENTRED
    elif stage:
        fields["cube_owner"] = CUBE_OPPONENT
    elif fields["double_offered"] and fields["cube_owner"] == CUBE_OPPONENT:
        fields["cube_owner"] = CUBE_MOVER
    fields["cube_value"] = 1 << cube_log2
    return fields


@st.composite
def xgid_positions(draw) -> Position:
    """Positions holding only what an XGID carries."""
    fields = draw(match_context())
    money = fields["match_length"] == 0
    stage = draw(st.integers(0, 2)) if money and fields["double_offered"] else 0
    max_log2 = draw(st.integers(stage + 1 if fields["double_offered"] else 0, 15))
    fields = possible_cube(fields, draw(st.integers(0, max_log2)), stage, max_log2)
    return Position(
        **fields,
        max_cube=1 << max_log2,
        jacoby=money and draw(st.booleans()),
        beavers=money and (stage > 0 or draw(st.booleans())),
        beaver_stage=stage,
    )


@st.composite
def gnubg_positions(draw) -> Position:
    """Positions holding only what a PositionID:MatchID pair carries.

    A money-play double on the table is at a beaver stage (docs/rules.md 5), told
    by the decider and the cube owner as GNU Backgammon keeps them: stage 0 with
    a centred or own cube, stages 1 and 2 with the beaverer (the opponent)
    owning the cube; the decider is then never swapped."""
    fields = draw(match_context())
    stage, swapped = 0, draw(st.booleans())
    if fields["match_length"] == 0 and fields["double_offered"]:
        stage, swapped = draw(st.integers(0, 2)), False
    fields = possible_cube(fields, draw(st.integers(0, 10)), stage, 11)
    return Position(
        **fields,
        # the cube limit a Match ID reads (not carried): 1024, or what the ID needs
        max_cube=max(1024, fields["cube_value"] * (2 if fields["double_offered"] else 1)),
        jacoby=fields["match_length"] == 0 and draw(st.booleans()),
        game_state=draw(st.integers(0, 4)),
        resign_offered=draw(st.integers(0, 3)),
        decision_swapped=swapped,
        beavers=stage > 0,
        beaver_stage=stage,
    )


@st.composite
def match_ids(draw) -> MatchId:
    ctx = draw(match_context())
    return MatchId(
        cube_log2=draw(st.integers(0, 15)),
        cube_owner=draw(st.sampled_from([0, 1, 3])),
        player_on_roll=draw(st.integers(0, 1)),
        crawford=ctx["crawford"],
        game_state=draw(st.integers(0, 4)),
        player_on_turn=draw(st.integers(0, 1)),
        double_offered=ctx["double_offered"],
        resignation=draw(st.integers(0, 3)),
        dice=ctx["dice"] or (0, 0),
        match_length=ctx["match_length"],
        score0=ctx["mover_score"],
        score1=ctx["opponent_score"],
        no_jacoby=draw(st.booleans()),  # bit 66: any value in money or match play
    )


# ---------------------------------------------------------------- round trips


@FAST
@given(boards())
def test_position_id_board_round_trip(board):
    text = encode_position_id(board)
    assert len(text) == 14
    assert np.array_equal(decode_position_id(text), board)
    assert encode_position_id(decode_position_id(text)) == text


@FAST
@given(boards())
def test_flip_changes_the_view_not_the_checkers(board):
    assert np.array_equal(decode_position_id(encode_position_id(flip(board))), flip(board))


@FAST
@given(st.text(alphabet=BASE64, min_size=14, max_size=14))
def test_any_position_id_text_is_rejected_or_round_trips_exactly(text):
    try:
        board = decode_position_id(text)
    except TdgammonError:
        return
    assert encode_position_id(board) == text


@FAST
@given(match_ids())
def test_match_id_fields_round_trip(match):
    text = encode_match_id(match)
    assert len(text) == 12
    assert decode_match_id(text) == match


@FAST
@given(st.text(alphabet=BASE64, min_size=12, max_size=12))
def test_any_match_id_text_is_rejected_or_round_trips_exactly(text):
    try:
        match = decode_match_id(text)
    except TdgammonError:
        return
    assert encode_match_id(match) == text


@FAST
@given(xgid_positions())
def test_xgid_position_round_trip(position):
    text = position_to_xgid(position)
    back = position_from_xgid(text)
    assert back == position
    assert position_to_xgid(back) == text
    assert parse_position(text) == position
    assert parse_position(text[len("XGID=") :]) == position


@FAST
@given(gnubg_positions())
def test_gnubg_position_round_trip(position):
    text = position_to_gnubg(position)
    back = position_from_gnubg(text)
    assert back == position
    assert position_to_gnubg(back) == text
    assert parse_position(text) == position


@FAST
@given(xgid_positions())
def test_format_ids_agree_with_each_other(position):
    cap = 512 if position.double_offered else 1024  # a double to 1024 at most
    position = position.with_changes(max_cube=1024, cube_value=min(position.cube_value, cap))
    ids = format_ids(position)
    from_gnubg = parse_position(f"{ids['position_id']}:{ids['match_id']}")
    from_xgid = parse_position(ids["xgid"])
    assert np.array_equal(from_gnubg.board, position.board)
    assert np.array_equal(from_xgid.board, position.board)
    assert from_gnubg.mover_seat == from_xgid.mover_seat == position.mover_seat
    assert from_gnubg.dice == from_xgid.dice == position.dice
    assert from_gnubg.jacoby == from_xgid.jacoby == position.jacoby


@FAST
@given(
    boards(),
    st.sampled_from([1, -1]),
    st.sampled_from([1, -1]),
    st.booleans(),
    dice_pairs,
)
def test_fibs_reads_any_board_in_any_orientation(board, colour, direction, your_turn, dice):
    text = fibs_string(
        board,
        colour=colour,
        direction=direction,
        your_turn=your_turn,
        your_dice=dice if your_turn else (0, 0),
        opponent_dice=(0, 0) if your_turn else dice,
    )
    position = position_from_fibs(text)
    assert np.array_equal(position.board, board if your_turn else flip(board))
    assert position.dice == dice
    assert position.mover_seat == (0 if your_turn else 1)
    assert position.board[MOVER_BAR] == (board if your_turn else flip(board))[MOVER_BAR]


# ------------------------------------------------------- only TdgammonError out

READERS = [
    decode_position_id,
    decode_match_id,
    position_from_gnubg,
    position_from_xgid,
    position_from_fibs,
    parse_position,
]


def _only_tdgammon_errors(text) -> None:
    for reader in READERS:
        try:
            reader(text)
        except TdgammonError as exc:
            assert str(exc), f"{reader.__name__} raised an empty message"


@FAST
@given(st.text(max_size=80))
def test_arbitrary_text_raises_only_tdgammon_errors(text):
    _only_tdgammon_errors(text)


@FAST
@given(st.one_of(st.none(), st.integers(), st.floats(), st.binary(), st.lists(st.integers())))
def test_non_text_raises_only_tdgammon_errors(value):
    _only_tdgammon_errors(value)


xgid_like = st.builds(
    lambda prefix, board, rest: prefix + board + ":" + ":".join(rest),
    st.sampled_from(["XGID=", "", "xgid="]),
    st.text(alphabet="-abcdoxyzABCDOPQ0", min_size=24, max_size=28),
    st.lists(
        st.one_of(
            st.integers(-3, 40).map(str),
            st.sampled_from(["00", "D", "B", "R", "52", "66", "07", "x", "", "1e3", " 1"]),
        ),
        min_size=7,
        max_size=11,
    ),
)


@FAST
@given(xgid_like)
def test_xgid_shaped_text_raises_only_tdgammon_errors(text):
    _only_tdgammon_errors(text)


fibs_like = st.builds(
    lambda values: "board:You:Them:" + ":".join(values),
    st.lists(
        st.one_of(
            st.integers(-16, 16).map(str),
            st.sampled_from(["9999", "25", "x", "", "-0", "+1"]),
        ),
        min_size=48,
        max_size=52,
    ),
)


@FAST
@given(fibs_like)
def test_fibs_shaped_text_raises_only_tdgammon_errors(text):
    _only_tdgammon_errors(text)


@FAST
@given(
    st.text(alphabet=BASE64 + "=-!", min_size=13, max_size=15),
    st.text(alphabet=BASE64 + "=", min_size=11, max_size=13),
)
def test_gnubg_shaped_text_raises_only_tdgammon_errors(position_id, match_id):
    _only_tdgammon_errors(f"{position_id}:{match_id}")
    _only_tdgammon_errors(position_id)
