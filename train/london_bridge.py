"""Self-play training of the London Bridge network: ``python -m tdgammon.train.london_bridge``.

The design (docs/london_bridge.md, "How the network learns"): TD(0) on
afterstates with the greedy backup. ``parallel_games`` games run at once, every
position valued by the network from the view of the player to move. At each
step, every turn of every game is valued ``search_depth`` plies deep with the
current network at the horizon (``tdgammon.engine.london_bridge_players.search``:
one ply is the value of the position the turn leaves, seen from the player who
made it; an ended game is valued exactly, ``outcome_value`` of its margin). The
best value is the target of the position; the network is fitted to the targets
of the step (one Adam step on the mean squared error), then each game plays its
best turn, or a random one with probability ``explore`` (the targets do not
depend on the turn played: learning is off-policy). The first
``opening_turns`` turns of each game are random, so that games differ. A game
that ends is replaced by a new one.

Every ``eval_seconds`` the network (one ply, no search) plays ``eval_games``
games against the greedy player; the best so far is kept as ``best.pt``. The
checkpoint (network, optimizer, counters, config) is written every
``checkpoint_seconds`` and at the end; ``--resume`` continues it (the games in
flight are not saved: they restart).

    python -m tdgammon.train.london_bridge --run-dir runs/lb --minutes 15
    python -m tdgammon.train.london_bridge --run-dir runs/lb --resume --minutes 5
    python -m tdgammon.train.london_bridge --run-dir runs/lb --ship models/london-bridge.pt
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import torch

from tdgammon.engine.london_bridge.game import game_over
from tdgammon.engine.london_bridge.movegen import generate_turns
from tdgammon.engine.london_bridge.rules import Rules, parse_rules
from tdgammon.engine.london_bridge.state import pass_turn, start_state
from tdgammon.engine.london_bridge_players.agents import SearchPlayer
from tdgammon.engine.london_bridge_players.choice import best_rows, random_rows
from tdgammon.engine.london_bridge_players.duel import play_match
from tdgammon.engine.london_bridge_players.network import (
    NetworkEvaluator,
    ValueNetwork,
    encode,
    load_model,
    save_model,
)
from tdgammon.engine.london_bridge_players.search import Search
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.models.atomic import atomic_torch_save
from tdgammon.models.files import CHECKSUM_KEY, ModelFileError, payload_sha256, read_torch_file
from tdgammon.train.checkpoint import git_commit

CHECKPOINT_FORMAT = "tdgammon-london-bridge-checkpoint"


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of a London Bridge training run (``--set field=value`` overrides one)."""

    minutes: float = 15.0
    """Wall-clock minutes of self-play and updates (evaluations not counted), this session."""
    parallel_games: int = 64
    """Games played at once; each step fits the network to one position of each."""
    search_depth: int = 1
    """Plies of the backup: 1 is TD(0) on afterstates; 2 or more, search-guided targets."""
    search_width: int = 8
    """Turns per inner node of a backup deeper than one ply (``Search.width``)."""
    explore: float = 0.1
    """Probability of a random turn instead of the best one (after the opening)."""
    opening_turns: int = 2
    """Random turns at the start of each game."""
    learning_rate: float = 1e-3
    """Adam's step size."""
    hidden: str = "64,32"
    """Hidden layer sizes, comma-separated."""
    seed: int = 1
    """Seed of the games' random choices and of the initial weights."""
    eval_seconds: float = 90.0
    """Seconds of training between evaluations against the greedy player."""
    eval_games: int = 100
    """Games of each evaluation (seats alternating, opening seed fixed)."""
    checkpoint_seconds: float = 60.0
    """Seconds of training between checkpoints."""
    threads: int = 1
    """Torch threads (one core by default)."""


def parse_config(values: list[str]) -> TrainConfig:
    types = {f.name: f.type for f in fields(TrainConfig)}
    changes: dict[str, object] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or key not in types:
            raise TdgammonError(f"--set {item!r}: expected field=value, field one of {list(types)}")
        try:
            changes[key] = {"int": int, "float": float, "str": str}[types[key]](value)
        except ValueError:
            raise TdgammonError(f"--set {item!r}: {key} must be {types[key]}") from None
    config = TrainConfig(**changes)
    if config.parallel_games < 1 or config.search_depth < 1 or config.eval_games < 1:
        raise TdgammonError("parallel_games, search_depth and eval_games must be at least 1")
    return config


class Trainer:
    """The state of a run: network, optimizer, games in flight, counters."""

    def __init__(self, config: TrainConfig, rules: Rules, run_dir: Path) -> None:
        self.config, self.rules, self.run_dir = config, rules, run_dir
        torch.manual_seed(config.seed)
        self.network = ValueNetwork(tuple(int(h) for h in config.hidden.split(",")))
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=config.learning_rate)
        self.counters = {"games": 0, "positions": 0, "steps": 0, "seconds": 0.0}
        self.best_score: float | None = None
        self.history: list[dict] = []
        self._start_games(config.seed)

    def _start_games(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        n = self.config.parallel_games
        self.states = np.repeat(start_state(self.rules)[None], n, axis=0)
        self.turns = np.zeros(n, dtype=np.int64)

    def search(self) -> Search:
        evaluator = NetworkEvaluator(self.network, self.rules)
        return Search(
            self.rules,
            self.config.search_depth,
            evaluator.evaluate,
            evaluator.terminal,
            width=self.config.search_width,
        )

    def step(self) -> None:
        """One turn of every game: targets, one update, the turns played."""
        n = len(self.states)
        moves = generate_turns(self.states, self.rules)
        values = self.search().move_values(moves, self.turns, n)
        targets = np.maximum.reduceat(values, moves.starts(n))
        self._update(encode(self.states, self.turns, self.rules), targets)
        rows = best_rows(values, moves.parents, n, self.rng)
        explore = (self.turns < self.config.opening_turns) | (
            self.rng.random(n) < self.config.explore
        )
        rows = np.where(explore, random_rows(moves.parents, n, self.rng), rows)
        self.states = pass_turn(moves.states[rows])
        self.turns += 1
        ended = game_over(self.states, self.turns, self.rules)
        self.states[ended] = start_state(self.rules)
        self.turns[ended] = 0
        self.counters["games"] += int(ended.sum())
        self.counters["positions"] += n
        self.counters["steps"] += 1

    def _update(self, inputs: np.ndarray, targets: np.ndarray) -> None:
        self.network.train()
        prediction = self.network(torch.from_numpy(inputs))
        loss = torch.mean((prediction - torch.from_numpy(targets.astype(np.float32))) ** 2)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.network.eval()

    def evaluate(self) -> float:
        """Score (win 1, draw 1/2) of the one-ply network against greedy."""
        evaluator = NetworkEvaluator(self.network, self.rules)
        player = SearchPlayer(self.rules, 1, "network", 7, evaluator.evaluate, evaluator.terminal)
        greedy = SearchPlayer(self.rules, 1, "greedy", 8)
        result = play_match(player, greedy, self.config.eval_games, self.rules, seed=12345)
        return float(result.score_a().mean())

    def card(self) -> dict:
        return {
            "rules": self.rules.describe() or "default",
            "config": asdict(self.config),
            "counters": dict(self.counters),
            "git_commit": git_commit(),
        }

    def save_checkpoint(self) -> None:
        data = {
            "format": CHECKPOINT_FORMAT,
            "model": save_model(None, self.network, self.rules, self.card()),
            "optimizer": self.optimizer.state_dict(),
            "counters": dict(self.counters),
            "best_score": self.best_score,
            "history": json.dumps(self.history),
        }
        data[CHECKSUM_KEY] = payload_sha256(data)
        atomic_torch_save(data, self.run_dir / "checkpoint.pt")

    def resume(self) -> None:
        path = self.run_dir / "checkpoint.pt"
        data, history = read_checkpoint(path)
        network, _ = load_model(path, self.rules)
        self.network.load_state_dict(network.state_dict())
        try:
            self.optimizer.load_state_dict(data["optimizer"])
        except (ValueError, KeyError, TypeError, RuntimeError) as error:
            raise ModelFileError(f"{path}: its optimizer state does not fit: {error}") from None
        for group in self.optimizer.param_groups:
            for parameter in group["params"]:
                for name, value in self.optimizer.state.get(parameter, {}).items():
                    if name != "step" and tuple(value.shape) != tuple(parameter.shape):
                        raise ModelFileError(f"{path}: its optimizer state does not fit ({name})")
        self.counters = dict(data["counters"])
        self.best_score = data["best_score"]
        self.history = history
        self._start_games(self.config.seed + int(self.counters["games"]))

    def run(self) -> None:
        """Train for ``config.minutes`` of wall-clock time (evaluations not counted)."""
        budget = self.config.minutes * 60
        spent = 0.0
        since_eval = since_checkpoint = 0.0
        while spent < budget:
            began = time.perf_counter()
            self.step()
            took = time.perf_counter() - began
            spent += took
            since_eval += took
            since_checkpoint += took
            self.counters["seconds"] += took
            if since_eval >= self.config.eval_seconds or spent >= budget:
                self._evaluate_and_log()
                since_eval = 0.0
            if since_checkpoint >= self.config.checkpoint_seconds:
                self.save_checkpoint()
                since_checkpoint = 0.0
        self.save_checkpoint()

    def _evaluate_and_log(self) -> None:
        score = self.evaluate()
        entry = {**self.counters, "score_vs_greedy": score}
        self.history.append(entry)
        if self.best_score is None or score >= self.best_score:
            self.best_score = score
            save_model(self.run_dir / "best.pt", self.network, self.rules, self.card())
        print(json.dumps(entry), flush=True)


def read_checkpoint(path: Path) -> tuple[dict, list]:
    """``(data, history)`` of a run's checkpoint: ModelFileError naming the file unless
    it is one (format tag, checksum where written, counters of whole numbers and
    seconds, a best score, a JSON list of history entries, an optimizer state)."""
    data = read_torch_file(path, "London Bridge training checkpoint")
    if data.get("format") != CHECKPOINT_FORMAT:
        raise ModelFileError(f"{path} is not a London Bridge training checkpoint")
    counters = data.get("counters")
    whole = ("games", "positions", "steps")
    if (
        not isinstance(counters, dict)
        or not all(type(counters.get(name)) is int and counters[name] >= 0 for name in whole)
        or not isinstance(counters.get("seconds"), int | float)
        or not counters["seconds"] >= 0
    ):
        raise ModelFileError(f"{path}: its counters are damaged")
    if data.get("best_score") is not None and not isinstance(data["best_score"], float | int):
        raise ModelFileError(f"{path}: its best score is damaged")
    if not isinstance(data.get("optimizer"), dict):
        raise ModelFileError(f"{path}: it holds no optimizer state")
    try:
        history = json.loads(data.get("history"))
    except (TypeError, ValueError):
        history = None
    if not isinstance(history, list):
        raise ModelFileError(f"{path}: its history is damaged")
    return data, history


def ship(run_dir: Path, out: Path, rules: Rules) -> None:
    """Copy ``best.pt`` of a run to ``out`` with the run's history in its card."""
    network, card = load_model(run_dir / "best.pt", rules)
    data, history = read_checkpoint(run_dir / "checkpoint.pt")
    card["history"] = history
    card["total_counters"] = dict(data["counters"])
    save_model(out, network, rules, card)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tdgammon.train.london_bridge")
    parser.add_argument("--run-dir", required=True, type=Path)
    parser.add_argument("--minutes", type=float, default=None, help="overrides config minutes")
    parser.add_argument("--set", action="append", default=[], help="config field=value")
    parser.add_argument("--rule", action="append", default=[], help="rule setting key=value")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--ship", type=Path, default=None, help="write best.pt here and stop")
    args = parser.parse_args(argv)
    try:
        rules = parse_rules(args.rule)
        if args.ship is not None:
            ship(args.run_dir, args.ship, rules)
            return 0
        settings = args.set + ([f"minutes={args.minutes}"] if args.minutes is not None else [])
        config = parse_config(settings)
        torch.set_num_threads(config.threads)
        args.run_dir.mkdir(parents=True, exist_ok=True)
        trainer = Trainer(config, rules, args.run_dir)
        if args.resume:
            trainer.resume()
        (args.run_dir / "config.json").write_text(json.dumps(asdict(config), indent=1))
        trainer.run()
    except TdgammonError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
