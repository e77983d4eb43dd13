"""Evaluation matches and training benchmarks behind ``tdgammon bench``.

``strength``: cubeless money games in duplicate pairs (``tdgammon.engine.players.duel``)
between a model and pubeval, random, the heuristic player or another model:
ppg with a 95% confidence interval over pairs, win / gammon / backgammon
rates. With a variant (``--variant``, or the variant named in the model's
card) the games follow that variant's rules and scoring
(``tdgammon.engine.players.duel.play_duel`` with ``variant=``).

``bench_selfplay``: training games per second of each preset, measured on the
real training cycle (self-play plies AND the TD updates), after a warm-up.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import torch

from tdgammon.engine.rules.errors import TdgammonError


def model_variant(spec: str | None) -> str | None:
    """The variant named in the card of model file ``spec`` (None for the built-in
    names of ``tdgammon.engine.players.factory`` and for what is not a file)."""
    from tdgammon.engine.players.factory import is_player_name

    if not spec or is_player_name(spec) or not Path(spec).is_file():
        return None
    from tdgammon.models.network import load_model

    return load_model(spec)[2].get("variant") or "standard"


def strength(
    model: str | None,
    opponent: str,
    games: int,
    seed: int,
    threads: int = 2,
    variant: str | None = None,
    plies: int = 0,
):
    """Play ``games`` duplicate-dice games; returns (summary dict, text).

    model: a ``tdgammon.engine.players.factory.make_agent`` spec (None: the shipped
    network); opponent: another spec (a random opponent plays with seed 0).
    variant: None = the variant in the model's card (standard without one); a
    model trained for another variant than the one asked for is an error.
    plies: the model's search depth (``make_agent``: 0 the greedy network player,
    N a ``CubeAgent`` searching N plies); the opponent plays at 0.
    """
    from tdgammon.engine.players.duel import play_duel
    from tdgammon.engine.players.factory import make_agent
    from tdgammon.engine.rules.variants import get_variant

    if games < 2:
        raise TdgammonError("--games must be at least 2 (games are played in duplicate pairs)")
    trained_for = model_variant(model)
    if variant is None:
        variant = trained_for or "standard"
    variant = get_variant(variant).name
    if opponent.strip().lower() == "pubeval" and variant != "standard":
        raise TdgammonError("pubeval plays standard backgammon only: use --opponent heuristic")
    torch.set_num_threads(threads)
    # make_agent refuses a model file trained for another variant
    agent_a = make_agent(model or "network", variant=variant, plies=plies, seed=0)
    agent_b = make_agent(opponent, variant=variant, seed=0)
    if agent_a.name == agent_b.name:
        agent_b.name = agent_b.name + "-b"
    result = play_duel(agent_a, agent_b, games, seed, variant=variant)
    return result.summary(), result.text()


def bench_selfplay(
    presets: list[str],
    seconds: float,
    threads: int,
    parallel_games: int,
    workers: int = 0,
    init_from: str | None = None,
) -> list[dict]:
    """Training self-play speed per preset (games/s of whole cycles), from fresh
    networks or, with ``init_from``, from that model's weights (a fresh network
    of a large preset plays games that hardly end).

    workers: 0 the single-process trainer; N the learner with N Ray self-play actors
    of ``parallel_games`` games each (``tdgammon.train.distributed``, a local Ray
    instance)."""
    from tdgammon.train.config import Config, apply_overrides
    from tdgammon.train.loop import Trainer

    if workers:
        from tdgammon.train.distributed import DistributedTrainer, require_ray

        require_ray("tdgammon bench selfplay --workers")
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
                f"selfplay.workers={workers}",
            ]
            + ([f"model.init_from={json.dumps(str(init_from))}"] if init_from else []),
        )
        if workers:
            trainer = DistributedTrainer(config, echo=lambda text: None)
        else:
            trainer = Trainer(config)
        try:
            trainer.cycle()  # warm-up: fills the pipeline of in-flight games
            games, plies0 = 0, _plies_played(trainer)
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                games += trainer.cycle()["games"]
            elapsed = time.perf_counter() - start
            plies = _plies_played(trainer) - plies0
        finally:
            trainer.close()
        rows.append(
            {
                "preset": preset,
                "threads": threads,
                "workers": workers,
                "parallel_games": parallel_games,
                "games": games,
                "seconds": elapsed,
                "games_per_second": games / elapsed,
                "plies_per_second": plies / elapsed,
                "mean_plies_per_game": float(np.float64(plies) / max(games, 1)),
            }
        )
    return rows


def _plies_played(trainer) -> int:
    """Self-play plies so far: the trainer's own games, or its Ray actors' (a
    ``tdgammon.train.distributed.DistributedTrainer`` counts those it received)."""
    if hasattr(trainer, "games_by_actor"):
        return trainer.plies_played
    return trainer.selfplay.plies_played
