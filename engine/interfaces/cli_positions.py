"""``tdgammon show`` and ``tdgammon moves``: positions and legal plays."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable

import numpy as np

from tdgammon.engine.display.render import render_board
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.formats.parse import format_ids, parse_position
from tdgammon.engine.formats.position_id import encode_position_id
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.dice import check_dice, parse_dice
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.position import Position

POSITION_HELP = "an XGID, a GNU Backgammon PositionID:MatchID or Position ID, or a FIBS board"


# ---------------------------------------------------------------- moves


def legal_moves_report(position: Position, dice: tuple[int, int]) -> dict:
    """The JSON object of ``tdgammon moves`` (docs/formats.md): one entry per distinct board.

    ``board_after`` is the 30-slot board of ``tdgammon.engine.rules.board`` (mover's view, not
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


def dice_for(position: Position, dice: tuple[int, int] | None) -> tuple[int, int]:
    """The roll to analyse: ``dice`` when given (already checked), else the position's own."""
    if dice is not None:
        return dice
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
        return run_batch(sys.stdin, sys.stdout, _moves_from_request)
    position = parse_position(args.position)
    dice = parse_dice(args.dice) if args.dice is not None else None
    report = legal_moves_report(position, dice_for(position, dice))
    print(json.dumps(report) if args.json else _moves_text(report))
    return 0


def _moves_from_request(request: dict) -> dict:
    position = parse_position(_field(request, "position", str))
    dice = check_dice(request["dice"]) if "dice" in request else None
    return legal_moves_report(position, dice_for(position, dice))


def _field(request: dict, name: str, kind: type):
    if name not in request:
        raise FormatError(f'missing "{name}"')
    if not isinstance(request[name], kind):
        raise FormatError(f'"{name}" must be a {kind.__name__}')
    return request[name]


def run_batch(lines: Iterable[str], out, answer: Callable[[dict], dict]) -> int:
    """docs/formats.md batch mode: one JSON request per line in, one JSON answer per line out.

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
    if args.svg:
        from tdgammon.engine.display.svg import save_svg

        try:
            save_svg(position, args.svg)
        except OSError as error:
            raise FormatError(f"cannot write {args.svg}: {error.strerror}") from None
    if args.json:
        print(json.dumps({**ids, "board": position.board.tolist()}))
    else:
        print(render_board(position, ids))
    return 0


def register(commands, bench_targets: dict) -> None:
    """Add ``show`` and ``moves`` to the ``tdgammon`` sub-command parsers."""
    show = commands.add_parser("show", help="draw a position with pip counts, cube, score and IDs")
    show.add_argument("position", metavar="POSITION", help=POSITION_HELP)
    show.add_argument("--json", action="store_true", help="print the IDs and board as JSON")
    show.add_argument(
        "--svg", metavar="PATH", default=None, help="also draw the board as an SVG picture at PATH"
    )
    show.set_defaults(run=cmd_show)

    moves = commands.add_parser("moves", help="list every legal play of a roll")
    moves.add_argument(
        "position", metavar="POSITION", help=POSITION_HELP + "; - for batch JSON lines"
    )
    moves.add_argument("--dice", help="the roll, e.g. 52 (default: the dice in the position)")
    moves.add_argument("--json", action="store_true", help="print one JSON object")
    moves.set_defaults(run=cmd_moves)
