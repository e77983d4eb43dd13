"""The training loop: self-play, TD(lambda) updates, evaluation, checkpoints, logs.

One cycle: advance all self-play games ply by ply until the finished games
hold ``td.update_positions`` positions; turn them into lambda-return targets
(``tdgammon.train.selfplay``); one pass of minibatch gradient steps over them. Between
cycles (never inside one) the loop may evaluate, write a checkpoint or stop,
so a checkpoint always sits on a cycle boundary and ``--resume`` continues
exactly: the in-flight games, the optimizer, the counters and both random
generators are restored.

Files in ``run.run_dir``: ``checkpoint.pt`` (latest, for ``--resume``),
``best.pt`` (model file of the best network by ppg against pubeval; for the
other variants (``model.variant``) against ``tdgammon.engine.players.heuristic``, whose
games are played by ``tdgammon.engine.players.duel.play_duel``),
``metrics.jsonl`` (one JSON line per evaluation, for the learning curve),
``config.toml`` (resolved config), ``tb/`` (TensorBoard: loss, learning rate,
games/s, ppg against pubeval and against the best so far).
"""

from __future__ import annotations

import json
import math
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from tdgammon.engine.evaluation.evaluator import NetworkAgent, NetworkEvaluator
from tdgammon.models.network import (
    ModelFileError,
    build_network,
    get_preset,
    load_model,
    model_record,
    network_from_record,
    save_model,
)
from tdgammon.train.checkpoint import git_commit, load_checkpoint, save_checkpoint, to_arrays
from tdgammon.train.config import Config, apply_overrides, config_from_dict, config_to_dict, to_toml
from tdgammon.train.selfplay import SelfPlay

CHECKPOINT_NAME = "checkpoint.pt"
BEST_NAME = "best.pt"
METRICS_NAME = "metrics.jsonl"


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
        self.optimizer = self._make_optimizer()
        self.rng = np.random.default_rng(config.selfplay.seed)
        torch.manual_seed(config.selfplay.seed)
        self.variant = config.model.variant
        self.selfplay = SelfPlay(
            config.selfplay.parallel_games, self.rng, config.selfplay.exploration, self.variant
        )
        self.counters = Counters()
        self.best_ppg: float | None = None
        self.evaluator = NetworkEvaluator(self.network, self.preset, "current", self.variant)
        if resume_from is not None:
            self._restore(resume_from)
        self._writer = None

    def _make_optimizer(self) -> torch.optim.Optimizer:
        td = self.config.td
        if td.optimizer == "sgd":
            return torch.optim.SGD(self.network.parameters(), lr=td.learning_rate)
        return torch.optim.Adam(self.network.parameters(), lr=td.learning_rate)

    def learning_rate(self) -> float:
        td = self.config.td
        if td.learning_rate_half_life_games <= 0:
            return td.learning_rate
        rate = td.learning_rate * 0.5 ** (self.counters.games / td.learning_rate_half_life_games)
        return max(rate, td.min_learning_rate)

    # ------------------------------------------------------------ state

    def _restore(self, data: dict) -> None:
        where = str(self.run_dir / CHECKPOINT_NAME)
        preset, network = network_from_record(data["model"], where)
        if preset.name != self.preset.name or preset.hidden != self.preset.hidden:
            raise ModelFileError(
                f"{where}: checkpoint holds preset {preset.name!r}, config asks for "
                f"{self.preset.name!r}"
            )
        self.network.load_state_dict(network.state_dict())
        self.network.train()
        try:
            self.optimizer.load_state_dict(data["optimizer"])
        except (ValueError, KeyError) as error:
            raise ModelFileError(f"{where}: optimizer state does not fit ({error})") from None
        self.counters = Counters(**data["counters"])
        self.rng.bit_generator.state = json.loads(data["random"]["numpy"])
        torch.random.set_rng_state(data["random"]["torch"])
        self.selfplay.load_state(to_arrays(data["selfplay"]))
        self.selfplay.rng = self.rng
        self.best_ppg = data.get("best", {}).get("ppg_vs_pubeval")

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
            # for variants), under the historical key.
            "best": {"ppg_vs_pubeval": self.best_ppg},
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
        from tdgammon.engine.players.duel import play_duel
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
        if cfg.best_games > 0 and best_path.is_file():
            preset, network, _ = load_model(best_path)
            best = NetworkAgent(NetworkEvaluator(network, preset, "best", self.variant))
            vs_best = play_duel(
                agent, best, cfg.best_games, cfg.seed + 1, cfg.parallel_pairs, variant=self.variant
            )
            result["ppg_vs_best"] = vs_best.ppg
            result["ci95_vs_best"] = vs_best.ci95
        if self.best_ppg is None or vs_opp.ppg > self.best_ppg:
            self.best_ppg = vs_opp.ppg
            card = dict(self.card(), ci95=vs_opp.ci95)
            card[f"ppg_vs_{opp}"] = vs_opp.ppg
            save_model(best_path, self.preset, self.network, card)
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
    the checkpoint's folder).
    """
    if resume is None:
        return config, None
    path = Path(resume or config.run.run_dir)
    if path.is_dir():
        path = path / CHECKPOINT_NAME
    data = load_checkpoint(path)
    saved = config_from_dict(data["config"], f"{path} (saved config)")
    saved = apply_overrides(saved, [f'run.run_dir="{path.parent.as_posix()}"'] + list(overrides))
    if saved.model != config_from_dict(data["config"], str(path)).model:
        raise ModelFileError(f"{path}: --set cannot change the [model] of a run being resumed")
    return saved, data


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


def train(
    config: Config, resume_data: dict | None = None, echo=_echo, make_trainer=Trainer
) -> Trainer:
    """Run training until ``run.max_games`` (or ``run.max_minutes``); returns the trainer.

    make_trainer: ``(config, resume_data) -> Trainer``; ``tdgammon.train.distributed``
    passes one whose cycles take their games from Ray actors."""
    torch.set_num_threads(config.run.threads)
    trainer = make_trainer(config, resume_data)
    run_dir = trainer.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.toml").write_text(to_toml(config))
    cfg = config.run
    started = time.perf_counter()
    last_checkpoint = started
    last_checkpoint_games = trainer.counters.games
    progress = None
    if cfg.progress:
        from tqdm import tqdm

        progress = tqdm(
            total=cfg.max_games,
            initial=trainer.counters.games,
            unit="game",
            dynamic_ncols=True,
            mininterval=1.0,
        )
    variant_note = "" if trainer.variant == "standard" else f" ({trainer.variant})"
    echo(
        f"training {trainer.preset.name}{variant_note} in {run_dir} from game "
        f"{trainer.counters.games} to {cfg.max_games}"
    )
    stop = _StopOnSignal()
    try:
        while trainer.counters.games < cfg.max_games and not stop.requested:
            if cfg.max_minutes and time.perf_counter() - started > cfg.max_minutes * 60:
                break
            cycle_start = time.perf_counter()
            stats = trainer.cycle()
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
            if progress is not None:
                progress.update(stats["games"])
                progress.set_postfix(
                    loss=f"{stats['loss']:.4f}", games_s=f"{stats['games_per_second']:.0f}"
                )
            every = config.eval.every_games
            if every and trainer.counters.games - trainer.counters.last_eval_games >= every:
                result = trainer.evaluate()
                opp = trainer.opponent_name()
                trainer.log(
                    {
                        f"eval/ppg_vs_{opp}": result[f"ppg_vs_{opp}"],
                        "eval/ppg_vs_best": result.get("ppg_vs_best", float("nan")),
                    }
                )
                with open(run_dir / METRICS_NAME, "a") as out:
                    out.write(json.dumps(result) + "\n")
                message = (
                    f"games {result['games_trained']}: {result[f'ppg_vs_{opp}']:+.3f} ppg vs "
                    f"{opp} (+/- {result[f'ci95_vs_{opp}']:.3f})"
                )
                if "ppg_vs_best" in result:
                    message += f", {result['ppg_vs_best']:+.3f} vs best"
                (progress.write if progress is not None else echo)(message)
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
        if progress is not None:
            progress.close()
        trainer.close()
    echo(f"stopped at game {trainer.counters.games}; checkpoint {run_dir / CHECKPOINT_NAME}")
    return trainer
