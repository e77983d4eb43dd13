"""The command line on impossible and finished positions, and on GNU Backgammon's
own Match IDs.

An impossible position (both players have borne off every checker) gets exit
status 2 and one line on stderr, never a traceback and never an evaluation. A
finished game (one player has borne off every checker) is shown and evaluated,
but has no play and no cube decision: ``moves``, ``hint`` and ``cube`` say the
game is over.
GNU Backgammon's Match IDs, bit 66 included (docs/formats.md), are read.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from cli_runner import run

from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.interfaces import cli_analysis

EMPTY_ID = "AAAAAAAAAAAAAA"
"""Position ID with no checker on the board for either side."""
BOTH_OFF = "both players have borne off all their checkers"
EMPTY_POSITIONS = [
    EMPTY_ID,
    f"{EMPTY_ID}:cAkAAAAAAAAA",
    f"{EMPTY_ID}:cAngAAAAAAAE",
    "XGID=--------------------------:0:0:1:52:0:0:0:0:10",
    "board:You:Them:9999:0:0:"
    + ":".join(["0"] * 26)
    + ":1:3:1:0:0:1:1:1:0:1:-1:0:25:15:15:0:0:0:0:0:0",
]
START_ID = "4HPwATDgc/ABMA"
OPPONENT_DONE = "AAAAwP8fAAAAAA"
"""Position ID: the player on roll has 15 checkers on his 6-point, the opponent none."""
MOVER_DONE = "4P8PAAAAAAAAAA"
"""Position ID: the player on roll has borne off every checker."""
FINISHED_POSITIONS = [
    (OPPONENT_DONE, "the opponent has borne off every checker"),
    (f"{OPPONENT_DONE}:cAkAAAAAAAAA", "the opponent has borne off every checker"),
    ("XGID=------O-------------------:0:0:1:52:0:0:0:0:10", "the opponent has borne off"),
    (MOVER_DONE, "the player on roll has borne off every checker"),
]
MATCH_7_NEW = "cAngAAAAAAAE"
"""A new 7-point match as GNU Backgammon writes it (bit 66 set)."""


@pytest.fixture
def pipcount(monkeypatch):
    """Analysis commands get the torch-free stand-in evaluator."""
    search = Search(PipCountEvaluator())
    monkeypatch.setattr(cli_analysis, "load_search", lambda model=None: search)
    return search


@pytest.mark.parametrize("text", EMPTY_POSITIONS)
@pytest.mark.parametrize(
    "command", [["eval"], ["cube"], ["hint", "--dice", "31"], ["show"], ["moves", "--dice", "31"]]
)
def test_empty_position_is_one_line_exit_2(capsys, pipcount, command, text):
    status, out, err = run(capsys, command[0], text, *command[1:])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tdgammon: error: ")
    assert BOTH_OFF in err and "Traceback" not in err


def test_empty_position_in_batch_mode_is_an_error_answer(capsys, pipcount, monkeypatch):
    stdin = json.dumps({"position": EMPTY_ID}) + "\n" + json.dumps({"position": START_ID}) + "\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status, out, _ = run(capsys, "eval", "-", "--plies", "0")
    first, second = (json.loads(line) for line in out.splitlines())
    assert status == 0 and BOTH_OFF in first["error"] and "error" not in second


@pytest.mark.parametrize(("text", "who"), FINISHED_POSITIONS)
@pytest.mark.parametrize(
    "command", [["hint", "--dice", "52"], ["moves", "--dice", "52"], ["cube"], ["hint"]]
)
def test_finished_game_has_nothing_to_decide(capsys, pipcount, command, text, who):
    status, out, err = run(capsys, command[0], text, *command[1:])
    assert status == 2 and out == ""
    assert err.startswith(f"tdgammon: error: the game is over: {who}")
    assert err.count("\n") == 1 and "nothing to decide" in err


@pytest.mark.parametrize("command", ["show", "eval"])
def test_finished_game_is_still_shown_and_evaluated(capsys, pipcount, command):
    status, out, err = run(capsys, command, OPPONENT_DONE, "--json")
    assert status == 0 and err == ""
    if command == "eval":
        assert json.loads(out)["probabilities"]["win"] == 0


@pytest.mark.parametrize("command", ["moves", "hint", "cube"])
def test_finished_game_in_batch_mode_is_an_error_answer(capsys, pipcount, monkeypatch, command):
    stdin = "\n".join(
        json.dumps({"position": p, "dice": [5, 2]}) for p in (OPPONENT_DONE, START_ID)
    )
    status, out, _ = run(capsys, command, "-", stdin=stdin, monkeypatch=monkeypatch)
    first, second = (json.loads(line) for line in out.splitlines())
    assert status == 0 and first["error"].startswith("the game is over") and "error" not in second


def test_console_script_eval_of_the_empty_position():
    proc = subprocess.run(
        [sys.executable, "-m", "tdgammon.engine.interfaces.cli", "eval", EMPTY_ID],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and BOTH_OFF in proc.stderr
    assert "Traceback" not in proc.stderr


def test_show_reads_gnubg_match_id_with_bit_66(capsys):
    status, out, err = run(capsys, "show", f"{START_ID}:{MATCH_7_NEW}")
    assert status == 0 and err == ""
    assert f"Match ID   : {MATCH_7_NEW}" in out and "Match to 7" in out


def test_eval_reads_gnubg_match_id_with_bit_66(capsys, pipcount):
    status, out, err = run(capsys, "eval", f"{START_ID}:{MATCH_7_NEW}", "--plies", "0", "--json")
    assert status == 0 and err == ""
    assert 0 < json.loads(out)["mwc"] < 1


def test_match_id_bits_past_66_are_one_line_exit_2(capsys):
    status, out, err = run(capsys, "show", f"{START_ID}:cAngAAAAAAAI")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "1-bits past bit 66" in err
