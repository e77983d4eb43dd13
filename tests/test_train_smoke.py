"""Smoke test of the real training entry point: train, resume, load, play.

Runs ``tdgammon train`` (tdgammon.engine.interfaces.cli.main) on a tiny config in seconds.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tdgammon.engine.evaluation.evaluator import NetworkAgent, load_evaluator
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.players.agents import RandomAgent
from tdgammon.engine.players.duel import play_duel
from tdgammon.models.network import ModelFileError, load_model
from tdgammon.train.checkpoint import load_checkpoint

SMOKE = {
    "eval": {"every_games": 30, "pubeval_games": 20, "best_games": 10, "parallel_pairs": 10},
    "run": {"max_games": 40, "checkpoint_games": 20, "tensorboard": True},
}


def test_train_resume_load_and_play(tmp_path, tiny_config):
    run_dir = tmp_path / "run"
    config = tiny_config(run_dir, **SMOKE)
    assert main(["train", "--config", str(config)]) == 0
    first = load_checkpoint(run_dir / "checkpoint.pt")
    assert first["counters"]["games"] >= 40
    assert first["config"]["model"]["preset"] == "tiny"
    assert first["git_commit"]
    assert (run_dir / "best.pt").is_file()
    assert (run_dir / "metrics.jsonl").read_text().strip()
    assert any((run_dir / "tb").iterdir())

    assert main(["train", "--resume", str(run_dir), "--set", "run.max_games=80"]) == 0
    second = load_checkpoint(run_dir / "checkpoint.pt")
    assert second["counters"]["games"] >= 80
    assert second["counters"]["steps"] > first["counters"]["steps"]

    agent = NetworkAgent(load_evaluator(run_dir / "checkpoint.pt"))
    result = play_duel(agent, RandomAgent(seed=3), games=2, seed=5)
    assert result.games == 2 and np.all(np.abs(result.points) >= 1)
    preset, _, card = load_model(run_dir / "best.pt")
    assert preset.name == "tiny" and "ppg_vs_pubeval" in card


def test_resume_is_exact(tmp_path, tiny_config):
    straight = tmp_path / "straight"
    split = tmp_path / "split"
    common = ["--set", "eval.every_games=0", "--set", "run.tensorboard=false"]
    cfg = str(tiny_config(straight, **SMOKE))
    assert main(["train", "--config", cfg, *common, "--set", "run.max_games=60"]) == 0
    cfg = str(tiny_config(split, **SMOKE))
    assert main(["train", "--config", cfg, *common, "--set", "run.max_games=30"]) == 0
    assert main(["train", "--resume", str(split), "--set", "run.max_games=60"]) == 0
    a = load_checkpoint(straight / "checkpoint.pt")
    b = load_checkpoint(split / "checkpoint.pt")
    assert a["counters"]["games"] == b["counters"]["games"]
    assert a["counters"]["steps"] == b["counters"]["steps"]
    for key, value in a["model"]["state_dict"].items():
        assert torch.equal(value, b["model"]["state_dict"][key]), key


def test_corrupt_checkpoint_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "checkpoint.pt"
    bad.write_bytes(b"this is not a checkpoint")
    assert main(["train", "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "checkpoint.pt" in err and "error" in err
    with pytest.raises(ModelFileError, match="checkpoint.pt"):
        load_model(bad)
    assert main(["bench", "strength", "--model", str(bad), "--games", "2"]) == 2
    assert "checkpoint.pt" in capsys.readouterr().err


def test_bench_commands(tmp_path, capsys):
    import json

    from tdgammon.models.network import PRESETS, build_network, save_model

    model = tmp_path / "tiny.pt"
    save_model(model, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=1))
    args = ["bench", "strength", "--model", str(model), "--opponent", "random", "--games", "4"]
    assert main([*args, "--json", "--threads", "1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 4 and -3 <= summary["ppg"] <= 3
    assert main([*args[:4], "--opponent", str(model), "--games", "2"]) == 0
    assert "ppg" in capsys.readouterr().out
    assert main([*args, "--plies", "1"]) == 0
    assert "tiny-1ply vs random" in capsys.readouterr().out
    assert main([*args, "--plies", "9"]) == 2
    assert "plies must be 0-3" in capsys.readouterr().err
    bench = ["bench", "selfplay", "--presets", "tiny", "--seconds", "0.1", "--parallel-games", "16"]
    assert main([*bench, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["preset"] == "tiny" and rows[0]["games_per_second"] > 0
    assert main(["bench", "strength", "--model", str(model), "--opponent", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err


def test_train_cli_does_not_import_torch_for_other_commands():
    import subprocess
    import sys

    code = (
        "import sys; from tdgammon.engine.interfaces import cli; cli.build_parser(); "
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_init_from_a_model_file(tmp_path):
    from tdgammon.models.network import PRESETS, build_network, save_model
    from tdgammon.train.config import load_config
    from tdgammon.train.loop import Trainer

    source = build_network(PRESETS["tiny"], seed=42)
    path = tmp_path / "start.pt"
    save_model(path, PRESETS["tiny"], source)
    config = load_config(None, ['model.preset="tiny"', f'model.init_from="{path.as_posix()}"'])
    trainer = Trainer(config)
    for p, q in zip(source.parameters(), trainer.network.parameters(), strict=True):
        assert torch.equal(p, q)
    wrong = load_config(None, [f'model.init_from="{path.as_posix()}"'])  # tesauro80
    with pytest.raises(ModelFileError, match="start.pt"):
        Trainer(wrong)
