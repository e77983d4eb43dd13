"""Evaluation matches and training benchmarks behind ``tdgammon bench``.

``strength``: cubeless money games in duplicate pairs (``engine.duel``)
between a model and pubeval, random or another model: ppg with a 95%
confidence interval over pairs, win / gammon / backgammon rates.

``bench_selfplay``: training games per second of each preset, measured on the
real training cycle (self-play plies AND the TD updates), after a warm-up.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch

from engine.errors import TdgammonError


def make_agent(spec: str | None, name: str | None = None):
    """An Agent from ``pubeval``, ``random``, ``default``/None (shipped model) or a path."""
    from engine.agents import PubevalAgent, RandomAgent
    from engine.evaluator import NetworkAgent, default_evaluator, load_evaluator

    if spec in (None, "", "default", "shipped"):
        return NetworkAgent(default_evaluator(), name or "tdgammon")
    if spec == "pubeval":
        return PubevalAgent()
    if spec == "random":
        return RandomAgent(seed=0)
    if not Path(spec).exists():
        raise TdgammonError(f"{spec}: no such model file (or say pubeval, random, default)")
    return NetworkAgent(load_evaluator(spec), name or Path(spec).stem)


def strength(model: str | None, opponent: str, games: int, seed: int, threads: int = 2):
    """Play ``games`` duplicate-dice games; returns (summary dict, text)."""
    from engine.duel import play_duel

    if games < 2:
        raise TdgammonError("--games must be at least 2 (games are played in duplicate pairs)")
    torch.set_num_threads(threads)
    agent_a = make_agent(model)
    agent_b = make_agent(opponent)
    if agent_a.name == agent_b.name:
        agent_b.name = agent_b.name + "-b"
    result = play_duel(agent_a, agent_b, games, seed)
    return result.summary(), result.text()


def bench_selfplay(
    presets: list[str], seconds: float, threads: int, parallel_games: int
) -> list[dict]:
    """Training self-play speed per preset (fresh networks; games/s of whole cycles)."""
    from train.config import Config, apply_overrides
    from train.loop import Trainer

    torch.set_num_threads(threads)
    rows = []
    for preset in presets:
        config = apply_overrides(
            Config(),
            [
                f'model.preset="{preset}"',
                f"selfplay.parallel_games={parallel_games}",
                f"td.update_positions={min(Config().td.update_positions, 8 * parallel_games)}",
                "run.tensorboard=false",
                'run.run_dir="/nonexistent-bench"',
            ],
        )
        trainer = Trainer(config)
        trainer.cycle()  # warm-up: fills the pipeline of in-flight games
        games, plies0 = 0, trainer.selfplay.plies_played
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            games += trainer.cycle()["games"]
        elapsed = time.perf_counter() - start
        plies = trainer.selfplay.plies_played - plies0
        rows.append(
            {
                "preset": preset,
                "threads": threads,
                "parallel_games": parallel_games,
                "games": games,
                "seconds": elapsed,
                "games_per_second": games / elapsed,
                "plies_per_second": plies / elapsed,
                "mean_plies_per_game": float(np.float64(plies) / max(games, 1)),
            }
        )
    return rows
