"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

import pytest


def tiny_training_config(run_dir: Path, **sections: dict) -> str:
    """TOML of a training run that takes seconds: 8-hidden-unit network, small
    batches; ``sections`` override or add keys, e.g. ``model={"variant": "dutch"}``."""
    config = {
        "model": {"preset": "tiny"},
        "selfplay": {"parallel_games": 16},
        "td": {"update_positions": 256, "minibatch_size": 64},
        "eval": {"every_games": 20, "pubeval_games": 4, "best_games": 0, "parallel_pairs": 4},
        "run": {"max_games": 24, "tensorboard": False, "progress": False},
    }
    for name, keys in sections.items():
        config.setdefault(name, {}).update(keys)
    config["run"]["run_dir"] = run_dir.as_posix()
    lines = []
    for name, keys in config.items():
        lines.append(f"[{name}]")
        for key, value in keys.items():
            text = str(value).lower() if isinstance(value, bool) else repr(value)
            lines.append(f"{key} = {text}".replace("'", '"'))
    return "\n".join(lines) + "\n"


@pytest.fixture
def tiny_config(tmp_path):
    """``tiny_config(run_dir, **sections) -> Path`` of a written tiny training config."""
    count = 0

    def write(run_dir: Path, **sections: dict) -> Path:
        nonlocal count
        count += 1
        path = tmp_path / f"tiny{count}.toml"
        path.write_text(tiny_training_config(run_dir, **sections))
        return path

    return write


@pytest.fixture
def pipcount(monkeypatch):
    """The analysis and rollout commands get the torch-free stand-in evaluator (a
    test file may define its own ``pipcount`` patching fewer commands)."""
    from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
    from tdgammon.engine.interfaces import cli_analysis, cli_rollout

    search = Search(PipCountEvaluator())
    monkeypatch.setattr(cli_analysis, "load_search", lambda model=None: search)
    monkeypatch.setattr(cli_rollout, "load_search", lambda model=None: search)
    return search
