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
        ("td.learning_rate_half_life_games=-5", r"half_life_games must be from 0 to 2\*\*63 - 1"),
        ("td.min_learning_rate=-0.1", "min_learning_rate must be a finite number >= 0"),
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


def test_every_numeric_setting_has_a_limit():
    from tdgammon.train.config import LIMITS

    defaults = config_to_dict(Config())
    numeric = {
        f"{section}.{key}"
        for section, values in defaults.items()
        for key, value in values.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }
    assert numeric == set(LIMITS)


def test_a_folder_or_a_file_that_is_not_utf8_is_a_clear_error(tmp_path, capsys):
    from tdgammon.engine.interfaces.cli import main

    latin = tmp_path / "latin.toml"
    latin.write_bytes('[run]\nrun_dir = "caf\xe9"\n'.encode("latin-1"))
    for path, message in [(tmp_path, "a folder, not a config file"), (latin, "not UTF-8")]:
        with pytest.raises(ConfigError, match=message):
            load_config(path)
        assert main(["train", "--config", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("tdgammon: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize("run_dir", ["file", "file/run"])
def test_a_run_dir_that_is_a_file_or_under_one_is_a_clear_error(
    tmp_path, tiny_config, capsys, run_dir
):
    from tdgammon.engine.interfaces.cli import main

    (tmp_path / "file").write_text("not a folder")
    assert main(["train", "--config", str(tiny_config(tmp_path / run_dir))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tdgammon: error: run.run_dir ") and err.count("\n") == 1
    assert (tmp_path / "file").read_text() == "not a folder"


@pytest.mark.parametrize(
    "override",
    [
        "td.learning_rate=inf",
        "eval.parallel_pairs=0",
        "eval.parallel_pairs=-3",
        "eval.pubeval_games=0",
        "eval.pubeval_games=-2",
        "run.checkpoint_minutes=nan",
        "run.checkpoint_minutes=-1",
        "run.max_minutes=nan",
        "run.max_minutes=-5",
        "td.learning_rate_half_life_games=-1",
        "run.threads=100000",
        "selfplay.seed=-1",
    ],
)
def test_settings_that_crashed_or_meant_nothing_are_refused_by_name(
    tmp_path, tiny_config, capsys, override
):
    from tdgammon.engine.interfaces.cli import main

    run_dir = tmp_path / "run"
    assert main(["train", "--config", str(tiny_config(run_dir)), "--set", override]) == 2
    err = capsys.readouterr().err
    key = override.split("=")[0]
    assert err.startswith(f"tdgammon: error: {key} must be ") and err.count("\n") == 1
    assert not (run_dir / "checkpoint.pt").exists()
