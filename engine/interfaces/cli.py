"""The ``tdgammon`` command line: thin wrappers that parse, call the library, print.

Sub-commands live in small modules, each with ``register(commands,
bench_targets)``: it adds its sub-parsers (``set_defaults(run=...)``) and may
add targets to ``tdgammon bench TARGET``; a module whose bench targets take
options of their own also defines ``add_bench_arguments(bench_parser)``.
``COMMAND_MODULES`` lists them by
name; modules outside ``engine`` (``tdgammon.train.cli``) are imported by name only
here, the one place where the interface layer reaches the training package,
and must keep heavy imports (torch) inside their functions.

Every bad input ends in one line on stderr, ``tdgammon: error: <what is
wrong>``, and exit status 2; never a traceback. (Set TDGAMMON_DEBUG=1 to see
the traceback of an internal error, which otherwise also prints one line and
exits with status 3.)
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from tdgammon.engine.rules.errors import FormatError, TdgammonError

EXIT_USAGE = 2
EXIT_INTERNAL = 3

COMMAND_MODULES = [
    "tdgammon.engine.interfaces.cli_positions",
    "tdgammon.train.cli",
    "tdgammon.engine.interfaces.cli_play",
    "tdgammon.engine.interfaces.cli_analysis",
]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (the default prints the whole usage first)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see {self.prog} --help)")


class UsageError(Exception):
    """Bad command-line arguments."""


# ---------------------------------------------------------------- bench


def bench_movegen_command(args: argparse.Namespace) -> int:
    """``tdgammon bench movegen``."""
    from tdgammon.engine.interfaces.bench import bench_movegen, format_movegen

    try:
        batch_sizes = [int(x) for x in args.batch_sizes.split(",")]
    except ValueError:
        raise FormatError(
            f"--batch-sizes must be integers separated by commas, got {args.batch_sizes!r}"
        ) from None
    if any(b < 1 for b in batch_sizes):
        raise FormatError("batch sizes must be at least 1")
    results = bench_movegen(batch_sizes, sample_size=args.sample, min_seconds=args.seconds)
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "generator": r.generator,
                        "batch_size": r.batch_size,
                        "positions": r.positions,
                        "plays": r.plays,
                        "seconds": r.seconds,
                        "plays_per_second": r.plays_per_second,
                        "peak_bytes": r.peak_bytes,
                    }
                    for r in results
                ]
            )
        )
    else:
        print(f"Move generation on one core, {args.sample} positions from random games")
        print(format_movegen(results))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tdgammon", description="tdgammon: a backgammon engine and AI.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    bench_targets = {"movegen": bench_movegen_command}
    modules = [importlib.import_module(name) for name in COMMAND_MODULES]
    for module in modules:
        module.register(commands, bench_targets)

    bench = commands.add_parser("bench", help="measure performance")
    bench.add_argument("target", choices=sorted(bench_targets), help="what to measure")
    movegen = bench.add_argument_group("movegen (and shared)")
    movegen.add_argument("--batch-sizes", default="1,64,4096", help="comma-separated batch sizes")
    movegen.add_argument(
        "--sample",
        type=int,
        default=16384,
        help="positions in the fixed sample (analysis: decisions, at most 50)",
    )
    movegen.add_argument(
        "--seconds",
        type=float,
        default=2.0,
        help="minimum time per batch size (selfplay: per preset)",
    )
    bench.add_argument("--json", action="store_true", help="print JSON")
    for module in modules:
        if hasattr(module, "add_bench_arguments"):
            module.add_bench_arguments(bench)
    bench.set_defaults(run=lambda args: bench_targets[args.target](args))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tdgammon`` console script; returns the exit status."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return args.run(args)
    except (UsageError, TdgammonError) as error:
        print(f"tdgammon: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tdgammon: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # noqa: BLE001 - the last line of defence: no tracebacks
        if os.environ.get("TDGAMMON_DEBUG"):
            raise
        print(
            f"tdgammon: internal error (please report it): {type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
