"""Impossible cube states in an XGID or a GNU Backgammon Match ID are refused.

``check_cube_context`` (``engine/formats/match_id.py``) states the rules once
for both readers and both writers, and the FIBS board reader (docs/rules.md 5
and 6):

- a double is offered from a centred cube or the doubler's own ("only the
  owner may redouble");
- accepting what is on the table stays within the cube limit (XGID maxcube);
- a beaver or raccoon needs money play with beavers allowed, and the cube then
  holds what a refusal loses (2 or more after a beaver, 4 or more after a
  raccoon), owned by the beaverer;
- the Crawford game has the cube at 1 in the centre ("the cube may not be used");
- a cube of 1 is centred (a player owns the cube only after taking a double).

Each is one ``FormatError`` naming the problem (``tdgammon show``: one line,
exit status 2); the possible neighbours of each are still read, and round-trip.
"""

from __future__ import annotations

import io
import re

import pytest
from cli_runner import run
from formats.test_fibs import fibs_string

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.evaluation.search import PipCountEvaluator
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import GameSettings
from tdgammon.engine.formats import (
    MatchId,
    encode_match_id,
    format_ids,
    parse_position,
    position_from_fibs,
    position_from_gnubg,
    position_from_xgid,
    position_to_gnubg,
    position_to_xgid,
)
from tdgammon.engine.interfaces.ubgi import UbgiEngine
from tdgammon.engine.rules.board import starting_board
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.position import (
    CUBE_MOVER,
    CUBE_OPPONENT,
    Position,
)

BOARD = "-b----E-C---eE---c-e----B-"
"""The starting position, XGID board field."""
X = f"XGID={BOARD}"
START_ID = "4HPwATDgc/ABMA"

# What each refusal names.
NOT_OWNER = "only the cube's owner may redouble"
LIMIT = "above the cube limit"
MONEY_ONLY = "beavers and raccoons are a money-play rule"
RULE_OFF = "the beaver rule is not in effect"
BEAVERER_OWNS = "the beaverer (the player not on roll) owns the cube"
REFUSAL_LOSES = "the cube then holds what a refusal loses"
CRAWFORD = "the cube may not be used in the Crawford game"
NEVER_TURNED = "a cube that was never turned is centred"


def gnubg(**fields) -> str:
    """``PositionID:MatchID`` of the starting board with these Match ID fields
    (player 0 on roll unless given; the decider is the usual one: the taker while a
    double is on the table)."""
    fields.setdefault("no_jacoby", True)
    if fields.get("double_offered") and "player_on_turn" not in fields:
        fields["player_on_turn"] = 1 - fields.get("player_on_roll", 0)
    return f"{START_ID}:{encode_match_id(MatchId(**fields))}"


IMPOSSIBLE = [
    # 1. a double from the other player's cube (docs/rules.md 5)
    ("double from O's cube", f"{X}:1:-1:1:D:0:0:0:5:10", NOT_OWNER),
    ("double from X's cube, O on roll", f"{X}:1:1:-1:D:0:0:0:5:10", NOT_OWNER),
    ("double from O's cube, money", f"{X}:1:-1:1:D:0:0:0:0:10", NOT_OWNER),
    ("the review's Match ID", f"{START_ID}:ERGgAAAAAAAE", NOT_OWNER),
    (
        "Match ID double from player 1's cube",
        gnubg(cube_log2=1, cube_owner=1, double_offered=True, match_length=5),
        NOT_OWNER,
    ),
    (
        # money: decision and cube with the other player is a raccoon's bits; on a
        # cube of 2 that is a double from the other player's cube
        "Match ID money double from player 1's cube",
        gnubg(cube_log2=1, cube_owner=1, double_offered=True),
        NOT_OWNER,
    ),
    # 2. past the cube limit
    ("double to 8, limit 4", f"{X}:2:0:1:D:0:0:0:0:2", f"turn the cube to 8, {LIMIT} 4"),
    ("double to 2, limit 1", f"{X}:0:0:1:D:0:0:0:5:0", f"turn the cube to 2, {LIMIT} 1"),
    (
        "beaver to 4, limit 2",
        f"{X}:1:-1:1:B:0:0:2:0:1",
        f"accepting the beaver would turn the cube to 4, {LIMIT}",
    ),
    (
        "raccoon to 8, limit 4",
        f"{X}:2:-1:1:R:0:0:2:0:2",
        f"accepting the raccoon would turn the cube to 8, {LIMIT}",
    ),
    (
        "Match ID double from 32768",
        gnubg(cube_log2=15, cube_owner=0, double_offered=True),
        f"turn the cube to 65536, {LIMIT} 32768",
    ),
    # 3. beavers and raccoons where there can be none, or with the wrong cube
    ("beaver in a match", f"{X}:0:0:1:B:0:0:0:5:10", MONEY_ONLY),
    ("raccoon in a match", f"{X}:2:-1:1:R:0:0:0:5:10", MONEY_ONLY),
    ("beaver, rule off", f"{X}:1:-1:1:B:0:0:0:0:10", RULE_OFF),
    ("beaver, Jacoby only", f"{X}:1:-1:1:B:0:0:1:0:10", RULE_OFF),
    ("raccoon, rule off", f"{X}:2:-1:1:R:0:0:0:0:10", RULE_OFF),
    ("beaver, cube 1 centred", f"{X}:0:0:1:B:0:0:2:0:10", BEAVERER_OWNS),
    ("beaver, doubler's cube", f"{X}:1:1:1:B:0:0:2:0:10", BEAVERER_OWNS),
    ("raccoon, cube centred", f"{X}:2:0:-1:R:0:0:2:0:10", BEAVERER_OWNS),
    ("raccoon, cube 2", f"{X}:1:-1:1:R:0:0:2:0:10", f"{REFUSAL_LOSES}, at least 4"),
    (
        "Match ID beaver, doubler's cube",
        gnubg(cube_log2=1, cube_owner=0, double_offered=True, player_on_turn=0),
        BEAVERER_OWNS,
    ),
    # 4. a turned cube in the Crawford game (docs/rules.md 6)
    ("Crawford, cube 2 owned", f"{X}:1:1:1:00:4:0:1:5:10", CRAWFORD),
    ("Crawford, cube 2 centred", f"{X}:1:0:-1:52:0:4:1:5:10", CRAWFORD),
    ("Crawford, cube 1 owned", f"{X}:0:-1:1:00:4:0:1:5:10", CRAWFORD),
    ("the review's Crawford Match ID", f"{START_ID}:gQGgAEAAAAAE", CRAWFORD),
    (
        "Match ID Crawford, cube 4 of player 1",
        gnubg(cube_log2=2, cube_owner=1, crawford=True, match_length=5, score1=4),
        CRAWFORD,
    ),
    # 5. a cube of 1 with an owner
    ("cube 1 owned by X", f"{X}:0:1:1:00:0:0:0:0:10", NEVER_TURNED),
    ("cube 1 owned by O, O to play", f"{X}:0:-1:-1:52:0:0:0:7:10", NEVER_TURNED),
    ("cube 1 owned, double", f"{X}:0:1:1:D:0:0:0:0:10", NEVER_TURNED),
    ("the review's cube-1 Match ID", f"{START_ID}:EAEAAAAAAAAE", NEVER_TURNED),
    ("Match ID cube 1 of player 0", gnubg(cube_owner=0, match_length=7), NEVER_TURNED),
]


@pytest.mark.parametrize(
    ("text", "problem"), [case[1:] for case in IMPOSSIBLE], ids=[case[0] for case in IMPOSSIBLE]
)
def test_impossible_cube_state_is_refused_naming_the_problem(text, problem):
    reader = position_from_xgid if text.startswith("XGID=") else position_from_gnubg
    for read in (reader, parse_position):
        with pytest.raises(FormatError, match=re.escape(problem)):
            read(text)
    with pytest.raises(FormatError) as caught:
        parse_position(text)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("XGID: " if text.startswith("XGID=") else "Match ID: ")


POSSIBLE = [
    # the owner redoubles; a centred cube is doubled by either player
    ("X redoubles his cube", f"{X}:1:1:1:D:0:0:0:5:10"),
    ("O redoubles his cube", f"{X}:2:-1:-1:D:1:0:0:5:10"),
    ("X doubles the centred cube", f"{X}:0:0:1:D:0:0:0:5:10"),
    ("O doubles the centred cube", f"{X}:0:0:-1:D:0:0:0:0:10"),
    ("double after an automatic double", f"{X}:1:0:1:D:0:0:0:0:10"),
    ("double to the limit", f"{X}:1:0:1:D:0:0:0:0:2"),
    ("X owns the cube at the limit, no double", f"{X}:2:1:1:00:0:0:0:0:2"),
    # beavers and raccoons in money play with beavers on
    ("beaver", f"{X}:1:-1:1:B:0:0:2:0:10"),
    ("beaver, Jacoby too", f"{X}:2:-1:1:B:0:0:3:0:10"),
    ("beaver, O doubled", f"{X}:1:1:-1:B:0:0:2:0:10"),
    ("beaver to the limit", f"{X}:1:-1:1:B:0:0:2:0:2"),
    ("raccoon", f"{X}:2:-1:1:R:0:0:2:0:10"),
    ("raccoon on a bigger cube", f"{X}:4:1:-1:R:0:0:3:0:10"),
    ("beavers allowed, plain double", f"{X}:0:0:1:D:0:0:2:0:10"),
    # the Crawford game with the cube at 1 in the centre, and post-Crawford doubles
    ("Crawford, X to roll", f"{X}:0:0:1:00:4:0:1:5:10"),
    ("Crawford, O to play", f"{X}:0:0:-1:52:3:6:1:7:10"),
    ("post-Crawford double", f"{X}:0:0:1:D:2:4:0:5:10"),
    ("post-Crawford redouble", f"{X}:1:-1:-1:D:2:4:0:5:10"),
    ("post-Crawford cube owned", f"{X}:1:1:1:00:4:3:0:5:10"),
    # a centred cube above 1 (automatic doubles) and owned cubes of 2 and more
    ("cube 2 centred", f"{X}:1:0:1:00:0:0:0:0:10"),
    ("cube 2 owned by O", f"{X}:1:-1:1:52:0:0:0:0:10"),
]


@pytest.mark.parametrize("text", [p[1] for p in POSSIBLE], ids=[p[0] for p in POSSIBLE])
def test_possible_neighbour_is_read_and_round_trips(text):
    position = position_from_xgid(text)
    assert position_to_xgid(position) == text
    assert parse_position(text) == position
    # the same state as a GNU Backgammon ID (which carries no cube limit)
    pair = position_to_gnubg(position)
    back = position_from_gnubg(pair)
    assert position_to_gnubg(back) == pair
    for field in ("cube_value", "cube_owner", "double_offered", "beaver_stage", "crawford"):
        assert getattr(back, field) == getattr(position, field), field
    if back.double_offered:
        assert back.max_cube >= 2 * back.cube_value
    ids = format_ids(position)
    assert ids["xgid"] == text and ids["match_id"] == pair.split(":")[1]


@pytest.mark.parametrize(
    "match_id",
    [
        "cAkKAAAAAAAA",  # docs/formats.md: GNU Backgammon's own IDs
        "cAkOAAAAAAAE",
        "cAngAAAAAAAE",
        "MAEAAAAAAAAE",
        "EREAAAAAAAAE",  # money: player 1 beavered (cube 2, his), player 0 answers
        "EhkAAAAAAAAE",  # money: player 0 raccooned on a cube of 4, player 1 answers
    ],
)
def test_gnubg_ids_are_read_and_round_trip(match_id):
    text = f"{START_ID}:{match_id}"
    assert position_to_gnubg(position_from_gnubg(text)) == text


@pytest.mark.parametrize(
    ("fields", "limit", "stage"),
    [
        (dict(cube_log2=0, double_offered=True), 1024, 0),
        (dict(cube_log2=10, cube_owner=0, double_offered=True), 2048, 0),
        (dict(cube_log2=11, double_offered=True), 4096, 0),
        (dict(cube_log2=12, cube_owner=1), 4096, 0),
        (dict(cube_log2=11, cube_owner=1, double_offered=True, player_on_turn=0), 4096, 1),
    ],
    ids=["double from 1", "redouble from 1024", "double from 2048", "cube 4096", "beaver to 4096"],
)
def test_a_gnubg_double_on_a_big_cube_is_read(fields, limit, stage):
    """The Match ID carries no cube limit: it is read as 1024, or what the ID
    needs (GNU Backgammon's own limit is 4096: it offers a double from 2048)."""
    text = gnubg(**fields)
    position = position_from_gnubg(text)
    assert position.max_cube == limit and position.beaver_stage == stage
    assert position_to_gnubg(position) == text


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (dict(cube_value=1, cube_owner=CUBE_MOVER), NEVER_TURNED),
        (dict(cube_value=2, cube_owner=CUBE_OPPONENT, double_offered=True), NOT_OWNER),
        (dict(cube_value=4, double_offered=True, max_cube=4), LIMIT),
        (
            dict(cube_value=2, cube_owner=CUBE_MOVER, match_length=5, mover_score=4, crawford=True),
            CRAWFORD,
        ),
        (
            dict(
                cube_value=2,
                cube_owner=CUBE_OPPONENT,
                double_offered=True,
                beaver_stage=1,
                match_length=5,
            ),
            MONEY_ONLY,
        ),
        (dict(cube_value=1, double_offered=True, beaver_stage=1, beavers=True), BEAVERER_OWNS),
        (
            dict(
                cube_value=2,
                cube_owner=CUBE_OPPONENT,
                double_offered=True,
                beaver_stage=2,
                beavers=True,
            ),
            REFUSAL_LOSES,
        ),
    ],
)
def test_writers_refuse_an_impossible_position(fields, problem):
    position = Position(**fields)
    for write in (position_to_xgid, position_to_gnubg, format_ids):
        with pytest.raises(FormatError, match=re.escape(problem)):
            write(position)


def test_a_beaver_on_the_table_is_written_with_the_beaver_rule():
    """A beaver on the table says the rule is in effect: the XGID gets the beaver bit."""
    position = Position(cube_value=2, cube_owner=CUBE_OPPONENT, double_offered=True, beaver_stage=1)
    text = position_to_xgid(position)
    assert text.endswith(":1:-1:1:B:0:0:2:0:10")
    assert position_from_xgid(text) == position.with_changes(beavers=True)


def game_positions(settings: GameSettings, script) -> list[Position]:
    """The position after each step of ``script`` (callables on the game)."""
    game = Game(settings)
    game.opening_roll((3, 1))
    game.play([(8, 5), (6, 5)])
    out = [game.position()]
    for step in script:
        step(game)
        out.append(game.position())
    return out


@pytest.mark.parametrize(
    ("settings", "script"),
    [
        (
            GameSettings(beavers=True, raccoons=True),
            [
                lambda g: g.double(seat=1),
                lambda g: g.beaver(seat=0),
                lambda g: g.raccoon(seat=1),
                lambda g: g.take(seat=0),
            ],
        ),
        (GameSettings(beavers=True), [lambda g: g.double(seat=1), lambda g: g.beaver(seat=0)]),
        (
            GameSettings(max_cube=2),
            [lambda g: g.double(seat=1), lambda g: g.take(seat=0)],
        ),
        (GameSettings(match_length=5, scores=(4, 2), crawford=True), [lambda g: g.roll((5, 2))]),
        (
            GameSettings(match_length=5, scores=(4, 2)),
            [lambda g: g.double(seat=1), lambda g: g.take(seat=0), lambda g: g.roll((6, 5))],
        ),
        (GameSettings(), [lambda g: g.double(seat=1), lambda g: g.drop(seat=0)]),
    ],
    ids=["beaver-raccoon-take", "beaver", "to the limit", "crawford", "post-crawford", "drop"],
)
def test_every_position_a_game_reaches_is_written_and_read_back(settings, script):
    for position in game_positions(settings, script):
        xgid = position_to_xgid(position)
        assert position_to_xgid(position_from_xgid(xgid)) == xgid
        pair = position_to_gnubg(position)
        assert position_to_gnubg(position_from_gnubg(pair)) == pair


# ------------------------------------------------------------- FIBS boards


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        # 1-away, "did Crawford" 0: the Crawford game, where the cube is not used
        (dict(match_length=5, scores=(4, 2), cube=2, may_double=(1, 0)), CRAWFORD),
        # the opponent doubled (you to answer) while you may double: your cube
        (dict(was_doubled=1, cube=2, may_double=(1, 0)), NOT_OWNER),
    ],
    ids=["Crawford, cube 2", "double from the taker's cube"],
)
def test_fibs_board_with_an_impossible_cube_is_refused(fields, problem):
    with pytest.raises(FormatError, match="^FIBS board: "):
        position_from_fibs(fibs_string(starting_board(), **fields))
    with pytest.raises(FormatError, match=re.escape(problem)):
        parse_position(fibs_string(starting_board(), **fields))


@pytest.mark.parametrize(
    "fields",
    [
        dict(match_length=5, scores=(4, 2)),
        dict(match_length=5, scores=(4, 2), did_crawford=1, cube=2, may_double=(1, 0)),
        dict(was_doubled=1, cube=2, may_double=(0, 1)),
        dict(was_doubled=1, cube=1024, may_double=(0, 1)),
    ],
    ids=["Crawford, cube 1", "post-Crawford, cube 2", "redouble", "redouble from 1024"],
)
def test_fibs_board_with_a_possible_cube_is_read_and_written(fields):
    position = position_from_fibs(fibs_string(starting_board(), **fields))
    assert position.max_cube >= position.cube_value * (2 if position.double_offered else 1)
    ids = format_ids(position)
    assert parse_position(ids["xgid"]).cube_owner == position.cube_owner


# ------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (f"{X}:1:-1:1:D:0:0:0:5:10", NOT_OWNER),
        (f"{START_ID}:ERGgAAAAAAAE", NOT_OWNER),
        (f"{X}:2:0:1:D:0:0:0:0:2", LIMIT),
        (f"{X}:0:0:1:B:0:0:0:5:10", MONEY_ONLY),
        (f"{X}:1:1:1:00:4:0:1:5:10", CRAWFORD),
        (f"{START_ID}:gQGgAEAAAAAE", CRAWFORD),
        (f"{X}:0:1:1:00:0:0:0:0:10", NEVER_TURNED),
        (f"{START_ID}:EAEAAAAAAAAE", NEVER_TURNED),
    ],
)
def test_show_is_one_line_exit_2(capsys, text, problem):
    status, out, err = run(capsys, "show", text)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tdgammon: error: ")
    assert problem in err and "Traceback" not in err


def test_cube_refuses_a_cube_of_1_with_an_owner(capsys, monkeypatch):
    from tdgammon.engine.evaluation.search import Search
    from tdgammon.engine.interfaces import cli_analysis

    search = Search(PipCountEvaluator())
    monkeypatch.setattr(cli_analysis, "load_search", lambda model=None: search)
    for text in (f"{X}:0:1:1:00:0:0:0:0:10", f"{START_ID}:EAEAAAAAAAAE"):
        status, out, err = run(capsys, "cube", text, "--plies", "0")
        assert status == 2 and out == "" and err.count("\n") == 1 and NEVER_TURNED in err


def test_ubgi_says_sorry_with_the_reason():
    err = io.StringIO()
    engine = UbgiEngine(CubeAgent(PipCountEvaluator(), plies=0), err=err)
    out = io.StringIO()
    lines = [f"{X}:1:-1:1:D:0:0:0:5:10", f"{X}:0:0:1:B:0:0:0:5:10", "isready"]
    assert engine.run(iter(line + "\n" for line in lines), out) == 0
    assert out.getvalue().split("\n")[:-1] == ["sorry", "sorry", "readyok"]
    reasons = err.getvalue().splitlines()
    assert len(reasons) == 2 and all(r.startswith("ubgi: sorry: XGID: ") for r in reasons)
    assert NOT_OWNER in reasons[0] and MONEY_ONLY in reasons[1]
