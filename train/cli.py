"""``tdgammon train``, ``tdgammon bench strength`` and ``tdgammon bench selfplay``.

Thin: parse, call ``tdgammon.train.loop`` / ``tdgammon.train.evaluate``, print. torch is imported
inside the functions only, so ``tdgammon moves`` does not pay for it.

The options of the two bench targets are added to the ``bench`` parser by
``add_bench_arguments``, which ``tdgammon.engine.interfaces.cli`` calls.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tdgammon.engine.rules.dice import seed_argument
from tdgammon.engine.rules.errors import FormatError


def output_file(value: str, example: str, replaces: str) -> Path:
    """``--out`` of a command that writes one file: a Path whose folder exists, that
    is not itself a folder and, when it exists, holds a file of the kind written
    (format tag ``replaces``), so another kind of file (a checkpoint, a match
    record) is never overwritten. FormatError naming the problem otherwise."""
    from tdgammon.models.files import ModelFileError, read_torch_file

    out = Path(value)
    if out.is_dir():
        raise FormatError(f"--out {out} is a folder; give a file name such as {example}")
    if not out.parent.is_dir():
        raise FormatError(f"--out {out}: folder {out.parent} does not exist")
    if out.exists():
        try:
            kind = read_torch_file(out).get("format")
        except ModelFileError:
            kind = None
        if kind != replaces:
            raise FormatError(
                f"--out {out} exists and is not a {replaces} file; it is left as it is "
                "(give another name)"
            )
    return out


def cmd_train(args: argparse.Namespace) -> int:
    from tdgammon.train.config import load_config
    from tdgammon.train.loop import resolve_resume, train

    overrides = list(args.set or [])
    if args.workers is not None:
        overrides.append(f"selfplay.workers={args.workers}")
    config = load_config(args.config, overrides)
    config, data = resolve_resume(config, overrides, args.resume)
    if config.selfplay.workers > 0:  # Ray self-play actors (the distributed extra)
        from tdgammon.train.distributed import require_ray, train_distributed

        require_ray("tdgammon train --workers")
        train_distributed(config, data, args.ray_address)
    else:
        train(config, data)
    return 0


def add_bench_arguments(bench: argparse.ArgumentParser) -> None:
    """Options of the ``strength``, ``selfplay`` and ``choices`` bench targets (called by
    ``tdgammon.engine.interfaces.cli``)."""
    group = bench.add_argument_group("strength / selfplay / choices")
    group.add_argument(
        "--model",
        default=None,
        help="strength, choices: model file or checkpoint (default: shipped); selfplay: start from "
        "its weights (same preset) instead of fresh ones",
    )
    group.add_argument(
        "--opponent",
        default="pubeval",
        help="strength: the opponent, choices: the player compared with; pubeval, random, "
        "heuristic, network (the shipped one), "
        "or a model file / checkpoint",
    )
    group.add_argument(
        "--variant",
        default=None,
        help="strength: standard, nackgammon, hypergammon, dutch or acey-deucey "
        "(default: the variant in the model's card)",
    )
    group.add_argument(
        "--plies",
        type=int,
        default=0,
        help="strength, choices: the model's search depth 0-3 (default 0: each play valued by the "
        "network at 0-ply; 1+: n-ply search with move filters, tdgammon.engine.evaluation.search); "
        "cube: the depth of the cube decisions; rollout: the depth of the trials' plays",
    )
    group.add_argument(
        "--opponent-plies",
        type=int,
        default=0,
        help="choices: the search depth 0-3 of a network --opponent (default 0)",
    )
    group.add_argument("--games", type=int, default=1000, help="strength: games (even)")
    group.add_argument(
        "--seed",
        type=seed_argument,
        default=1,
        help="strength: dice seed; choices: positions and rolls",
    )
    group.add_argument(
        "--judge",
        default=None,
        help="choices: the search that values both players' plays, gnubg[:PLIES] (the "
        "gnubg extra) or a network[:PLIES] (network:2, FILE:1); default gnubg:2",
    )
    group.add_argument(
        "--presets", default="tesauro80,extended128", help="selfplay: comma-separated presets"
    )
    group.add_argument(
        "--threads",
        type=int,
        default=1,
        help="selfplay/strength: torch threads; rollout: rollout threads in one process",
    )
    group.add_argument(
        "--parallel-games", type=int, default=512, help="selfplay: games advancing together"
    )
    group.add_argument(
        "--workers",
        type=int,
        default=0,
        help="Ray workers, shared by the targets that use Ray (selfplay: self-play actors; "
        "default 0: one process)",
    )


def cmd_bench_strength(args: argparse.Namespace) -> int:
    from tdgammon.engine.players.duel import rounding_note
    from tdgammon.train.evaluate import strength

    summary, text = strength(
        args.model,
        args.opponent,
        args.games,
        args.seed,
        args.threads,
        getattr(args, "variant", None),
        args.plies,
    )
    if args.json:
        print(json.dumps(summary))
    else:
        print(text)
        note = rounding_note(args.games)
        if note:
            print(note)
    return 0


def cmd_bench_choices(args: argparse.Namespace) -> int:
    from tdgammon.train.choices import DEFAULT_JUDGE, compare_choices

    summary, text = compare_choices(
        args.model,
        args.opponent,
        args.judge or DEFAULT_JUDGE,
        args.sample,
        args.seed,
        args.plies,
        args.threads,
        args.opponent_plies,
    )
    print(json.dumps(summary) if args.json else text)
    return 0


def cmd_bench_selfplay(args: argparse.Namespace) -> int:
    from tdgammon.engine.rules.errors import FormatError
    from tdgammon.train.evaluate import bench_selfplay

    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    if not presets:
        raise FormatError("--presets needs at least one preset name")
    workers = getattr(args, "workers", 0)
    if workers < 0:
        raise FormatError("--workers must be >= 0")
    model = getattr(args, "model", None)
    rows = bench_selfplay(
        presets, args.seconds, args.threads, args.parallel_games, workers, init_from=model
    )
    if args.json:
        print(json.dumps(rows))
    else:
        where = f", {workers} Ray actor(s) of" if workers else ","
        print(
            f"Training self-play (play + TD updates), {args.threads} torch thread(s){where} "
            f"{args.parallel_games} games in parallel"
        )
        for row in rows:
            print(
                f"  {row['preset']:<12} {row['games_per_second']:8.1f} games/s  "
                f"({row['games']} games, {row['plies_per_second']:.0f} plies/s, "
                f"{row['seconds']:.1f} s)"
            )
    return 0


def register(commands, bench_targets: dict) -> None:
    """Add ``train`` and the ``strength`` / ``selfplay`` / ``choices`` bench targets."""
    train = commands.add_parser("train", help="train a network by self-play (TD(lambda))")
    train.add_argument("--config", help="TOML config (default: built-in defaults)")
    train.add_argument(
        "--set",
        action="append",
        metavar="SECTION.FIELD=VALUE",
        help="override one setting, e.g. --set td.learning_rate=0.0005 (repeatable)",
    )
    train.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="RUN_DIR_OR_CHECKPOINT",
        help="continue a run exactly where it stopped (default: run.run_dir of the config)",
    )
    train.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="self-play on N Ray actors (sets selfplay.workers; 0: one process, the "
        "default); needs pip install 'tdgammon[distributed]'",
    )
    train.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="with --workers: join this Ray cluster (e.g. auto, ray://host:10001) instead of "
        "starting a local instance",
    )
    train.set_defaults(run=cmd_train)
    bench_targets["strength"] = (
        cmd_bench_strength,
        ("model", "opponent", "variant", "plies", "games", "seed", "threads"),
    )
    bench_targets["selfplay"] = (
        cmd_bench_selfplay,
        ("model", "presets", "seconds", "threads", "parallel_games", "workers"),
    )
    bench_targets["choices"] = (
        cmd_bench_choices,
        ("model", "opponent", "plies", "opponent_plies", "sample", "seed", "judge", "threads"),
    )
