"""Training configuration: frozen dataclasses, TOML files and ``--set`` overrides.

``configs/default.toml`` holds every setting with its default (a test checks
it matches the dataclasses below field by field); an experiment file
overrides only what differs; ``--set section.field=value`` overrides anything
(the value is parsed as TOML, falling back to a plain string). Unknown
sections or fields are errors naming the key.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from tdgammon.engine.rules.errors import TdgammonError


class ConfigError(TdgammonError):
    """A bad configuration file or override; the message names the key or file."""


@dataclass(frozen=True)
class ModelConfig:
    preset: str = "tesauro80"
    """Network preset (``tdgammon.models.network.PRESETS``): encoding and hidden sizes."""
    init_seed: int = 1
    """Seed of the initial weights."""
    init_from: str = ""
    """Model file or checkpoint to start from instead of random weights (same preset;
    fresh optimizer and counters). Empty: random weights."""
    variant: str = "standard"
    """Game the network learns (``tdgammon.engine.rules.variants``): standard, nackgammon,
    hypergammon,
    dutch or acey-deucey. Fixed for a run (part of [model])."""


@dataclass(frozen=True)
class SelfPlayConfig:
    parallel_games: int = 512
    """Games advancing together; a finished game is replaced at once by a new one."""
    exploration: float = 0.0
    """Probability of a uniformly random legal play instead of the greedy one."""
    seed: int = 1
    """Seed of the dice and exploration random generator."""
    workers: int = 0
    """Ray self-play actors (``tdgammon train --workers N``, the ``distributed`` extra), each
    playing its own batch of ``parallel_games``; 0: the single-process trainer."""


@dataclass(frozen=True)
class TDConfig:
    td_lambda: float = 0.7
    """Lambda of the lambda-returns (0 = TD(0), 1 = Monte Carlo outcome)."""
    update_positions: int = 4096
    """Train once finished games hold at least this many positions."""
    minibatch_size: int = 128
    """Positions per gradient step."""
    optimizer: str = "adam"
    """``adam`` or ``sgd``."""
    learning_rate: float = 0.001
    """Initial learning rate."""
    learning_rate_half_life_games: int = 0
    """Halve the learning rate every this many games (0: constant)."""
    min_learning_rate: float = 0.0001
    """Floor of the decayed learning rate."""


@dataclass(frozen=True)
class EvalConfig:
    every_games: int = 10000
    """Evaluate after every this many training games (0: never)."""
    pubeval_games: int = 2000
    """Games against pubeval per evaluation (duplicate pairs)."""
    best_games: int = 1000
    """Games against the best checkpoint so far per evaluation (0: skip)."""
    seed: int = 12345
    """Dice seed of the evaluation matches (the same dice every time)."""
    parallel_pairs: int = 256
    """Duplicate pairs played at once in evaluation."""


@dataclass(frozen=True)
class RunConfig:
    run_dir: str = "runs/default"
    """Folder of checkpoints, TensorBoard logs and metrics.jsonl."""
    max_games: int = 1000000
    """Stop after this many training games in total (counting resumed runs)."""
    max_minutes: float = 0.0
    """Stop after this many minutes of this process (0: no limit)."""
    threads: int = 1
    """torch threads (1 keeps a background run polite on a small machine)."""
    checkpoint_minutes: float = 3.0
    """Write checkpoint.pt at least this often (minutes)."""
    checkpoint_games: int = 0
    """Also write it every this many games (0: by time only)."""
    tensorboard: bool = True
    """Write TensorBoard logs to run_dir/tb."""
    progress: bool = True
    """Show a tqdm progress bar."""


@dataclass(frozen=True)
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    """Network."""
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    """Batched self-play."""
    td: TDConfig = field(default_factory=TDConfig)
    """TD(lambda) updates."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """Periodic evaluation."""
    run: RunConfig = field(default_factory=RunConfig)
    """Run control: folder, limits, checkpoints."""


def config_to_dict(config: Config) -> dict[str, dict[str, Any]]:
    return dataclasses.asdict(config)


def _check_type(key: str, default: Any, value: Any) -> Any:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{key} must be true or false, got {value!r}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key} must be an integer, got {value!r}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{key} must be a number, got {value!r}")
        return float(value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string, got {value!r}")
        return value
    raise ConfigError(f"{key}: unsupported setting type")


def apply_dict(config: Config, data: dict, source: str) -> Config:
    """Override fields of ``config`` with ``{section: {field: value}}`` from ``source``."""
    sections = {f.name: f for f in fields(Config)}
    for section, values in data.items():
        if section not in sections:
            raise ConfigError(
                f"{source}: unknown section [{section}]; known: {', '.join(sections)}"
            )
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: [{section}] must be a table")
        current = getattr(config, section)
        known = {f.name for f in fields(current)}
        changes = {}
        for key, value in values.items():
            if key not in known:
                raise ConfigError(
                    f"{source}: unknown setting {section}.{key}; known: {', '.join(sorted(known))}"
                )
            changes[key] = _check_type(f"{section}.{key}", getattr(current, key), value)
        config = replace(config, **{section: replace(current, **changes)})
    return config


def parse_override(text: str) -> dict:
    """``"td.learning_rate=0.01"`` -> ``{"td": {"learning_rate": 0.01}}``."""
    if "=" not in text:
        raise ConfigError(f"--set needs section.field=value, got {text!r}")
    key, raw = text.split("=", 1)
    key = key.strip()
    if key.count(".") != 1:
        raise ConfigError(f"--set key must be section.field, got {key!r}")
    section, name = key.split(".")
    try:
        value = tomllib.loads(f"v = {raw.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw.strip()
    return {section: {name: value}}


def read_toml(path: str | Path) -> dict:
    path = Path(path)
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None


def load_config(path: str | Path | None = None, overrides: list[str] = ()) -> Config:
    """Defaults, then the file at ``path`` (if any), then each ``--set`` override."""
    config = Config()
    if path is not None:
        config = apply_dict(config, read_toml(path), str(path))
    return apply_overrides(config, overrides)


def apply_overrides(config: Config, overrides: list[str]) -> Config:
    for text in overrides:
        config = apply_dict(config, parse_override(text), f"--set {text}")
    validate(config)
    return config


def config_from_dict(data: dict, source: str) -> Config:
    return apply_dict(Config(), data, source)


def validate(config: Config) -> None:
    """Raise ConfigError for values no run can use."""
    from tdgammon.engine.rules.variants import VARIANTS
    from tdgammon.models.network import PRESETS

    checks = [
        (config.model.variant in VARIANTS, f"model.variant must be one of {sorted(VARIANTS)}"),
        (config.model.preset in PRESETS, f"model.preset must be one of {sorted(PRESETS)}"),
        (config.selfplay.parallel_games >= 1, "selfplay.parallel_games must be at least 1"),
        (0.0 <= config.selfplay.exploration <= 1.0, "selfplay.exploration must be in [0, 1]"),
        (config.selfplay.workers >= 0, "selfplay.workers must be >= 0 (0: no Ray actors)"),
        (0.0 <= config.td.td_lambda <= 1.0, "td.td_lambda must be in [0, 1]"),
        (config.td.update_positions >= 1, "td.update_positions must be at least 1"),
        (config.td.minibatch_size >= 1, "td.minibatch_size must be at least 1"),
        (config.td.optimizer in ("adam", "sgd"), "td.optimizer must be adam or sgd"),
        (config.td.learning_rate > 0, "td.learning_rate must be positive"),
        (
            config.td.learning_rate_half_life_games >= 0,
            "td.learning_rate_half_life_games must be >= 0 (0: constant rate)",
        ),
        (config.td.min_learning_rate >= 0, "td.min_learning_rate must be >= 0"),
        (
            config.td.learning_rate_half_life_games == 0
            or config.td.min_learning_rate <= config.td.learning_rate,
            "td.min_learning_rate (the floor of the decay) must not exceed td.learning_rate",
        ),
        (config.run.threads >= 1, "run.threads must be at least 1"),
        (config.run.max_games >= 0, "run.max_games must be >= 0"),
    ]
    for ok, message in checks:
        if not ok:
            raise ConfigError(message)


def to_toml(config: Config) -> str:
    """The resolved config as TOML text (written next to checkpoints)."""
    lines = []
    for section, values in config_to_dict(config).items():
        lines.append(f"[{section}]")
        for key, value in values.items():
            if isinstance(value, bool):
                text = "true" if value else "false"
            elif isinstance(value, str):
                text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            else:
                text = repr(value)
            lines.append(f"{key} = {text}")
        lines.append("")
    return "\n".join(lines)
