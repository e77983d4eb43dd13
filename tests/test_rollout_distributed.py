"""Rollouts on Ray workers (``tdgammon rollout --workers N``, ``bench rollout --workers N``).

One seed, one answer: the same trials whether they run in this process or on
1 or 2 Ray workers, cubeless and cubeful, with the shipped network (whose
batch-invariant evaluation makes a trial independent of the batch it is
played in). Skipped without Ray (the ``distributed`` extra), except the
message that says how to install it. One local Ray instance with 2 CPUs for
the module, shut down after it.
"""

from __future__ import annotations

import json
import sys

import pytest
from cli_runner import run

from tdgammon.engine.evaluation.distributed import DistributedError, connect, split_trials

START = "4HPwATDgc/ABMA"
CONTACT = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_workers_without_ray_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    code, out, err = run(capsys, "rollout", START, "--trials", "4", "--workers", "2")
    assert code == 2 and out == ""
    install = "pip install 'tdgammon[distributed]'"
    assert err.strip() == f"tdgammon: error: --workers needs Ray: {install}"
    code, _, err = run(capsys, "bench", "rollout", "--trials", "4", "--workers", "2")
    assert code == 2 and "needs Ray" in err


def test_ray_address_needs_workers(capsys):
    code, _, err = run(capsys, "rollout", START, "--ray-address", "auto")
    assert code == 2 and "--ray-address needs --workers" in err


def test_split_trials_covers_every_trial_once():
    chunks = split_trials(5, 11, 4)
    assert [list(c) for c in chunks] == [[5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15]]
    with pytest.raises(DistributedError):
        connect(0)


@pytest.fixture(scope="module")
def ray_instance():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    ray.shutdown()


def _rollout(capsys, *options):
    code, out, err = run(capsys, "rollout", *options, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "options",
    [
        [CONTACT, "--trials", "40", "--truncate", "6"],
        [START, "--dice", "31", "--top", "2", "--trials", "12", "--truncate", "4", "--cubeful"],
    ],
    ids=["cubeless", "cubeful plays"],
)
def test_one_and_two_workers_give_the_one_process_answer(ray_instance, capsys, options):
    alone = _rollout(capsys, *options)
    for workers in ("1", "2"):
        assert _rollout(capsys, *options, "--workers", workers) == alone
    assert ray_instance.is_initialized()  # a Ray the caller started is left running


def test_batch_mode_on_workers(ray_instance, capsys, monkeypatch):
    import io

    lines = [
        {"position": CONTACT, "trials": 8, "truncate": 3},
        {"position": "nonsense"},
        {"position": START, "trials": 6, "truncate": 2, "seed": 4},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, out, _ = run(capsys, "rollout", "-", "--workers", "2")
    assert code == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == 3 and "error" in answers[1]
    single = _rollout(capsys, CONTACT, "--trials", "8", "--truncate", "3")
    assert answers[0]["equity"] == single["equity"] and answers[0]["trials"] == 8


def test_bench_rollout_on_two_workers(ray_instance, capsys):
    code, out, err = run(capsys, "bench", "rollout", "--trials", "12", "--workers", "2", "--json")
    assert code == 0, err
    row = json.loads(out)
    assert row["workers"] == 2 and row["identical_to_one_process"] is True
    assert row["workers_seconds"] > 0 and row["speedup"] == pytest.approx(
        row["seconds"] / row["workers_seconds"]
    )
