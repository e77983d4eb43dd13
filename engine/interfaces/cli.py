"""The ``tdgammon`` command line: thin wrappers that parse, call the library, print.

Sub-commands live in small modules, each with ``register(commands,
bench_targets)``: it adds its sub-parsers (``set_defaults(run=...)``) and may
add targets to ``tdgammon bench TARGET``, each as ``bench_targets[NAME] =
(function, the option names it reads)`` (``bench``'s options are shared by its
targets, and one given to a target that does not read it is refused, not
ignored); a module whose bench targets take options of their own also defines
``add_bench_arguments(bench_parser)``.
``COMMAND_MODULES`` lists them by
name; modules outside ``engine`` (``tdgammon.train.cli``) are imported by name only
here, the one place where the interface layer reaches the training package,
and must keep heavy imports (torch) inside their functions.

Every bad input ends in one line on stderr, ``tdgammon: error: <what is
wrong>``, and exit status 2; never a traceback. Anything else that goes wrong
is a bug: one line ``tdgammon: internal error (please report it): ...`` and
exit status 3, with the traceback too under ``tdgammon --debug COMMAND`` (or
TDGAMMON_DEBUG=1). ``debug_enabled()`` is that one switch; the interfaces
(``ubgi``, the ``play`` session) let unexpected errors reach ``main`` rather
than report them themselves.
"""

from __future__ import annotations

import argparse
import errno
import functools
import importlib
import json
import os
import re
import sys
import traceback

from tdgammon.engine.rules.errors import FormatError, TdgammonError

EXIT_USAGE = 2
EXIT_INTERNAL = 3
DEBUG_ENV = "TDGAMMON_DEBUG"

_debug_option = False
"""``--debug`` was given to the running ``main`` (see ``debug_enabled``)."""


def debug_enabled() -> bool:
    """Show the traceback of an internal error: ``tdgammon --debug`` or TDGAMMON_DEBUG
    set to anything but empty or 0."""
    return _debug_option or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def _debug_requested(argv: list[str]) -> bool:
    """``--debug`` among the global options, before the sub-command (known before
    parsing, so that an error while building the parser shows its traceback too)."""
    for arg in argv:
        if arg == "--debug":
            return True
        if not arg.startswith("-"):
            return False
    return False


def report_internal_error(error: BaseException) -> None:
    """The one line of an internal error on stderr; the traceback first when debugging."""
    if debug_enabled():
        traceback.print_exception(error, file=sys.stderr)
        hint = ""
    else:
        hint = " (run with --debug for the traceback)"
    detail = " ".join(str(error).split())
    print(
        f"tdgammon: internal error (please report it): {type(error).__name__}: {detail}{hint}",
        file=sys.stderr,
    )


COMMAND_MODULES = [
    "tdgammon.engine.interfaces.cli_positions",
    "tdgammon.train.cli",
    "tdgammon.engine.interfaces.cli_play",
    "tdgammon.engine.interfaces.cli_analysis",
    "tdgammon.engine.interfaces.cli_analyse",
    "tdgammon.engine.interfaces.cli_rollout",
    "tdgammon.engine.interfaces.serve",
    "tdgammon.train.refine",
    "tdgammon.train.race_distributions",
    "tdgammon.train.average",
    "tdgammon.engine.interfaces.bench_race",
    "tdgammon.engine.interfaces.bench_cube",
]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (the default prints the whole usage first)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see {self.prog} --help)")


class UsageError(Exception):
    """Bad command-line arguments."""


# ---------------------------------------------------------------- bench


POSITIVE_BENCH_OPTIONS = ("sample", "threads")
"""``tdgammon bench`` options that must be at least 1, whichever target reads them."""


def run_bench(targets: dict, defaults: dict, args: argparse.Namespace) -> int:
    """``tdgammon bench TARGET``, after checking the options shared by the targets.

    targets: name -> ``(function, names of the options it reads)``; defaults: every
    ``bench`` option's name -> its default. An option set (not its default) that the
    target does not read is refused: ``bench analysis --plies 2`` would otherwise
    measure 0, 1 and 2 plies as always, and the user take it for what was asked.
    """
    run, reads = targets[args.target]
    for name, default in defaults.items():
        if name not in reads and getattr(args, name) != default:
            users = ", ".join(sorted(t for t, (_, options) in targets.items() if name in options))
            raise FormatError(
                f"bench {args.target} does not use --{name.replace('_', '-')} "
                f"(an option of bench {users})"
            )
    for name in POSITIVE_BENCH_OPTIONS:
        value = getattr(args, name)
        if value < 1:
            raise FormatError(f"--{name} must be at least 1, got {value}")
    return run(args)


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
    if max(batch_sizes) > args.sample:
        raise FormatError(
            f"batch size {max(batch_sizes)} is larger than the sample (--sample {args.sample})"
        )
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
    parser.add_argument(
        "--debug",
        action="store_true",
        help=f"show the traceback of an internal error (as {DEBUG_ENV}=1); before the command",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    bench_targets = {"movegen": (bench_movegen_command, ("batch_sizes", "sample", "seconds"))}
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
        help="positions in the fixed sample (analysis: decisions, at most 50; choices: decisions)",
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
    defaults = vars(bench.parse_args(["movegen"]))
    del defaults["target"], defaults["json"]
    bench.set_defaults(run=functools.partial(run_bench, bench_targets, defaults))
    return parser


BARE_XGID = re.compile(r"-[-a-oA-O]{25}:")
"""An XGID without its optional ``XGID=`` prefix whose board starts with an empty
point: argparse would take it for an option, so ``main`` gives it the prefix."""

WRITE_FAILURES = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO)
"""``errno`` of a write the machine refused (a full disk, a read-only one): the
user's environment, reported on one line, not a bug."""


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tdgammon`` console script; returns the exit status."""
    global _debug_option
    argv = sys.argv[1:] if argv is None else list(argv)
    _debug_option = _debug_requested(argv)
    argv = [f"XGID={arg}" if BARE_XGID.match(arg) else arg for arg in argv]
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        _debug_option = _debug_option or args.debug
        return args.run(args)
    except (UsageError, TdgammonError) as error:
        print(f"tdgammon: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tdgammon: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as error:
        if error.errno not in WRITE_FAILURES:
            report_internal_error(error)
            return EXIT_INTERNAL
        print(f"tdgammon: error: cannot write: {error.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # noqa: BLE001 - the last line of defence: a bug, reported
        report_internal_error(error)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
