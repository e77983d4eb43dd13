"""The ``tdgammon`` command line: thin wrappers that parse, call the library, print.

Every bad input ends in one line on stderr, ``tdgammon: error: <what is
wrong>``, and exit status 2; never a traceback. (Set TDGAMMON_DEBUG=1 to see
the traceback of an internal error, which otherwise also prints one line and
exits with status 3.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterable

import numpy as np

from engine.dice import check_dice, parse_dice
from engine.errors import FormatError, TdgammonError
from engine.formats.parse import format_ids, parse_position
from engine.formats.position_id import encode_position_id
from engine.movegen import generate_moves
from engine.notation import format_move
from engine.position import Position
from engine.render import render_board

EXIT_USAGE = 2
EXIT_INTERNAL = 3


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (the default prints the whole usage first)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{message} (see {self.prog} --help)")


class _UsageError(Exception):
    pass


# ---------------------------------------------------------------- moves


def legal_moves_report(position: Position, dice: tuple[int, int]) -> dict:
    """The JSON object of ``tdgammon moves`` (formats.md): one entry per distinct board.

    ``board_after`` is the 30-slot board of ``engine.board`` (mover's view, not
    swapped); ``position_id_after`` is seen from the same player.
    """
    result = generate_moves(position.board[None, :], np.array([dice]))
    moves = []
    for row in np.flatnonzero(~result.is_pass()):
        pairs = [(int(s), int(t)) for s, t in result.moves[row] if s >= 0]
        board_after = result.boards[row]
        moves.append(
            {
                "move": format_move(position.board, pairs),
                "position_id_after": encode_position_id(board_after),
                "board_after": board_after.tolist(),
            }
        )
    return {
        "position_id": encode_position_id(position.board),
        "dice": list(dice),
        "moves": moves,
    }


def _dice_for(position: Position, dice_text: str | None) -> tuple[int, int]:
    if dice_text is not None:
        return parse_dice(dice_text)
    if position.dice is not None:
        return position.dice
    raise FormatError("no dice: give --dice (e.g. --dice 52) or a position with dice rolled")


def _moves_text(report: dict) -> str:
    d1, d2 = report["dice"]
    lines = [f"Position ID {report['position_id']}, roll {d1}{d2}:"]
    if not report["moves"]:
        lines.append("  no legal play: the turn passes")
    for number, entry in enumerate(report["moves"], 1):
        lines.append(f"  {number:3d}. {entry['move']:<28} {entry['position_id_after']}")
    lines.append(f"{len(report['moves'])} legal plays")
    return "\n".join(lines)


def cmd_moves(args: argparse.Namespace) -> int:
    if args.position == "-":
        return _batch(sys.stdin, sys.stdout, _moves_from_request)
    position = parse_position(args.position)
    report = legal_moves_report(position, _dice_for(position, args.dice))
    print(json.dumps(report) if args.json else _moves_text(report))
    return 0


def _moves_from_request(request: dict) -> dict:
    position = parse_position(_field(request, "position", str))
    if "dice" in request:
        dice = check_dice(request["dice"])
    elif position.dice is not None:
        dice = position.dice
    else:
        raise FormatError('missing "dice" (e.g. "dice": [5, 2])')
    return legal_moves_report(position, dice)


def _field(request: dict, name: str, kind: type):
    if name not in request:
        raise FormatError(f'missing "{name}"')
    if not isinstance(request[name], kind):
        raise FormatError(f'"{name}" must be a {kind.__name__}')
    return request[name]


def _batch(lines: Iterable[str], out, answer: Callable[[dict], dict]) -> int:
    """formats.md batch mode: one JSON request per line in, one JSON answer per line out.

    A bad line gets ``{"error": "..."}`` and the run goes on. Blank lines are skipped.
    """
    for line in lines:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise FormatError("each line must be a JSON object")
            reply = answer(request)
        except json.JSONDecodeError as error:
            reply = {"error": f"not valid JSON: {error.msg} at column {error.colno}"}
        except TdgammonError as error:
            reply = {"error": str(error)}
        out.write(json.dumps(reply) + "\n")
        out.flush()
    return 0


# ---------------------------------------------------------------- show


def cmd_show(args: argparse.Namespace) -> int:
    position = parse_position(args.position)
    ids = format_ids(position)
    if args.json:
        print(json.dumps({**ids, "board": position.board.tolist()}))
    else:
        print(render_board(position, ids))
    return 0


# ---------------------------------------------------------------- bench


def cmd_bench(args: argparse.Namespace) -> int:
    from engine.bench import bench_movegen, format_movegen

    try:
        batch_sizes = [int(x) for x in args.batch_sizes.split(",")]
    except ValueError:
        raise FormatError(f"--batch-sizes must be integers separated by commas, got {args.batch_sizes!r}") from None
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


# ---------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tdgammon", description="tdgammon: a backgammon engine and AI.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    position_help = "an XGID, a GNU Backgammon PositionID:MatchID or Position ID, or a FIBS board"

    show = commands.add_parser("show", help="draw a position with pip counts, cube, score and IDs")
    show.add_argument("position", metavar="POSITION", help=position_help)
    show.add_argument("--json", action="store_true", help="print the IDs and board as JSON")
    show.set_defaults(run=cmd_show)

    moves = commands.add_parser("moves", help="list every legal play of a roll")
    moves.add_argument("position", metavar="POSITION", help=position_help + "; - for batch JSON lines")
    moves.add_argument("--dice", help="the roll, e.g. 52 (default: the dice in the position)")
    moves.add_argument("--json", action="store_true", help="print one JSON object")
    moves.set_defaults(run=cmd_moves)

    bench = commands.add_parser("bench", help="measure performance")
    bench.add_argument("target", choices=["movegen"], help="what to measure")
    bench.add_argument("--batch-sizes", default="1,64,4096", help="comma-separated batch sizes")
    bench.add_argument("--sample", type=int, default=16384, help="positions in the fixed sample")
    bench.add_argument("--seconds", type=float, default=2.0, help="minimum time per batch size")
    bench.add_argument("--json", action="store_true", help="print JSON")
    bench.set_defaults(run=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tdgammon`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.run(args)
    except (_UsageError, TdgammonError) as error:
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
