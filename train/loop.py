"""The training loop: self-play, TD(lambda) updates, evaluation, checkpoints, logs.

One cycle: advance all self-play games ply by ply until the finished games
hold ``td.update_positions`` positions; turn them into lambda-return targets
(``tdgammon.train.selfplay``); one pass of minibatch gradient steps over them. Between
cycles (never inside one) the loop may evaluate, write a checkpoint or stop,
so a checkpoint always sits on a cycle boundary and ``--resume`` continues
exactly: the in-flight games, the optimizer, the counters and both random
generators are restored, each checked first (``Trainer._restore``): a part that
does not fit this run is a ModelFileError naming the file and the entry, never a
crash or a run from the wrong state.

Files in ``run.run_dir``: ``checkpoint.pt`` (latest, for ``--resume``),
``best.pt`` (model file of the best network by ppg against pubeval; for the
other variants (``model.variant``) against ``tdgammon.engine.players.heuristic``, whose
games are played by ``tdgammon.engine.players.duel.play_duel``),
``metrics.jsonl`` (one JSON line per evaluation, for the learning curve),
``config.toml`` (resolved config), ``tb/`` (TensorBoard: loss, learning rate,
games/s, ppg against pubeval and against the best so far).

The checkpoint is the truth of a run: it holds best.pt's record too, and a
resume first makes best.pt and metrics.jsonl agree with it (``sync_run_files``),
so a kill between an evaluation and the next checkpoint neither duplicates a
metrics row nor leaves a best.pt from the future. A loss or weights that stop
being finite end the run with ``TrainingDiverged``, saving nothing.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np
import torch

from tdgammon.engine.evaluation.evaluator import NetworkAgent, NetworkEvaluator
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.models.atomic import atomic_torch_save, atomic_write_bytes
from tdgammon.models.network import (
    ModelFileError,
    build_network,
    get_preset,
    load_model,
    model_record,
    network_from_record,
    read_torch_file,
)
from tdgammon.train.checkpoint import git_commit, load_checkpoint, save_checkpoint, to_arrays
from tdgammon.train.config import (
    MAX_INTEGER,
    Config,
    ConfigError,
    apply_overrides,
    config_from_dict,
    config_to_dict,
    get_setting,
    shown,
    to_toml,
)
from tdgammon.train.selfplay import SelfPlay, SelfPlayStateError, race_evaluator

CHECKPOINT_NAME = "checkpoint.pt"
BEST_NAME = "best.pt"
METRICS_NAME = "metrics.jsonl"
FIXED_ON_RESUME = ("model", "selfplay.parallel_games", "selfplay.seed", "td.optimizer")
"""Settings a resume cannot change: the network, the games in flight, the random
generator and the optimizer's state all come from the checkpoint."""


class TrainingDiverged(TdgammonError):
    """The loss or the weights stopped being finite (the learning rate is too high)."""


@dataclass
class Counters:
    games: int = 0
    """Training games finished (and used for updates)."""
    steps: int = 0
    """Gradient steps."""
    positions: int = 0
    """Positions trained on."""
    seconds: float = 0.0
    """Training wall time over all sessions."""
    last_eval_games: int = 0
    """``games`` at the last evaluation."""


def _is_number(value) -> bool:
    """A finite int or float (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return isinstance(value, int) or math.isfinite(value)


def _counters_from(saved: dict, where: str) -> Counters:
    """The ``counters`` table of a checkpoint: every field of ``Counters``, the counts
    whole numbers from 0 to 2**63 - 1, ``seconds`` a finite number >= 0, the last
    evaluation at or before ``games``; ModelFileError naming the file otherwise."""
    names = [f.name for f in fields(Counters)]
    unknown = [key for key in saved if key not in names]
    if unknown:
        raise ModelFileError(f"{where}: unknown counter counters.{unknown[0]}")
    missing = [key for key in names if key not in saved]
    if missing:
        raise ModelFileError(f"{where}: counters.{missing[0]} is missing")
    for f in fields(Counters):
        value = saved[f.name]
        if isinstance(f.default, float):
            fits, kind = _is_number(value) and value >= 0, "a finite number >= 0"
        else:
            fits = _is_number(value) and isinstance(value, int) and 0 <= value <= MAX_INTEGER
            kind = "a whole number from 0 to 2**63 - 1"
        if not fits:
            raise ModelFileError(f"{where}: counters.{f.name} must be {kind}, got {shown(value)}")
    counters = Counters(**saved)
    if counters.last_eval_games > counters.games:
        raise ModelFileError(
            f"{where}: counters.last_eval_games ({counters.last_eval_games}) is past "
            f"counters.games ({counters.games})"
        )
    return counters


def _group_params(groups) -> list | None:
    """The ``params`` (parameter indexes) of each group of a saved optimizer's
    ``param_groups``; None when that is not a list of tables."""
    if not isinstance(groups, list) or not all(isinstance(group, dict) for group in groups):
        return None
    return [group.get("params") for group in groups]


NON_NEGATIVE_STATE = ("step", "exp_avg_sq", "max_exp_avg_sq")
"""Optimizer state entries that are counts or running means of squares (Adam's)."""


def _check_optimizer_state(state, layout: dict, names: list[str], where: str) -> dict:
    """``state`` of a saved optimizer state dict, ``{index: {entry: tensor}}``: empty (no
    step taken yet) or, for every parameter, exactly the entries of ``layout``
    (``Trainer._optimizer_layout``) with their shapes and dtypes, finite (and >= 0 for
    ``NON_NEGATIVE_STATE``); ModelFileError naming the file, the entry and the
    parameter (``names``: the network's, in order) otherwise. Returns ``state``."""
    if not isinstance(state, dict):
        raise ModelFileError(f"{where}: optimizer.state must be a table, got {shown(state)}")
    if state and set(state) != set(layout):
        raise ModelFileError(
            f"{where}: optimizer.state holds parameters {sorted(map(str, state))}, the "
            f"optimizer keeps {sorted(map(str, layout)) or 'none'}"
        )
    for index, entries in state.items():
        want = layout[index]
        if not isinstance(entries, dict) or set(entries) != set(want):
            held = sorted(map(str, entries)) if isinstance(entries, dict) else shown(entries)
            raise ModelFileError(
                f"{where}: optimizer.state[{index}] (parameter {names[index]}) holds {held}, "
                f"the optimizer keeps {sorted(want)}"
            )
        for key, value in entries.items():
            label = f"optimizer.state[{index}].{key} (parameter {names[index]})"
            _check_state_tensor(label, value, want[key], key in NON_NEGATIVE_STATE, where)
    return state


def _check_state_tensor(
    label: str, value, like: torch.Tensor, non_negative: bool, where: str
) -> None:
    """ModelFileError naming ``label`` unless ``value`` is a tensor of ``like``'s shape
    and dtype, finite (and >= 0 if ``non_negative``)."""
    expected = f"a {tuple(like.shape)} {like.dtype} tensor"
    if not isinstance(value, torch.Tensor):
        raise ModelFileError(f"{where}: {label} must be {expected}, got {shown(value)}")
    if value.shape != like.shape or value.dtype != like.dtype:
        got = f"{tuple(value.shape)} {value.dtype}"
        raise ModelFileError(f"{where}: {label} must be {expected}, got {got}")
    if not torch.isfinite(value).all() or (non_negative and (value < 0).any()):
        kind = "finite numbers >= 0" if non_negative else "finite numbers"
        raise ModelFileError(f"{where}: {label} must hold {kind}")


class Trainer:
    """Owns the network, optimizer, self-play state and run folder of one run."""

    def __init__(self, config: Config, resume_from: dict | None = None) -> None:
        self.config = config
        self.run_dir = Path(config.run.run_dir)
        self.preset = get_preset(config.model.preset)
        self.network = build_network(self.preset, seed=config.model.init_seed)
        if config.model.init_from and resume_from is None:
            preset, network, _ = load_model(config.model.init_from)
            if preset.encoding != self.preset.encoding or preset.hidden != self.preset.hidden:
                raise ModelFileError(
                    f"{config.model.init_from}: holds preset {preset.name!r}, the config asks "
                    f"for {self.preset.name!r}"
                )
            self.network.load_state_dict(network.state_dict())
        self.optimizer = self._make_optimizer(self.network.parameters())
        self.rng = np.random.default_rng(config.selfplay.seed)
        torch.manual_seed(config.selfplay.seed)
        self.variant = config.model.variant
        self.race = race_evaluator(config)
        self.selfplay = SelfPlay(
            config.selfplay.parallel_games,
            self.rng,
            config.selfplay.exploration,
            self.variant,
            stop_at_race=self.race is not None,
        )
        self.counters = Counters()
        self.best_ppg: float | None = None
        self.best_record: dict | None = None
        """Model record of best.pt (the network the evaluations compare with)."""
        self.evaluator = NetworkEvaluator(
            self.network, self.preset, "current", self.variant, self.race
        )
        if resume_from is not None:
            self._restore(resume_from)
        self._writer = None

    def _make_optimizer(self, parameters) -> torch.optim.Optimizer:
        """The optimizer of ``td.optimizer`` over ``parameters`` (an iterable of tensors)."""
        td = self.config.td
        if td.optimizer == "sgd":
            return torch.optim.SGD(parameters, lr=td.learning_rate)
        return torch.optim.Adam(parameters, lr=td.learning_rate)

    def learning_rate(self) -> float:
        td = self.config.td
        if td.learning_rate_half_life_games <= 0:
            return td.learning_rate
        rate = td.learning_rate * 0.5 ** (self.counters.games / td.learning_rate_half_life_games)
        return max(rate, td.min_learning_rate)

    # ------------------------------------------------------------ state

    def _restore(self, data: dict) -> None:
        """Everything of a checkpoint (``load_checkpoint``); ModelFileError naming the
        file and the entry when a part of it does not fit this run."""
        where = str(self.run_dir / CHECKPOINT_NAME)
        preset, network = network_from_record(data["model"], where)
        if preset.name != self.preset.name or preset.hidden != self.preset.hidden:
            raise ModelFileError(
                f"{where}: checkpoint holds preset {preset.name!r}, config asks for "
                f"{self.preset.name!r}"
            )
        self.network.load_state_dict(network.state_dict())
        self.network.train()
        self._restore_optimizer(data["optimizer"], where)
        self.counters = _counters_from(data["counters"], where)
        self._restore_random(data["random"], where)
        try:
            self.selfplay.load_state(to_arrays(data["selfplay"]))
        except SelfPlayStateError as error:
            raise ModelFileError(f"{where}: {error}") from None
        self.selfplay.rng = self.rng
        self._restore_best(data.get("best", {}), where)

    def _restore_optimizer(self, saved: dict, where: str) -> None:
        """The optimizer's state per parameter (Adam's step and moments) from a
        checkpoint's ``optimizer`` table, checked against ``_optimizer_layout``. Its
        settings (betas, eps, ...) are this run's own: only ``td.optimizer`` and the
        learning rate (set by ``update``) configure them."""
        own = self.optimizer.state_dict()["param_groups"]
        if _group_params(saved.get("param_groups")) != [group["params"] for group in own]:
            raise ModelFileError(
                f"{where}: optimizer.param_groups do not list the network's "
                f"{len(own[0]['params'])} parameters"
            )
        names = [name for name, _ in self.network.named_parameters()]
        state = _check_optimizer_state(saved.get("state"), self._optimizer_layout(), names, where)
        self.optimizer.load_state_dict({"state": state, "param_groups": own})

    def _optimizer_layout(self) -> dict:
        """``{index: {entry: tensor}}``: what a ``td.optimizer`` optimizer keeps per
        parameter once it has stepped (entries, shapes, dtypes), from one step on zero
        gradients of zero copies of the parameters."""
        copies = [torch.zeros_like(p, requires_grad=True) for p in self.network.parameters()]
        probe = self._make_optimizer(copies)
        for copy in copies:
            copy.grad = torch.zeros_like(copy)
        probe.step()
        return probe.state_dict()["state"]

    def _restore_random(self, saved: dict, where: str) -> None:
        """Both random generators: numpy's (JSON text of its state) and torch's."""
        try:
            self.rng.bit_generator.state = json.loads(saved["numpy"])
            torch.random.set_rng_state(saved["torch"])
        except (KeyError, TypeError, ValueError, OverflowError, RuntimeError) as error:
            raise ModelFileError(
                f"{where}: the saved random generator state is unusable "
                f"({type(error).__name__}: {error})"
            ) from None

    def _restore_best(self, best: dict, where: str) -> None:
        """best.pt's ppg and record as of the checkpoint; a version 1 checkpoint holds
        no record, and best.pt (if any) is then taken as it is."""
        if not isinstance(best, dict):
            raise ModelFileError(f"{where}: the best section must be a table, got {shown(best)}")
        ppg = best.get("ppg_vs_pubeval")
        if ppg is not None and not _is_number(ppg):
            raise ModelFileError(
                f"{where}: best.ppg_vs_pubeval must be a finite number or None, got {shown(ppg)}"
            )
        self.best_ppg = ppg
        path = self.run_dir / BEST_NAME
        if "model" in best:
            self.best_record = best["model"]
            where = f"{where} (best model)"
        elif path.is_file():
            self.best_record, where = read_torch_file(path), str(path)
        if self.best_record is not None:
            network_from_record(self.best_record, where)  # ModelFileError if unusable

    def sync_run_files(self) -> None:
        """Make metrics.jsonl and best.pt agree with the state the run starts from (the
        checkpoint restored, or game 0): drop the evaluations made after it (the run
        makes them again) and put back the checkpoint's best.pt."""
        trim_metrics(self.run_dir / METRICS_NAME, self.counters.games)
        if self.best_record is not None:
            atomic_torch_save(self.best_record, self.run_dir / BEST_NAME)

    def check_finite(self, stats: dict) -> None:
        """TrainingDiverged, before anything is saved, if the last update's loss or the
        weights are no longer finite."""
        weights = all(bool(torch.isfinite(p).all()) for p in self.network.parameters())
        if math.isfinite(stats["loss"]) and weights:
            return
        what = (
            "the weights are" if math.isfinite(stats["loss"]) else f"the loss ({stats['loss']}) is"
        )
        raise TrainingDiverged(
            f"training diverged at game {self.counters.games}: {what} no longer finite; "
            f"stopped without saving ({self.run_dir / CHECKPOINT_NAME} keeps the last good "
            "state, if one was written): lower td.learning_rate and resume"
        )

    def checkpoint_data(self) -> dict:
        return {
            "model": model_record(self.preset, self.network, self.card()),
            "optimizer": self.optimizer.state_dict(),
            "config": config_to_dict(self.config),
            "git_commit": git_commit(),
            "counters": vars(self.counters).copy(),
            "random": {
                "numpy": json.dumps(self.rng.bit_generator.state),
                "torch": torch.random.get_rng_state(),
            },
            "selfplay": self.selfplay.state(),
            # ppg of best.pt against the evaluation opponent (pubeval; the heuristic
            # for variants), under the historical key, and best.pt's record.
            "best": {"ppg_vs_pubeval": self.best_ppg, "model": self.best_record},
        }

    def card(self) -> dict:
        return {
            "preset": self.preset.name,
            "variant": self.variant,
            "games": self.counters.games,
            "steps": self.counters.steps,
            "train_seconds": round(self.counters.seconds, 1),
            "config": config_to_dict(self.config),
            "git_commit": git_commit(),
        }

    def save(self) -> Path:
        path = self.run_dir / CHECKPOINT_NAME
        save_checkpoint(path, self.checkpoint_data())
        return path

    # ------------------------------------------------------------ training

    def cycle(self) -> dict:
        """Self-play until enough finished positions, then one pass of updates."""
        td = self.config.td
        self.network.eval()
        while self.selfplay.finished_positions < td.update_positions:
            self.selfplay.step(self.evaluator)
        boards, targets, games = self.selfplay.take_finished(td.td_lambda)
        return self.update(boards, targets, games)

    def update(self, boards: np.ndarray, targets: np.ndarray, games: int) -> dict:
        """One pass of minibatch gradient steps over ``boards`` ``(N, 30) int8`` (view of
        the player about to roll) and their lambda-return targets ``(N, 5) float32``,
        from ``games`` finished games."""
        td = self.config.td
        self.network.train()
        rate = self.learning_rate()
        for group in self.optimizer.param_groups:
            group["lr"] = rate
        inputs = torch.from_numpy(self.evaluator.encoding.encode(boards))
        target = torch.from_numpy(targets).clamp_(0.0, 1.0)
        order = torch.from_numpy(self.rng.permutation(len(boards)))
        losses = []
        for start in range(0, len(order), td.minibatch_size):
            rows = order[start : start + td.minibatch_size]
            predicted = self.network(inputs[rows]).clamp(1e-6, 1 - 1e-6)
            loss = torch.nn.functional.binary_cross_entropy(predicted, target[rows])
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())
            self.counters.steps += 1
        self.network.eval()
        self.counters.games += games
        self.counters.positions += len(boards)
        return {"loss": float(np.mean(losses)), "games": games, "learning_rate": rate}

    # ------------------------------------------------------------ evaluation

    def opponent_name(self) -> str:
        """The periodic evaluation's opponent: pubeval (standard) or the heuristic."""
        return "pubeval" if self.variant == "standard" else "heuristic"

    def evaluate(self) -> dict:
        from tdgammon.engine.players.duel import finite_or_none, play_duel
        from tdgammon.engine.players.factory import make_agent

        cfg = self.config.eval
        opp = self.opponent_name()
        agent = NetworkAgent(self.evaluator, "current")
        opponent = make_agent(opp, variant=self.variant)
        result = {"games_trained": self.counters.games, "train_seconds": self.counters.seconds}
        vs_opp = play_duel(
            agent, opponent, cfg.pubeval_games, cfg.seed, cfg.parallel_pairs, variant=self.variant
        )
        result[f"ppg_vs_{opp}"] = vs_opp.ppg
        result[f"ci95_vs_{opp}"] = vs_opp.ci95
        result[f"win_rate_vs_{opp}"] = vs_opp.summary()["win_rate"]
        best_path = self.run_dir / BEST_NAME
        if cfg.best_games > 0 and self.best_record is not None:
            preset, network = network_from_record(self.best_record, str(best_path))
            best = NetworkAgent(NetworkEvaluator(network, preset, "best", self.variant, self.race))
            vs_best = play_duel(
                agent, best, cfg.best_games, cfg.seed + 1, cfg.parallel_pairs, variant=self.variant
            )
            result["ppg_vs_best"] = vs_best.ppg
            result["ci95_vs_best"] = vs_best.ci95
        if self.best_ppg is None or vs_opp.ppg > self.best_ppg:
            self.best_ppg = vs_opp.ppg
            card = dict(self.card(), ci95=finite_or_none(vs_opp.ci95))
            card[f"ppg_vs_{opp}"] = vs_opp.ppg
            self.best_record = model_record(self.preset, self.network, card)
            atomic_torch_save(self.best_record, best_path)
            result["new_best"] = True
        self.counters.last_eval_games = self.counters.games
        return result

    # ------------------------------------------------------------ logging

    def writer(self):
        if self._writer is None and self.config.run.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(str(self.run_dir / "tb"), purge_step=self.counters.games)
        return self._writer

    def log(self, values: dict) -> None:
        writer = self.writer()
        if writer is None:
            return
        for key, value in values.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                if math.isfinite(value):
                    writer.add_scalar(key, value, self.counters.games)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()


def resolve_resume(config: Config, overrides: list[str], resume: str | None):
    """(config, checkpoint data or None) for ``tdgammon train``.

    ``resume`` None: a fresh run. ``""``: resume ``run.run_dir`` of ``config``.
    Otherwise a run folder or a checkpoint file. The checkpoint's saved config
    is used, with ``--set`` overrides applied on top (``run.run_dir`` follows
    the checkpoint's folder); an override of a ``FIXED_ON_RESUME`` setting is
    refused.
    """
    if resume is None:
        return config, None
    path = Path(resume or config.run.run_dir)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    data = load_checkpoint(path)
    saved = config_from_dict(data["config"], f"{path} (saved config)")
    here = replace(saved, run=replace(saved.run, run_dir=path.parent.as_posix()))
    resumed = apply_overrides(here, list(overrides))
    changed = [
        key if "." in key else f"[{key}]"  # a whole section
        for key in FIXED_ON_RESUME
        if get_setting(resumed, key) != get_setting(saved, key)
    ]
    if changed:
        raise ConfigError(
            f"{path}: a resume cannot change {', '.join(changed)} (restored from the "
            "checkpoint); it can change selfplay.exploration, selfplay.workers, td.* but "
            "td.optimizer, eval.* and run.*"
        )
    return resumed, data


def metrics_line(row: dict) -> str:
    """One line of metrics.jsonl: strict JSON, numbers that are not finite (the 95%
    interval of a single pair) written as null."""
    return json.dumps(_json_safe(row), allow_nan=False) + "\n"


def _json_safe(value):
    """``value`` with every float that is not finite replaced by None (recursively)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def trim_metrics(path: Path, games: int) -> None:
    """Drop the rows of metrics.jsonl past ``games`` and a last line torn by a kill;
    the rest is rewritten as ``metrics_line`` (old NaN become null), atomically, and
    only if something changed. Lines that are not JSON objects are kept as they are."""
    if not path.is_file():
        return
    data = path.read_bytes()
    kept = []
    for line in data.split(b"\n")[:-1]:  # after the last newline: nothing, or a torn line
        line += b"\n"
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if not isinstance(row, dict):
            kept.append(line)
            continue
        trained = row.get("games_trained")
        if not (isinstance(trained, int | float) and trained > games):
            kept.append(metrics_line(row).encode())
    trimmed = b"".join(kept)
    if trimmed != data:
        atomic_write_bytes(path, trimmed)


def prepare_run_dir(path: Path, fresh: bool) -> Path:
    """Create the run folder; ConfigError naming ``run.run_dir`` if it cannot be one,
    or if a ``fresh`` run would overwrite the checkpoint of another."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"run.run_dir {path}: cannot be the run folder ({error.strerror or error})"
        ) from None
    if fresh and (path / CHECKPOINT_NAME).exists():
        raise ConfigError(
            f"run.run_dir {path} already holds a run ({CHECKPOINT_NAME}): continue it with "
            "--resume, or start this one in another run.run_dir"
        )
    return path


class _StopOnSignal:
    """SIGTERM / SIGINT ask the loop to stop after the current cycle and save.

    A second signal acts as usual (kills at once); even then the last
    checkpoint is intact, since checkpoints are written atomically.
    """

    def __init__(self) -> None:
        self.requested = False
        self._old = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                self._old[sig] = signal.signal(sig, self._handle)

    def _handle(self, signum, frame) -> None:
        self.requested = True
        signal.signal(signum, self._old.get(signum, signal.SIG_DFL))

    def restore(self) -> None:
        for sig, handler in self._old.items():
            signal.signal(sig, handler)


def _echo(text: str) -> None:
    print(text, flush=True)


class _Console:
    """What the loop prints: lines through ``echo`` and the tqdm bar (``progress``).

    When the reader of the output goes away (``tdgammon train ... | head -2``)
    the run stops as on SIGTERM: after the current cycle, with a final
    checkpoint; what it would still print goes to /dev/null.
    """

    def __init__(self, echo, progress, stop: _StopOnSignal) -> None:
        self.echo = echo
        self.progress = progress
        self.stop = stop

    def say(self, text: str) -> None:
        """A line on stdout."""
        self._guard(self.echo, text)

    def note(self, text: str) -> None:
        """A line on stdout, above the bar if there is one."""
        self._guard(self.progress.write if self.progress is not None else self.echo, text)

    def advance(self, stats: dict) -> None:
        """Move the bar on by one cycle's games."""
        if self.progress is not None:
            self._guard(self.progress.update, stats["games"])
            postfix = {
                "loss": f"{stats['loss']:.4f}",
                "games_s": f"{stats['games_per_second']:.0f}",
            }
            self._guard(self.progress.set_postfix, postfix)

    def close(self) -> None:
        if self.progress is not None:
            self._guard(self.progress.close)

    def _guard(self, write, *args) -> None:
        try:
            write(*args)
        except BrokenPipeError:
            self.stop.requested = True
            _discard_broken_output()


def _discard_broken_output() -> None:
    """Point stdout / stderr at /dev/null where their reader has gone, so that later
    writes and the interpreter's last flush do not fail again (the recipe of
    Python's ``signal`` documentation, "Note on SIGPIPE")."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, stream.fileno())
            os.close(null)


def _progress_bar(cfg, games: int):
    """The tqdm bar of ``run.progress`` (None when off), starting at ``games``."""
    if not cfg.progress:
        return None
    from tqdm import tqdm

    return tqdm(
        total=cfg.max_games, initial=games, unit="game", dynamic_ncols=True, mininterval=1.0
    )


def _evaluate(trainer: Trainer, console: _Console) -> None:
    """One periodic evaluation: TensorBoard, a metrics.jsonl row, a line of output."""
    result = trainer.evaluate()
    opp = trainer.opponent_name()
    trainer.log(
        {
            f"eval/ppg_vs_{opp}": result[f"ppg_vs_{opp}"],
            "eval/ppg_vs_best": result.get("ppg_vs_best", float("nan")),
        }
    )
    with open(trainer.run_dir / METRICS_NAME, "a", encoding="utf-8") as out:
        out.write(metrics_line(result))
    message = (
        f"games {result['games_trained']}: {result[f'ppg_vs_{opp}']:+.3f} ppg vs "
        f"{opp} (+/- {result[f'ci95_vs_{opp}']:.3f})"
    )
    if "ppg_vs_best" in result:
        message += f", {result['ppg_vs_best']:+.3f} vs best"
    console.note(message)


def train(
    config: Config, resume_data: dict | None = None, echo=_echo, make_trainer=Trainer
) -> Trainer:
    """Run training until ``run.max_games`` (or ``run.max_minutes``); returns the trainer.

    make_trainer: ``(config, resume_data) -> Trainer``; ``tdgammon.train.distributed``
    passes one whose cycles take their games from Ray actors."""
    torch.set_num_threads(config.run.threads)
    run_dir = prepare_run_dir(Path(config.run.run_dir), fresh=resume_data is None)
    trainer = make_trainer(config, resume_data)
    trainer.sync_run_files()
    atomic_write_bytes(run_dir / "config.toml", to_toml(config).encode())
    cfg = config.run
    started = time.perf_counter()
    last_checkpoint = started
    last_checkpoint_games = trainer.counters.games
    stop = _StopOnSignal()
    console = _Console(echo, _progress_bar(cfg, trainer.counters.games), stop)
    variant_note = "" if trainer.variant == "standard" else f" ({trainer.variant})"
    try:
        console.say(
            f"training {trainer.preset.name}{variant_note} in {run_dir} from game "
            f"{trainer.counters.games} to {cfg.max_games}"
        )
        while trainer.counters.games < cfg.max_games and not stop.requested:
            if cfg.max_minutes and time.perf_counter() - started > cfg.max_minutes * 60:
                break
            cycle_start = time.perf_counter()
            stats = trainer.cycle()
            trainer.check_finite(stats)
            elapsed = time.perf_counter() - cycle_start
            trainer.counters.seconds += elapsed
            stats["games_per_second"] = stats["games"] / elapsed if elapsed > 0 else 0.0
            trainer.log(
                {
                    "train/loss": stats["loss"],
                    "train/learning_rate": stats["learning_rate"],
                    "train/games_per_second": stats["games_per_second"],
                }
            )
            console.advance(stats)
            every = config.eval.every_games
            if every and trainer.counters.games - trainer.counters.last_eval_games >= every:
                _evaluate(trainer, console)
            now = time.perf_counter()
            due_time = now - last_checkpoint >= cfg.checkpoint_minutes * 60
            due_games = (
                cfg.checkpoint_games
                and trainer.counters.games - last_checkpoint_games >= cfg.checkpoint_games
            )
            if due_time or due_games:
                trainer.save()
                last_checkpoint, last_checkpoint_games = now, trainer.counters.games
        trainer.save()
    finally:
        stop.restore()
        console.close()
        trainer.close()
    console.say(f"stopped at game {trainer.counters.games}; checkpoint {run_dir / CHECKPOINT_NAME}")
    return trainer
