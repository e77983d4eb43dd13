"""Fuzzing training (issue 19): kills at random points, and every setting at its edges.

- A run killed anywhere (in process: a ``Killed`` raised at a random instrumented
  point; long form: a real SIGKILL of ``tdgammon train`` at a random moment) and
  resumed ends with the weights, counters, metrics rows and best model of the
  same run in one go (``test_train_smoke.py::test_resume_is_exact`` splits a run
  once at a checkpoint).
- Every numeric setting at NaN, infinity, zero, negative and huge values is
  either accepted within its documented range or refused with one line naming
  it (exit status 2); sampled edge values are run through ``tdgammon train``.

The quick forms take seconds. ``TDGAMMON_CHAOS_GAMES`` (the gate of the long
stress runs of ``tests/test_match.py``) turns on the long forms: more examples,
longer runs and real SIGKILLs; ``TDGAMMON_SEED`` seeds the kill times.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch
from conftest import tiny_training_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tdgammon.engine.interfaces.cli import main
from tdgammon.models.network import load_model
from tdgammon.train import loop
from tdgammon.train.checkpoint import load_checkpoint
from tdgammon.train.config import (
    LIMITS,
    Config,
    ConfigError,
    config_to_dict,
    get_setting,
    load_config,
)

LONG = "TDGAMMON_CHAOS_GAMES" in os.environ
"""Long forms on (the environment gate of the stress runs)."""
KILL_RUNS = settings(
    max_examples=25 if LONG else 2,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Examples of killed runs (each a few tiny sessions)."""
EDGE_RUNS = settings(
    max_examples=100 if LONG else 6,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Examples of runs with a setting at an edge (each a tiny run, or a refusal)."""
QUICK_GAMES = 8
"""Games of the quick killed runs: two evaluations and checkpoints."""

FLASH = {
    "selfplay": {"parallel_games": 8},
    "td": {"update_positions": 64, "minibatch_size": 32},
    "eval": {"every_games": 4, "pubeval_games": 2, "best_games": 2, "parallel_pairs": 2},
    "run": {"checkpoint_games": 4, "checkpoint_minutes": 1e9},
}
"""A run of seconds: an evaluation and a checkpoint every 4 games (in the same cycle,
so a kill between the two is the case of issue 19, item 9)."""


def _write_config(folder: Path, max_games: int) -> Path:
    """``folder/flash.toml``: FLASH up to ``max_games``, run folder ``folder/run``."""
    run = dict(FLASH["run"], max_games=max_games)
    path = folder / "flash.toml"
    path.write_text(tiny_training_config(folder / "run", **dict(FLASH, run=run)))
    return path


def _outcome(run_dir: Path) -> dict:
    """What must not depend on kills: weights, counters, metrics rows (less wall
    times), best.pt and the checkpoint's copy of it."""
    data = load_checkpoint(run_dir / "checkpoint.pt")
    rows = [
        json.loads(line, parse_constant=_not_json)
        for line in (run_dir / "metrics.jsonl").read_text().splitlines()
    ]
    for row in rows:
        row.pop("train_seconds")
    _, best, card = load_model(run_dir / "best.pt")
    return {
        "weights": data["model"]["state_dict"],
        "counters": {k: v for k, v in data["counters"].items() if k != "seconds"},
        "metrics": rows,
        "best": best.state_dict(),
        "best_games": card["games"],
        "saved_best": data["best"]["model"]["state_dict"],
    }


def _not_json(name: str):
    raise ValueError(f"metrics.jsonl holds {name}, which is not JSON")


def _assert_same(a: dict, b: dict) -> None:
    for key in ("counters", "metrics", "best_games"):
        assert a[key] == b[key], key
    for key in ("weights", "best", "saved_best"):
        assert a[key].keys() == b[key].keys()
        for name, tensor in a[key].items():
            assert torch.equal(tensor, b[key][name]), (key, name)


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """``straight(max_games)``: the outcome of the run in one go (cached)."""
    done: dict[int, dict] = {}

    def outcome(max_games: int) -> dict:
        if max_games not in done:
            folder = tmp_path_factory.mktemp("straight")
            assert main(["train", "--config", str(_write_config(folder, max_games))]) == 0
            done[max_games] = _outcome(folder / "run")
        return done[max_games]

    return outcome


# ------------------------------------------------------------ kills in process


class Killed(BaseException):
    """A simulated SIGKILL: nothing in the trainer catches it."""


EVENTS = {
    "cycle": False,  # after an update cycle: nothing of it saved
    "evaluate": False,  # after an evaluation: best.pt written, no metrics row yet
    "save_checkpoint": True,  # before a checkpoint: the evaluation's row is written
    "atomic_torch_save": True,  # before best.pt is written (or put back on resume)
}
"""Instrumented functions of ``tdgammon.train.loop`` -> kill before (True) or after."""


class _Killer:
    """Raises ``Killed`` at the ``count``-th call of ``event`` (before or after it: EVENTS)."""

    def __init__(self, event: str, count: int) -> None:
        self.event = event
        self.count = count
        self.calls = 0

    def wrap(self, name: str, function):
        def wrapped(*args, **kwargs):
            hit = name == self.event and self._tick()
            if hit and EVENTS[name]:
                raise Killed
            result = function(*args, **kwargs)
            if hit:
                raise Killed
            return result

        return wrapped

    def _tick(self) -> bool:
        self.calls += 1
        return self.calls == self.count


def _run_killed(argv: list[str], event: str, count: int) -> bool:
    """``main(argv)`` killed at the ``count``-th call of ``event``; True if it finished."""
    killer = _Killer(event, count)
    with pytest.MonkeyPatch.context() as patch:
        for name in EVENTS:
            owner = loop.Trainer if hasattr(loop.Trainer, name) else loop
            patch.setattr(owner, name, killer.wrap(name, getattr(owner, name)))
        try:
            status = main(argv)
        except Killed:
            return False
    assert status == 0
    return True


def _train_until_done(folder: Path, config: Path, kills: list[tuple[str, int]]) -> None:
    """Start, and after each kill resume (or start again if nothing was saved yet)."""
    run_dir = folder / "run"
    for event, count in [*kills, ("cycle", 0)]:
        if (run_dir / "checkpoint.pt").exists():
            argv = ["train", "--resume", str(run_dir)]
        else:
            argv = ["train", "--config", str(config)]
        if _run_killed(argv, event, count):
            return
    raise AssertionError("the last session must finish")


KILLS = st.lists(
    st.tuples(st.sampled_from(sorted(EVENTS)), st.integers(1, 8)), min_size=1, max_size=3
)
"""One to three kills: (function, the how-many-th call of it in that session)."""


def test_a_kill_between_an_evaluation_and_its_checkpoint_leaves_no_trace(straight, tmp_path):
    # the second checkpoint follows the second evaluation, its metrics row and best.pt
    config = _write_config(tmp_path, QUICK_GAMES)
    _train_until_done(tmp_path, config, [("save_checkpoint", 2)])
    _assert_same(_outcome(tmp_path / "run"), straight(QUICK_GAMES))


@KILL_RUNS
@given(kills=KILLS)
def test_killed_anywhere_and_resumed_gives_the_run_in_one_go(straight, kills):
    max_games = 24 if LONG else QUICK_GAMES
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        _train_until_done(folder, _write_config(folder, max_games), kills)
        _assert_same(_outcome(folder / "run"), straight(max_games))


@pytest.mark.skipif(not LONG, reason="long form: set TDGAMMON_CHAOS_GAMES")
def test_sigkilled_at_random_moments_and_resumed_gives_the_run_in_one_go(straight, tmp_path):
    seed = int(os.environ.get("TDGAMMON_SEED", "7"))
    rng = random.Random(seed)
    max_games = 48
    config = _write_config(tmp_path, max_games)
    run_dir = tmp_path / "run"
    kills = 0
    while True:
        if (run_dir / "checkpoint.pt").exists():
            argv = ["--resume", str(run_dir)]
        else:
            argv = ["--config", str(config)]
        process = subprocess.Popen(
            [sys.executable, "-m", "tdgammon", "train", *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            err = process.communicate(timeout=rng.uniform(2.0, 20.0))[1]
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.communicate()
            kills += 1
            assert kills < 100, f"seed {seed}: the run does not finish"
            continue
        assert process.returncode == 0, err
        break
    print(f"SIGKILLed {kills} times (seed {seed})")
    _assert_same(_outcome(run_dir), straight(max_games))


# ------------------------------------------------------------ settings at their edges

NUMERIC = sorted(
    f"{section}.{key}"
    for section, values in config_to_dict(Config()).items()
    for key, value in values.items()
    if isinstance(value, int | float) and not isinstance(value, bool)
)
EDGES = (
    "nan",
    "inf",
    "-inf",
    "0",
    "-0.0",
    "-1",
    "-1e-300",
    "1e-300",
    "1e308",
    str(2**63 - 1),
    "1" + "0" * 30,
)
"""NaN, infinities, zero, negative and huge values as ``--set`` writes them."""


def _accepted(key: str, text: str):
    """The value ``key=text`` takes in a config, or None if it is refused (by name)."""
    try:
        config = load_config(None, [f"{key}={text}"])
    except ConfigError as error:
        message = str(error)
        assert message.startswith(f"{key} ") and "\n" not in message, message
        return None
    value = get_setting(config, key)
    assert LIMITS[key].allows(value), (key, text, value)
    return value


@pytest.mark.parametrize("key", NUMERIC)
def test_a_setting_at_any_edge_is_accepted_in_range_or_refused_by_name(key):
    values = [_accepted(key, text) for text in EDGES]
    assert all(value is None or math.isfinite(value) for value in values)
    assert values[EDGES.index("nan")] is None


RUNNABLE = [key for key in NUMERIC if key != "selfplay.workers"]
"""Every setting but the Ray actors (tests/test_train_distributed.py starts those)."""
COSTLY = {
    "selfplay.parallel_games",
    "td.update_positions",
    "eval.pubeval_games",
    "eval.best_games",
    "run.threads",
}
"""Settings whose large values are valid but make a run long: run only up to 64."""


@EDGE_RUNS
@given(key=st.sampled_from(RUNNABLE), text=st.sampled_from((*EDGES, "1", "2", "64")))
def test_a_run_with_a_setting_at_an_edge_ends_cleanly(key, text):
    value = _accepted(key, text)
    if value is not None and key in COSTLY and value > 64:
        return
    threads = torch.get_num_threads()
    err = io.StringIO()
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        argv = ["train", "--config", str(_write_config(folder, 8))]
        argv += ["--set", "run.max_minutes=0.05", "--set", f"{key}={text}"]
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = main(argv)
        if status == 0:
            saved = load_checkpoint(folder / "run" / "checkpoint.pt")["config"]
            section, name = key.split(".")
            assert saved[section][name] == value
    torch.set_num_threads(threads)
    if status == 0:
        assert value is not None, (key, text)
    else:
        message = err.getvalue()
        assert status == 2 and message.startswith("tdgammon: error: "), message
        assert key in message and message.count("\n") == 1, message
