"""``tdgammon bench race``: 0-ply race error against rollouts
(``tdgammon.engine.analysis.race_benchmark``).

- ``tdgammon bench race [--model M] [--reference FILE]``: the error of a model
  (default the shipped network) on the shipped reference set (or FILE);
- ``tdgammon bench race --build N --reference FILE [--trials T] [--seed S]``:
  make a new reference set of N positions with the model's self-play and
  rollouts, written to FILE.
"""

from __future__ import annotations

import argparse
import json

from tdgammon.engine.analysis.reports import load_search
from tdgammon.engine.rules.errors import FormatError


def bench_race_command(args: argparse.Namespace) -> int:
    """``tdgammon bench race``."""
    import torch

    from tdgammon.engine.analysis.race_benchmark import (
        build_reference,
        load_reference,
        race_error,
    )

    if args.build and not args.reference:
        raise FormatError("--build N needs --reference FILE to write")
    if args.build < 0 or args.trials < 1:
        raise FormatError("--build and --trials must be >= 1")
    torch.set_num_threads(max(1, getattr(args, "threads", 1)))
    search = load_search(getattr(args, "model", None))
    if args.build:
        reference = build_reference(search, args.build, args.trials, max(0, args.seed))
        reference.save(args.reference)
        print(
            f"wrote {len(reference.boards)} race positions ({args.trials} trials each) to "
            f"{args.reference}; mean rollout standard error {reference.se.mean():.4f}"
        )
        return 0
    row = race_error(search, load_reference(args.reference))
    if args.json:
        print(json.dumps(row))
        return 0
    print(
        f"Race error of {row['evaluator']} at 0-ply, {row['positions']} race positions "
        f"against {row['reference_trials']}-trial rollouts:\n"
        f"  mean absolute equity error {row['mean_abs_error']:.4f} "
        f"+- {row['mean_abs_error_ci95']:.4f}; rms {row['rms_error']:.4f}; "
        f"largest {row['max_error']:.4f}\n"
        f"  (the rollouts' own mean standard error: {row['reference_se_mean']:.4f})"
    )
    return 0


def add_bench_arguments(bench: argparse.ArgumentParser) -> None:
    """``tdgammon bench race`` options (``--model``, ``--seed``, ``--trials`` and
    ``--threads`` are shared with the other targets)."""
    group = bench.add_argument_group("race")
    group.add_argument(
        "--reference", default=None, help="race: a reference file (default the shipped one)"
    )
    group.add_argument(
        "--build", type=int, default=0, help="race: build a reference of N positions"
    )


def register(commands, bench_targets: dict) -> None:
    """Add ``bench race``."""
    bench_targets["race"] = (
        bench_race_command,
        ("model", "seed", "trials", "threads", "reference", "build"),
    )
