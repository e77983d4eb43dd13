"""``tdgammon bench cube``: cube decisions against cubeful rollouts
(``tdgammon.engine.cube.benchmark``).

- ``tdgammon bench cube [--model M] [--plies N] [--reference FILE] [--json]``:
  agreement with the reference's double and take verdicts and the mean error
  (mEMG) of ``tdgammon cube`` at N plies (2 as issue 18 measures it), split by
  money / match and by phase, on the shipped reference set (or FILE);
- ``tdgammon bench cube --build N --reference FILE [--trials T]
  [--truncate K] [--seed S] [--threads K]``: a new reference set of N decisions
  from the model's self-play and truncated cubeful rollouts of T trials (on K
  threads, the same trials), written to FILE;
- ``tdgammon bench cube --reroll OLD --reference FILE [...]``: the decisions of
  OLD rolled out again with the model (a new network's references on the same
  positions).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from tdgammon.engine.analysis.reports import load_search
from tdgammon.engine.rules.errors import FormatError

DEFAULT_TRUNCATE = 10


def bench_cube_command(args: argparse.Namespace) -> int:
    """``tdgammon bench cube``."""
    import torch

    from tdgammon.engine.cube.benchmark import (
        build_reference,
        cube_benchmark,
        load_reference,
        reroll_reference,
    )

    reroll = getattr(args, "reroll", None)
    if (args.build or reroll) and not args.reference:
        raise FormatError("--build N and --reroll FILE need --reference FILE to write")
    if args.build and reroll:
        raise FormatError("--build N and --reroll FILE: choose one")
    if args.build < 0 or args.trials < 2 or args.truncate < 0:
        raise FormatError("--build must be >= 1, --trials >= 2 and --truncate >= 0")
    threads = max(1, getattr(args, "threads", 1))
    if args.build or reroll:
        _check_writable(Path(args.reference))  # before the rollouts, not after them
    search = load_search(getattr(args, "model", None))
    if args.build or reroll:
        # the rollouts run on --threads threads, one torch thread each
        torch.set_num_threads(1)
        seed = max(0, args.seed)
        if reroll:
            old = load_reference(reroll)
            reference = reroll_reference(search, old, args.trials, args.truncate, seed, threads)
        else:
            reference = build_reference(
                search, args.build, args.trials, args.truncate, seed, threads
            )
        reference.save(args.reference)
        print(
            f"wrote {len(reference.decisions)} cube decisions ({args.trials} trials each, "
            f"truncated after {args.truncate} plies) to {args.reference}"
        )
        return 0
    torch.set_num_threads(threads)
    report = cube_benchmark(search, load_reference(args.reference), args.plies)
    print(json.dumps(report) if args.json else _text(report))
    return 0


def _check_writable(path: Path) -> None:
    """FormatError unless a reference file can be written at ``path``."""
    if path.is_dir():
        raise FormatError(f"--reference {path}: a folder, not a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise FormatError(f"--reference {path}: cannot create its folder ({error})") from None
    if not os.access(path.parent, os.W_OK):
        raise FormatError(f"--reference {path}: its folder is not writable")


def _text(report: dict) -> str:
    lines = [
        f"Cube decisions of {report['evaluator']} at {report['plies']}-ply against "
        f"{report['reference_trials']}-trial cubeful rollouts (truncated after "
        f"{report['reference_truncate']} plies; mean standard error "
        f"{report['reference_se_memg']:.1f} mEMG):",
        f"  {'':10} {'decisions':>9} {'double':>7} {'take':>7} {'error mEMG':>16}",
    ]
    for name in ("overall", "money", "match", "contact", "crashed", "race", "bearoff"):
        row = report[name]
        if not row["decisions"]:
            continue
        lines.append(
            f"  {name:10} {row['decisions']:9d} {100 * row['double_agreement']:6.1f}% "
            f"{100 * row['take_agreement']:6.1f}% {row['mean_error_memg']:8.1f} "
            f"+- {row['mean_error_ci95_memg']:4.1f}"
        )
    return "\n".join(lines)


def add_bench_arguments(bench: argparse.ArgumentParser) -> None:
    """``tdgammon bench cube`` options (``--model``, ``--plies``, ``--seed``,
    ``--trials``, ``--threads``, ``--reference`` and ``--build`` are shared)."""
    group = bench.add_argument_group("cube")
    group.add_argument(
        "--reroll",
        metavar="FILE",
        default=None,
        help="cube: roll out the decisions of this reference file again with --model "
        "(written to --reference; --trials, --truncate, --seed and --threads as for --build)",
    )
    group.add_argument(
        "--truncate",
        type=int,
        default=DEFAULT_TRUNCATE,
        help=f"cube: with --build, stop each trial after N plies (default {DEFAULT_TRUNCATE})",
    )


def register(commands, bench_targets: dict) -> None:
    """Add ``bench cube``."""
    bench_targets["cube"] = (
        bench_cube_command,
        ("model", "plies", "seed", "trials", "threads", "reference", "build", "reroll", "truncate"),
    )
