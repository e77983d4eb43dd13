"""Training the one-sided race network (``tdgammon train-race``).

The network (``tdgammon.models.race_distributions``) gives, for one side of a
race, the distributions of the rolls it needs to bear off all, to bear off a
first checker and to leave the opponent's home board. They obey a one-roll
recursion: a side's distribution is the 21-roll average of its best
successor's, one roll later; the exact one-sided bear-off database gives them
for sides all home. Training is value iteration on that recursion with the
network in the loop (fitted value iteration), anchored on the database:

1. **Sides**: race positions from 0-ply self-play of a model (default the
   shipped one; ``tdgammon.engine.analysis.race_benchmark.race_positions``),
   both sides of each, and every side met on random walks from them (random
   legal plays until home), so the network sees weaker positions too.
   Sides all home are left out (the database has them). A share ``holdout``
   is kept for validation.
2. **Generation 0**: targets from pip counts (a discretised normal around
   pips / 8.17 rolls and its like for the other heads), only a start.
3. **Generation g** (``generations`` passes): the sides sorted by pip count
   and cut into layers ``layer_pips`` wide; from the lowest layer up, each
   layer's targets are ``one_step_targets`` of
   ``tdgammon.engine.evaluation.one_sided_race`` (the successors valued by the
   network as fitted so far, the database where it applies), then the network
   is fitted (``layer_epochs``) to every side labelled so far. Every play
   lowers the pip count, so successors lie in the layers below, already
   fitted: one pass carries the database's exactness through all layers,
   where plain value iteration needs one generation per roll of the longest
   race (tried first: after five generations its means were still a roll
   short). After each pass, ``epochs`` more on every side. The fit is Adam on
   the cross-entropy to the targets, heads masked where the side is already
   done (a checker off: first off; no checker on 19..24: escape), the epoch
   with the lowest held-out loss kept; ``history.jsonl`` records each pass
   and how much the targets' mean rolls moved.
4. **Check**: held-out sides played out one-sidedly (``simulated_mean_rolls``,
   random dice, the network's own policies): the mean rolls against the
   network's, in the card.

Only this project's own database and network make the targets.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from tdgammon.engine.rules.dice import seed_argument
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.train.cli import output_file

MIN_SIDES = 20
"""Fewest sides a run trains on (a held-out share must remain)."""
PIPS_PER_ROLL = 8.17
"""Average pips of a roll (49 / 6), for generation 0 only."""


@dataclass(frozen=True)
class RaceTrainSettings:
    """``tdgammon train-race --help``."""

    positions: int = 6_000
    """Race positions from self-play (two sides each, before the walks)."""
    max_sides: int = 20_000
    generations: int = 2
    """Layered passes over every side (step 3)."""
    layer_pips: int = 4
    """Width of a layer, in pips."""
    layer_epochs: int = 2
    """Epochs of the fit after each layer; ``epochs`` after each pass."""
    epochs: int = 20
    hidden: int = 128
    learning_rate: float = 0.001
    batch_size: int = 256
    holdout: float = 0.05
    check_sides: int = 100
    """Held-out sides whose means are checked by simulation at the end."""
    check_games: int = 200
    seed: int = 1


def collect_sides(model: str | None, settings: RaceTrainSettings) -> np.ndarray:
    """``(N, 24) int8`` distinct sides not all home (module docstring, step 1)."""
    from tdgammon.engine.analysis.race_benchmark import race_positions
    from tdgammon.engine.evaluation.evaluator import default_evaluator, load_evaluator
    from tdgammon.engine.evaluation.one_sided_race import side_counts
    from tdgammon.engine.evaluation.search import Search

    rng = np.random.default_rng(settings.seed)
    evaluator = default_evaluator() if model is None else load_evaluator(model)
    boards = race_positions(Search(evaluator), settings.positions, rng)
    mover, opponent = side_counts(boards)
    sides = np.concatenate([mover, opponent])
    walked = random_walks(sides, rng)
    everything = np.unique(np.concatenate([sides, walked]).astype(np.int8), axis=0)
    everything = everything[everything[:, 6:].sum(axis=1) > 0]
    return everything[rng.permutation(len(everything))[: settings.max_sides]]


def random_walks(sides: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Every side met playing random legal plays from ``sides (N, 24)`` until home."""
    from tdgammon.engine.evaluation.one_sided_race import side_boards
    from tdgammon.engine.movegen.vectorized import generate_moves

    seen = []
    current = np.asarray(sides, dtype=np.int64)
    while len(current := current[current[:, 6:].sum(axis=1) > 0]):
        seen.append(current)
        dice = rng.integers(1, 7, size=(len(current), 2))
        plays = generate_moves(side_boards(current), dice)
        counts = np.bincount(plays.parents, minlength=len(current))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        pick = starts + (rng.random(len(current)) * counts).astype(np.int64)
        current = plays.boards[pick, 1:25].astype(np.int64)
    return np.concatenate(seen) if seen else np.zeros((0, 24), dtype=np.int64)


def start_targets(counts: np.ndarray) -> np.ndarray:
    """Generation 0 targets ``(N, HEADS, RACE_ROLLS)`` from pip counts (a start only)."""
    from tdgammon.models.race_distributions import HEADS, RACE_ROLLS, ZONE_START

    c = np.asarray(counts, dtype=np.float64)
    points = np.arange(1, 25, dtype=np.float64)
    means = np.stack(
        [
            c @ points / PIPS_PER_ROLL + 1.0,
            c @ np.clip(points - 6, 0, None) / PIPS_PER_ROLL + 1.0,
            c @ np.clip(points - (ZONE_START - 1), 0, None) / PIPS_PER_ROLL + 0.5,
        ],
        axis=1,
    )
    rolls = np.arange(RACE_ROLLS, dtype=np.float64)
    spread = 0.5 + 0.06 * means[..., None]
    out = np.exp(-0.5 * ((rolls - means[..., None]) / spread) ** 2)
    out = out.reshape(len(c), HEADS, RACE_ROLLS)
    return out / out.sum(axis=-1, keepdims=True)


def head_masks(counts: np.ndarray) -> np.ndarray:
    """``(N, HEADS) float32``: 1 where the head has something to learn for the side."""
    from tdgammon.models.race_distributions import ESCAPE, FIRST_OFF, HEADS, ZONE_START

    c = np.asarray(counts)
    mask = np.ones((len(c), HEADS), dtype=np.float32)
    mask[:, FIRST_OFF] = c.sum(axis=1) == 15
    mask[:, ESCAPE] = c[:, ZONE_START - 1 :].sum(axis=1) > 0
    return mask


def fit(network, counts, targets, train_rows, held_rows, epochs, settings, rng) -> dict:
    """Fit ``network`` to ``targets`` of rows ``train_rows`` of ``counts`` by Adam on the
    masked cross-entropy, ``epochs`` epochs; the weights of the epoch with the
    lowest loss on ``held_rows`` are kept. Returns that epoch's figures: mean KL
    divergence per head (train, held-out) and the held-out mean absolute error of
    the expected rolls, per head."""
    import torch

    from tdgammon.models.race_distributions import RACE_ROLLS, encode_side

    inputs = torch.from_numpy(encode_side(counts))
    target = torch.from_numpy(targets.astype(np.float32))
    mask = torch.from_numpy(head_masks(counts))
    entropy = torch.special.xlogy(target, target).sum(dim=-1)  # (N, HEADS)
    train_rows = np.array(train_rows)
    held_rows = torch.from_numpy(np.asarray(held_rows))
    rolls = torch.arange(RACE_ROLLS, dtype=torch.float32)

    def kl_of(rows, logp):
        per_head = entropy[rows] - (target[rows] * logp).sum(dim=-1)
        return (per_head * mask[rows]).sum() / mask[rows].sum().clamp(min=1.0)

    optimizer = torch.optim.Adam(network.parameters(), lr=settings.learning_rate)
    best: dict = {"held_kl": float("inf")}
    for epoch in range(epochs):
        network.train()
        rng.shuffle(train_rows)
        total, batches = 0.0, 0
        for start in range(0, len(train_rows), settings.batch_size):
            rows = torch.from_numpy(train_rows[start : start + settings.batch_size])
            loss = kl_of(rows, network(inputs[rows]))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total, batches = total + loss.item(), batches + 1
        network.eval()
        with torch.no_grad():
            logp = network(inputs[held_rows])
            held_kl = float(kl_of(held_rows, logp))
            error = (logp.exp() @ rolls - target[held_rows] @ rolls).abs() * mask[held_rows]
            per_head = (error.sum(dim=0) / mask[held_rows].sum(dim=0).clamp(min=1.0)).tolist()
        if held_kl < best["held_kl"]:
            best = {
                "epoch": epoch + 1,
                "train_kl": total / max(batches, 1),
                "held_kl": held_kl,
                "held_mean_rolls_error": [round(x, 4) for x in per_head],
                "state": {k: v.detach().clone() for k, v in network.state_dict().items()},
            }
    network.load_state_dict(best.pop("state"))
    network.eval()
    return best


def simulated_mean_rolls(distributions, sides: np.ndarray, games: int, rng) -> np.ndarray:
    """``(N, HEADS)`` mean rolls each head needs, by playing ``games`` one-sided games
    per side with random dice and each head's policy (the play whose result has the
    fewest expected rolls by ``distributions``, as in ``one_step_targets``); NaN where
    the head is already done. A check of the network's means (docs/training.md)."""
    from tdgammon.engine.evaluation.bearoff import choose_smallest
    from tdgammon.engine.evaluation.one_sided_race import side_boards
    from tdgammon.engine.movegen.vectorized import generate_moves
    from tdgammon.models.race_distributions import HEADS, RACE_ROLLS

    rolls = np.arange(RACE_ROLLS)
    mask = head_masks(sides)
    out = np.full((len(sides), HEADS), np.nan)
    for head in range(HEADS):
        current = np.repeat(np.asarray(sides, dtype=np.int64), games, axis=0)
        taken = np.zeros(len(current))
        active = ~_head_done(current, head)
        while active.any():
            rows = np.flatnonzero(active)
            dice = rng.integers(1, 7, size=(len(rows), 2))
            plays = generate_moves(side_boards(current[rows]), dice)
            children = plays.boards[:, 1:25].astype(np.int64)
            value = distributions(children)[:, head] @ rolls
            value = np.where(_head_done(children, head), 0.0, value)
            best = choose_smallest(plays.parents, value, np.arange(len(value)), len(rows))
            current[rows] = children[best]
            taken[rows] += 1
            active[rows] = ~_head_done(current[rows], head)
        means = taken.reshape(len(sides), games).mean(axis=1)
        out[:, head] = np.where(mask[:, head] > 0, means, np.nan)
    return out


def _per_head(values: np.ndarray) -> list:
    """Column means of ``(N, HEADS)`` ignoring NaN (None for a column of NaN), rounded."""
    done = ~np.isnan(values)
    sums = np.where(done, values, 0.0).sum(axis=0)
    return [
        round(float(t / n), 4) if n else None for t, n in zip(sums, done.sum(axis=0), strict=True)
    ]


def _head_done(counts: np.ndarray, head: int) -> np.ndarray:
    """``(N,) bool``: the side needs no more rolls for ``head``."""
    from tdgammon.models.race_distributions import ALL_OFF, FIRST_OFF, ZONE_START

    if head == ALL_OFF:
        return counts.sum(axis=1) == 0
    if head == FIRST_OFF:
        return counts.sum(axis=1) < 15
    return counts[:, ZONE_START - 1 :].sum(axis=1) == 0


def train_race(model, out: Path, settings: RaceTrainSettings, log=print) -> dict:
    """The whole run (module docstring): writes ``out`` (a race model file) and
    ``out`` + ``.history.jsonl``; returns the report."""
    import torch

    from tdgammon.engine.evaluation.one_sided_race import one_step_targets, side_distributions
    from tdgammon.models.race_distributions import RACE_ROLLS, build_race_net, save_race_net

    began = time.monotonic()
    rng = np.random.default_rng(settings.seed)
    sides = collect_sides(model, settings).astype(np.int64)
    log(f"{len(sides)} sides ({time.monotonic() - began:.0f} s)")
    if len(sides) < MIN_SIDES:
        raise TdgammonError(
            f"only {len(sides)} race sides outside the home board were found (at least "
            f"{MIN_SIDES} are needed): give more --positions"
        )
    network = build_race_net(settings.hidden, seed=settings.seed)
    rolls = np.arange(RACE_ROLLS)
    sides = sides[np.argsort(sides @ np.arange(1, 25), kind="stable")]
    pips = sides @ np.arange(1, 25)
    held = np.zeros(len(sides), dtype=bool)
    held[rng.permutation(len(sides))[: max(1, int(len(sides) * settings.holdout))]] = True
    targets = start_targets(sides)
    history_path = out.with_name(out.name + ".history.jsonl")
    history = []
    mask = head_masks(sides)

    def network_probabilities(inputs):
        with torch.inference_mode():
            return network(torch.from_numpy(inputs)).exp().numpy()

    def distributions(counts):
        return side_distributions(counts, network_probabilities, np.float32)

    def record(generation, moved, labelled, fitted, figures):
        history.append(
            {
                "generation": generation,
                "sides": len(sides),
                "target_change_rolls": moved,
                "label_seconds": round(labelled, 1),
                "fit_seconds": round(fitted, 1),
                **figures,
            }
        )
        with history_path.open("w") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in history)
        log(json.dumps(history[-1]))

    step = time.monotonic()
    everything, check_rows = np.flatnonzero(~held), np.flatnonzero(held)
    figures = fit(network, sides, targets, everything, check_rows, settings.epochs, settings, rng)
    record(0, None, 0.0, time.monotonic() - step, figures)
    for generation in range(1, settings.generations + 1):
        labelled = fitted = 0.0
        previous = targets @ rolls
        for low in range(int(pips.min()), int(pips.max()) + 1, settings.layer_pips):
            layer = slice(*np.searchsorted(pips, [low, low + settings.layer_pips]))
            if layer.start == layer.stop:
                continue
            step = time.monotonic()
            targets[layer] = one_step_targets(sides[layer], distributions)
            labelled += time.monotonic() - step
            done = np.arange(layer.stop)
            step = time.monotonic()
            fit(
                network,
                sides,
                targets,
                done[~held[done]],
                done[held[done]] if held[done].any() else check_rows,
                settings.layer_epochs,
                settings,
                rng,
            )
            fitted += time.monotonic() - step
        change = np.abs(targets @ rolls - previous) * mask
        moved = (change.sum(axis=0) / np.maximum(mask.sum(axis=0), 1)).round(4).tolist()
        step = time.monotonic()
        figures = fit(
            network, sides, targets, everything, check_rows, settings.epochs, settings, rng
        )
        record(generation, moved, labelled, fitted + time.monotonic() - step, figures)
    simulation = None
    check = sides[rng.permutation(check_rows)[: settings.check_sides]]
    if len(check) and settings.check_games:
        step = time.monotonic()
        simulated = simulated_mean_rolls(distributions, check, settings.check_games, rng)
        predicted = np.where(head_masks(check) > 0, distributions(check) @ rolls, np.nan)
        difference = predicted - simulated
        simulation = {
            "sides": len(check),
            "games_per_side": settings.check_games,
            "mean_abs_rolls_error": _per_head(np.abs(difference)),
            "mean_rolls_bias": _per_head(difference),
            "seconds": round(time.monotonic() - step, 1),
        }
    log(json.dumps({"simulation_check": simulation}))
    report = {
        "settings": asdict(settings),
        "model": str(model) if model else "the shipped network",
        "sides": len(sides),
        "wall_seconds": round(time.monotonic() - began, 1),
        "history": history[-1],
        "simulation_check": simulation,
    }
    card = {"kind": "one-sided race distributions", "variant": "standard", **report}
    save_race_net(out, network, card)
    return report


def cmd_train_race(args: argparse.Namespace) -> int:
    """``tdgammon train-race``."""
    settings = RaceTrainSettings(
        **{
            f.name: getattr(args, f.name)
            for f in fields(RaceTrainSettings)
            if hasattr(args, f.name)
        }
    )
    for name in ("positions", "max_sides", "layer_pips", "layer_epochs", "epochs", "hidden"):
        if getattr(settings, name) < 1:
            raise FormatError(f"--{name.replace('_', '-')} must be at least 1")
    from tdgammon.models.files import MAX_HIDDEN_UNITS

    if settings.hidden > MAX_HIDDEN_UNITS:
        raise FormatError(f"--hidden must be at most {MAX_HIDDEN_UNITS}")
    for name in ("generations", "check_sides", "check_games"):
        if getattr(settings, name) < 0:
            raise FormatError(f"--{name.replace('_', '-')} must be at least 0")
    if not settings.learning_rate > 0:
        raise FormatError("--learning-rate must be positive")
    if args.model is not None and not Path(args.model).is_file():
        raise FormatError(f"--model {args.model}: no such file")
    from tdgammon.models.race_distributions import RACE_FORMAT

    out = output_file(args.out, "race.pt", RACE_FORMAT)
    report = train_race(args.model, out, settings, lambda t: print(t, flush=True))
    print(json.dumps(report))
    return 0


def register(commands, bench_targets: dict) -> None:
    """Add ``tdgammon train-race``."""
    defaults = RaceTrainSettings()
    cmd = commands.add_parser(
        "train-race",
        help="train the one-sided race network (fitted value iteration on the bear-off database)",
    )
    cmd.add_argument("--out", required=True, help="the race model file to write")
    cmd.add_argument("--model", default=None, help="network whose self-play gives the races")
    cmd.add_argument("--positions", type=int, default=defaults.positions)
    cmd.add_argument("--max-sides", type=int, default=defaults.max_sides)
    cmd.add_argument("--generations", type=int, default=defaults.generations)
    cmd.add_argument("--layer-pips", type=int, default=defaults.layer_pips)
    cmd.add_argument("--layer-epochs", type=int, default=defaults.layer_epochs)
    cmd.add_argument("--epochs", type=int, default=defaults.epochs)
    cmd.add_argument("--check-sides", type=int, default=defaults.check_sides)
    cmd.add_argument("--check-games", type=int, default=defaults.check_games)
    cmd.add_argument("--hidden", type=int, default=defaults.hidden)
    cmd.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    cmd.add_argument("--seed", type=seed_argument, default=defaults.seed)
    cmd.set_defaults(run=cmd_train_race)
