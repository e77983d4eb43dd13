"""Training configuration: frozen dataclasses, TOML files and ``--set`` overrides.

``configs/default.toml`` holds every setting with its default (a test checks
it matches the dataclasses below field by field); an experiment file
overrides only what differs; ``--set section.field=value`` overrides anything
(the value is parsed as TOML, falling back to a plain string). Unknown
sections or fields are errors naming the key. ``validate`` checks every value
in one place: each numeric setting against its ``LIMITS`` entry (finite, in
range), the names against their choices. A config saved with a checkpoint
(``config_from_dict``) must hold every section and setting but the few added
since the first checkpoints (``ADDED_SETTINGS``).
"""

from __future__ import annotations

import dataclasses
import math
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
    race_model: str = ""
    """A one-sided race file (``tdgammon train-race``; standard only): races are valued
    by it and each game stops where contact ends, its last target that race value
    (``tdgammon.train.selfplay``). Empty: the network plays races out itself."""


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
            raise ConfigError(f"{key} must be true or false, got {shown(value)}")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key} must be an integer, got {shown(value)}")
        return value
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{key} must be a number, got {shown(value)}")
        try:
            return float(value)
        except OverflowError:  # an integer beyond any float
            raise ConfigError(f"{key} is out of range, got {shown(value)}") from None
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string, got {shown(value)}")
        return value
    raise ConfigError(f"{key}: unsupported setting type")


def apply_dict(config: Config, data: dict, source: str, named: bool = True) -> Config:
    """Override fields of ``config`` with ``{section: {field: value}}`` from ``source``.

    named: a bad value's message starts with ``source: `` (a file); an override's
    (``--set section.field=value``) starts with its key, which names it already."""
    sections = {f.name: f for f in fields(Config)}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: not a table of sections")
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
            try:
                changes[key] = _check_type(f"{section}.{key}", getattr(current, key), value)
            except ConfigError as error:
                raise ConfigError(f"{source}: {error}" if named else str(error)) from None
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
    """The TOML file at ``path`` (UTF-8); ConfigError naming the file if it cannot be read."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: a folder, not a config file") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file ({error.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text (TOML files are UTF-8)") from None
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
        config = apply_dict(config, parse_override(text), f"--set {text}", named=False)
    validate(config)
    return config


ADDED_SETTINGS = ("model.variant", "selfplay.workers", "selfplay.race_model")
"""Settings added after the first checkpoints were written: a saved config without one
keeps its default, which is what every run did before the setting existed."""


def config_from_dict(data: dict, source: str) -> Config:
    """The config saved with a checkpoint (``config_to_dict``, ``{section: {field:
    value}}``): every section and every setting but ``ADDED_SETTINGS`` must be there
    (a missing one is damage, not a default); ConfigError naming ``source`` otherwise."""
    config = apply_dict(Config(), data, source)
    missing = _missing_settings(data)
    if missing:
        more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
        raise ConfigError(f"{source}: missing {', '.join(missing[:4])}{more}")
    return config


def _missing_settings(data: dict) -> list[str]:
    """What a saved config ``data`` lacks: ``[section]`` for a whole section,
    ``section.field`` for a setting (not counting ``ADDED_SETTINGS``)."""
    missing = []
    for section, defaults in config_to_dict(Config()).items():
        if section not in data:
            missing.append(f"[{section}]")
            continue
        keys = (f"{section}.{key}" for key in defaults if key not in data[section])
        missing.extend(key for key in keys if key not in ADDED_SETTINGS)
    return missing


MAX_INTEGER = 2**63 - 1
"""Largest seed or game count: the largest integer a TOML file can hold."""
MAX_BATCH = 65536
"""Most games in flight per batch (self-play) or duplicate pairs played at once."""
MAX_POSITIONS = 1_000_000
"""Most positions per update cycle or minibatch (memory: inputs x positions floats)."""
MAX_EVAL_GAMES = 1_000_000
"""Most games per evaluation match."""
MAX_THREADS = 256
"""Most torch threads (torch crashes on absurd counts)."""
MAX_WORKERS = 1024
"""Most Ray self-play actors."""


@dataclass(frozen=True)
class Limit:
    """The values a numeric setting accepts: finite, from ``low`` to ``high``."""

    low: float
    high: float
    note: str = ""
    """What a special value means, e.g. ``0: never``."""
    low_excluded: bool = False
    """``low`` itself is refused (a learning rate must be above 0)."""

    def allows(self, value: float) -> bool:
        """Is ``value`` usable? NaN and infinities never are."""
        finite = not isinstance(value, float) or math.isfinite(value)
        above = value > self.low if self.low_excluded else value >= self.low
        return finite and above and value <= self.high

    def describe(self, is_float: bool) -> str:
        """``a finite number > 0 and <= 1``, ``from 1 to 65536``, ``a finite number >= 0``."""
        low = f"{'>' if self.low_excluded else '>='} {_number(self.low)}"
        if self.high == math.inf:
            text = low
        elif is_float:
            text = f"{low} and <= {_number(self.high)}"
        else:
            text = f"from {_number(self.low)} to {_number(self.high)}"
        note = f" ({self.note})" if self.note else ""
        return ("a finite number " if is_float else "") + text + note


def _number(value: float) -> str:
    """A limit for messages: ``1000000``, ``0.5``, ``2**63 - 1``."""
    if value == MAX_INTEGER:
        return "2**63 - 1"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def shown(value: Any) -> str:
    """``repr(value)`` cut to a readable length for messages."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


LIMITS = {
    "model.init_seed": Limit(0, MAX_INTEGER),
    "selfplay.parallel_games": Limit(1, MAX_BATCH),
    "selfplay.exploration": Limit(0, 1),
    "selfplay.seed": Limit(0, MAX_INTEGER),
    "selfplay.workers": Limit(0, MAX_WORKERS, "0: no Ray actors"),
    "td.td_lambda": Limit(0, 1),
    "td.update_positions": Limit(1, MAX_POSITIONS),
    "td.minibatch_size": Limit(1, MAX_POSITIONS),
    "td.learning_rate": Limit(0, 1, low_excluded=True),
    "td.learning_rate_half_life_games": Limit(0, MAX_INTEGER, "0: constant rate"),
    "td.min_learning_rate": Limit(0, 1),
    "eval.every_games": Limit(0, MAX_INTEGER, "0: never"),
    "eval.pubeval_games": Limit(2, MAX_EVAL_GAMES),
    "eval.best_games": Limit(0, MAX_EVAL_GAMES, "0: skip"),
    "eval.seed": Limit(0, MAX_INTEGER),
    "eval.parallel_pairs": Limit(1, MAX_BATCH),
    "run.max_games": Limit(0, MAX_INTEGER),
    "run.max_minutes": Limit(0, math.inf, "0: no limit"),
    "run.threads": Limit(1, MAX_THREADS),
    "run.checkpoint_minutes": Limit(0, math.inf, "0: after every update cycle"),
    "run.checkpoint_games": Limit(0, MAX_INTEGER, "0: by time only"),
}
"""Every numeric setting ``section.field`` and the values it accepts (a test checks
that none is missing)."""


def get_setting(config: Config, key: str) -> Any:
    """The value of ``section.field`` (or of a whole section, ``section``) in ``config``."""
    value = config
    for name in key.split("."):
        value = getattr(value, name)
    return value


def validate(config: Config) -> None:
    """Raise ConfigError, naming the setting, for the first value no run can use."""
    from tdgammon.engine.rules.variants import VARIANTS
    from tdgammon.models.network import PRESETS

    for key, limit in LIMITS.items():
        value = get_setting(config, key)
        if not limit.allows(value):
            kind = limit.describe(isinstance(value, float))
            raise ConfigError(f"{key} must be {kind}, got {shown(value)}")
    checks = [
        (config.model.variant in VARIANTS, f"model.variant must be one of {sorted(VARIANTS)}"),
        (config.model.preset in PRESETS, f"model.preset must be one of {sorted(PRESETS)}"),
        (config.td.optimizer in ("adam", "sgd"), "td.optimizer must be adam or sgd"),
        (
            config.td.learning_rate_half_life_games == 0
            or config.td.min_learning_rate <= config.td.learning_rate,
            "td.min_learning_rate (the floor of the decay) must not exceed td.learning_rate",
        ),
        (config.run.run_dir.strip() != "", "run.run_dir must name a folder"),
        (
            not config.selfplay.race_model or config.model.variant == "standard",
            "selfplay.race_model is for standard backgammon only",
        ),
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
