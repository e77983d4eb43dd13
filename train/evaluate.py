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

import time
from pathlib import Path

import numpy as np
import torch
from tdgammon.engine.rules.errors import TdgammonError


def make_agent(
    spec: str | None, name: str | None = None, variant: str | None = None, plies: int = 0
):
    """An Agent from ``pubeval``, ``random``, ``heuristic``, ``default``/None (the
    shipped standard model, or ``models/tdgammon-<variant>.pt``) or a path.

    variant: the rules the agent plays (None: standard, or for a model file the
    variant named in its card). plies: a network's search depth (0: each play
    valued by the network; n >= 1: ``tdgammon.engine.evaluation.search`` n-ply with move
    filters)."""
    from tdgammon.engine.evaluation.evaluator import NetworkAgent, default_evaluator, load_evaluator
    from tdgammon.engine.evaluation.search import Search, SearchAgent, check_plies
    from tdgammon.engine.players.agents import PubevalAgent, RandomAgent
    from tdgammon.engine.players.heuristic import HeuristicAgent

    check_plies(plies)

    def network_agent(evaluator, agent_name: str):
        if plies == 0:
            return NetworkAgent(evaluator, agent_name)
        return SearchAgent(Search(evaluator), plies, f"{agent_name}-{plies}ply")

    if spec in (None, "", "default", "shipped"):
        if variant in (None, "standard"):
            return network_agent(default_evaluator(), name or "tdgammon")
        spec = str(variant_model_path(variant))
    if spec == "pubeval":
        return PubevalAgent()
    if spec == "random":
        return RandomAgent(seed=0)
    if spec == "heuristic":
        return HeuristicAgent(variant)
    if not Path(spec).exists():
        raise TdgammonError(
            f"{spec}: no such model file (or say pubeval, random, heuristic, default)"
        )
    return network_agent(load_evaluator(spec, variant=variant), name or Path(spec).stem)


def variant_model_path(variant: str) -> Path:
    """``models/tdgammon-<variant>.pt``, the shipped model of a variant."""
    import tdgammon.models

    return Path(tdgammon.models.__file__).with_name(f"tdgammon-{variant}.pt")


def model_variant(spec: str | None) -> str | None:
    """The variant named in the card of model file ``spec`` (None for pubeval etc.)."""
    if spec in (None, "", "default", "shipped", "pubeval", "random", "heuristic"):
        return None
    if not Path(spec).exists():
        return None
    from tdgammon.models.network import load_model

    return load_model(spec)[2].get("variant") or "standard"


def play_variant_duel(
    agent_a, agent_b, games: int, seed: int, variant=None, parallel_pairs: int = 256
):
    """``tdgammon.engine.players.duel.play_duel`` with the variant's rules and scoring (a
    ``DuelResult``
    from A's side; points are ``tdgammon.engine.rules.outcome.game_values``: 1-3 for the standard
    scoring, 1-15 checkers left for Acey-Deucey)."""
    from tdgammon.engine.players.duel import play_duel

    return play_duel(agent_a, agent_b, games, seed, parallel_pairs, variant=variant)


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

    variant: None = the variant in the model's card (standard without one); a
    model trained for another variant than the one asked for is an error.
    plies: the model's search depth (``make_agent``); the opponent plays as usual.
    """
    from tdgammon.engine.rules.variants import get_variant

    if games < 2:
        raise TdgammonError("--games must be at least 2 (games are played in duplicate pairs)")
    trained_for = model_variant(model)
    if variant is None:
        variant = trained_for or "standard"
    variant = get_variant(variant).name
    for spec in (model, opponent):
        other = model_variant(spec)
        if other is not None and other != variant:
            raise TdgammonError(f"{spec}: a {other} model cannot play {variant}")
    if opponent == "pubeval" and variant != "standard":
        raise TdgammonError("pubeval plays standard backgammon only: use --opponent heuristic")
    torch.set_num_threads(threads)
    agent_a = make_agent(model, variant=variant, plies=plies)
    agent_b = make_agent(opponent, variant=variant)
    if agent_a.name == agent_b.name:
        agent_b.name = agent_b.name + "-b"
    result = play_variant_duel(agent_a, agent_b, games, seed, variant)
    return result.summary(), result.text()


def bench_selfplay(
    presets: list[str], seconds: float, threads: int, parallel_games: int
) -> list[dict]:
    """Training self-play speed per preset (fresh networks; games/s of whole cycles)."""
    from tdgammon.train.config import Config, apply_overrides
    from tdgammon.train.loop import Trainer

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
