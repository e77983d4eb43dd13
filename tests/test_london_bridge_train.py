"""A London Bridge training smoke test through the real entry point, on a tiny config:
train, resume, ship; the shipped file loads and plays."""

from __future__ import annotations

import json

import pytest
import torch

from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge_players.duel import play_match
from tdgammon.engine.london_bridge_players.factory import make_player
from tdgammon.engine.london_bridge_players.network import load_model
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.train.london_bridge import main, parse_config

TINY = [
    "--set", "parallel_games=4", "--set", "hidden=8", "--set", "eval_games=2",
    "--set", "eval_seconds=0.5", "--set", "checkpoint_seconds=0.5",
]  # fmt: skip


def test_train_resume_and_ship(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert main(["--run-dir", str(run_dir), "--minutes", "0.02", *TINY]) == 0
    first = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert first and first[-1]["positions"] > 0
    assert (run_dir / "checkpoint.pt").is_file() and (run_dir / "best.pt").is_file()
    assert main(["--run-dir", str(run_dir), "--minutes", "0.01", "--resume", *TINY]) == 0
    resumed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert resumed[-1]["steps"] > first[-1]["steps"]
    shipped = tmp_path / "lb.pt"
    assert main(["--run-dir", str(run_dir), "--ship", str(shipped)]) == 0
    _, card = load_model(shipped, Rules())
    assert card["history"] and card["config"]["parallel_games"] == 4
    player = make_player(f"{shipped}:1", Rules(), seed=1)
    result = play_match(player, make_player("random", Rules()), 2, Rules(), seed=1)
    assert result.summary()["games"] == 2


def test_training_with_a_rule_setting_and_a_deeper_backup(tmp_path, capsys):
    run_dir = tmp_path / "run"
    argv = ["--run-dir", str(run_dir), "--minutes", "0.01", "--rule", "turn_limit=30",
            "--set", "search_depth=2", *TINY]  # fmt: skip
    assert main(argv) == 0
    load_model(run_dir / "best.pt", Rules(turn_limit=30))


def test_bad_settings_exit_2(tmp_path, capsys):
    assert main(["--run-dir", str(tmp_path), "--set", "speed=3"]) == 2
    assert "expected field=value" in capsys.readouterr().err
    with pytest.raises(TdgammonError, match="parallel_games must be int"):
        parse_config(["parallel_games=many"])
    with pytest.raises(TdgammonError, match="at least 1"):
        parse_config(["parallel_games=0"])


def _damaged(data, change):
    from tdgammon.models.files import CHECKSUM_KEY, payload_sha256

    change(data)
    data[CHECKSUM_KEY] = payload_sha256(data)  # saved intact by a faulty writer
    return data


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["counters"].update(games="lots"), "its counters are damaged"),
        (lambda d: d["counters"].update(games=-5), "its counters are damaged"),
        (lambda d: d.pop("counters"), "its counters are damaged"),
        (lambda d: d.update(history="[{"), "its history is damaged"),
        (lambda d: d.update(best_score="high"), "its best score is damaged"),
        (lambda d: d.pop("optimizer"), "no optimizer state"),
        (
            lambda d: d["optimizer"]["state"][0].update(exp_avg=torch.zeros(3, 3)),
            "optimizer state does not fit",
        ),
    ],
)
def test_a_damaged_checkpoint_is_one_line_for_resume_and_ship(tmp_path, capsys, change, message):
    run_dir = tmp_path / "run"
    assert main(["--run-dir", str(run_dir), "--minutes", "0.01", *TINY]) == 0
    path = run_dir / "checkpoint.pt"
    torch.save(_damaged(torch.load(path, weights_only=True), change), path)
    capsys.readouterr()
    for extra in (["--resume", "--minutes", "0.01", *TINY], ["--ship", str(tmp_path / "o.pt")]):
        status = main(["--run-dir", str(run_dir), *extra])
        err = capsys.readouterr().err
        if message == "optimizer state does not fit" and "--ship" in extra:
            assert status == 0  # shipping reads the network, not the optimizer's tensors
            continue
        assert status == 2 and f"{path}" in err and message in err and err.count("\n") == 1
    assert (tmp_path / "o.pt").exists() == (message == "optimizer state does not fit")


def test_a_checkpoint_damaged_on_disk_fails_its_checksum(tmp_path, capsys):
    run_dir = tmp_path / "run"
    assert main(["--run-dir", str(run_dir), "--minutes", "0.01", *TINY]) == 0
    path = run_dir / "checkpoint.pt"
    data = torch.load(path, weights_only=True)
    data["counters"]["games"] += 1
    torch.save(data, path)
    capsys.readouterr()
    assert main(["--run-dir", str(run_dir), "--resume", "--minutes", "0.01", *TINY]) == 2
    assert "checksum mismatch" in capsys.readouterr().err
