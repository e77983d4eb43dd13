"""The analysis answers of ``tdgammon serve``: the CLI's batch-mode answers, bounded.

Each ``POST /api/<command>`` body is one batch line of ``tdgammon <command> -``
(docs/formats.md, "The CLI's JSON") and gets the same answer from the same
function (``cli_positions.moves_request``, ``cli_analysis.eval_request``,
``hint_request``, ``cube_request``, ``cli_rollout.rollout_request``); this module
only adds the server's bounds before it calls them:

- the search depth: a request may ask for 0 to the server's ``--plies``
  (which is also the depth of a request that names none), and is told so;
- rollouts: 0-ply, at most ``MAX_ROLLOUT_TRIALS`` trials, with dice the best
  ``DEFAULT_ROLLOUT_TOP`` plays unless ``top`` says otherwise (``"top": null``,
  every play of the roll, is refused), and at most ``MAX_ROLLOUT_GAMES`` games
  in all (trials x plays); their other options are the request's, else the
  command line's defaults (``rollout_defaults``).

``show`` has no batch mode in the CLI; its request holds ``position`` only
(``SHOW_KEYS``; any other key is an error, as in every batch line) and its answer
is ``tdgammon show --json``'s object plus ``svg``, the board drawn by
``tdgammon.engine.display.svg``.

``match`` answers ``GET /api/games/{id}/analysis``: ``tdgammon analyse --json``'s
object (docs/formats.md, "Match analysis") for a game session's match so far, at
``MATCH_PLIES`` unless the query asks for another depth up to the server's
``--plies``, with the network of the match's variant (the server's ``--model``
if it has one).
"""

from __future__ import annotations

import argparse
from types import ModuleType

from tdgammon.engine.analysis.match_analysis import analyse_match
from tdgammon.engine.analysis.match_report import analysis_json
from tdgammon.engine.analysis.reports import load_search
from tdgammon.engine.display.svg import board_svg
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.flow.match import Match
from tdgammon.engine.formats.parse import format_ids, parse_position
from tdgammon.engine.interfaces import cli_rollout
from tdgammon.engine.interfaces.cli_analysis import cube_request, eval_request, hint_request
from tdgammon.engine.interfaces.cli_positions import SHOW_KEYS, _field, check_keys, moves_request
from tdgammon.engine.rules.errors import FormatError

MAX_ROLLOUT_TRIALS = 1296
"""Trials per rolled-out position a request may ask for (the CLI's default)."""
DEFAULT_ROLLOUT_TRIALS = 324
"""Trials of a request that names none: one batch, seconds rather than a minute."""
DEFAULT_ROLLOUT_TOP = 3
"""Plays rolled out for a request with dice that names no ``top``."""
MAX_ROLLOUT_GAMES = 1296
"""Games one rollout request may play in all (trials x rolled-out positions)."""
MATCH_PLIES = 1
"""Depth of a match analysis that names none (or the server's ``--plies`` if lower):
a game of 1-ply analysis takes about a second."""


def command_defaults(module: ModuleType, argv: list[str]) -> argparse.Namespace:
    """The options of one CLI command as its parser gives them for ``argv`` (its
    defaults): ``module.register`` adds the command to a parser of its own."""
    parser = argparse.ArgumentParser(add_help=False)
    module.register(parser.add_subparsers(), {})
    return parser.parse_args(argv)


def _whole(request: dict, name: str, default: int) -> int:
    """``request[name]`` (``default`` when absent); the CLI's answer checks its type,
    so anything that is not a whole number is passed on for it to refuse."""
    value = request.get(name, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _check_top(line: dict) -> None:
    """``DEFAULT_ROLLOUT_TOP`` for a rollout line with dice and no ``top``; FormatError for
    ``"top": null``: the CLI reads it as every play of the roll (42 of 1-1 in the
    opening), past the bound on the games of one request, hours of work."""
    line.setdefault("top", DEFAULT_ROLLOUT_TOP)
    if line["top"] is None:
        raise FormatError(
            "top must be a whole number on this server, got null (every play of the roll): "
            f"a rollout here plays at most {MAX_ROLLOUT_GAMES} games"
        )


class Analysis:
    """The answers of the analysis endpoints, on one ``Search`` (module docstring)."""

    def __init__(self, search: Search, plies: int, model: str | None = None) -> None:
        self.search = search
        self.plies = plies
        self.model = model
        self.rollout_defaults = command_defaults(cli_rollout, ["rollout", "-"])

    def _depth_error(self, plies: object) -> FormatError:
        return FormatError(f"plies must be 0-{self.plies} on this server, got {plies}")

    def _check_depth(self, request: dict) -> None:
        """FormatError naming this server's bounds for a whole-number depth outside them
        (the CLI would name its own, 0-MAX_PLIES)."""
        plies = _whole(request, "plies", 0)
        if not 0 <= plies <= self.plies:
            raise self._depth_error(plies)

    def _match_depth(self, text: str | None) -> int:
        """The depth of ``?plies=N`` (``MATCH_PLIES`` when absent), bounded by the server's."""
        if text is None:
            return min(MATCH_PLIES, self.plies)
        if text not in [str(plies) for plies in range(self.plies + 1)]:
            raise self._depth_error(text[:40])
        return int(text)

    def moves(self, request: dict) -> dict:
        """``POST /api/moves``: every legal play of a roll."""
        return moves_request(request, None)

    def show(self, request: dict) -> dict:
        """``POST /api/show``: the IDs, the board and its picture."""
        check_keys(request, SHOW_KEYS)
        position = parse_position(_field(request, "position", str))
        return {
            **format_ids(position),
            "board": position.board.tolist(),
            "svg": board_svg(position),
        }

    def eval(self, request: dict) -> dict:
        """``POST /api/eval``: cubeless and cubeful evaluation before rolling."""
        self._check_depth(request)
        return eval_request(self.search, request, self.plies)

    def hint(self, request: dict) -> dict:
        """``POST /api/hint``: the legal plays of a roll, best first."""
        self._check_depth(request)
        return hint_request(self.search, request, self.plies, None)

    def cube(self, request: dict) -> dict:
        """``POST /api/cube``: the cube decision with its explanation."""
        self._check_depth(request)
        return cube_request(self.search, request, self.plies)

    def rollout(self, request: dict) -> dict:
        """``POST /api/rollout``: a bounded rollout (module docstring)."""
        if _whole(request, "plies", 0) != 0:
            raise FormatError("rollouts on this server play at 0-ply: plies must be 0")
        line = {"trials": DEFAULT_ROLLOUT_TRIALS, **request}
        trials = _whole(line, "trials", 1)
        if trials > MAX_ROLLOUT_TRIALS:
            raise FormatError(f"trials must be 1-{MAX_ROLLOUT_TRIALS} on this server, got {trials}")
        if "dice" in line:
            _check_top(line)
        plays = _whole(line, "top", 1) if "dice" in line else 1
        if trials * plays > MAX_ROLLOUT_GAMES:
            raise FormatError(
                f"a rollout here plays at most {MAX_ROLLOUT_GAMES} games: trials x top "
                f"is {trials} x {plays}"
            )
        return cli_rollout.rollout_request(self.search, self.rollout_defaults, line)

    def match(self, match: Match, plies: str | None = None) -> dict:
        """``GET /api/games/{id}/analysis``: ``tdgammon analyse --json``'s object for
        ``match`` (module docstring); FormatError for a variant it cannot analyse."""
        depth = self._match_depth(plies)
        search = load_search(self.model, match.settings.variant)
        return analysis_json(analyse_match(match, search, depth))
