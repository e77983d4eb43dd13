"""The ``tdgammon`` command line: show, moves (text, JSON, batch), bench, errors.

Every malformed input must give exit status 2 and exactly one line on stderr,
never a traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from cli_runner import run

from tdgammon.engine.formats import decode_position_id
from tdgammon.engine.movegen import compiled
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.rules.board import starting_board

START_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


def test_show_prints_board_pips_cube_and_ids(capsys):
    status, out, err = run(capsys, "show", START_XGID)
    assert status == 0 and err == ""
    assert "Pip count   X: 167   O: 167" in out
    assert START_ID in out and "XGID=" in out and "Cube: 1" in out


def test_moves_json_follows_the_contract(capsys):
    status, out, _ = run(capsys, "moves", START_ID, "--dice", "52", "--json")
    assert status == 0
    report = json.loads(out)
    assert report["position_id"] == START_ID and report["dice"] == [5, 2]
    expected = {p.board for p in legal_plays(starting_board(), (5, 2))}
    assert len(report["moves"]) == len(expected) == 8
    assert {tuple(m["board_after"]) for m in report["moves"]} == expected
    for entry in report["moves"]:
        assert np.array_equal(
            decode_position_id(entry["position_id_after"]), np.array(entry["board_after"])
        )
    assert "13/8 13/11" in {m["move"] for m in report["moves"]} or "13/11 13/8" in {
        m["move"] for m in report["moves"]
    }


def test_moves_takes_dice_from_the_xgid(capsys):
    status, out, _ = run(capsys, "moves", START_XGID, "--json")
    assert status == 0 and json.loads(out)["dice"] == [5, 2]


def test_moves_with_no_legal_play_gives_an_empty_list(capsys):
    # Mover on the bar against a closed board: nothing can be played.
    from tdgammon.engine.formats import encode_position_id
    from tdgammon.engine.rules.board import board_from_points

    board = board_from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 12: 3})
    status, out, _ = run(capsys, "moves", encode_position_id(board), "--dice", "63", "--json")
    assert status == 0 and json.loads(out)["moves"] == []
    status, out, _ = run(capsys, "moves", encode_position_id(board), "--dice", "63")
    assert "no legal play" in out


def test_moves_batch_mode_answers_every_line_in_order(capsys, monkeypatch):
    lines = "\n".join(
        [
            json.dumps({"position": START_ID, "dice": [6, 6]}),
            "not json",
            json.dumps({"position": "garbage", "dice": [1, 2]}),
            json.dumps({"position": START_ID, "dice": [7, 1]}),
            json.dumps({"position": START_ID}),
            json.dumps([1, 2]),
            json.dumps({"position": START_XGID}),
        ]
    )
    status, out, _ = run(capsys, "moves", "-", stdin=lines, monkeypatch=monkeypatch)
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(answers) == 7
    assert len(answers[0]["moves"]) == len(legal_plays(starting_board(), (6, 6)))
    for bad in answers[1:6]:
        assert set(bad) == {"error"} and bad["error"]
    assert answers[6]["dice"] == [5, 2]


def test_moves_batch_mode_takes_dice_as_json_integers_only(capsys, monkeypatch):
    """docs/formats.md batch mode: 5.9 is not 5 and true is not 1."""
    raw = ["[5.9, 2]", "[true, true]", '["5", "2"]', "[5]", "[1e400, 2]", "[NaN, 2]", "[5, 2]"]
    lines = "\n".join(f'{{"position": "{START_ID}", "dice": {dice}}}' for dice in raw)
    status, out, err = run(capsys, "moves", "-", stdin=lines, monkeypatch=monkeypatch)
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and err == "" and len(answers) == len(raw)
    assert all(set(a) == {"error"} for a in answers[:-1])
    assert "two whole numbers" in answers[0]["error"] and "NaN" in answers[5]["error"]
    assert answers[-1]["dice"] == [5, 2]


def test_moves_batch_mode_uses_dice_option_for_lines_without_dice(capsys, monkeypatch):
    """A line's own dice, else --dice, else the position's dice (docs/formats.md)."""
    lines = "\n".join(
        json.dumps(line)
        for line in [
            {"position": START_ID},
            {"position": START_XGID},
            {"position": START_ID, "dice": [6, 6]},
        ]
    )
    status, out, _ = run(capsys, "moves", "-", "--dice", "31", stdin=lines, monkeypatch=monkeypatch)
    assert status == 0
    assert [json.loads(line)["dice"] for line in out.splitlines()] == [[3, 1], [3, 1], [6, 6]]


def test_moves_batch_mode_under_a_strict_utf8_locale_reports_a_bad_line():
    """Bytes that are not UTF-8 spoil their own line only, whatever the locale."""
    good = json.dumps({"position": START_ID, "dice": [5, 2]}).encode()
    proc = subprocess.run(
        [sys.executable, "-m", "tdgammon.engine.interfaces.cli", "moves", "-"],
        input=good + b"\n\xff\xfe{}\n" + good + b"\n",
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
        check=False,
    )
    first, bad, last = (json.loads(line) for line in proc.stdout.splitlines())
    assert proc.returncode == 0 and proc.stderr == b""
    assert first == last and first["dice"] == [5, 2]
    assert bad == {"error": "the line is not UTF-8 text (byte 0xff at column 1)"}


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["show", "garbage"], "is not an XGID"),
        (["show", "4HPwATDgc/ABM"], "is not an XGID"),
        (["show", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0"], "XGID"),
        (["moves", START_ID, "--dice", "72"], "out of range"),
        (["moves", START_ID, "--dice", "5"], "two numbers"),
        (["moves", START_ID, "--dice", "ab"], "two numbers"),
        (["moves", START_ID, "--dice", "²2"], "two numbers"),  # str.isdigit says yes
        (["moves", START_ID, "--dice", "①2"], "two numbers"),
        (["moves", START_ID, "--dice", "٥2"], "two numbers"),  # int() reads it as 5
        (["moves", START_ID], "no dice"),
        (["moves", "//////////////", "--dice", "52"], ""),
        (["bench", "movegen", "--batch-sizes", "x"], "batch-sizes"),
        (["bench", "movegen", "--sample", "0"], "--sample must be at least 1, got 0"),
        (["bench", "match-analysis", "--threads", "0"], "--threads must be at least 1, got 0"),
        (["bench", "selfplay", "--threads", "-2"], "--threads must be at least 1, got -2"),
        (["bench", "movegen", "--sample", "10", "--batch-sizes", "1,64"], "larger than the sample"),
        (["bench", "nothing"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_input_gives_one_line_and_status_2(capsys, argv, fragment):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("tdgammon: error: ")
    assert fragment in err
    assert "Traceback" not in err


def test_console_script_exits_nonzero_without_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "tdgammon.engine.interfaces.cli", "moves", "zzz", "--dice", "52"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr


def test_bench_movegen_reports_every_batch_size(capsys):
    status, out, _ = run(
        capsys,
        "bench",
        "movegen",
        "--batch-sizes",
        "1,64",
        "--sample",
        "256",
        "--seconds",
        "0.05",
        "--json",
    )
    rows = json.loads(out)
    assert status == 0
    generators = (["compiled"] if compiled.available() else []) + ["numpy"]
    assert [(r["generator"], r["batch_size"]) for r in rows] == [
        (name, size) for name in generators for size in (1, 64)
    ] + [("reference", 1)]
    assert all(r["plays"] > 0 and r["plays_per_second"] > 0 for r in rows)


# ------------------------------------------------------------ internal errors and --debug


@pytest.fixture
def broken_show(monkeypatch):
    """``tdgammon show`` hits a bug: a RuntimeError, not a TdgammonError."""
    from tdgammon.engine.interfaces import cli_positions

    def cmd_show(args):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli_positions, "cmd_show", cmd_show)
    monkeypatch.delenv("TDGAMMON_DEBUG", raising=False)


def test_internal_error_is_one_line_status_3_and_names_the_debug_flag(capsys, broken_show):
    status, _, err = run(capsys, "show", START_XGID)
    assert status == 3 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("tdgammon: internal error (please report it): RuntimeError: boom")
    assert "run with --debug for the traceback" in err


def test_debug_flag_shows_the_traceback(capsys, broken_show):
    status, _, err = run(capsys, "--debug", "show", START_XGID)
    assert status == 3 and "Traceback" in err and "cmd_show" in err
    assert err.rstrip("\n").splitlines()[-1].startswith("tdgammon: internal error")
    # the flag is per run: the next run without it prints one line again
    status, _, err = run(capsys, "show", START_XGID)
    assert status == 3 and "Traceback" not in err and err.count("\n") == 1


def test_debug_environment_variable_does_the_same(capsys, broken_show, monkeypatch):
    monkeypatch.setenv("TDGAMMON_DEBUG", "1")
    status, _, err = run(capsys, "show", START_XGID)
    assert status == 3 and "Traceback" in err and "--debug for" not in err


def test_debug_flag_does_not_change_bad_input_errors(capsys):
    status, out, err = run(capsys, "--debug", "show", "garbage")
    assert status == 2 and err.startswith("tdgammon: error: ") and "Traceback" not in err
    from tdgammon.engine.interfaces.cli import build_parser

    assert "--debug" in build_parser().format_help()
