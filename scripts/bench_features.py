"""Speed of the expert features and of the raw encoding, in boards per second.

Usage: python scripts/bench_features.py [--batches 4096 32768] [--repeat 5] [--profile]
       [--players random|heuristic]

Boards come from games with random dice (``random_game_positions``, seed 0, 16
games in parallel so that every phase of the game is met), played by random
plays (default: many blots and hits, the slow case) or by the heuristic agent
(closer to the positions self-play meets). Each figure
is the best of ``--repeat`` timed calls on one batch (numpy runs on one core
here: no threads are involved). ``--profile`` also times the parts of
``expert_features`` (mask building, the shot features, the rest of each half)
at the largest batch.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.players.heuristic import HeuristicAgent
from tdgammon.engine.rules.board import flip
from tdgammon.models import features
from tdgammon.models.encoding import expert_encoding, extended_encoding, raw_encoding


def best_rate(function, boards: np.ndarray, repeat: int) -> float:
    """Boards per second of ``function(boards)``, best of ``repeat`` calls after a warm-up."""
    function(boards)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function(boards)
        best = min(best, time.perf_counter() - start)
    return len(boards) / best


def profile(boards: np.ndarray, repeat: int) -> None:
    """Time the stages of ``expert_features`` separately (seconds per call, best of ``repeat``)."""
    boards = boards[: features._CHUNK]
    me = features._Side(boards)
    other = features._Side(flip(boards))
    out = np.empty((features.SIDE_SIZE, len(boards)), dtype=np.float32)
    stages = {
        "flip + masks (both sides)": lambda: (features._Side(boards), features._Side(flip(boards))),
        "shots (one side)": lambda: features.shots(
            other.occupied, other.bar, other.single, other.enemy_blots, ~other.enemy_made
        ),
        "one half incl. shots": lambda: features._half(me, other, out),
    }
    for name, stage in stages.items():
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            stage()
            best = min(best, time.perf_counter() - start)
        print(f"  {name:28s} {best * 1e3:8.2f} ms  ({best / len(boards) * 1e9:6.0f} ns/board)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[4096, 32768])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--players", choices=["random", "heuristic"], default="random")
    args = parser.parse_args()
    choose = HeuristicAgent().choose_plays if args.players == "heuristic" else None
    boards, _ = random_game_positions(
        max(args.batches), np.random.default_rng(0), parallel_games=16, choose_plays=choose
    )
    print(f"{len(boards)} positions from {args.players} games")
    functions = {
        "raw_encoding": raw_encoding,
        "extended_encoding": extended_encoding,
        "expert_features": features.expert_features,
        "expert_encoding": expert_encoding,
    }
    print(f"{'function':20s}" + "".join(f"{f'B={b}':>16s}" for b in args.batches))
    for name, function in functions.items():
        rates = [best_rate(function, boards[:b], args.repeat) for b in args.batches]
        print(f"{name:20s}" + "".join(f"{r:13,.0f} /s" for r in rates))
    if args.profile:
        print(f"profile of one chunk (B={min(features._CHUNK, max(args.batches))}):")
        profile(boards[: max(args.batches)], args.repeat)


if __name__ == "__main__":
    main()
