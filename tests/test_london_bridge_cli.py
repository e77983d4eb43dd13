"""``tdgammon play --game london-bridge`` and ``tdgammon match --game london-bridge``."""

from __future__ import annotations

import json

import pytest
from cli_runner import run


def test_match_json_alternates_seats(capsys):
    status, out, err = run(
        capsys, "match", "--game", "london-bridge", "--a", "greedy", "--b", "random",
        "--games", "6", "--seed", "3", "--json",
    )  # fmt: skip
    assert status == 0, err
    summary = json.loads(out)
    assert summary["games"] == 6 and summary["a"] == "greedy" and summary["b"] == "random"
    assert summary["a_wins"] + summary["draws"] + summary["b_wins"] == 6
    assert summary["rules"] == "default" and summary["opening_turns"] == 2


def test_match_text_and_rule_settings(capsys):
    status, out, _ = run(
        capsys, "match", "--game", "london-bridge", "--a", "alphabeta:2", "--b", "greedy",
        "--games", "2", "--rule", "turn_limit=6,sowing=own-first",
    )  # fmt: skip
    assert status == 0
    assert "alphabeta:2 vs greedy: 2 games, seats alternating" in out
    assert "2 at the turn limit (6)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--a", "nobody"], "unknown London Bridge player 'nobody'"),
        (["--rule", "sowing=sideways"], "rule sowing must be one of"),
        (["--rule", "speed=3"], "expected key=value with key one of"),
        (["--rule", "turn_limit=x"], "rule turn_limit: must be a whole number, got 'x'"),
        (["--rule", "turn_limit=0"], "rule turn_limit must be 1-100000, got 0"),
        # a pasted page is named, not echoed: the numbers by their size, text cut short
        (["--rule", "turn_limit=" + "9" * 3000], "got a number of 3000 digits"),
        (["--rule", "turn_limit=" + "9" * 5000], "a number of 5000 digits is out of range"),
        (["--rule", "sowing=" + "x" * 5000], "got 'xxxxxxxxxx"),
        (["--rule", "layout=" + "R" * 5000], "12 letters over R, Y, B (clause 1.2), got 'RRRR"),
        (["--length", "3"], "--length is a backgammon option"),
        (["--games", "0"], "--games must be at least 1"),
        (["--a", "human"], "tdgammon match is for bots"),
    ],
)
def test_match_bad_options_say_why(capsys, argv, message):
    status, _, err = run(capsys, "match", "--game", "london-bridge", *argv)
    assert status == 2
    assert message in err and err.count("\n") == 1 and len(err) < 300


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["match", "--rule", "turn_limit=6"], "--rule is a London Bridge option"),
        (["match", "--opening-turns", "4"], "--opening-turns is a London Bridge option"),
        (["play", "--rule", "sowing=free"], "--rule is a London Bridge option"),
    ],
)
def test_london_bridge_options_in_a_backgammon_game_say_why(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_play_a_game_at_the_terminal(capsys, monkeypatch):
    """Bad input gets the reason and the prompt again; a listed number plays that move."""
    moves = ["help", "moves", "4:ooo/N", "4:oxo/N", "99", "hint", "1:ooo/N"] + ["moves", "1"] * 30
    status, out, err = run(
        capsys, "play", "--game", "london-bridge", "--opponent", "greedy", "--seed", "1",
        "--rule", "turn_limit=12",
        stdin="\n".join(moves) + "\n", monkeypatch=monkeypatch,
    )  # fmt: skip
    assert status == 0, err
    assert "goal P2" in out and "goal P1" in out and "colour dial: [R] Y B R B Y" in out
    assert "| R  3/0 |" in out  # pot colour and bead counts
    assert "20 legal move(s):" in out and "4:ooo+1:ooo/N" in out
    assert "not played: 3.6: your last bead landed in your goal" in out
    assert "not played: bead 2 of pot 4: no bead of the opponent's is left" in out
    assert "no move 99" in out
    assert "hint (greedy):" in out
    assert "greedy plays" in out
    assert "Game over after 12 turns" in out and "turn limit" in out


def test_play_ends_cleanly_at_end_of_input(capsys, monkeypatch):
    status, out, _ = run(
        capsys, "play", "--game", "london-bridge", "--opponent", "random", "--no-board",
        stdin="quit\n", monkeypatch=monkeypatch,
    )  # fmt: skip
    assert status == 0 and "Session ended." in out
