"""``tdgammon rollout`` and ``tdgammon bench rollout``.

Thin wrappers around ``tdgammon.engine.evaluation.rollout`` (cubeless
rollouts) and ``tdgammon.engine.cube.rollout`` (``--cubeful``: the same games
played with the cube): parse the position and options, run the trials batch
by batch with a tqdm bar on stderr, print text or the JSON of docs/formats.md
("Rollouts").

- Without ``--dice``: the position before rolling, for the player on roll
  (dice in the position are ignored, as ``eval`` does).
- With ``--dice 52``: every legal play of the roll (or the best ``--top K`` at
  0-ply), each rolled out from the position after it with the same dice in
  each trial; the top-level numbers are those of the best play.
- Ctrl-C: the trials of the batches already finished are reported (an
  unbiased estimate from whole trials), marked ``interrupted``, exit status 130.
- ``-`` for POSITION: JSON lines on stdin, ``{"position": ..., "dice": [5, 2],
  "trials": 1296, "plies": 0, "truncate": 0, "seed": 0, "top": 3, "cubeful":
  true, "opening": false, "variance_reduction": true, "quasi_random": true,
  "bearoff_truncate": false}`` (``ROLLOUT_KEYS``; all but ``position`` optional,
  default the command line's; any other key is an error), one answer per line.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import sys
import time

import numpy as np

from tdgammon.engine.analysis.reports import load_search
from tdgammon.engine.evaluation.distributed import (
    Workers,
    default_threads,
    map_trial_chunks,
    map_trial_chunks_threaded,
    ray_session,
    split_trials,
    workers_option,
)
from tdgammon.engine.evaluation.rollout import (
    RolloutEstimate,
    RolloutSettings,
    candidate_plays,
    combine_trials,
    estimate,
    play_roots,
    rollout_search,
    rollout_trials,
    to_mover_view,
)
from tdgammon.engine.evaluation.search import MAX_PLIES, Search, probabilities_dict
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.formats.parse import parse_position
from tdgammon.engine.formats.position_id import encode_position_id
from tdgammon.engine.interfaces.cli_positions import (
    POSITION_HELP,
    _field,
    check_game_on,
    check_keys,
    request_dice,
    run_batch,
)
from tdgammon.engine.rules.board import starting_board
from tdgammon.engine.rules.dice import parse_dice
from tdgammon.engine.rules.errors import FormatError

DEFAULT_TRIALS = 1296
"""36 x 36: every pair of first two rolls once with quasi-random dice."""
BATCH_ROWS = 324
"""Games advanced together per batch (roots x trials, at least 36 trials): Ctrl-C keeps
the batches already finished, so a batch is a quarter of the default rollout."""
MIN_BATCH_TRIALS = 36
ROLLOUT_KEYS = (
    "position",
    "dice",
    "trials",
    "plies",
    "truncate",
    "seed",
    "top",
    "cubeful",
    "opening",
    "variance_reduction",
    "quasi_random",
    "bearoff_truncate",
)
"""The keys of a ``rollout -`` line (docs/formats.md, "Rollouts"): the options of the
command line, named as in its JSON answer."""


def _whole(value, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(f'"{name}" must be a whole number')
    if value < low or (high is not None and value > high):
        bounds = f"{low}-{high}" if high is not None else f">= {low}"
        raise FormatError(f"{name} must be {bounds}, got {value}")
    return value


def _flag(value, name: str) -> bool:
    if not isinstance(value, bool):
        raise FormatError(f'"{name}" must be true or false')
    return value


# ---------------------------------------------------------------- the rollout


class Interrupted(Exception):
    """Ctrl-C during a rollout, after ``results`` (possibly None) were finished."""

    def __init__(self, results) -> None:
        super().__init__("interrupted")
        self.results = results


def run_trials(batches, total: int, combine, progress: bool):
    """Run ``batches(progress_callback)`` (an iterator of trial results) to the end
    and ``combine`` what it yields; a tqdm bar of ``total`` games on stderr.

    Raises ``Interrupted`` (with what was finished) on Ctrl-C.
    """
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(
            total=total,
            unit="game",
            file=sys.stderr,
            dynamic_ncols=True,
            mininterval=0.5,
            leave=False,
        )
    parts = []
    try:
        for part in batches(bar.update if bar is not None else None):
            parts.append(part)
    except KeyboardInterrupt:
        raise Interrupted(combine(parts) if parts else None) from None
    finally:
        if bar is not None:
            bar.close()
    return combine(parts)


def trial_batches(
    function,
    shared: tuple,
    chunks,
    options: dict,
    rows_per_trial: int,
    workers,
    progress,
    threads: int = 1,
):
    """The results of ``function(*shared, chunk, **options)`` for each trial range of
    ``chunks``, in order: in this process, one after the other or on ``threads``
    threads at once, or as Ray tasks on ``workers`` (a ``Workers``; same
    results, ``tdgammon.engine.evaluation.distributed``).
    progress: called with the games of each chunk as it finishes."""
    if workers is not None:
        with ray_session(workers.count, workers.address):
            yield from map_trial_chunks(
                function,
                shared,
                chunks,
                options=options,
                rows_per_trial=rows_per_trial,
                progress=progress,
            )
        return
    if threads <= 1:
        for chunk in chunks:
            yield function(*shared, chunk, progress=progress, **options)
        return
    yield from map_trial_chunks_threaded(function, shared, chunks, threads, options, progress)


def _estimate_json(est: RolloutEstimate, cubeful=None) -> dict:
    out = {
        "probabilities": probabilities_dict(est.probabilities),
        "probabilities_ci95": probabilities_dict(est.probabilities_ci95),
        "equity": est.equity,
        "equity_se": est.equity_se,
        "equity_ci95": est.equity_ci95,
        "cubeful_equity": None if cubeful is None else cubeful.equity,
        "cubeful_equity_ci95": None if cubeful is None else cubeful.equity_ci95,
    }
    if cubeful is not None and cubeful.mwc is not None:
        out["cubeful_mwc"] = cubeful.mwc
        out["cubeful_mwc_ci95"] = cubeful.mwc_ci95
    return out


def rollout_report(
    search: Search,
    position_text: str,
    *,
    dice: tuple[int, int] | None,
    trials: int,
    settings: RolloutSettings,
    top: int | None = None,
    cubeful: bool = False,
    progress: bool = False,
    workers: Workers | None = None,
    threads: int = 1,
) -> dict:
    """The docs/formats.md ``rollout --json`` object (module docstring).

    cubeful: play the trials with the cube (``tdgammon.engine.cube.rollout``);
    the cubeless numbers then come from the same games. workers: run the
    batches on Ray (``--workers``), with the same result; threads: run them on
    that many threads of this process (``--threads``), with the same result. On Ctrl-C returns the
    report of the finished batches with ``"interrupted": true``, or re-raises
    KeyboardInterrupt when none had finished.
    """
    position = check_game_on(parse_position(position_text))
    variant = search.variant
    board = variant.board_in_play(position.board)
    if dice is not None and settings.opening:
        raise FormatError("--opening rolls out a position before rolling: leave out --dice")
    if cubeful and settings.opening:
        raise FormatError("--opening is for cubeless rollouts: leave out --cubeful")
    if top is not None and dice is None:
        raise FormatError("top picks the best plays of a roll: give the dice too (--dice)")
    plays = candidate_plays(search, board, dice, top) if dice is not None else None
    if plays is None:
        roots, flipped = board[None, :], np.zeros(1, dtype=bool)
    else:
        roots, flipped = play_roots(plays)
    batch = max(MIN_BATCH_TRIALS, BATCH_ROWS // len(roots))
    if threads > 1:  # at least a chunk per thread
        batch = max(1, min(batch, -(-trials // threads)))
    chunks = split_trials(0, trials, batch)
    interrupted = False
    try:
        if cubeful:
            from tdgammon.engine.cube import rollout as cube_rollout
            from tdgammon.engine.cube.cubeful_search import position_after_play

            if plays is None:
                root_positions = [position.with_changes(dice=None, double_offered=False)]
            else:
                root_positions = [
                    position_after_play(
                        position, variant.position_board(p.board_after), p.extra_roll
                    )
                    for p in plays
                ]
            function, shared, combine = (
                cube_rollout.cubeful_rollout_trials,
                (search, root_positions),
                cube_rollout.combine_cubeful,
            )
        else:
            function, shared, combine = rollout_trials, (search, roots), combine_trials
        results = run_trials(
            lambda bar: trial_batches(
                function,
                shared,
                chunks,
                {"settings": settings},
                len(roots),
                workers,
                bar,
                threads,
            ),
            trials * len(roots),
            combine,
            progress,
        )
    except Interrupted as stop:
        if stop.results is None:
            raise KeyboardInterrupt from None
        results, interrupted = stop.results, True
    if cubeful:
        results = cube_rollout.to_mover_view(results, flipped)
        movers = [position] * len(roots)
        cubeful_estimates = cube_rollout.cubeful_estimate(results, movers)
        results = results.cubeless
    else:
        results = to_mover_view(results, flipped)
        cubeful_estimates = [None] * len(roots)
    estimates = estimate(results, variant)
    report = {
        "position": position_text,
        "position_id": encode_position_id(position.board),
        "dice": list(dice) if dice is not None else None,
        "trials": len(results),
        "plies": settings.plies,
        "truncate": settings.truncate,
        "seed": settings.seed,
        "variance_reduction": settings.variance_reduction,
        "quasi_random": settings.quasi_random,
        "opening": settings.opening,
        "cubeful": cubeful,
        "interrupted": interrupted,
    }
    if plays is None:
        report.update(_estimate_json(estimates[0], cubeful_estimates[0]))
        report["plays"] = []
        return report

    def rank_value(i: int) -> float:
        return cubeful_estimates[i].equity if cubeful else estimates[i].equity

    order = sorted(range(len(plays)), key=lambda i: -rank_value(i))
    best = order[0]
    report.update(_estimate_json(estimates[best], cubeful_estimates[best]))
    report["plays"] = [
        {
            "move": format_move(position.board, plays[i].moves),
            "position_id_after": encode_position_id(variant.position_board(plays[i].board_after)),
            **_estimate_json(estimates[i], cubeful_estimates[i]),
            "loss": rank_value(best) - rank_value(i),
            "static_equity": plays[i].equity,
        }
        for i in order
    ]
    return report


# ---------------------------------------------------------------- text


def _probability_line(p: dict) -> str:
    return (
        f"win {100 * p['win']:.1f}%  (gammon {100 * p['win_gammon']:.1f}%, backgammon "
        f"{100 * p['win_backgammon']:.1f}%)   lose {100 * (1 - p['win']):.1f}%  (gammon "
        f"{100 * p['lose_gammon']:.1f}%, backgammon {100 * p['lose_backgammon']:.1f}%)"
    )


def _settings_phrase(report: dict) -> str:
    parts = [f"{report['trials']} trials", f"{report['plies']}-ply"]
    if report["truncate"]:
        parts.append(f"truncated after {report['truncate']} plies")
    parts.append("variance reduction" if report["variance_reduction"] else "no variance reduction")
    parts.append("quasi-random dice" if report["quasi_random"] else "random dice")
    if report["opening"]:
        parts.append("opening roll")
    if report["cubeful"]:
        parts.append("cubeful")
    parts.append(f"seed {report['seed']}")
    return ", ".join(parts)


def _cubeful_lines(entry: dict) -> list[str]:
    if entry.get("cubeful_equity") is None:
        return []
    line = f"  cubeful equity {entry['cubeful_equity']:+.3f} +- {entry['cubeful_equity_ci95']:.3f}"
    if entry.get("cubeful_mwc") is not None:
        line += (
            f" (EMG); match winning chance {100 * entry['cubeful_mwc']:.1f}% "
            f"+- {100 * entry['cubeful_mwc_ci95']:.1f}%"
        )
    return [line]


def rollout_text(report: dict) -> str:
    """The human-readable rollout report."""
    note = "  (interrupted: the trials finished so far)" if report["interrupted"] else ""
    if not report["plays"]:
        return "\n".join(
            [
                f"Rollout of Position ID {report['position_id']}, player on roll, "
                f"{_settings_phrase(report)}:{note}",
                "  " + _probability_line(report["probabilities"]),
                f"  cubeless equity {report['equity']:+.3f} +- {report['equity_ci95']:.3f} "
                f"(95% CI; standard error {report['equity_se']:.4f})",
            ]
            + _cubeful_lines(report)
        )
    d1, d2 = report["dice"]
    lines = [
        f"Rollout of the plays of {d1}{d2}, Position ID {report['position_id']}, "
        f"{_settings_phrase(report)}:{note}",
    ]
    for number, m in enumerate(report["plays"], 1):
        p = m["probabilities"]
        loss = "" if number == 1 else f" ({-m['loss']:+.3f})"
        move = m["move"] or "(no legal play)"
        cubeful = ""
        if m["cubeful_equity"] is not None:
            cubeful = f" cubeful {m['cubeful_equity']:+.3f} +- {m['cubeful_equity_ci95']:.3f}"
        lines.append(
            f"  {number:3d}. {move:<26} equity {m['equity']:+.3f} +- {m['equity_ci95']:.3f}"
            f"{cubeful}{loss:<9}  {100 * p['win']:.1f} {100 * p['win_gammon']:.1f}"
            f" {100 * p['win_backgammon']:.1f} - {100 * (1 - p['win']):.1f}"
            f" {100 * p['lose_gammon']:.1f} {100 * p['lose_backgammon']:.1f}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- commands


def _settings(args: argparse.Namespace, request: dict | None = None) -> tuple[RolloutSettings, int]:
    request = request or {}
    settings = RolloutSettings(
        seed=_whole(request.get("seed", args.seed), "seed", 0),
        plies=_whole(request.get("plies", args.plies), "plies", 0, MAX_PLIES),
        truncate=_whole(request.get("truncate", args.truncate), "truncate", 0),
        variance_reduction=_flag(
            request.get("variance_reduction", not args.no_variance_reduction),
            "variance_reduction",
        ),
        quasi_random=_flag(request.get("quasi_random", not args.no_quasi_random), "quasi_random"),
        opening=_flag(request.get("opening", args.opening), "opening"),
        bearoff_truncate=_flag(
            request.get("bearoff_truncate", args.bearoff_truncate), "bearoff_truncate"
        ),
    )
    trials = _whole(request.get("trials", args.trials), "trials", 1)
    return settings, trials


def _load(args: argparse.Namespace) -> Search:
    return load_search(args.model)


def _set_threads(threads: int | None) -> int:
    """``--threads`` (default: every CPU this process may use), checked; torch gets
    one thread per rollout thread (its own threads only fight over the cores)."""
    import torch

    torch.set_num_threads(1)
    return default_threads() if threads is None else _whole(threads, "threads", 1)


def rollout_request(
    search: Search,
    args: argparse.Namespace,
    request: dict,
    dice: tuple[int, int] | None = None,
    top: int | None = None,
    workers: Workers | None = None,
) -> dict:
    """The answer to one batch line of ``rollout -`` (also ``POST /api/rollout`` of
    ``tdgammon serve``): the line's options, else the command line's (``args``;
    ``dice`` and ``top`` as already read from ``--dice`` and ``--top``); a key not
    in ``ROLLOUT_KEYS`` is an error."""
    check_keys(request, ROLLOUT_KEYS)
    line_settings, line_trials = _settings(args, request)
    line_dice = request_dice(request, dice)
    line_top = request.get("top", top)
    if line_top is not None:
        line_top = _whole(line_top, "top", 1)
    return rollout_report(
        search,
        _field(request, "position", str),
        dice=line_dice,
        trials=line_trials,
        settings=line_settings,
        top=line_top,
        cubeful=_flag(request.get("cubeful", args.cubeful), "cubeful"),
        progress=args.progress,
        workers=workers,
        threads=getattr(args, "threads", None) or 1,  # None: not the CLI (the server: one)
    )


def cmd_rollout(args: argparse.Namespace) -> int:
    settings, trials = _settings(args)
    workers = workers_option(args)
    args.threads = _set_threads(args.threads)
    top = _whole(args.top, "top", 1) if args.top is not None else None
    dice = parse_dice(args.dice) if args.dice is not None else None
    progress = args.progress or (sys.stderr.isatty() and args.position != "-")
    if args.position == "-":
        search = _load(args)
        answer = functools.partial(
            rollout_request, search, args, dice=dice, top=top, workers=workers
        )
        if workers is None:
            return run_batch(sys.stdin, sys.stdout, answer)
        with ray_session(workers.count, workers.address):  # one Ray for every line
            return run_batch(sys.stdin, sys.stdout, answer)
    parse_position(args.position)  # bad input is reported before the network loads
    report = rollout_report(
        _load(args),
        args.position,
        dice=dice,
        trials=trials,
        settings=settings,
        top=top,
        cubeful=args.cubeful,
        progress=progress,
        workers=workers,
        threads=args.threads,
    )
    print(json.dumps(report) if args.json else rollout_text(report))
    if report["interrupted"]:
        print("tdgammon: interrupted; reported the trials finished so far", file=sys.stderr)
        return 130
    return 0


# ---------------------------------------------------------------- bench


def _timed(run) -> tuple:
    start = time.perf_counter()
    result = run()
    return result, time.perf_counter() - start


def bench_rollout(
    search: Search,
    trials: int = DEFAULT_TRIALS,
    plies: int = 0,
    seed: int = 1,
    workers: Workers | None = None,
    threads: int = 1,
) -> dict:
    """Time a rollout of the opening position (before rolling, the player on roll):
    ``trials`` trials at ``plies``, variance reduction, quasi-random dice, in one
    process as one batch; with ``threads`` > 1 also on that many threads of one
    process (one range of trials each), and with ``workers`` on that many Ray
    workers (one range each; Ray's start and a warm-up task per worker not
    timed), checking that all give the same trials. Returns the figures of
    ``tdgammon bench rollout``."""
    settings = RolloutSettings(seed=seed, plies=plies)
    shipped, search = search, rollout_search(search)  # Ray workers get the picklable one
    board = starting_board()
    warm_up = RolloutSettings(seed=seed, plies=plies, truncate=2)
    rollout_trials(search, board, range(2), warm_up)
    results, seconds = _timed(lambda: rollout_trials(search, board, range(trials), settings))
    reduced = estimate(results, search.variant)[0]
    plain = estimate(results, search.variant, adjusted=False)[0]
    row = {
        "evaluator": search.name,
        "position": "opening position, player on roll",
        "trials": trials,
        "plies": plies,
        "seconds": seconds,
        "trials_per_second": trials / seconds,
        "mean_game_plies": float(results.plies.mean()),
        "equity": reduced.equity,
        "equity_ci95": reduced.equity_ci95,
        "equity_se": reduced.equity_se,
        "equity_se_without_variance_reduction": plain.equity_se,
        "variance_reduction_factor": plain.equity_se / reduced.equity_se
        if reduced.equity_se > 0
        else None,
        "workers": 0,
        "threads": 1,
    }
    if threads > 1:
        chunks = split_trials(0, trials, -(-trials // threads))
        parts, threaded = _timed(
            lambda: list(
                trial_batches(
                    rollout_trials,
                    (search, board),
                    chunks,
                    {"settings": settings},
                    1,
                    None,
                    None,
                    threads,
                )
            )
        )
        row.update(
            threads=threads,
            threads_seconds=threaded,
            threads_trials_per_second=trials / threaded,
            threads_identical_to_one_thread=_identical(combine_trials(parts), results),
            threads_speedup=seconds / threaded,
        )
    if workers is not None:
        row.update(_bench_workers(shipped, board, trials, settings, workers, results))
        row["speedup"] = seconds / row["workers_seconds"]
    return row


def _bench_workers(search, board, trials, settings, workers, single) -> dict:
    """The Ray half of ``bench_rollout``: seconds on ``workers``, the speed-up over one
    process, and whether the trials are identical to ``single``'s."""
    count = workers.count
    chunks = split_trials(0, trials, -(-trials // count))
    shared = (search, board)
    start = time.perf_counter()
    with ray_session(count, workers.address):
        ray_start = time.perf_counter() - start
        warm_up = {"settings": dataclasses.replace(settings, truncate=2)}
        list(map_trial_chunks(rollout_trials, shared, split_trials(0, count, 1), options=warm_up))
        parts, seconds = _timed(
            lambda: list(
                map_trial_chunks(rollout_trials, shared, chunks, options={"settings": settings})
            )
        )
    return {
        "workers": count,
        "ray_start_seconds": ray_start,
        "workers_seconds": seconds,
        "workers_trials_per_second": trials / seconds,
        "identical_to_one_process": _identical(combine_trials(parts), single),
    }


SAME_VALUES = 1e-12
"""Largest difference of two runs' luck-adjusted probabilities that still counts as
the same: float sums of another batch may round the last bit otherwise."""


def _identical(a, b) -> bool:
    """Whether two ``TrialResults`` hold the same trials: the same games (trial
    numbers, outcomes and lengths bit for bit) and luck-adjusted probabilities
    within ``SAME_VALUES``."""
    games = all(
        np.array_equal(getattr(a, n), getattr(b, n)) for n in ("trials", "outcomes", "plies")
    )
    return games and np.allclose(a.probabilities, b.probabilities, rtol=0.0, atol=SAME_VALUES)


def bench_rollout_command(args: argparse.Namespace) -> int:
    """``tdgammon bench rollout``."""
    import torch

    workers = workers_option(args)
    threads = _set_threads(getattr(args, "threads", 1))
    search = _load(argparse.Namespace(model=getattr(args, "model", None)))
    trials = _whole(args.trials, "trials", 1)
    plies = _whole(getattr(args, "plies", 0), "plies", 0, MAX_PLIES)
    row = bench_rollout(search, trials, plies, getattr(args, "seed", 1), workers, threads)
    row["torch_threads"] = torch.get_num_threads()
    if args.json:
        print(json.dumps(row))
        return 0
    print(
        f"Rollout of the opening position with {row['evaluator']}: {row['trials']} trials, "
        f"{row['plies']}-ply, variance reduction, quasi-random dice"
    )
    print(
        f"  one process, one thread: {row['seconds']:.1f} s, "
        f"{row['trials_per_second']:.0f} trials/s ({row['mean_game_plies']:.1f} plies per game)"
    )
    if row["threads"] > 1:
        same = "identical trials" if row["threads_identical_to_one_thread"] else "DIFFERENT trials"
        print(
            f"  one process, {row['threads']} threads: {row['threads_seconds']:.1f} s, "
            f"{row['threads_trials_per_second']:.0f} trials/s, x{row['threads_speedup']:.2f} "
            f"({same})"
        )
    if workers is not None:
        same = "identical trials" if row["identical_to_one_process"] else "DIFFERENT trials"
        print(
            f"  {row['workers']} Ray workers: {row['workers_seconds']:.1f} s, "
            f"{row['workers_trials_per_second']:.0f} trials/s, x{row['speedup']:.2f} "
            f"({same}; Ray started in {row['ray_start_seconds']:.1f} s, not counted)"
        )
    print(
        f"  equity {row['equity']:+.3f} +- {row['equity_ci95']:.3f}; standard error "
        f"{row['equity_se']:.4f} vs {row['equity_se_without_variance_reduction']:.4f} "
        f"without variance reduction (x{row['variance_reduction_factor']:.1f})"
    )
    return 0


# ---------------------------------------------------------------- register


def add_bench_arguments(bench: argparse.ArgumentParser) -> None:
    """``tdgammon bench rollout`` options (``--model``, ``--plies``, ``--seed`` and
    ``--threads`` are shared with the strength benchmark)."""
    group = bench.add_argument_group("rollout")
    group.add_argument(
        "--trials", type=int, default=DEFAULT_TRIALS, help="rollout: trials (default 1296)"
    )
    group.add_argument(
        "--ray-address",
        default=None,
        help="rollout: with --workers, join this Ray cluster instead of a local one",
    )


def register(commands, bench_targets: dict) -> None:
    """Add ``rollout`` and ``bench rollout``."""
    ro = commands.add_parser("rollout", help="roll out a position or the plays of a roll")
    ro.add_argument(
        "position", metavar="POSITION", help=POSITION_HELP + "; - for batch JSON lines on stdin"
    )
    ro.add_argument(
        "--trials", type=int, default=DEFAULT_TRIALS, help="games per root (default 1296)"
    )
    ro.add_argument("--dice", help="roll out every play of this roll, e.g. 52")
    ro.add_argument("--top", type=int, default=None, help="with --dice: only the best K at 0-ply")
    ro.add_argument(
        "--truncate", type=int, default=0, help="stop each game after N plies (default 0: never)"
    )
    ro.add_argument(
        "--plies", type=int, default=0, help=f"depth 0-{MAX_PLIES} of every play (default 0)"
    )
    ro.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    ro.add_argument(
        "--no-variance-reduction", action="store_true", help="no luck adjustment (faster)"
    )
    ro.add_argument(
        "--no-quasi-random",
        action="store_true",
        help="random first two rolls (default: stratified over the 1296 pairs)",
    )
    ro.add_argument(
        "--opening",
        action="store_true",
        help="the first roll is the opening roll (no doubles; either player may move first)",
    )
    ro.add_argument(
        "--bearoff-truncate",
        action="store_true",
        help="stop games at pure bear-offs with the bear-off database's value",
    )
    ro.add_argument(
        "--cubeful",
        action="store_true",
        help="play the games with the cube too (money or the position's match score)",
    )
    ro.add_argument(
        "--model", default=None, help="a model file or checkpoint (default: the shipped network)"
    )
    ro.add_argument(
        "--threads",
        type=int,
        default=None,
        help="roll out on N threads of this process, same result (default: every CPU)",
    )
    ro.add_argument(
        "--workers",
        type=int,
        default=0,
        help="run the trials on N Ray workers, same result (the distributed extra; "
        "default 0: this process)",
    )
    ro.add_argument(
        "--ray-address",
        default=None,
        help="with --workers: join this Ray cluster (e.g. auto, ray://host:10001)",
    )
    ro.add_argument("--json", action="store_true", help="print one JSON object")
    ro.add_argument(
        "--progress",
        action="store_true",
        help="progress bar on stderr (default: only when stderr is a terminal)",
    )
    ro.set_defaults(run=cmd_rollout)
    bench_targets["rollout"] = (
        bench_rollout_command,
        ("trials", "model", "plies", "seed", "threads", "workers", "ray_address"),
    )
