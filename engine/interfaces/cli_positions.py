"""``tdgammon show`` and ``tdgammon moves``: positions and legal plays; and batch mode
(``run_batch``), the JSON-lines loop of every command that takes ``-``."""

from __future__ import annotations

import argparse
import json
import math
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
from tdgammon.engine.rules.outcome import MOVER_WINS, winner
from tdgammon.engine.rules.position import GAME_DROPPED, GAME_OVER, GAME_RESIGNED, Position

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


FINISHED_GAME_STATES = {
    GAME_OVER: "its Match ID says so",
    GAME_RESIGNED: "its Match ID says it ended by a resignation",
    GAME_DROPPED: "its Match ID says it ended by a dropped double",
}
"""The Match ID game states of a finished game (docs/formats.md), and how to say so."""


def check_game_on(position: Position) -> Position:
    """``position``, after checking that the game is not over (docs/rules.md 4: it ends
    when one player has borne off every checker, so there is no play or cube
    decision left; a GNU Backgammon Match ID may also say that the game is over,
    resigned or dropped, whatever the board); FormatError saying so otherwise."""
    won = int(winner(position.board))
    if won:
        who = "the player on roll" if won == MOVER_WINS else "the opponent"
        raise FormatError(
            f"the game is over: {who} has borne off every checker; there is nothing to decide"
        )
    if position.game_state in FINISHED_GAME_STATES:
        raise FormatError(
            f"the game is over: {FINISHED_GAME_STATES[position.game_state]}; "
            "there is nothing to decide"
        )
    return position


def dice_for(position: Position, dice: tuple[int, int] | None) -> tuple[int, int]:
    """The roll to play in ``position`` (the game must not be over, ``check_game_on``):
    ``dice`` when given (already checked), else the position's own."""
    check_game_on(position)
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
    dice = parse_dice(args.dice) if args.dice is not None else None
    if args.position == "-":
        return run_batch(sys.stdin, sys.stdout, lambda r: moves_request(r, dice))
    position = parse_position(args.position)
    report = legal_moves_report(position, dice_for(position, dice))
    print(json.dumps(report) if args.json else _moves_text(report))
    return 0


def moves_request(request: dict, default_dice: tuple[int, int] | None) -> dict:
    """The answer to one batch line of ``moves -`` (also ``POST /api/moves`` of ``tdgammon
    serve``)."""
    check_keys(request, MOVES_KEYS)
    position = parse_position(_field(request, "position", str))
    return legal_moves_report(position, dice_for(position, request_dice(request, default_dice)))


# ---------------------------------------------------------------- batch mode

MOVES_KEYS = ("position", "dice")
"""The keys of a ``moves -`` line (docs/formats.md, batch mode)."""
SHOW_KEYS = ("position",)
"""The keys of a ``POST /api/show`` body (``tdgammon show`` has no batch mode)."""
MAX_KEY_SHOWN = 40
"""Characters of an unknown key quoted in its error."""


def check_keys(request: dict, known: tuple[str, ...]) -> None:
    """FormatError naming every key of ``request`` not in ``known`` (and the known
    ones): a misspelt option (``"plise"``) must not be answered with the default."""
    unknown = [key for key in request if key not in known]
    if unknown:
        shown = ", ".join(
            repr(key if len(key) <= MAX_KEY_SHOWN else key[:MAX_KEY_SHOWN] + "...")
            for key in unknown
        )
        plural = "s" if len(unknown) > 1 else ""
        raise FormatError(f"unknown key{plural} {shown} (known: {', '.join(known)})")


def _field(request: dict, name: str, kind: type):
    if name not in request:
        raise FormatError(f'missing "{name}"')
    if not isinstance(request[name], kind):
        raise FormatError(f'"{name}" must be a {kind.__name__}')
    return request[name]


def request_dice(request: dict, default: tuple[int, int] | None = None) -> tuple[int, int] | None:
    """The ``"dice"`` of a batch request, two JSON integers 1-6 (not floats, not
    ``true``); ``default`` (the command line's ``--dice``) when the line has none."""
    if "dice" not in request:
        return default
    dice = request["dice"]
    if not (
        isinstance(dice, list)
        and len(dice) == 2
        and all(isinstance(d, int) and not isinstance(d, bool) for d in dice)
    ):
        raise FormatError('"dice" must be a list of two whole numbers 1-6, such as [5, 2]')
    return check_dice(dice)


MAX_JSON_DIGITS = 100
"""Digits of the longest integer a batch request may hold (Python refuses to
read more than 4,300; no field needs more than a few)."""


def _json_int(text: str) -> int:
    """``json.loads``'s reader of integers, refusing absurdly long ones."""
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise FormatError(f"a number has more than {MAX_JSON_DIGITS} digits")
    return int(text)


def _json_float(text: str) -> float:
    """``json.loads``'s reader of decimals, refusing those too large for a float (1e400)."""
    value = float(text)
    if not math.isfinite(value):
        raise FormatError(f"the number {text[:20]} is too large")
    return value


def _json_constant(name: str):
    """``json.loads``'s reader of NaN, Infinity and -Infinity: not JSON, refused."""
    raise FormatError(f"{name} is not a JSON value")


def parse_request(line: str) -> dict:
    """One batch line as a JSON object; FormatError for anything else (invalid JSON,
    NaN or Infinity, numbers out of range, nesting too deep for the parser)."""
    try:
        request = json.loads(
            line, parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant
        )
    except json.JSONDecodeError as error:
        raise FormatError(f"not valid JSON: {error.msg} at column {error.colno}") from None
    except RecursionError:
        raise FormatError("not valid JSON: nested too deeply") from None
    if not isinstance(request, dict):
        raise FormatError("each line must be a JSON object")
    return request


def input_lines(stream) -> Iterable[bytes] | Iterable[str]:
    """The lines of ``stream`` (standard input): its binary buffer's when it has one, so
    that each line is decoded on its own (``decode_line``) whatever the locale;
    else the stream itself (lines of text, as ``io.StringIO`` in the tests)."""
    return getattr(stream, "buffer", stream)


def decode_line(raw: bytes | str) -> str:
    """One input line as text, read as UTF-8; FormatError when it is not UTF-8."""
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FormatError(
            f"the line is not UTF-8 text (byte {raw[error.start]:#04x} at column {error.start + 1})"
        ) from None


def run_batch(stream, out, answer: Callable[[dict], dict]) -> int:
    """docs/formats.md batch mode: one JSON request per line in, one JSON answer per line out.

    ``stream``: standard input (``input_lines``). A bad line gets
    ``{"error": "..."}`` and the run goes on. Blank lines are skipped.
    """
    for raw in input_lines(stream):
        try:
            line = decode_line(raw)
            if not line.strip():
                continue
            reply = answer(parse_request(line))
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
    moves.add_argument(
        "--dice",
        help="the roll, e.g. 52 (default: the position's dice); with -: of lines without dice",
    )
    moves.add_argument("--json", action="store_true", help="print one JSON object")
    moves.set_defaults(run=cmd_moves)
