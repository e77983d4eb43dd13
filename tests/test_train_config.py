"""Training configuration: default.toml is complete, overrides and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tdgammon.train.config import (
    Config,
    ConfigError,
    config_to_dict,
    load_config,
    parse_override,
    read_toml,
)

CONFIGS = Path(__file__).resolve().parent.parent / "configs"


def test_default_toml_holds_every_setting_with_its_default():
    assert read_toml(CONFIGS / "default.toml") == config_to_dict(Config())


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.toml")), ids=lambda p: p.name)
def test_every_config_file_loads(path):
    load_config(path)


def test_every_field_has_a_docstring():
    import ast
    import inspect

    import tdgammon.train.config as module

    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if (
            isinstance(node, ast.ClassDef)
            and node.name.endswith("Config")
            and node.name != "ConfigError"
        ):
            body = node.body
            for i, item in enumerate(body):
                if isinstance(item, ast.AnnAssign):
                    following = body[i + 1] if i + 1 < len(body) else None
                    assert isinstance(following, ast.Expr), f"{node.name}.{item.target.id}"


def test_overrides():
    config = load_config(None, ["td.learning_rate=0.01", 'model.preset="tiny"', "run.run_dir=x/y"])
    assert config.td.learning_rate == 0.01
    assert config.model.preset == "tiny"
    assert config.run.run_dir == "x/y"
    assert parse_override("run.tensorboard=false") == {"run": {"tensorboard": False}}


@pytest.mark.parametrize(
    "override, message",
    [
        ("td.nope=1", "unknown setting td.nope"),
        ("nope.x=1", "unknown section"),
        ("td.learning_rate=fast", "must be a number"),
        ("selfplay.parallel_games=1.5", "must be an integer"),
        ("model.preset=huge", "model.preset"),
        ("td.td_lambda=2", "td_lambda"),
        ("learning_rate=1", "section.field"),
        ("td.learning_rate_half_life_games=-5", "half_life_games must be >= 0"),
        ("td.min_learning_rate=-0.1", "min_learning_rate must be >= 0"),
    ],
)
def test_bad_overrides_name_the_key(override, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, [override])


def test_bad_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[td\nx=")
    with pytest.raises(ConfigError, match="bad.toml"):
        load_config(bad)
    with pytest.raises(ConfigError, match="missing.toml"):
        load_config(tmp_path / "missing.toml")


def test_a_decay_floor_above_the_starting_rate_is_refused():
    # The floor would otherwise raise the rate above the configured one from game 0.
    with pytest.raises(ConfigError, match="must not exceed td.learning_rate"):
        load_config(
            None,
            [
                "td.learning_rate=0.00005",
                "td.learning_rate_half_life_games=1000",
                "td.min_learning_rate=0.0001",
            ],
        )
    # Without a decay the floor plays no part.
    assert load_config(None, ["td.learning_rate=0.00005"]).td.learning_rate == 0.00005
