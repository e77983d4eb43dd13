"""Game states a GNU Backgammon Match ID carries (docs/formats.md): a game over,
resigned or dropped, and a resignation pending. UBGI has no answer for them
(``sorry``, the reason on stderr); ``moves``, ``hint``, ``cube`` and ``rollout``
refuse a finished game like one borne off; ``show`` and ``eval`` still describe it."""

from __future__ import annotations

import io
import json

import pytest
from cli_runner import run

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.formats.match_id import position_to_gnubg
from tdgammon.engine.interfaces import cli_analysis
from tdgammon.engine.interfaces.ubgi import UbgiEngine
from tdgammon.engine.rules.position import (
    GAME_DROPPED,
    GAME_NOT_STARTED,
    GAME_OVER,
    GAME_PLAYING,
    GAME_RESIGNED,
    RESIGN_BACKGAMMON,
    RESIGN_GAMMON,
    RESIGN_SINGLE,
    Position,
)

START = "4HPwATDgc/ABMA"
RESIGN_BEFORE_ROLLING = f"{START}:MCkAAAAAAAAE"
"""The reviewer's IDs: a resignation of a single game offered before rolling..."""
RESIGN_AFTER_ROLLING = f"{START}:MKkKAAAAAAAE"
"""...and after rolling 5-2."""
GAME_STATE_OVER = f"{START}:MAIAAAAAAAAE"
GAME_STATE_RESIGNED = f"{START}:MCMAAAAAAAAE"


def gnubg(**fields) -> str:
    return position_to_gnubg(Position(**fields))


RESIGNATIONS = {
    "single before rolling": RESIGN_BEFORE_ROLLING,
    "single after rolling": RESIGN_AFTER_ROLLING,
    "gammon": gnubg(resign_offered=RESIGN_GAMMON),
    "backgammon, 7-point match": gnubg(
        resign_offered=RESIGN_BACKGAMMON, match_length=7, dice=(6, 6)
    ),
}
FINISHED = {
    "over": GAME_STATE_OVER,
    "resigned": GAME_STATE_RESIGNED,
    "dropped": gnubg(game_state=GAME_DROPPED, cube_value=2, cube_owner="mover"),
    "over, dice rolled": gnubg(game_state=GAME_OVER, dice=(5, 2)),
    "resigned, match": gnubg(game_state=GAME_RESIGNED, match_length=5, mover_score=2),
}
REASONS = {
    "over": "the game is over: its Match ID says so",
    "resigned": "the game is over: its Match ID says it ended by a resignation",
    "dropped": "the game is over: its Match ID says it ended by a dropped double",
    "over, dice rolled": "the game is over: its Match ID says so",
    "resigned, match": "the game is over: its Match ID says it ended by a resignation",
}


def test_the_reviewers_ids_say_what_the_tests_assume():
    from tdgammon.engine.formats.parse import parse_position

    before, after = parse_position(RESIGN_BEFORE_ROLLING), parse_position(RESIGN_AFTER_ROLLING)
    assert (before.game_state, before.resign_offered, before.dice) == (
        GAME_PLAYING,
        RESIGN_SINGLE,
        None,
    )
    assert (after.resign_offered, after.dice) == (RESIGN_SINGLE, (5, 2))
    assert parse_position(GAME_STATE_OVER).game_state == GAME_OVER
    assert parse_position(GAME_STATE_RESIGNED).game_state == GAME_RESIGNED


def session(lines: list[str]) -> tuple[list[str], list[str]]:
    """The engine's answers to ``lines`` and the lines it wrote on stderr."""
    err = io.StringIO()
    engine = UbgiEngine(CubeAgent(PipCountEvaluator(), plies=0), err=err)
    out = io.StringIO()
    assert engine.run(iter(line + "\n" for line in lines), out) == 0
    return out.getvalue().split("\n")[:-1], err.getvalue().splitlines()


# ---------------------------------------------------------------- UBGI


@pytest.mark.parametrize("name", list(RESIGNATIONS))
def test_ubgi_a_pending_resignation_is_sorry(name):
    """docs/formats.md, UBGI: the decision is the opponent's accept or reject, and the
    protocol has no line for it, so neither ``roll`` nor a play."""
    out, err = session([RESIGNATIONS[name], "isready"])
    assert out == ["sorry", "readyok"]
    assert len(err) == 1 and err[0].startswith("ubgi: sorry: a resignation of a ")
    assert "UBGI has no answer to a resignation" in err[0]


@pytest.mark.parametrize("name", list(FINISHED))
def test_ubgi_a_finished_game_state_is_sorry(name):
    out, err = session([FINISHED[name], "isready"])
    assert out == ["sorry", "readyok"]
    assert err == [f"ubgi: sorry: {REASONS[name]}; there is nothing to decide"]


@pytest.mark.parametrize(
    "fields, answers",
    [
        ({"game_state": GAME_PLAYING}, {"roll", "double"}),
        ({"game_state": GAME_NOT_STARTED}, {"roll", "double"}),
        ({"double_offered": True}, {"take", "drop"}),
    ],
    ids=["playing", "not started", "double pending"],
)
def test_ubgi_still_answers_a_game_in_play(fields, answers):
    out, err = session([gnubg(**fields)])
    assert err == [] and len(out) == 1 and out[0] in answers


def test_ubgi_a_played_position_after_the_sorry_lines_is_answered():
    out, err = session([RESIGN_AFTER_ROLLING, GAME_STATE_OVER, gnubg(dice=(5, 2))])
    assert out[:2] == ["sorry", "sorry"] and len(err) == 2
    assert out[2] not in ("", "sorry") and "/" in out[2]


def test_ubgi_command_answers_sorry(capsys, monkeypatch):
    search = Search(PipCountEvaluator())
    monkeypatch.setattr(cli_analysis, "load_search", lambda model=None: search)
    stdin = "\n".join([RESIGN_BEFORE_ROLLING, GAME_STATE_RESIGNED, gnubg(), "quit"]) + "\n"
    status, out, err = run(capsys, "ubgi", "--plies", "0", stdin=stdin, monkeypatch=monkeypatch)
    assert status == 0
    assert out.splitlines()[:2] == ["sorry", "sorry"] and out.splitlines()[2] in {"roll", "double"}
    assert err.count("ubgi: sorry: ") == 2


# ---------------------------------------------------------------- the CLI


COMMANDS = {
    "cube": ["--plies", "0"],
    "hint": ["--plies", "0", "--dice", "52"],
    "moves": ["--dice", "52"],
    "rollout": ["--trials", "2", "--truncate", "1"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("name", list(FINISHED))
def test_a_finished_game_state_is_refused_in_one_line(capsys, pipcount, command, name):
    """docs/formats.md: nothing to decide in a finished game, whatever the board."""
    status, out, err = run(capsys, command, FINISHED[name], *COMMANDS[command])
    assert status == 2 and out == ""
    assert err == f"tdgammon: error: {REASONS[name]}; there is nothing to decide\n"


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_finished_game_state_in_batch_mode_is_an_error_line(
    capsys, monkeypatch, pipcount, command
):
    lines = [{"position": GAME_STATE_RESIGNED, "dice": [5, 2]}, {"position": START, "dice": [5, 2]}]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    status, out, _ = run(
        capsys, command, "-", *COMMANDS[command], stdin=stdin, monkeypatch=monkeypatch
    )
    first, second = (json.loads(line) for line in out.splitlines())
    assert status == 0 and first == {"error": f"{REASONS['resigned']}; there is nothing to decide"}
    assert "error" not in second


@pytest.mark.parametrize("command", ["show", "eval"])
def test_a_finished_game_state_is_still_shown_and_evaluated(capsys, pipcount, command):
    argv = [command, GAME_STATE_RESIGNED, "--json"] + (
        ["--plies", "0"] if command == "eval" else []
    )
    status, out, err = run(capsys, *argv)
    assert status == 0 and err == "" and json.loads(out)["position_id"] == START


def test_cube_still_answers_a_game_in_play(capsys, pipcount):
    status, out, err = run(capsys, "cube", gnubg(), "--plies", "0", "--json")
    assert status == 0 and err == "" and json.loads(out)["action"]
