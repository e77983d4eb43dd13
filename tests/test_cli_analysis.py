"""tdgammon eval / hint / cube / bench analysis: JSON contract, batch mode, errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_runner import run

from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.formats.position_id import encode_position_id
from tdgammon.engine.interfaces import cli_analysis
from tdgammon.engine.movegen.vectorized import generate_moves

START = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
MATCH_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:5:10"
PROBABILITY_KEYS = ["win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from tdgammon.models.network import PRESETS, build_network, save_model

    path = tmp_path_factory.mktemp("cli") / "tiny.pt"
    save_model(path, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=2))
    return str(path)


@pytest.fixture
def pipcount(monkeypatch):
    """Commands without --model get the torch-free stand-in evaluator."""
    search = Search(PipCountEvaluator())
    monkeypatch.setattr(cli_analysis, "load_search", lambda model=None: search)
    return search


def test_hint_json_contract(capsys, pipcount):
    code, out, err = run(capsys, "hint", START, "--dice", "52", "--plies", "1", "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    moves = report["moves"]
    legal = generate_moves(np.array([pipcount_board()]), np.array([[5, 2]]))
    assert len(moves) == len(legal)
    assert {encode_position_id(b) for b in legal.boards} == {m["position_id_after"] for m in moves}
    for m in moves:
        assert {"move", "position_id_after", "equity", "loss", "probabilities"} <= set(m)
        assert list(m["probabilities"]) == PROBABILITY_KEYS
        assert m["loss"] == pytest.approx(moves[0]["equity"] - m["equity"])
    assert moves[0]["loss"] == 0
    assert moves[0]["plies"] == 1
    assert all(a["plies"] >= b["plies"] for a, b in zip(moves, moves[1:], strict=False))


def pipcount_board():
    from tdgammon.engine.formats.parse import parse_position

    return parse_position(START).board


def test_hint_takes_dice_from_the_position(capsys, pipcount):
    code, out, _ = run(capsys, "hint", START_XGID, "--plies", "0", "--json")
    assert code == 0 and json.loads(out)["dice"] == [5, 2]


def test_hint_text(capsys, pipcount):
    code, out, _ = run(capsys, "hint", START, "--dice", "31", "--plies", "0")
    assert code == 0 and "roll 31" in out and "1. 0-ply" in out


def test_eval_json_money_and_match(capsys, pipcount):
    code, out, _ = run(capsys, "eval", START, "--plies", "1", "--json")
    report = json.loads(out)
    assert code == 0 and list(report["probabilities"]) == PROBABILITY_KEYS
    assert {"equity", "cubeful_equity"} <= set(report) and "mwc" not in report
    p = np.array([report["probabilities"][k] for k in PROBABILITY_KEYS])
    expected = pipcount.evaluate(pipcount_board(), 1)
    np.testing.assert_allclose(p, expected, atol=1e-6)
    code, out, _ = run(capsys, "eval", MATCH_XGID, "--plies", "0", "--json")
    report = json.loads(out)
    assert code == 0 and 0 < report["mwc"] < 1


def test_eval_text(capsys, pipcount):
    code, out, _ = run(capsys, "eval", MATCH_XGID, "--plies", "0")
    assert code == 0 and "cubeful equity" in out and "match winning chance" in out


def test_cube_json_contract(capsys, pipcount):
    code, out, _ = run(capsys, "cube", START, "--plies", "0", "--json")
    report = json.loads(out)
    assert code == 0
    for key in (
        "action",
        "no_double",
        "double_take",
        "double_pass",
        "take_point",
        "cash_point",
        "probabilities",
    ):
        assert key in report
    assert report["action"] == "No double, take"
    code, out, _ = run(capsys, "cube", MATCH_XGID, "--plies", "0")
    assert code == 0 and "No double" in out


def test_batch_mode_one_answer_per_line(capsys, pipcount, monkeypatch):
    lines = "\n".join(
        [
            json.dumps({"position": START, "dice": [5, 2]}),
            "not json",
            json.dumps({"position": "nonsense", "dice": [5, 2]}),
            json.dumps({"position": START}),
            json.dumps({"position": START, "dice": [6, 6], "plies": 1}),
            json.dumps({"position": START, "dice": [6, 6], "plies": 7}),
        ]
    )
    code, out, _ = run(capsys, "hint", "-", "--plies", "0", stdin=lines, monkeypatch=monkeypatch)
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == 6
    assert answers[0]["moves"][0]["plies"] == 0
    assert "error" in answers[1] and "error" in answers[2]
    assert "dice" in answers[3]["error"]
    assert answers[4]["moves"][0]["plies"] == 1
    assert "plies" in answers[5]["error"]
    for command in ("eval", "cube"):
        stdin = json.dumps({"position": START}) + "\n[1, 2]\n"
        code, out, _ = run(
            capsys, command, "-", "--plies", "0", stdin=stdin, monkeypatch=monkeypatch
        )
        first, second = (json.loads(line) for line in out.splitlines())
        assert code == 0 and "error" not in first and "error" in second


def test_hint_batch_mode_uses_dice_option_for_lines_without_dice(capsys, pipcount, monkeypatch):
    """A line's own dice, else --dice, else the position's dice (docs/formats.md)."""
    lines = [{"position": START}, {"position": START_XGID}, {"position": START, "dice": [6, 6]}]
    stdin = "\n".join(json.dumps(line) for line in lines)
    code, out, _ = run(
        capsys, "hint", "-", "--dice", "31", "--plies", "0", stdin=stdin, monkeypatch=monkeypatch
    )
    assert code == 0
    assert [json.loads(line)["dice"] for line in out.splitlines()] == [[3, 1], [3, 1], [6, 6]]


def test_real_network_through_model_option(capsys, tiny_model):
    code, out, err = run(
        capsys, "hint", START, "--dice", "64", "--plies", "1", "--json", "--model", tiny_model
    )
    assert code == 0 and err == "" and json.loads(out)["moves"]
    code, out, _ = run(capsys, "eval", START, "--plies", "1", "--model", tiny_model, "--json")
    assert code == 0 and "equity" in json.loads(out)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["hint", START], "no dice"),
        (["hint", START, "--dice", "72"], "die 7"),
        (["hint", START, "--dice", "52", "--plies", "9"], "plies"),
        (["eval", "garbage"], "not an XGID"),
        (["cube", START, "--plies", "-1"], "plies"),
        (["eval", START, "--model", "/nonexistent/model.pt"], "no such tdgammon model"),
        (["eval", START, "--model", "models/tdgammon-dutch.pt"], "trained for dutch"),
        (["hint", START, "--dice", "52", "--model", "models/tdgammon-dutch.pt"], "not standard"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_bench_analysis_reports_each_depth(pipcount):
    timings = cli_analysis.bench_analysis(pipcount, decisions=2, plies=(0, 1))
    assert set(timings) == {0, 1} and all(t > 0 for t in timings.values())
