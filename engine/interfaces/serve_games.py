"""Game sessions of ``tdgammon serve``: a person against the bot, one HTTP action at a time.

``new_game`` reads the options of ``tdgammon play`` from a JSON object (their
argparse names: ``{"length": 5, "jacoby": true, "seat": 1, ...}``, checked by
``cli_play``'s own functions) and seats the person against a bot of
``tdgammon.engine.players.factory``: a built-in name only, never a model file
named by the request (the server's ``--model``, if any, is the network).
``"position"`` (an XGID or GNU Backgammon ID) starts the first game from that
position's checkers, player on roll and cube, as a set-up position.

``WebGame`` drives the ``Match`` the way ``tdgammon play`` does
(``tdgammon.engine.interfaces.terminal``): the bot's decisions go through
``cube_actions.bot_step``; the person's go to the game's own actions with his
seat (``Game.roll(seat=...)``, ``play_text``, ...), so a refused action is the
state machine's ``RuleError``, worded as the terminal words it, and leaves the
state as it was. After each action the game runs on until the person has a
decision to make: the opening roll, the bot's turn, the person's roll when he
may not double and a roll he cannot play happen by themselves, as in the
terminal. A finished game waits for ``next``.

Actions (``{"action": ...}``): ``roll``, ``double``, ``take``, ``pass`` (or
``drop``), ``beaver``, ``raccoon``, ``move`` (with ``"move": "13/8 13/11"``),
``resign`` (with ``"kind": "single" | "gammon" | "backgammon"``, or the points
of an Acey-Deucey resignation; default single) and ``next``. An action's body
holds only ``action``, ``version`` (below) and that action's own key
(``ACTION_KEYS``): any other key is an error, as in every batch line: a misspelt
``"knd": "gammon"`` must not resign a single game, as bad input gets "a clear
error message naming what is wrong, never a silent wrong answer".

Versions: every state carries ``"version"``, the number of the person's actions
the game has applied (0 when created; each accepted action adds 1, whatever the
bot then plays by itself; a refused one adds nothing). An action may carry the
``"version"`` of the state it answers (a whole number, 0 or more; the page always
sends it): if the game is at another version (a double click, a retried request,
a second tab) it is refused with ``StaleVersion`` and nothing is applied, never
played on a later turn or made an answer to another cube decision. Without it
the action applies to the game as it is now, as before versions (optional, so
that existing API clients keep working).
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import secrets
import threading
from collections.abc import Callable

from tdgammon.engine.display.svg import board_svg
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import (
    ACT_ACCEPT,
    ACT_BEAVER,
    ACT_DOUBLE,
    ACT_DROP,
    ACT_MOVE,
    ACT_RACCOON,
    ACT_REJECT,
    ACT_RESIGN,
    ACT_TAKE,
    BEAVERED,
    DOUBLED,
    OPENING,
    RACCOONED,
    TO_MOVE,
    TO_ROLL,
    GameAction,
    GameResult,
)
from tdgammon.engine.flow.match import Match
from tdgammon.engine.flow.matfile import format_mat
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.formats.parse import format_ids, parse_position
from tdgammon.engine.interfaces import cli_play
from tdgammon.engine.interfaces.cli_positions import _field, check_keys
from tdgammon.engine.interfaces.serve_analysis import command_defaults
from tdgammon.engine.interfaces.terminal import RESIGN_WORDS, HumanAgent
from tdgammon.engine.players.cube_actions import bot_step, check_match_length
from tdgammon.engine.players.factory import NETWORK_NAMES, PLAYER_NAMES, make_agent
from tdgammon.engine.rules.board import flip, pip_counts
from tdgammon.engine.rules.dice import MAX_SEED
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position

GAME_OPTIONS = {
    "opponent": str,
    "name": str,
    "seat": int,
    "games": int,
    "length": int,
    "cubeless": bool,
    "no_crawford": bool,
    "jacoby": bool,
    "beavers": bool,
    "raccoons": bool,
    "cube_limit": int,
    "auto_doubles": int,
    "seed": int,
    "plies": int,
    "variant": str,
    "acey_deucey_stakes": bool,
}
"""The options of ``tdgammon play`` a new game takes (argparse names) and their JSON types."""
MAX_SESSION_GAMES = 100
"""Games of a money session (``games``): every game stays in memory until the session expires."""
MAX_MATCH_LENGTH = 64
"""Longest match (``length``), for the same reason."""
MAX_STEPS = 10_000
"""Decisions the game may run through by itself after one action (a bug past that)."""
VERSION_KEY = "version"
"""The key of a state's version and of an action's (optional) version (module docstring)."""

_TYPE_WORDS = {str: "a string", int: "a whole number", bool: "true or false"}
_VERBS = {
    ACT_DOUBLE: "doubles to {value}",
    ACT_TAKE: "takes",
    ACT_DROP: "passes",
    ACT_BEAVER: "beavers to {value}",
    ACT_RACCOON: "raccoons to {value}",
    ACT_RESIGN: "offers to resign for {value} x the cube",
    ACT_ACCEPT: "accepts the resignation",
    ACT_REJECT: "rejects the resignation",
}


class StaleVersion(TdgammonError):
    """An action sent for another version of the game than its current one (module
    docstring): the API answers 409 with the game's ``version``, and nothing is applied."""

    def __init__(self, message: str, version: int) -> None:
        super().__init__(message)
        self.version = version


# ---------------------------------------------------------------- options


def _option(key: str, value) -> None:
    """FormatError unless ``key`` is a game option and ``value`` has its JSON type."""
    kind = GAME_OPTIONS.get(key)
    if kind is None:
        known = ", ".join([*GAME_OPTIONS, "position"])
        raise FormatError(f'unknown option "{key}": a game takes {known}')
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise FormatError(f'"{key}" must be {_TYPE_WORDS[kind]}')


def _bounded(name: str, value: int, low: int, high: int | None = None) -> None:
    if value < low or (high is not None and value > high):
        bounds = f"{low}-{high}" if high is not None else f"at least {low}"
        raise FormatError(f"{name} must be {bounds} on this server, got {value}")


def game_options(request: dict, max_plies: int) -> argparse.Namespace:
    """``tdgammon play``'s options (its parser's defaults) with those of ``request``,
    bounded for a server: FormatError naming the first bad one."""
    args = command_defaults(cli_play, ["play"])
    for key, value in request.items():
        if key != "position":
            _option(key, value)
            setattr(args, key, value)
    _bounded("seat", args.seat, 0, 1)
    _bounded("games", args.games, 1, MAX_SESSION_GAMES)
    _bounded("length", args.length, 0, MAX_MATCH_LENGTH)
    _bounded("plies", args.plies, 0, max_plies)
    if args.cube_limit > cli_play.MAX_CUBE:  # below it, the rules' own check (a power of two)
        raise FormatError(
            f"cube_limit must be at most {cli_play.MAX_CUBE} (the highest cube an XGID records), "
            f"got {args.cube_limit}"
        )
    if args.seed is not None:
        _bounded("seed", args.seed, 0, MAX_SEED)  # the CLI's --seed range
    if args.opponent.lower() not in PLAYER_NAMES:
        raise FormatError(
            f"opponent must be one of {', '.join(PLAYER_NAMES)}, got {args.opponent!r}: "
            "the server reads no file a request names"
        )
    return args


def _bot(args: argparse.Namespace, variant: str, model: str | None):
    """The opponent: the server's model for a network name when it has one."""
    spec = model if model is not None and args.opponent.lower() in NETWORK_NAMES else args.opponent
    return make_agent(spec, variant=variant, plies=args.plies, seed=args.seed)


def _set_up(match: Match, position: Position) -> None:
    """Start ``match``'s first game from ``position``: its checkers, the player on
    roll and the cube (not its dice or score)."""
    game = match.game
    owner = {
        CUBE_CENTRED: None,
        CUBE_MOVER: position.mover_seat,
        CUBE_OPPONENT: 1 - position.mover_seat,
    }[position.cube_owner]
    match.games[0] = Game.from_position(
        game.variant.board_in_play(position.board),
        turn=position.mover_seat,
        cube_value=position.cube_value,
        cube_owner=owner,
        settings=game.settings,
        rng=match.rng,
    )


def new_game(request: dict, max_plies: int, model: str | None = None) -> WebGame:
    """The game or match that ``POST /api/games`` asks for (module docstring)."""
    args = game_options(request, max_plies)
    cli_play.check_texts(args, ("name",))
    settings = cli_play.match_settings(args, max_games=0 if args.length else args.games)
    players = [HumanAgent(args.name), _bot(args, settings.variant, model)]
    if args.seat == 1:
        players.reverse()
    check_match_length(settings, players)
    names = [p.name for p in players]
    if names[0] == names[1]:
        names[1] += " (2)"
    match = Match(settings, names=names, seed=args.seed)
    if "position" in request:
        _set_up(match, parse_position(_field(request, "position", str)))
    return WebGame(match, players, args.seat, set_up="position" in request)


# ---------------------------------------------------------------- the game


def seat_view(position: Position, seat: int) -> Position:
    """``position`` (``Game.position()``) as ``seat`` sees it: his checkers are the
    mover's (drawn at the bottom), with dice only once he has rolled them."""
    if position.mover_seat == seat:
        return position
    owner = {CUBE_MOVER: CUBE_OPPONENT, CUBE_OPPONENT: CUBE_MOVER}.get(
        position.cube_owner, CUBE_CENTRED
    )
    return position.with_changes(
        board=flip(position.board),
        dice=None,
        cube_owner=owner,
        mover_score=position.opponent_score,
        opponent_score=position.mover_score,
        mover_seat=seat,
    )


def describe(action: GameAction, names, board) -> str:
    """One line of the game's log for ``action``; ``board``: the mover's before it."""
    who = names[action.seat]
    if action.kind != ACT_MOVE:
        return f"{who}: " + _VERBS[action.kind].format(value=action.value)
    d1, d2 = action.dice
    play = format_move(board, list(action.moves), action.named_double) or "cannot move"
    return f"{who}: {d1}-{d2} {play}"


def _result(result: GameResult, names) -> dict:
    return {"winner": result.winner, "points": result.points, "text": result.text(names)}


def _resign_kind(value) -> int:
    if isinstance(value, str) and value.lower() in RESIGN_WORDS:
        return RESIGN_WORDS[value.lower()]
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise FormatError('"kind" must be single, gammon, backgammon or a number of points')


def _request_version(request: dict) -> int | None:
    """The version an action's body answers (None when it names none): a whole number,
    0 or more; FormatError for anything else (``true``, ``7.0``, ``"7"``, ``-1``)."""
    if VERSION_KEY not in request:
        return None
    version = request[VERSION_KEY]
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise FormatError(
            f'"{VERSION_KEY}" must be a whole number, 0 or more (the "{VERSION_KEY}" of the '
            f"state the action answers), got {json.dumps(version)[:40]}"
        )
    return version


class WebGame:
    """A ``Match`` of a person (``seat``) against a bot, played by ``act`` (module docstring).

    ``version``: the person's actions applied so far (module docstring).
    Thread-safe: ``act`` and ``state`` hold the game's lock.
    """

    def __init__(self, match: Match, players: list, seat: int, set_up: bool = False) -> None:
        self.id = secrets.token_urlsafe(12)
        self.match = match
        match.name_seats(match.names)  # the rules' refusals name the players as the page does
        self.players = players
        self.seat = seat
        self.set_up = set_up
        self.log: list[str] = []
        self.version = 0
        self.lock = threading.Lock()
        self._advance()

    @property
    def game(self) -> Game:
        return self.match.game

    # ------------------------------------------------------------ actions

    def act(self, request: dict) -> dict:
        """Apply the person's action (module docstring) and play on; the new state.
        StaleVersion, before anything changes, when ``request`` answers another version."""
        action = _field(request, "action", str).strip().lower()
        handler = _ACTIONS.get(action)
        if handler is None:
            raise FormatError(f"unknown action {action[:40]!r}: one of {', '.join(_ACTIONS)}")
        check_keys(request, ACTION_KEYS.get(action, ACTION_COMMON_KEYS))
        version = _request_version(request)
        with self.lock:
            self._check_version(version)
            self._record(lambda: handler(self, request))
            self.version += 1
            self._advance()
            return self._state()

    def _check_version(self, version: int | None) -> None:
        """StaleVersion unless ``version`` (None: the action named none) is the game's."""
        if version is not None and version != self.version:
            raise StaleVersion(
                f"this action answers version {version} of the game, which is now at version "
                f"{self.version}: nothing was applied; reload the game state "
                f"(GET /api/games/{self.id}) and decide again",
                self.version,
            )

    def _record(self, step: Callable[[], object]) -> None:
        """Run ``step`` on the game and add what happened to the log."""
        game = self.game
        before, board, phase = len(game.history), game.board.copy(), game.phase
        step()
        if game is not self.game:
            return
        for action in game.history[before:]:
            self.log.append(describe(action, self.match.names, board))
        if phase in (OPENING, TO_ROLL) and game.phase == TO_MOVE:
            d1, d2 = game.dice
            opening = " (the opening roll)" if phase == OPENING else ""
            self.log.append(f"{self.match.names[game.turn]}: rolls {d1}-{d2}{opening}")
        if game.is_over:
            self.log.append(game.result.text(self.match.names))

    def _advance(self) -> None:
        """Play on until the person has a decision to make, or the game is over."""
        for _ in range(MAX_STEPS):
            game = self.game
            if game.is_over:
                return
            if game.phase == OPENING:
                self._record(game.opening_roll)
            elif game.decider != self.seat:
                self._record(functools.partial(bot_step, game, self.players))
            elif game.phase == TO_ROLL and not game.may_double:
                self._record(game.roll)
            elif game.phase == TO_MOVE and not game.can_play():
                self._record(functools.partial(game.play, ()))
            else:
                return
        raise RuntimeError(f"the game ran {MAX_STEPS} decisions without the person")

    def next_game(self) -> None:
        """Start the next game of the match or session (``next``)."""
        self.match.next_game()
        self.log = [f"Game {len(self.match.games)}"]

    # ------------------------------------------------------------ state

    def state(self) -> dict:
        """The state the page draws (``GET /api/games/{id}``)."""
        with self.lock:
            return self._state()

    def _decides(self) -> bool:
        return not self.game.is_over and self.game.decider == self.seat

    def _actions(self) -> list[str]:
        game = self.game
        if game.is_over:
            return [] if self.match.is_over else ["next"]
        if not self._decides():
            return []
        if game.phase == TO_ROLL:
            return ["roll", "double", "resign"] if game.may_double else ["roll", "resign"]
        if game.phase == TO_MOVE:
            return ["move", "resign"]
        extra = {
            DOUBLED: ["beaver"] if game.may_beaver else [],
            BEAVERED: ["raccoon"] if game.may_raccoon else [],
            RACCOONED: [],
        }
        return ["take", "pass", *extra.get(game.phase, [])]

    def _legal_moves(self) -> list[dict]:
        game = self.game
        if not (self._decides() and game.phase == TO_MOVE):
            return []
        legal = game.legal_moves()
        out = []
        for row in range(len(legal)):
            pairs = [[int(a), int(b)] for a, b in legal.moves[row] if a >= 0]
            text = format_move(game.board, pairs, int(legal.named_double[row]))
            out.append({"move": text, "pairs": pairs})
        return out

    def _ids(self) -> dict | None:
        try:
            return format_ids(self.game.position())
        except TdgammonError:  # a position the formats cannot write (checkers in hand)
            return None

    def _state(self) -> dict:
        game, match = self.game, self.match
        view = seat_view(game.position(), self.seat)
        result = game.result
        return {
            "id": self.id,
            "version": self.version,
            "names": list(match.names),
            "seat": self.seat,
            "variant": game.variant.name,
            "match": {
                "length": match.settings.length,
                "scores": list(match.scores),
                "game": len(match.games),
                "crawford": game.settings.crawford,
                "over": match.is_over,
                "winner": match.winner,
            },
            "phase": game.phase,
            "your_decision": self._decides(),
            "actions": self._actions(),
            "dice": list(game.dice) if game.phase == TO_MOVE else None,
            "cube": {"value": game.cube_value, "owner": game.cube_owner},
            "legal_moves": self._legal_moves(),
            "position": self._ids(),
            "board": view.board.tolist(),
            "pips": list(pip_counts(view.board)),
            "svg": board_svg(view),
            "log": list(self.log),
            "result": None if result is None else _result(result, match.names),
            "set_up": self.set_up,
        }

    def _check_from_start(self, answer: str, reader: str) -> None:
        """FormatError for a set-up game: ``reader`` (of ``answer``) replays from the start."""
        if self.set_up:
            raise FormatError(
                f"a game set up from a position has no {answer}: {reader} replays "
                "every game from the starting position"
            )

    def mat(self) -> str:
        """The match as a ``.mat`` record (``GET /api/games/{id}/mat``)."""
        self._check_from_start(".mat record", "the format")
        with self.lock:
            return format_mat(self.match)

    def match_so_far(self) -> Match:
        """A copy of the match, for its analysis (``GET /api/games/{id}/analysis``):
        the finished games and the one in progress."""
        self._check_from_start("analysis", "the analysis")
        with self.lock:
            return copy.deepcopy(self.match)


def _move(web: WebGame, request: dict) -> None:
    web.game.play_text(_field(request, "move", str), seat=web.seat)


_ACTIONS: dict[str, Callable[[WebGame, dict], object]] = {
    "roll": lambda web, request: web.game.roll(seat=web.seat),
    "double": lambda web, request: web.game.double(seat=web.seat),
    "take": lambda web, request: web.game.take(seat=web.seat),
    "pass": lambda web, request: web.game.drop(seat=web.seat),
    "drop": lambda web, request: web.game.drop(seat=web.seat),
    "beaver": lambda web, request: web.game.beaver(seat=web.seat),
    "raccoon": lambda web, request: web.game.raccoon(seat=web.seat),
    "move": _move,
    "resign": lambda web, request: web.game.offer_resignation(
        _resign_kind(request.get("kind", "single")), seat=web.seat
    ),
    "next": lambda web, request: web.next_game(),
}
"""The person's actions: each calls the game's own action with his seat."""
ACTION_COMMON_KEYS = ("action", VERSION_KEY)
"""The keys of every action's body (module docstring)."""
ACTION_KEYS = {
    "move": ("action", "move", VERSION_KEY),
    "resign": ("action", "kind", VERSION_KEY),
}
"""The keys of an action's body, where it has more than ``ACTION_COMMON_KEYS``."""
