"""Batch mode (docs/formats.md, "The CLI's JSON"): each command reads its own keys, and a
line with any other key is a bad line, never an answer with the default."""

from __future__ import annotations

import json

import pytest
from cli_runner import run

from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.interfaces import cli_rollout
from tdgammon.engine.interfaces.cli_analysis import CUBE_KEYS, EVAL_KEYS, HINT_KEYS
from tdgammon.engine.interfaces.cli_positions import MOVES_KEYS, check_keys
from tdgammon.engine.interfaces.cli_rollout import ROLLOUT_KEYS
from tdgammon.engine.rules.errors import FormatError

START = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
KEYS = {
    "moves": MOVES_KEYS,
    "eval": EVAL_KEYS,
    "hint": HINT_KEYS,
    "cube": CUBE_KEYS,
    "rollout": ROLLOUT_KEYS,
}
OPTIONS = {"moves": [], "rollout": ["--trials", "2", "--truncate", "1"]}
"""Command-line options of each command's run (default: 0-ply)."""


def batch(capsys, monkeypatch, command: str, *lines: dict | str) -> list[dict]:
    """``tdgammon COMMAND -`` on ``lines`` (objects written as JSON); its answers."""
    stdin = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    argv = OPTIONS.get(command, ["--plies", "0"])
    status, out, err = run(capsys, command, "-", *argv, stdin=stdin, monkeypatch=monkeypatch)
    assert status == 0 and err == ""
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == len(lines)
    return answers


def unknown(key: str, command: str) -> dict:
    return {"error": f"unknown key {key!r} (known: {', '.join(KEYS[command])})"}


@pytest.mark.parametrize("command", list(KEYS))
@pytest.mark.parametrize(
    "key, value",
    [("plise", 3), ("dcie", [6, 6]), ("position_id", START), ("Position", START), ("", 1)],
)
def test_an_unknown_key_is_a_bad_line_and_the_run_goes_on(
    capsys, monkeypatch, pipcount, command, key, value
):
    good = {"position": START_XGID}
    first, second = batch(capsys, monkeypatch, command, {**good, key: value}, good)
    assert first == unknown(key, command)
    assert "error" not in second


def test_every_unknown_key_is_named(capsys, monkeypatch, pipcount):
    (answer,) = batch(capsys, monkeypatch, "hint", {"position": START_XGID, "a": 1, "b": 2})
    assert answer["error"].startswith("unknown keys 'a', 'b' (known: position, dice, plies)")


def test_a_very_long_unknown_key_is_cut_short():
    with pytest.raises(FormatError) as error:
        check_keys({"x" * 5000: 1}, MOVES_KEYS)
    assert len(str(error.value)) < 120 and "x..." in str(error.value)


def test_eval_misspelt_plies_is_refused_not_run_at_the_default_depth(capsys, monkeypatch, pipcount):
    plise, plies = batch(
        capsys,
        monkeypatch,
        "eval",
        {"position": START, "plise": 1},
        {"position": START, "plies": 1},
    )
    assert plise == unknown("plise", "eval")
    assert plies["plies"] == 1


def test_moves_misspelt_dice_is_refused_not_the_positions_dice(capsys, monkeypatch):
    (answer,) = batch(capsys, monkeypatch, "moves", {"position": START_XGID, "dcie": [6, 6]})
    assert answer == unknown("dcie", "moves")


@pytest.mark.parametrize("command", ["eval", "cube"])
@pytest.mark.parametrize("dice", [[9, 9], [0, 3], [5.0, 2], [True, 1], "52", [5]])
def test_eval_and_cube_check_the_dice_they_ignore(capsys, monkeypatch, pipcount, command, dice):
    """docs/formats.md: eval and cube are before rolling; a line's dice are checked
    (two whole numbers 1-6), then ignored as the position's own are."""
    bad, good, plain = batch(
        capsys,
        monkeypatch,
        command,
        {"position": START, "dice": dice},
        {"position": START, "dice": [5, 2]},
        {"position": START},
    )
    assert set(bad) == {"error"} and ("die" in bad["error"] or "dice" in bad["error"])
    assert good == plain


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            {"opening": True, "variance_reduction": False},
            {"opening": True, "variance_reduction": False},
        ),
        ({"quasi_random": False}, {"quasi_random": False, "opening": False}),
        ({}, {"opening": False, "variance_reduction": True, "quasi_random": True}),
    ],
)
def test_rollout_lines_set_the_options_named_as_in_the_answer(
    capsys, monkeypatch, pipcount, line, expected
):
    (answer,) = batch(capsys, monkeypatch, "rollout", {"position": START, **line})
    assert {key: answer[key] for key in expected} == expected


def test_rollout_options_on_the_command_line_are_the_lines_defaults(capsys, monkeypatch, pipcount):
    stdin = "".join(
        json.dumps(line) + "\n"
        for line in [{"position": START}, {"position": START, "opening": False}]
    )
    argv = ["--trials", "2", "--truncate", "1", "--opening", "--no-variance-reduction"]
    status, out, _ = run(capsys, "rollout", "-", *argv, stdin=stdin, monkeypatch=monkeypatch)
    default, overridden = (json.loads(line) for line in out.splitlines())
    assert status == 0
    assert default["opening"] is True and default["variance_reduction"] is False
    assert overridden["opening"] is False and overridden["variance_reduction"] is False


def test_rollout_bearoff_truncate_is_read(monkeypatch):
    seen = []
    monkeypatch.setattr(cli_rollout, "rollout_report", lambda *a, **kw: seen.append(kw) or {})
    args = cli_rollout_defaults()
    cli_rollout.rollout_request(None, args, {"position": START, "bearoff_truncate": True})
    cli_rollout.rollout_request(None, args, {"position": START})
    assert [kw["settings"].bearoff_truncate for kw in seen] == [True, False]


def cli_rollout_defaults():
    from tdgammon.engine.interfaces.serve_analysis import command_defaults

    return command_defaults(cli_rollout, ["rollout", "-"])


@pytest.mark.parametrize(
    "key", ["opening", "variance_reduction", "quasi_random", "bearoff_truncate", "cubeful"]
)
@pytest.mark.parametrize("value", ["yes", 1, 0, None])
def test_rollout_flags_must_be_true_or_false(capsys, monkeypatch, pipcount, key, value):
    (answer,) = batch(capsys, monkeypatch, "rollout", {"position": START, key: value})
    assert answer == {"error": f'"{key}" must be true or false'}


def test_serve_show_refuses_an_unknown_key():
    from tdgammon.engine.interfaces.serve_analysis import Analysis

    analysis = Analysis(Search(PipCountEvaluator()), plies=0)
    assert analysis.show({"position": START})["position_id"] == START
    with pytest.raises(FormatError, match=r"unknown key 'svg' \(known: position\)"):
        analysis.show({"position": START, "svg": True})
