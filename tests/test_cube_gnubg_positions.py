"""Issue 18's three positions with the shipped network, and the Jacoby rule of
``tdgammon cube`` (``--jacoby`` / ``--no-jacoby``, a batch line's ``"jacoby"``).

GNU Backgammon's own default is the Jacoby rule on (``set jacoby``, on from a
fresh start; its Python ``cubeinfo()`` has ``jacoby`` 1), and it reads bit 66
of a Match ID as "Jacoby off", so ``cAkAAAAAAAAA`` (bit 66 clear) is money play
with Jacoby on. With Jacoby and a centred cube no cubeful no-double equity can
exceed +1 (gammons count only once the cube is turned, and a double cashes at
most +1), so "too good to double" is impossible there: GNU Backgammon's "too
good to double, pass" for the second position is its verdict without Jacoby,
and ``--no-jacoby`` reproduces it.
"""

from __future__ import annotations

import json

import pytest
from cli_runner import run

from tdgammon.engine.analysis.reports import cube_report, load_search
from tdgammon.engine.cube.theory import with_jacoby
from tdgammon.engine.formats.parse import parse_position
from tdgammon.engine.rules.position import Position

MATCH_2_AWAY_4_AWAY = "cwMEsSPecWMAAg:cAmgABAAGAAA"
TOO_GOOD = "/wEAbEjnjAVRQA:cAkAAAAAAAAA"
DOUBLE_PASS = "750BAAyxuw0AQg:cAkAAAAAAAAA"
PLIES = 2
"""Issue 18 judges at 2-ply (half a second a position with the shipped network)."""


@pytest.fixture(scope="module")
def search():
    return load_search(None)


def verdict(search, text: str, plies: int = PLIES, jacoby: bool | None = None) -> dict:
    return cube_report(search, with_jacoby(parse_position(text), jacoby), plies)


def test_a_gnubg_match_id_means_jacoby_on_unless_bit_66_is_set():
    assert parse_position(TOO_GOOD).jacoby  # bit 66 clear: GNU Backgammon reads Jacoby on
    assert not parse_position("/wEAbEjnjAVRQA:cAkAAAAAAAAE").jacoby  # bit 66 set: off
    assert not parse_position(MATCH_2_AWAY_4_AWAY).jacoby  # never in a match


def test_with_jacoby_sets_the_rule_in_money_play_only():
    money = Position()
    assert with_jacoby(money, None) is money
    assert (
        with_jacoby(money, True).jacoby
        and not with_jacoby(money.with_changes(jacoby=True), False).jacoby
    )
    match = Position(match_length=5, mover_score=3, opponent_score=1)
    assert with_jacoby(match, True) is match


def test_match_position_no_double_take(search):
    """5-point match, 2-away / 4-away, cube centred: GNU Backgammon says no double, take."""
    assert verdict(search, MATCH_2_AWAY_4_AWAY)["action"] == "No double, take"


def test_too_good_to_double_pass_without_jacoby(search):
    """GNU Backgammon: too good to double, pass (money, cube centred, no Jacoby)."""
    assert verdict(search, TOO_GOOD, jacoby=False)["action"] == "Too good to double, pass"


def test_under_jacoby_no_double_stays_below_the_cash(search):
    """The same position under Jacoby (the Match ID's own rule): not doubling is worth
    less than +1, so the double is right and the taker passes."""
    report = verdict(search, TOO_GOOD)
    assert report["no_double"] < report["double_pass"] == 1.0
    assert report["action"] == "Double, pass"


@pytest.mark.parametrize("jacoby", [None, False])
def test_double_pass(search, jacoby):
    """GNU Backgammon: double, pass, with or without Jacoby."""
    assert verdict(search, DOUBLE_PASS, jacoby=jacoby)["action"] == "Double, pass"


def test_cube_command_jacoby_options(capsys):
    status, out, _ = run(capsys, "cube", TOO_GOOD, "--plies", "0", "--no-jacoby", "--json")
    off = json.loads(out)
    assert status == 0 and off["action"] == "Too good to double, pass"
    assert not any("Jacoby rule" in line for line in off["explanation"])
    status, out, _ = run(capsys, "cube", TOO_GOOD, "--plies", "0", "--json")
    default = json.loads(out)
    assert status == 0 and any("Jacoby rule" in line for line in default["explanation"])
    assert default["no_double"] <= 1.0 < off["no_double"]
    # a match ignores the option
    plain = run(capsys, "cube", MATCH_2_AWAY_4_AWAY, "--plies", "0", "--json")[1]
    assert (
        run(capsys, "cube", MATCH_2_AWAY_4_AWAY, "--plies", "0", "--jacoby", "--json")[1] == plain
    )


def test_cube_batch_jacoby_field(capsys, monkeypatch):
    lines = [
        {"position": TOO_GOOD, "plies": 0, "jacoby": False},
        {"position": TOO_GOOD, "plies": 0},
        {"position": TOO_GOOD, "plies": 0, "jacoby": 1},
    ]
    stdin = "".join(json.dumps(line) + "\n" for line in lines)
    status, out, _ = run(capsys, "cube", "-", "--no-jacoby", stdin=stdin, monkeypatch=monkeypatch)
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(answers) == 3
    assert answers[0]["action"] == answers[1]["action"] == "Too good to double, pass"
    assert answers[2] == {"error": '"jacoby" must be true or false'}
    status, out, _ = run(capsys, "cube", "-", stdin=stdin, monkeypatch=monkeypatch)
    assert [json.loads(line).get("action") for line in out.splitlines()][:2] == [
        "Too good to double, pass",
        "Double, pass",
    ]
