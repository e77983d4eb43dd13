"""Per-decision strength of variants of the shipped network's 1-ply search.

Usage:
    python scripts/search_variants.py ensemble SECOND.pt --plies 0|1
    python scripts/search_variants.py decoupled SECOND.pt
    python scripts/search_variants.py soft TEMPERATURE
    python scripts/search_variants.py blend WEIGHT

Each is measured like ``tdgammon bench choices`` (``tdgammon.train.choices``):
the 6,000 decisions of ``--seed`` (default 2) sampled from the shipped network's
self-play, the shipped network at the same depth as the baseline player, GNU
Backgammon's 2-ply as the judge (``pip install -e '.[gnubg]'``; a benchmark only).

- ``ensemble``: the contact network's probabilities are the mean of the shipped
  network's and SECOND's (races still go to the shipped race evaluator).
- ``decoupled``: a 1-ply search whose opponent replies are chosen by one network
  and valued by the other, both ways, averaged. A 1-ply value averages the best
  reply of each roll, and the maximum of noisy values is biased towards the
  replier by the noise the choice picks out; a reply chosen by one network and
  valued by another does not carry that bias when their errors are independent.
- ``soft``: 1-ply whose reply to each roll is valued by a softmax (at TEMPERATURE,
  equity units) over the replies' 0-ply equities, not by the best one's.
- ``blend``: 1-ply whose candidates are ranked by (1 - WEIGHT) times their 1-ply
  equity plus WEIGHT times their 0-ply equity.

Prints one JSON line: gain per unforced decision (equity, 95% interval), the
share of decisions chosen differently, and the gain per position class.
docs/training.md, "Session 13" and "Session 14", has the figures.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from tdgammon.engine.cube.benchmark import phase
from tdgammon.engine.evaluation import search as search_module
from tdgammon.engine.evaluation.evaluator import (
    NetworkEvaluator,
    default_evaluator,
    load_evaluator,
)
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.players.factory import network_player
from tdgammon.train.choices import Judge, class_summary, decision_sample, judged_gains


class EnsembleEvaluator(NetworkEvaluator):
    """The first evaluator with its contact network's output replaced by the mean of
    every member's contact network (``(B, 5) float32`` as the network gives it)."""

    def __init__(self, members: list[NetworkEvaluator]) -> None:
        first = members[0]
        super().__init__(first.network, first.preset, "ensemble", first.variant, first.race)
        self.members = members

    def _network_probabilities(self, boards: np.ndarray) -> np.ndarray:
        outputs = [member._network_probabilities(boards) for member in self.members]
        return np.mean(outputs, axis=0).astype(np.float32)


class OnePlySearch(Search):
    """A 1-ply search whose reply to each (position, roll) pair is valued by
    ``reply_values`` instead of the best reply's 0-ply value."""

    def _expand(self, boards: np.ndarray, plies: int) -> np.ndarray:
        if plies != 1:
            raise ValueError(f"{type(self).__name__} is a 1-ply search only")
        count = len(boards)
        rolls = search_module.N_ROLLS
        moves = search_module.generate_moves(
            np.repeat(boards, rolls, axis=0), np.tile(search_module.ALL_ROLLS, (count, 1))
        )
        chosen = self.reply_values(moves, count * rolls).reshape(count, rolls, -1)
        weights = search_module.ROLL_WEIGHTS.astype(np.float64)
        return np.einsum("nrk,r->nk", chosen, weights).astype(np.float32)

    def reply_values(self, moves, pairs: int) -> np.ndarray:
        """``(pairs, 5)``: the value of each pair's reply, mover's view after it."""
        raise NotImplementedError


class DecoupledSearch(OnePlySearch):
    """1-ply search (module docstring): each roll's reply is chosen with one network
    and valued with the other, both ways, averaged."""

    def __init__(self, first: NetworkEvaluator, second: NetworkEvaluator) -> None:
        super().__init__(first)
        self.second = Search(second)

    def reply_values(self, moves, pairs: int) -> np.ndarray:
        first = self.play_probabilities(moves.boards, 0, moves.extra_roll)
        second = self.second.play_probabilities(moves.boards, 0, moves.extra_roll)
        by_first = search_module.best_rows(self.score(first), moves.parents, pairs)
        by_second = search_module.best_rows(self.score(second), moves.parents, pairs)
        return 0.5 * (second[by_first] + first[by_second])


class SoftReplySearch(OnePlySearch):
    """1-ply search whose reply to each roll is valued by a softmax over the replies'
    0-ply equities at ``temperature`` (equity units) instead of their maximum: the
    maximum of noisy values is biased towards the replier, the more so the more
    near-equal replies a roll has; a softmax spreads the choice over them."""

    def __init__(self, evaluator: NetworkEvaluator, temperature: float) -> None:
        super().__init__(evaluator)
        self.temperature = temperature

    def reply_values(self, moves, pairs: int) -> np.ndarray:
        values = self.play_probabilities(moves.boards, 0, moves.extra_roll).astype(np.float64)
        scores = self.score(values)
        starts = np.searchsorted(moves.parents, np.arange(pairs))
        top = np.maximum.reduceat(scores, starts)
        weights = np.exp((scores - top[moves.parents]) / self.temperature)
        total = np.add.reduceat(weights, starts)
        return np.add.reduceat(values * weights[:, None], starts) / total[:, None]


class BlendPlayer:
    """Agent protocol: 1-ply with the root filter, each candidate ranked by
    ``(1 - weight) * its 1-ply equity + weight * its 0-ply equity``."""

    def __init__(self, search: Search, weight: float) -> None:
        self.search, self.weight, self.name = search, weight, f"blend-{weight}"

    def choose_plays(self, boards, dice, moves) -> np.ndarray:
        zero = self.search.score(self.search.play_probabilities(moves.boards, 0, moves.extra_roll))
        values, depth = self.search.value_plays(moves, 1)
        parent_depth = np.zeros(len(boards), dtype=np.int64)
        np.maximum.at(parent_depth, moves.parents, depth)
        blended = (1 - self.weight) * self.search.score(values) + self.weight * zero
        scores = np.where(depth == parent_depth[moves.parents], blended, -np.inf)
        return search_module.best_rows(scores, moves.parents, len(boards))


class SearchPlayer:
    """Agent protocol: the best play of each position by ``search`` at ``plies``."""

    def __init__(self, search: Search, plies: int, name: str) -> None:
        self.search, self.plies, self.name = search, plies, name

    def choose_plays(self, boards, dice, moves) -> np.ndarray:
        return self.search.choose_rows(moves, len(boards), self.plies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("ensemble", "decoupled", "soft", "blend"))
    parser.add_argument(
        "second",
        help="the second model file (ensemble, decoupled); soft: the temperature; "
        "blend: the 0-ply weight",
    )
    parser.add_argument("--plies", type=int, default=1, help="depth of both players (ensemble)")
    parser.add_argument("--sample", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(1)
    started = time.time()
    shipped = default_evaluator()
    if args.kind == "soft":
        plies = 1
        player = SearchPlayer(SoftReplySearch(shipped, float(args.second)), 1, "soft")
    elif args.kind == "blend":
        plies = 1
        player = BlendPlayer(Search(shipped), float(args.second))
    elif args.kind == "ensemble":
        second = load_evaluator(args.second)
        plies = args.plies
        player = SearchPlayer(Search(EnsembleEvaluator([shipped, second])), plies, "ensemble")
    else:
        plies = 1
        player = SearchPlayer(DecoupledSearch(shipped, load_evaluator(args.second)), 1, "decoupled")
    baseline = network_player(default_evaluator(), plies)
    boards, dice = decision_sample(args.sample, args.seed, default_evaluator())
    gain, differ, unforced = judged_gains(player, baseline, Judge("gnubg:2"), boards, dice)
    classes = np.array([phase(board) for board in boards])
    report = {
        "kind": args.kind,
        "second": args.second,
        "plies": plies,
        **class_summary(gain, differ, unforced, classes),
        "seconds": round(time.time() - started),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
