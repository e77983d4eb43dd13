"""``tdgammon eval``, ``hint``, ``cube``, ``ubgi`` and ``bench analysis``.

Thin wrappers (docs/architecture.md): parse the position, call ``tdgammon.engine.evaluation.search``
(cubeless, n-ply) and ``tdgammon.engine.cube.theory`` (cubeful), print text or the docs/formats.md
JSON. Each analysis command takes ``-`` for batch mode: JSON lines on stdin
(``{"position": ..., "dice": [5, 2], "plies": 1}``; ``dice`` for ``hint``,
default ``--dice``, checked and ignored by ``eval`` and ``cube``; ``plies``
optional, default the command line's; ``jacoby`` for ``cube``), one JSON answer
per line, ``{"error": ...}`` for a bad line, an unknown key included
(``cli_positions.run_batch``, ``check_keys``). ``hint`` and ``cube`` refuse a
finished game.

Conventions of the answers:

- ``eval``: probabilities of the player on roll before rolling (dice in the
  position are ignored); ``equity`` is the cubeless money equity
  (docs/architecture.md formula); ``cubeful_equity`` comes from
  ``tdgammon.engine.cube.theory.cube_decision`` (money: Janowski; match: EMG from the match
  equity table), and match play adds ``mwc`` (cubeful match winning chance).
- ``hint``: every legal play, best first (deeper search first, then equity,
  GNU Backgammon's order), with the mover's cubeless probabilities and equity
  after the play; ``loss`` = best equity minus this one's (0 for the best).
- ``cube``: ``CubeDecision.to_json()`` of the player on roll (the doubler
  when a double is pending).

The network is the shipped model (``tdgammon.engine.evaluation.evaluator.default_evaluator``) or
``--model PATH``; torch is imported only when a command evaluates.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from tdgammon.engine.analysis.reports import cube_report, eval_report, hint_report, load_search
from tdgammon.engine.cube.theory import with_jacoby
from tdgammon.engine.evaluation.search import MAX_PLIES, Search
from tdgammon.engine.formats.parse import parse_position
from tdgammon.engine.interfaces.cli_positions import (
    POSITION_HELP,
    _field,
    check_game_on,
    check_keys,
    dice_for,
    input_lines,
    request_dice,
    run_batch,
)
from tdgammon.engine.rules.dice import parse_dice
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.position import Position

DEFAULT_PLIES = 2
"""Analysis depth of eval/hint/cube (well under a second per decision with the shipped net)."""
UBGI_DEFAULT_PLIES = 1
"""UBGI answers many positions in a row: one ply deeper than the raw network by default."""
EVAL_KEYS = ("position", "dice", "plies")
"""The keys of an ``eval -`` line (docs/formats.md, batch mode); ``dice`` are checked,
then ignored as the position's own are (``eval`` is before rolling)."""
HINT_KEYS = ("position", "dice", "plies")
"""The keys of a ``hint -`` line."""
CUBE_KEYS = ("position", "dice", "plies", "jacoby")
"""The keys of a ``cube -`` line; ``dice`` are checked, then ignored (the cube
decision is before rolling)."""


def _plies(value, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(f'"plies" must be a whole number 0-{MAX_PLIES}')
    if not 0 <= value <= MAX_PLIES:
        raise FormatError(f"plies must be 0-{MAX_PLIES}, got {value}")
    return value


# ---------------------------------------------------------------- text


def _probability_line(p: dict) -> str:
    return (
        f"win {100 * p['win']:.1f}%  (gammon {100 * p['win_gammon']:.1f}%, backgammon "
        f"{100 * p['win_backgammon']:.1f}%)   lose {100 * (1 - p['win']):.1f}%  (gammon "
        f"{100 * p['lose_gammon']:.1f}%, backgammon {100 * p['lose_backgammon']:.1f}%)"
    )


def _eval_text(report: dict) -> str:
    lines = [
        f"Position ID {report['position_id']}, player on roll, {report['plies']}-ply:",
        "  " + _probability_line(report["probabilities"]),
        f"  cubeless equity {report['equity']:+.3f}   cubeful equity "
        f"{report['cubeful_equity']:+.3f}",
    ]
    if "mwc" in report:
        lines.append(
            f"  match winning chance {100 * report['mwc']:.1f}% cubeful, "
            f"{100 * report['cubeless_mwc']:.1f}% cubeless"
        )
    return "\n".join(lines)


def _hint_text(report: dict) -> str:
    d1, d2 = report["dice"]
    lines = [f"Position ID {report['position_id']}, roll {d1}{d2}, {report['plies']}-ply:"]
    if not report["moves"]:
        lines.append("  no legal play: the turn passes")
    for number, m in enumerate(report["moves"], 1):
        p = m["probabilities"]
        loss = "" if number == 1 else f" ({-m['loss']:+.3f})"
        lines.append(
            f"  {number:3d}. {m['plies']}-ply {m['move']:<26} equity {m['equity']:+.3f}{loss}"
            f"   {100 * p['win']:.1f} {100 * p['win_gammon']:.1f} {100 * p['win_backgammon']:.1f}"
            f" - {100 * (1 - p['win']):.1f} {100 * p['lose_gammon']:.1f}"
            f" {100 * p['lose_backgammon']:.1f}"
        )
    return "\n".join(lines)


def _cube_text(report: dict) -> str:
    def fmt(value):
        return "n/a" if value is None else f"{value:+.3f}"

    diff = report["differences"]
    lines = [
        f"Cube decision of the player on roll, {report['plies']}-ply: {report['action']}",
        "  " + _probability_line(report["probabilities"]),
        f"  cubeless equity {report['cubeless_equity']:+.3f}, "
        f"cubeful {report['cubeful_equity']:+.3f}",
        f"  No double     {fmt(report['no_double'])}  ({diff['no_double']:+.3f})",
        f"  Double, take  {fmt(report['double_take'])}  ({diff['double_take']:+.3f})",
        f"  Double, pass  {fmt(report['double_pass'])}  ({diff['double_pass']:+.3f})",
    ]
    if report.get("take_point") is not None:
        lines.append(
            f"  take point {100 * report['take_point']:.1f}%, "
            f"cash point {100 * report['cash_point']:.1f}%"
        )
    lines += [f"  {line}" for line in report.get("explanation", [])]
    return "\n".join(lines)


# ---------------------------------------------------------------- commands


def _request_position(request: dict) -> Position:
    return parse_position(_field(request, "position", str))


def eval_request(search: Search, request: dict, plies: int) -> dict:
    """The answer to one batch line of ``eval -`` (also ``POST /api/eval`` of ``tdgammon
    serve``); ``plies``: the depth when the line names none."""
    check_keys(request, EVAL_KEYS)
    position = _request_position(request)
    request_dice(request)  # checked; eval is before rolling, so dice are ignored
    return eval_report(search, position, _plies(request.get("plies"), plies))


def cmd_eval(args: argparse.Namespace) -> int:
    plies = _plies(args.plies, DEFAULT_PLIES)
    if args.position == "-":
        position = None
    else:
        position = parse_position(args.position)
    search = load_search(args.model)
    if position is None:
        return run_batch(sys.stdin, sys.stdout, lambda r: eval_request(search, r, plies))
    report = eval_report(search, position, plies)
    print(json.dumps(report) if args.json else _eval_text(report))
    return 0


def hint_request(
    search: Search, request: dict, plies: int, default_dice: tuple[int, int] | None
) -> dict:
    """The answer to one batch line of ``hint -`` (also ``POST /api/hint``)."""
    check_keys(request, HINT_KEYS)
    position = _request_position(request)
    dice = dice_for(position, request_dice(request, default_dice))
    return hint_report(search, position, dice, _plies(request.get("plies"), plies))


def cmd_hint(args: argparse.Namespace) -> int:
    plies = _plies(args.plies, DEFAULT_PLIES)
    dice = parse_dice(args.dice) if args.dice is not None else None
    if args.position == "-":
        search = load_search(args.model)
        return run_batch(sys.stdin, sys.stdout, lambda r: hint_request(search, r, plies, dice))
    position = parse_position(args.position)
    dice = dice_for(position, dice)
    report = hint_report(load_search(args.model), position, dice, plies)
    print(json.dumps(report) if args.json else _hint_text(report))
    return 0


def cube_request(search: Search, request: dict, plies: int, jacoby: bool | None = None) -> dict:
    """The answer to one batch line of ``cube -`` (also ``POST /api/cube``); its
    ``"jacoby"`` (true/false, money play) overrides ``jacoby`` (``--[no-]jacoby``)."""
    check_keys(request, CUBE_KEYS)
    position = check_game_on(_request_position(request))
    request_dice(request)  # checked; the cube decision is before rolling, so ignored
    if "jacoby" in request:
        jacoby = request["jacoby"]
        if not isinstance(jacoby, bool):
            raise FormatError('"jacoby" must be true or false')
    position = with_jacoby(position, jacoby)
    return cube_report(search, position, _plies(request.get("plies"), plies))


def cmd_cube(args: argparse.Namespace) -> int:
    plies = _plies(args.plies, DEFAULT_PLIES)
    if args.position == "-":
        search = load_search(args.model)
        jacoby = args.jacoby
        return run_batch(sys.stdin, sys.stdout, lambda r: cube_request(search, r, plies, jacoby))
    position = with_jacoby(check_game_on(parse_position(args.position)), args.jacoby)
    report = cube_report(load_search(args.model), position, plies)
    print(json.dumps(report) if args.json else _cube_text(report))
    return 0


def cmd_ubgi(args: argparse.Namespace) -> int:
    from tdgammon.engine.cube.agent import CubeAgent
    from tdgammon.engine.interfaces.ubgi import UbgiEngine

    plies = _plies(args.plies, UBGI_DEFAULT_PLIES)
    engine = UbgiEngine(CubeAgent(load_search(args.model), plies))
    return engine.run(input_lines(sys.stdin), sys.stdout)


# ---------------------------------------------------------------- bench


def bench_analysis(search: Search, decisions: int = 20, plies=(0, 1, 2), seed: int = 5) -> dict:
    """Seconds per ``Search.analyse`` decision at each depth, on positions from random games.

    Returns ``{plies: seconds per decision}``; the same ``decisions`` positions
    and rolls at every depth (contact and race positions as random play meets them).
    """
    from tdgammon.engine.flow.random_play import random_game_positions

    boards, dice = random_game_positions(decisions, np.random.default_rng(seed))
    search.analyse(boards[0], dice[0], 0)  # warm up (bear-off database, torch)
    out = {}
    for depth in plies:
        start = time.perf_counter()
        for board, roll in zip(boards, dice, strict=True):
            search.analyse(board, roll, depth)
        out[depth] = (time.perf_counter() - start) / len(boards)
    return out


def bench_analysis_command(args: argparse.Namespace) -> int:
    """``tdgammon bench analysis``: seconds per decision at 0, 1 and 2 plies."""
    decisions = max(1, min(int(args.sample), 50))
    search = load_search(getattr(args, "model", None))
    timings = bench_analysis(search, decisions)
    if args.json:
        print(
            json.dumps(
                {
                    "evaluator": search.name,
                    "decisions": decisions,
                    "seconds_per_decision": {str(k): v for k, v in timings.items()},
                }
            )
        )
    else:
        print(f"Move analysis with {search.name}, {decisions} decisions from random games:")
        for depth, seconds in timings.items():
            print(f"  {depth}-ply  {1000 * seconds:8.1f} ms per decision")
    return 0


# ---------------------------------------------------------------- register


def _common(parser: argparse.ArgumentParser, default_plies: int) -> None:
    parser.add_argument(
        "--plies",
        type=int,
        default=None,
        help=f"search depth 0-{MAX_PLIES} (default {default_plies})",
    )
    parser.add_argument(
        "--model", default=None, help="a model file or checkpoint (default: the shipped network)"
    )


def register(commands, bench_targets: dict) -> None:
    """Add ``eval``, ``hint``, ``cube``, ``ubgi`` and ``bench analysis``."""
    batch = POSITION_HELP + "; - for batch JSON lines on stdin"

    ev = commands.add_parser("eval", help="cubeless and cubeful evaluation of a position")
    ev.add_argument("position", metavar="POSITION", help=batch)
    _common(ev, DEFAULT_PLIES)
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.set_defaults(run=cmd_eval)

    hint = commands.add_parser("hint", help="rank the legal plays of a roll")
    hint.add_argument("position", metavar="POSITION", help=batch)
    hint.add_argument(
        "--dice",
        help="the roll, e.g. 52 (default: the position's dice); with -: of lines without dice",
    )
    _common(hint, DEFAULT_PLIES)
    hint.add_argument("--json", action="store_true", help="print one JSON object")
    hint.set_defaults(run=cmd_hint)

    cube = commands.add_parser("cube", help="the cube decision of the player on roll")
    cube.add_argument("position", metavar="POSITION", help=batch)
    _common(cube, DEFAULT_PLIES)
    cube.add_argument("--json", action="store_true", help="print one JSON object")
    cube.add_argument(
        "--jacoby",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="money play: the Jacoby rule on or off (default: as the position says; a GNU "
        "Backgammon Match ID means on unless its bit 66 is set, as GNU Backgammon reads it)",
    )
    cube.set_defaults(run=cmd_cube)

    ubgi = commands.add_parser("ubgi", help="speak the UBGI engine protocol on stdin/stdout")
    _common(ubgi, UBGI_DEFAULT_PLIES)
    ubgi.set_defaults(run=cmd_ubgi)

    bench_targets["analysis"] = (bench_analysis_command, ("sample", "model"))
