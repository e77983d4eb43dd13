"""How far a network's fit to its labels can go: held-out error of a refinement fit.

Usage:
    python scripts/fit_probe.py --model M --train FOLDER [FOLDER ...] --test FOLDER
        [--test-rows 60000] [--phase all|contact|crashed] [--lookahead all|none|I,J,..]
        [--epochs 4] [--learning-rate 0.0001] [--seed 1]

Each FOLDER is a finished label run of ``tdgammon refine`` (read as
``scripts/merge_labels.py`` reads it). The first ``--test-rows`` positions of
the ``--test`` folder are split by row: the odd rows are held out, the even
rows join the training rows, so the test labels are of the same kind as some
training labels but never fitted. The contact network of model ``M`` is
fitted (Adam, squared error of the five outputs, batches of 256, every epoch
kept: no early stopping) and after each epoch the mean absolute cubeless
equity difference between its outputs and the held-out labels is printed,
overall and per phase (``tdgammon.engine.cube.benchmark.phase``: contact,
crashed). ``--phase`` fits and tests one phase only (a phase network's
probe). Labels are the training signal of ``tdgammon refine``, our own
search's values, never another engine's.

``--lookahead`` appends exact "next roll" inputs to the network (their input
weights start at zero, so the starting function is the model's own):
``LOOKAHEAD_NAMES``, each the expectation over the 21 rolls of the best
value that any legal play of the roll reaches for one of the side features
of ``tdgammon.models.features`` of the board after it (the shot features of
the side that moved, the hits and entry of its opponent; ``safe_share``: the
share of the rolls with a play that leaves no shot). They take 21 move
generations per position (about 0.5 ms a position), far too slow for an
evaluator: the probe measures how much of the residual such features could
explain at best (docs/training.md, "Session 17"); ``none`` fits the same way
without them, the baseline.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from merge_labels import read_folder  # noqa: E402

from tdgammon.engine.cube.benchmark import CONTACT, CRASHED, phase  # noqa: E402
from tdgammon.engine.movegen.vectorized import generate_moves  # noqa: E402
from tdgammon.engine.rules.errors import TdgammonError  # noqa: E402
from tdgammon.engine.rules.outputs import equity  # noqa: E402
from tdgammon.models.features import SIDE_FEATURES, SIDE_SIZE, expert_features  # noqa: E402

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
ROLL_WEIGHTS = np.array([1 if a == b else 2 for a, b in ROLLS], dtype=np.float32) / 36
LOOKAHEAD = (
    # (name, side: 0 the side that moved, 1 its opponent, feature, best: min or max)
    ("min_p1", 0, "p1", np.minimum),
    ("min_pip_loss", 0, "pip_loss", np.minimum),
    ("max_home_points", 0, "home_points", np.maximum),
    ("max_longest_prime", 0, "longest_prime", np.maximum),
    ("max_contain", 0, "contain", np.maximum),
    ("max_opponent_bar", 1, "bar", np.maximum),
    ("max_escapes", 0, "escapes", np.maximum),
    ("max_opponent_enter", 1, "enter", np.maximum),
    ("min_p2", 0, "p2", np.minimum),
)
LOOKAHEAD_NAMES = tuple(name for name, *_ in LOOKAHEAD) + ("safe_share",)
CHUNK = 4096


def lookahead_features(boards: np.ndarray) -> np.ndarray:
    """``(B, 30)`` boards (player on roll's view) -> ``(B, len(LOOKAHEAD_NAMES))
    float32``: module docstring."""
    columns = [SIDE_FEATURES.index(feature) + side * SIDE_SIZE for _, side, feature, _ in LOOKAHEAD]
    out = np.zeros((len(boards), len(LOOKAHEAD_NAMES)), dtype=np.float32)
    for start in range(0, len(boards), CHUNK):
        part = boards[start : start + CHUNK]
        for (d1, d2), weight in zip(ROLLS, ROLL_WEIGHTS, strict=True):
            plays = generate_moves(part, np.tile(np.array([d1, d2], np.int8), (len(part), 1)))
            features = expert_features(plays.boards)
            firsts = np.flatnonzero(np.r_[True, plays.parents[1:] != plays.parents[:-1]])
            best = [
                reduce.reduceat(features[:, column], firsts)
                for column, (*_, reduce) in zip(columns, LOOKAHEAD, strict=True)
            ]
            best.append((best[0] == 0).astype(np.float32))  # a play with no shot
            out[start : start + CHUNK] += weight * np.stack(best, axis=1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--train", nargs="+", required=True, type=Path)
    parser.add_argument("--test", required=True, type=Path)
    parser.add_argument("--test-rows", type=int, default=60000)
    parser.add_argument("--phase", choices=("all", CONTACT, CRASHED), default="all")
    parser.add_argument("--lookahead", default="none")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.test_rows < 2 or args.epochs < 1 or not 0 < args.learning_rate <= 1:
        parser.error("--test-rows must be >= 2, --epochs >= 1, --learning-rate in (0, 1]")
    names = args.lookahead.split(",")
    if args.lookahead not in ("all", "none") and not set(names) <= set(LOOKAHEAD_NAMES):
        parser.error(f"--lookahead: all, none or some of {', '.join(LOOKAHEAD_NAMES)}")
    try:
        return probe(args, names)
    except TdgammonError as error:
        raise SystemExit(f"fit_probe: {error}") from None


def probe(args: argparse.Namespace, names: list[str]) -> int:
    """The fit and its held-out report (module docstring)."""
    import torch

    from tdgammon.models.encoding import ENCODINGS
    from tdgammon.models.network import load_model

    torch.set_num_threads(1)
    if args.lookahead == "none":
        extra = []
    elif args.lookahead == "all":
        extra = list(range(len(LOOKAHEAD_NAMES)))
    else:
        extra = [LOOKAHEAD_NAMES.index(name) for name in names]
    preset, network, _ = load_model(args.model)
    encoding = ENCODINGS[preset.encoding]

    def inputs(boards: np.ndarray) -> torch.Tensor:
        encoded = np.concatenate(
            [encoding.encode(boards[i : i + 16384]) for i in range(0, len(boards), 16384)]
        )
        if extra:
            encoded = np.concatenate([encoded, lookahead_features(boards)[:, extra]], axis=1)
        return torch.from_numpy(encoded)

    parts = [read_folder(folder) for folder in args.train]
    test_boards, test_labels = read_folder(args.test)
    test_boards, test_labels = test_boards[: args.test_rows], test_labels[: args.test_rows]
    held = np.arange(len(test_boards)) % 2 == 1
    parts.append((test_boards[~held], test_labels[~held]))
    boards = np.concatenate([b for b, _ in parts])
    labels = np.concatenate([v for _, v in parts])
    test_boards, test_labels = test_boards[held], test_labels[held]
    test_phase = np.array([phase(b) for b in test_boards])
    if args.phase != "all":
        keep = np.array([phase(b) == args.phase for b in boards])
        boards, labels = boards[keep], labels[keep]
        mine = test_phase == args.phase
        test_boards, test_labels = test_boards[mine], test_labels[mine]
        test_phase = test_phase[mine]
    if not len(boards) or not len(test_boards):
        raise TdgammonError(f"no {args.phase} positions to fit or to hold out")
    x_train, y_train = inputs(boards), torch.from_numpy(labels.astype(np.float32))
    x_test, test_equity = inputs(test_boards), equity(test_labels)

    first = network.body[0]
    widened = torch.nn.Linear(first.in_features + len(extra), first.out_features)
    with torch.no_grad():  # the new inputs' weights start at zero: the same function
        widened.weight.zero_()
        widened.weight[:, : first.in_features] = first.weight
        widened.bias.copy_(first.bias)
    network.body[0] = widened

    def report(label: str) -> None:
        with torch.inference_mode():
            error = np.abs(equity(network(x_test).numpy()) - test_equity)
        classes = " ".join(
            f"{name} {error[test_phase == name].mean():.5f}"
            for name in (CONTACT, CRASHED)
            if (test_phase == name).any()
        )
        print(f"{label}: held-out equity error {error.mean():.5f} ({classes})", flush=True)

    print(
        f"{len(boards)} training positions, {len(test_boards)} held out; "
        f"extra inputs: {[LOOKAHEAD_NAMES[i] for i in extra] or 'none'}"
    )
    report("start")
    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate)
    generator = torch.Generator().manual_seed(args.seed)
    for epoch in range(1, args.epochs + 1):
        order, total = torch.randperm(len(x_train), generator=generator), 0.0
        for start in range(0, len(order), 256):
            rows = order[start : start + 256]
            loss = ((network(x_train[rows]) - y_train[rows]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(rows)
        report(f"epoch {epoch} (train loss {total / len(order):.7f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
