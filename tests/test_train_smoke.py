"""Smoke test of the real training entry point: train, resume, load, play.

Runs ``tdgammon train`` (tdgammon.engine.interfaces.cli.main) on a tiny config in seconds.
"""

from __future__ import annotations

import json

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
    assert main([*bench, "--model", str(model), "--json"]) == 0  # from the model's weights
    assert json.loads(capsys.readouterr().out)[0]["games_per_second"] > 0
    assert main([*bench, "--model", str(tmp_path / "missing.pt")]) == 2
    assert "missing.pt" in capsys.readouterr().err
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


# ------------------------------------------------------------ issue 19: runs and files

QUICK = {"eval": {"every_games": 0}, "run": {"max_games": 20}}


def test_a_resume_refuses_the_settings_it_would_ignore(tmp_path, tiny_config, capsys):
    run_dir = tmp_path / "run"
    assert main(["train", "--config", str(tiny_config(run_dir, **QUICK))]) == 0
    resume = ["train", "--resume", str(run_dir)]
    for override in ("selfplay.parallel_games=32", "selfplay.seed=5", 'td.optimizer="sgd"'):
        capsys.readouterr()
        assert main([*resume, "--set", override]) == 2
        err = capsys.readouterr().err
        assert f"cannot change {override.split('=')[0]} " in err and err.count("\n") == 1
    assert main([*resume, "--set", "selfplay.exploration=0.1", "--set", "run.max_games=30"]) == 0
    assert load_checkpoint(run_dir / "checkpoint.pt")["config"]["selfplay"]["exploration"] == 0.1


def test_a_fresh_run_does_not_overwrite_a_checkpoint(tmp_path, tiny_config, capsys):
    run_dir = tmp_path / "run"
    config = str(tiny_config(run_dir, **QUICK))
    assert main(["train", "--config", config]) == 0
    before = (run_dir / "checkpoint.pt").read_bytes()
    assert main(["train", "--config", config]) == 2
    assert "already holds a run (checkpoint.pt)" in capsys.readouterr().err
    assert (run_dir / "checkpoint.pt").read_bytes() == before


def test_checkpoints_carry_a_checksum_and_old_ones_still_load(tmp_path, tiny_config, capsys):
    from tdgammon.models.network import CHECKSUM_KEY

    run_dir = tmp_path / "run"
    assert main(["train", "--config", str(tiny_config(run_dir, **QUICK))]) == 0
    path = run_dir / "checkpoint.pt"
    data = torch.load(path, weights_only=True)
    assert data["format_version"] == 2 and len(data[CHECKSUM_KEY]) == 64

    data["model"]["state_dict"]["head.bias"][0] += 0.5  # altered, checksum not updated
    torch.save(data, path)
    assert main(["train", "--resume", str(run_dir)]) == 2
    assert "checkpoint.pt: checksum mismatch" in capsys.readouterr().err
    assert main(["bench", "strength", "--model", str(path), "--games", "2"]) == 2
    assert "checksum mismatch" in capsys.readouterr().err

    del data[CHECKSUM_KEY]  # as written before checksums (version 1, no best.pt copy)
    data["format_version"] = 1
    del data["best"]["model"]
    torch.save(data, path)
    assert main(["train", "--resume", str(run_dir), "--set", "run.max_games=30"]) == 0
    assert load_checkpoint(path)["format_version"] == 2
    data["format_version"] = 2  # a version 2 file must keep its checksum
    torch.save(data, path)
    with pytest.raises(ModelFileError, match="lost its checksum"):
        load_checkpoint(path)


def test_a_diverged_run_stops_without_saving(tmp_path, tiny_config, capsys, monkeypatch):
    from tdgammon.train.loop import Trainer

    run_dir = tmp_path / "run"
    assert main(["train", "--config", str(tiny_config(run_dir, **QUICK))]) == 0
    before = (run_dir / "checkpoint.pt").read_bytes()
    update = Trainer.update

    def diverge(self, *args):
        stats = update(self, *args)
        with torch.no_grad():
            next(self.network.parameters()).fill_(float("nan"))
        return stats

    monkeypatch.setattr(Trainer, "update", diverge)
    capsys.readouterr()
    assert main(["train", "--resume", str(run_dir), "--set", "run.max_games=40"]) == 2
    err = capsys.readouterr().err
    assert "training diverged at game" in err and "td.learning_rate" in err
    assert err.count("\n") == 1
    assert (run_dir / "checkpoint.pt").read_bytes() == before


def test_metrics_are_trimmed_to_the_checkpoint_as_strict_json(tmp_path):
    from tdgammon.train.loop import metrics_line, trim_metrics

    path = tmp_path / "metrics.jsonl"
    rows = [{"games_trained": g, "ci95_vs_pubeval": float("nan")} for g in (10, 20, 30)]
    text = "".join(metrics_line(row) for row in rows)
    assert "NaN" not in text and json.loads(text.splitlines()[0])["ci95_vs_pubeval"] is None
    path.write_text('{"games_trained": 5, "ppg": NaN}\nnot json\n' + text + '{"games_tr')
    trim_metrics(path, 20)
    assert path.read_text().splitlines() == [
        '{"games_trained": 5, "ppg": null}',
        "not json",
        '{"games_trained": 10, "ci95_vs_pubeval": null}',
        '{"games_trained": 20, "ci95_vs_pubeval": null}',
    ]
    written = path.stat().st_mtime_ns
    trim_metrics(path, 20)  # nothing to change: the file is left alone
    assert path.stat().st_mtime_ns == written


def test_a_closed_output_stops_the_run_with_a_checkpoint(tmp_path, tiny_config):
    import subprocess
    import sys

    run_dir = tmp_path / "run"
    config = tiny_config(run_dir, eval={"every_games": 4, "pubeval_games": 2})
    command = [sys.executable, "-m", "tdgammon", "train", "--config", str(config)]
    process = subprocess.Popen(
        [*command, "--set", "run.max_games=100000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout.readline().startswith(b"training tiny")
    process.stdout.close()  # `| head -1`
    try:
        err = process.communicate(timeout=120)[1].decode()
    finally:
        process.kill()
    assert process.returncode == 0 and err == ""
    games = load_checkpoint(run_dir / "checkpoint.pt")["counters"]["games"]
    assert 0 < games < 100000


def test_a_model_refuses_positions_of_another_variant(tmp_path, capsys):
    from tdgammon.models import shipped_model

    dutch = shipped_model("dutch")
    with pytest.raises(ModelFileError, match="trained for dutch, not standard"):
        load_evaluator(dutch, variant="standard")
    assert load_evaluator(dutch).variant.name == "dutch"
    args = ["bench", "strength", "--model", str(dutch), "--variant", "standard", "--games", "2"]
    assert main(args) == 2
    assert "dutch" in capsys.readouterr().err


def test_a_model_with_weights_that_are_not_finite_is_refused_by_every_command(tmp_path, capsys):
    from tdgammon.models.network import (
        CHECKSUM_KEY,
        PRESETS,
        build_network,
        model_record,
        payload_sha256,
    )

    record = model_record(PRESETS["tiny"], build_network(PRESETS["tiny"], seed=1))
    record["state_dict"]["body.0.weight"][0, 0] = float("nan")
    record[CHECKSUM_KEY] = payload_sha256(record)  # diverged in training, saved intact
    path = tmp_path / "nan.pt"
    torch.save(record, path)
    for argv in (
        ["eval", "--model", str(path), "4HPwATDgc/ABMA"],
        ["bench", "strength", "--model", str(path), "--games", "2"],
        ["match", "--a", str(path), "--b", "random", "--games", "2", "--no-progress"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "nan.pt: body.0.weight holds NaN" in err and err.count("\n") == 1


def test_training_with_a_race_model_stops_games_at_the_race(tmp_path, tiny_config, capsys):
    """selfplay.race_model: a run trains with it and its checkpoint keeps the
    setting (the stop at the race: test_train_selfplay); a bad file or a
    variant is one line."""
    from tdgammon.models.race_distributions import build_race_net, save_race_net

    race_file = tmp_path / "race.pt"
    save_race_net(race_file, build_race_net(16, seed=3))
    run_dir = tmp_path / "run"
    sections = {**QUICK, "selfplay": {"race_model": race_file.as_posix()}}
    assert main(["train", "--config", str(tiny_config(run_dir, **sections))]) == 0
    saved = load_checkpoint(run_dir / "checkpoint.pt")
    assert saved["config"]["selfplay"]["race_model"] == race_file.as_posix()
    assert saved["counters"]["games"] >= 20
    race_file.write_bytes(b"not a race file")
    bad = {**QUICK, "selfplay": {"race_model": race_file.as_posix()}}
    capsys.readouterr()
    assert main(["train", "--config", str(tiny_config(tmp_path / "bad", **bad))]) == 2
    err = capsys.readouterr().err
    assert "race.pt" in err and err.count("\n") == 1
    variant = {**bad, "model": {"variant": "nackgammon"}}
    assert main(["train", "--config", str(tiny_config(tmp_path / "v", **variant))]) == 2
    assert "standard backgammon only" in capsys.readouterr().err
