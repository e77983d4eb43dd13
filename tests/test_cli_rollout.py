"""tdgammon rollout / bench rollout: text, JSON contract, plays, batch mode, Ctrl-C, errors.

The commands run with the torch-free stand-in evaluator (``PipCountEvaluator``)
except where a test says otherwise: the rollout itself is tested in
tests/test_rollout.py.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from cli_runner import run

from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.interfaces import cli_rollout

START = "4HPwATDgc/ABMA"
MATCH_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:5:10"
PROBABILITY_KEYS = ["win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"]
REPORT_KEYS = {
    "position",
    "trials",
    "probabilities",
    "equity",
    "equity_ci95",
    "cubeful_equity",
    "cubeful_equity_ci95",
    "plays",
}


@pytest.fixture
def pipcount(monkeypatch):
    search = Search(PipCountEvaluator())
    monkeypatch.setattr(cli_rollout, "load_search", lambda model=None: search)
    return search


def test_rollout_json_contract(capsys, pipcount):
    code, out, err = run(capsys, "rollout", START, "--trials", "40", "--truncate", "6", "--json")
    assert code == 0 and err == ""
    report = json.loads(out)
    assert REPORT_KEYS <= set(report)
    assert report["position"] == START and report["trials"] == 40
    assert list(report["probabilities"]) == PROBABILITY_KEYS
    assert list(report["probabilities_ci95"]) == PROBABILITY_KEYS
    assert report["cubeful_equity"] is None and report["cubeful_equity_ci95"] is None
    assert report["plays"] == [] and report["dice"] is None
    assert report["equity_ci95"] == pytest.approx(1.959964 * report["equity_se"])
    assert report["variance_reduction"] and report["quasi_random"] and not report["interrupted"]


def test_rollout_text(capsys, pipcount):
    code, out, _ = run(capsys, "rollout", START, "--trials", "12", "--truncate", "3")
    assert code == 0
    assert "player on roll" in out and "12 trials" in out and "cubeless equity" in out


def test_same_seed_same_answer_other_seed_other_answer(capsys, pipcount):
    argv = ["rollout", START, "--trials", "20", "--truncate", "8", "--json"]
    first = json.loads(run(capsys, *argv)[1])
    again = json.loads(run(capsys, *argv)[1])
    other = json.loads(run(capsys, *argv, "--seed", "3")[1])
    assert first == again
    assert other["equity"] != first["equity"]


def test_rollout_of_the_plays_of_a_roll(capsys, pipcount):
    code, out, _ = run(
        capsys, "rollout", START, "--dice", "31", "--top", "3", "--trials", "24",
        "--truncate", "4", "--json",
    )  # fmt: skip
    assert code == 0
    report = json.loads(out)
    plays = report["plays"]
    assert len(plays) == 3 and report["dice"] == [3, 1]
    equities = [p["equity"] for p in plays]
    assert equities == sorted(equities, reverse=True)
    assert plays[0]["loss"] == 0 and all(p["loss"] >= 0 for p in plays)
    assert report["equity"] == plays[0]["equity"]
    for p in plays:
        assert {"move", "position_id_after", "equity", "equity_ci95", "loss"} <= set(p)
        assert p["cubeful_equity"] is None
    code, out, _ = run(capsys, "rollout", START, "--dice", "31", "--trials", "4", "--truncate", "2")
    assert code == 0 and "8/5 6/5" in out and "Rollout of the plays of 31" in out


def test_batch_mode_one_answer_per_line(capsys, pipcount, monkeypatch):
    lines = "\n".join(
        [
            json.dumps({"position": START, "trials": 6}),
            "not json",
            json.dumps({"position": "nonsense"}),
            json.dumps({"position": START, "dice": [6, 5], "top": 2, "trials": 4}),
            json.dumps({"position": START, "trials": 0}),
            json.dumps({"position": START, "plies": 9}),
            json.dumps({"position": START, "cubeful": "yes"}),
        ]
    )
    code, out, _ = run(
        capsys, "rollout", "-", "--truncate", "3", stdin=lines, monkeypatch=monkeypatch
    )
    answers = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(answers) == 7
    assert answers[0]["trials"] == 6 and answers[0]["plays"] == []
    assert "error" in answers[1] and "error" in answers[2]
    assert len(answers[3]["plays"]) == 2 and answers[3]["trials"] == 4
    assert "trials" in answers[4]["error"] and "plies" in answers[5]["error"]
    assert "cubeful" in answers[6]["error"]


def _ctrl_c_after_the_first_batch(monkeypatch):
    """``trial_batches`` that yields its first batch, then gets Ctrl-C."""
    real = cli_rollout.trial_batches

    def interrupted(*args, **kwargs):
        batches = real(*args, **kwargs)
        yield next(batches)
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_rollout, "trial_batches", interrupted)


def test_ctrl_c_reports_the_finished_batches(capsys, pipcount, monkeypatch):
    _ctrl_c_after_the_first_batch(monkeypatch)
    argv = ["rollout", START, "--trials", "700", "--truncate", "1", "--threads", "1", "--json"]
    code, out, err = run(capsys, *argv)
    report = json.loads(out)
    assert code == 130 and report["interrupted"]
    assert report["trials"] == 324
    assert "interrupted" in err

    def at_once(*args, **kwargs):
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(cli_rollout, "trial_batches", at_once)
    code, out, err = run(capsys, "rollout", START, "--trials", "10")
    assert code == 130 and out == "" and "interrupted" in err


def test_cubeful_rollout(capsys, pipcount):
    argv = ["rollout", START, "--trials", "12", "--truncate", "4", "--cubeful", "--json"]
    report = json.loads(run(capsys, *argv)[1])
    assert report["cubeful"] and isinstance(report["cubeful_equity"], float)
    assert report["cubeful_equity_ci95"] >= 0 and "cubeful_mwc" not in report
    match = json.loads(run(capsys, *argv[:1], MATCH_XGID, *argv[2:])[1])
    assert 0 <= match["cubeful_mwc"] <= 1 and isinstance(match["cubeful_equity"], float)
    code, out, _ = run(capsys, *argv[:-1], "--dice", "31", "--top", "2")
    assert code == 0 and "cubeful" in out and out.count("equity") == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["rollout", "nonsense"], "not an XGID"),
        (["rollout", START, "--trials", "0"], "trials"),
        (["rollout", START, "--plies", "5"], "plies"),
        (["rollout", START, "--truncate", "-1"], "truncate"),
        (["rollout", START, "--seed", "-4"], "seed"),
        (["rollout", START, "--dice", "77"], "die"),
        (["rollout", START, "--dice", "31", "--top", "0"], "top"),
        (["rollout", START, "--dice", "31", "--opening"], "opening"),
        (["rollout", START, "--cubeful", "--opening"], "opening"),
        (["rollout", "AAAAwP8fAAAAAA"], "the game is over"),
        (["rollout", START, "--threads", "0"], "threads"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, pipcount, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("tdgammon: error:") and message in err and err.count("\n") == 1


def test_bench_rollout(capsys, pipcount):
    code, out, _ = run(capsys, "bench", "rollout", "--trials", "8", "--json")
    assert code == 0
    row = json.loads(out)
    assert row["trials"] == 8 and row["trials_per_second"] > 0 and row["plies"] == 0
    assert row["equity_se"] <= row["equity_se_without_variance_reduction"]
    code, out, _ = run(capsys, "bench", "rollout", "--trials", "4")
    assert code == 0 and "trials/s" in out


@pytest.mark.parametrize(
    "extra", [[], ["--dice", "31", "--top", "3"], ["--cubeful"]], ids=["position", "plays", "cube"]
)
def test_threads_give_the_one_thread_answer(capsys, pipcount, extra):
    argv = ["rollout", START, "--trials", "50", "--truncate", "5", "--json", *extra]
    one = json.loads(run(capsys, *argv, "--threads", "1")[1])
    for threads in ("2", "3"):
        assert json.loads(run(capsys, *argv, "--threads", threads)[1]) == one


def test_ctrl_c_on_threads_stops_them_and_reports_the_finished_chunks(
    capsys, pipcount, monkeypatch
):
    _ctrl_c_after_the_first_batch(monkeypatch)
    argv = ["rollout", START, "--trials", "90", "--truncate", "30", "--threads", "3", "--json"]
    code, out, _ = run(capsys, *argv)
    report = json.loads(out)
    assert code == 130 and report["interrupted"] and report["trials"] == 30

    def rollout_threads():
        return [t for t in threading.enumerate() if t.name.startswith("rollout")]

    deadline = time.monotonic() + 60
    while rollout_threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not rollout_threads()  # the threads stopped instead of playing on


def test_bench_rollout_on_threads(capsys, pipcount):
    code, out, _ = run(capsys, "bench", "rollout", "--trials", "10", "--threads", "2", "--json")
    row = json.loads(out)
    assert code == 0 and row["threads"] == 2 and row["threads_identical_to_one_thread"]
    assert row["threads_seconds"] > 0 and row["threads_speedup"] > 0


def test_same_trials_means_the_same_games_and_values_to_the_last_bits():
    """bench rollout's check across threads and workers: the games must match bit for
    bit; a luck-adjusted value may differ in its last bit (another batch sums its
    floats in another order: 4e-16 seen with the session-16 weights), not more."""
    import dataclasses

    import numpy as np

    from tdgammon.engine.evaluation.rollout import RolloutSettings, rollout_trials
    from tdgammon.engine.rules.board import starting_board

    search = Search(PipCountEvaluator())
    results = rollout_trials(search, starting_board(), range(4), RolloutSettings(truncate=4))
    last_bits = results.probabilities + 4e-16
    assert cli_rollout._identical(dataclasses.replace(results, probabilities=last_bits), results)
    moved = results.probabilities + 1e-9
    assert not cli_rollout._identical(dataclasses.replace(results, probabilities=moved), results)
    other_game = results.plies + np.eye(*results.plies.shape, dtype=results.plies.dtype)
    assert not cli_rollout._identical(dataclasses.replace(results, plies=other_game), results)
