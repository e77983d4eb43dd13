"""Self-play on Ray actors (``tdgammon train --workers N``, tdgammon.train.distributed).

Skipped without Ray (the ``distributed`` extra), except the test of the message
that says how to install it. One local Ray instance with 2 CPUs for the module.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys

import numpy as np
import pytest
import torch
from conftest import tiny_training_config

from tdgammon.engine.interfaces.cli import main
from tdgammon.train.checkpoint import load_checkpoint

TINY = {
    "selfplay": {"parallel_games": 64},
    "td": {"update_positions": 1024},
    "eval": {"every_games": 150, "pubeval_games": 4, "best_games": 2, "parallel_pairs": 4},
    "run": {"max_games": 200, "checkpoint_games": 80},
}


def test_workers_without_ray_says_how_to_install_it(monkeypatch, tmp_path, tiny_config, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    config = tiny_config(tmp_path / "run")
    assert main(["train", "--config", str(config), "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        "tdgammon: error: tdgammon train --workers needs Ray: pip install 'tdgammon[distributed]'"
    ]
    assert not (tmp_path / "run").exists()
    bench = ["bench", "selfplay", "--presets", "tiny", "--seconds", "0.1", "--workers", "1"]
    assert main(bench) == 2
    assert "tdgammon bench selfplay --workers needs Ray" in capsys.readouterr().err


@pytest.fixture(scope="module")
def ray_instance():
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def two_workers(ray_instance, tmp_path_factory):
    """``tdgammon train --workers 2`` on a tiny config: (run folder, config file, stdout,
    the first chunk of each actor and the weights it was played with)."""
    from tdgammon.train.distributed import DistributedTrainer

    first: dict = {}
    collect = DistributedTrainer._collect

    def recording(self):
        chunks = collect(self)
        first.setdefault("chunks", chunks)
        first.setdefault("weights", {k: v.clone() for k, v in self.network.state_dict().items()})
        return chunks

    folder = tmp_path_factory.mktemp("two_workers")
    config = folder / "tiny.toml"
    config.write_text(tiny_training_config(folder / "run", **TINY))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DistributedTrainer, "_collect", recording)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["train", "--config", str(config), "--workers", "2"]) == 0
    return folder / "run", config, out.getvalue(), first


def test_train_with_two_workers(two_workers):
    from tdgammon.engine.evaluation.evaluator import NetworkAgent, load_evaluator
    from tdgammon.engine.players.agents import RandomAgent
    from tdgammon.engine.players.duel import play_duel
    from tdgammon.models.network import load_model

    run_dir, _, out, _ = two_workers
    assert "self-play on 2 Ray actors" in out
    data = load_checkpoint(run_dir / "checkpoint.pt")
    games = data["counters"]["games"]
    assert games >= TINY["run"]["max_games"] and data["config"]["selfplay"]["workers"] == 2
    by_actor = [int(g) for g in data["distributed"]["games_by_actor"]]
    assert len(by_actor) == 2 and min(by_actor) > 0 and sum(by_actor) == games
    assert f"games by actor: {by_actor[0]}, {by_actor[1]}" in out
    agent = NetworkAgent(load_evaluator(run_dir / "checkpoint.pt"))
    result = play_duel(agent, RandomAgent(seed=3), games=2, seed=5)
    assert result.games == 2 and np.all(np.abs(result.points) >= 1)
    assert load_model(run_dir / "best.pt")[0].name == "tiny"


def test_first_games_of_each_actor_follow_the_seed(two_workers):
    """Each actor's first chunk is fixed by the run's seed and the actor's index:
    played again here, outside Ray, it comes out the same; the two actors differ."""
    from tdgammon.train.config import config_to_dict, load_config
    from tdgammon.train.distributed import SelfPlayWorker

    _, config, _, first = two_workers
    chunks = first["chunks"]
    assert [c["index"] for c in chunks] == [0, 1]
    settings = config_to_dict(load_config(config, ["selfplay.workers=2"]))
    threads = torch.get_num_threads()
    try:
        for index, chunk in enumerate(chunks):
            again = SelfPlayWorker(settings, index, 0).play(first["weights"], 512)
            assert again["games"] == chunk["games"] > 0
            assert np.array_equal(again["boards"], chunk["boards"])
            assert np.array_equal(again["targets"], chunk["targets"])
    finally:
        torch.set_num_threads(threads)  # the worker set 1, as in an actor
    assert not np.array_equal(chunks[0]["boards"][:100], chunks[1]["boards"][:100])


def test_same_seed_same_run_and_exact_resume(two_workers, tmp_path):
    """The same config, seed and workers, run in two halves (checkpoint, --resume),
    gives the same weights and counters as the run in one go."""
    straight, config, _, _ = two_workers
    split = tmp_path / "split"
    half = TINY["run"]["max_games"] // 2
    common = ["--workers", "2", "--set", f'run.run_dir="{split.as_posix()}"']
    assert main(["train", "--config", str(config), *common, "--set", f"run.max_games={half}"]) == 0
    assert load_checkpoint(split / "checkpoint.pt")["counters"]["games"] < 2 * half
    assert main(["train", "--resume", str(split), "--set", f"run.max_games={2 * half}"]) == 0
    a = load_checkpoint(straight / "checkpoint.pt")
    b = load_checkpoint(split / "checkpoint.pt")
    keys = ("games", "steps", "positions")
    assert [a["counters"][k] for k in keys] == [b["counters"][k] for k in keys]
    assert a["distributed"]["games_by_actor"] == b["distributed"]["games_by_actor"]
    for key, value in a["model"]["state_dict"].items():
        assert torch.equal(value, b["model"]["state_dict"][key]), key


def test_bench_selfplay_with_a_worker(two_workers, capsys):
    bench = ["bench", "selfplay", "--presets", "tiny", "--seconds", "0.2", "--parallel-games", "16"]
    assert main([*bench, "--workers", "1", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["workers"] == 1 and row["games"] > 0 and row["plies_per_second"] > 0
