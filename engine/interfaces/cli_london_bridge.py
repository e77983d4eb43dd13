"""``tdgammon play --game london-bridge`` and ``tdgammon match --game london-bridge``.

``tdgammon.engine.interfaces.cli_play`` owns the two commands; ``add_game_options``
adds ``--game`` and the London Bridge options to its parsers, and its commands
hand over to ``cmd_play`` / ``cmd_match`` here when ``--game london-bridge`` is
given. Players are named as in ``tdgammon.engine.london_bridge_players.factory``
(``human`` too, for ``play``); the rules are docs/london_bridge.md, with
``--rule key=value`` for each [choice] setting.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

import numpy as np

from tdgammon.engine.interfaces.terminal_io import (
    read_line,
    refuse_words_after,
    whole_number,
    write_text,
)
from tdgammon.engine.rules.errors import QUOTE_LIMIT, FormatError, TdgammonError, quoted

BACKGAMMON = "backgammon"
LONDON_BRIDGE = "london-bridge"
GAMES = (BACKGAMMON, LONDON_BRIDGE)
HUMAN = "human"
HINT_PLAYER = "bot"
"""Who answers ``hint`` when two humans play (otherwise another player of the
opponent's kind, so hints leave the opponent's random numbers alone)."""
LISTED_MOVES = 24
"""Legal moves printed at a time (a position can have tens of thousands)."""
QUIT_WORDS = ("quit", "exit", "q")
HELP_WORDS = ("help", "?")
BOARD_WORDS = ("board", "b")
MOVES_WORDS = ("moves", "m")
HINT_WORDS = ("hint",)
ALL = "all"
"""``moves all``: every legal move, not only the first ``LISTED_MOVES``."""
BACKGAMMON_OPTIONS = (
    "length",
    "cubeless",
    "no_crawford",
    "jacoby",
    "beavers",
    "raccoons",
    "cube_limit",
    "auto_doubles",
    "plies",
    "variant",
    "acey_deucey_stakes",
    "cube",
    "save",
)
"""Options of the backgammon commands that mean nothing in London Bridge."""


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--game`` and the London Bridge options of ``tdgammon play`` / ``match``
    (call after the backgammon options: their defaults are recorded here)."""
    parser.add_argument(
        "--game",
        choices=GAMES,
        default=BACKGAMMON,
        help="the game: backgammon, or London Bridge (docs/london_bridge.md)",
    )
    group = parser.add_argument_group("London Bridge (with --game london-bridge)")
    group.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a [choice] rule setting: layout, number_start, colour_start, first_player, "
        "goal_without_own (pass|reserve), sowing (free|own-first|opponent-first), turn_limit",
    )
    if parser.prog.endswith(" match"):
        group.add_argument(
            "--opening-turns",
            type=int,
            default=2,
            help="random turns that open each pair of games (default 2)",
        )
    parser.set_defaults(
        backgammon_defaults={dest: parser.get_default(dest) for dest in BACKGAMMON_OPTIONS}
    )


def _check_options(args: argparse.Namespace) -> None:
    for dest, default in args.backgammon_defaults.items():
        if getattr(args, dest, None) != default:
            option = "--" + dest.replace("_", "-")
            raise FormatError(
                f"{option} is a backgammon option; London Bridge has no dice, cube or "
                "variants (search depth goes in the player name: alphabeta:4, network:2)"
            )


def check_backgammon_game(args: argparse.Namespace) -> None:
    """Refuse the London Bridge options in a backgammon ``play`` / ``match``."""
    if args.rule:
        raise FormatError("--rule is a London Bridge option: add --game london-bridge")
    if getattr(args, "opening_turns", 2) != 2:
        raise FormatError("--opening-turns is a London Bridge option: add --game london-bridge")


def _rules(args: argparse.Namespace):
    from tdgammon.engine.london_bridge.rules import parse_rules

    return parse_rules(args.rule)


# ---------------------------------------------------------------- match


def cmd_match(args: argparse.Namespace) -> int:
    from tdgammon.engine.london_bridge_players.duel import play_match
    from tdgammon.engine.london_bridge_players.factory import make_player

    _check_options(args)
    if args.games < 1:
        raise FormatError(f"--games must be at least 1, got {args.games}")
    if args.opening_turns < 0:
        raise FormatError(f"--opening-turns must be 0 or more, got {args.opening_turns}")
    if HUMAN in (args.a.strip().lower(), args.b.strip().lower()):
        raise FormatError("tdgammon match is for bots; use tdgammon play to play yourself")
    rules = _rules(args)
    seed = 0 if args.seed is None else args.seed
    a = make_player(args.a, rules, seed)
    b = make_player(args.b, rules, seed + 1)
    if a.name == b.name:
        b.name += "-b"
    result = play_match(a, b, args.games, rules, seed=seed, opening_turns=args.opening_turns)
    if args.json:
        summary = result.summary()
        summary.update(rules=rules.describe() or "default", seed=seed)
        summary["opening_turns"] = args.opening_turns
        print(json.dumps(summary))
    else:
        print(result.text())
    return 0


# ---------------------------------------------------------------- play


def cmd_play(args: argparse.Namespace) -> int:
    from tdgammon.engine.london_bridge_players.factory import make_player

    _check_options(args)
    if args.games < 1:
        raise FormatError(f"--games must be at least 1, got {args.games}")
    _check_names(args)
    rules = _rules(args)
    opponent = None
    if args.opponent.strip().lower() != HUMAN:
        opponent = make_player(args.opponent, rules, args.seed)
    # the hint's own player: asking it must not draw the opponent bot's random numbers
    hint = make_player(HINT_PLAYER if opponent is None else args.opponent, rules, args.seed)
    me, other = args.name, args.opponent_name or (opponent.name if opponent else "player 2")
    if other == me:  # "won by you" must say which one
        other += " (2)"
    session = Session(
        rules,
        me=me,
        opponent=opponent,
        opponent_name=other,
        hint_player=hint,
        input=sys.stdin,
        output=sys.stdout,
        show_board=not args.no_board,
    )
    against = "another human" if opponent is None else opponent.name
    session.say(f"tdgammon: London Bridge, {me} against {against}. Type help for commands.")
    return session.run(args.games, first_seat=args.seat)


def _check_names(args: argparse.Namespace) -> None:
    """The rule for bad input: "a bad option gets a clear error message naming what
    is wrong". ``--name`` and ``--opponent-name`` must be printable text on one
    line, not blank, as in a backgammon ``play`` (the prompts and the result show
    them)."""
    from tdgammon.engine.flow.matfile import check_name

    for option, name in (("--name", args.name), ("--opponent-name", args.opponent_name)):
        if name is not None:
            try:
                check_name(name)
            except FormatError as error:
                raise FormatError(f"{option}: {error}") from None


class Session:
    """Games at the terminal: a human (or two) against a bot, seats alternating per game."""

    def __init__(
        self,
        rules,
        me: str,
        opponent,
        opponent_name: str,
        hint_player,
        input: TextIO,
        output: TextIO,
        show_board: bool = True,
    ) -> None:
        self.rules, self.opponent, self.hint_player = rules, opponent, hint_player
        self.listed = False  # this turn's moves listed (moves) or a row named (hint)
        self.names = (me, opponent_name)
        self.input, self.output, self.show_board = input, output, show_board

    def say(self, text: str = "") -> None:
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        write_text(self.output, text)

    def run(self, games: int, first_seat: int) -> int:
        """Play ``games`` games, or fewer if the human quits, the input ends or Ctrl-C
        is pressed (a Ctrl-C at the prompt ends the prompt's line first); returns 0."""
        try:
            finished = self._play_games(games, first_seat)
        except KeyboardInterrupt:
            self.say()
            finished = False
        if not finished:
            self.say("Session ended.")
        return 0

    def _play_games(self, games: int, first_seat: int) -> bool:
        """Play the games and say the score; False if the human quit or input ended."""
        from tdgammon.engine.london_bridge.game import Game

        score = [0.0, 0.0]
        for number in range(games):
            my_seat = (first_seat + number) % 2
            game = Game(self.rules)
            if not self._play_game(game, my_seat):
                return False
            points = game.points()
            mine, theirs = points[my_seat], points[1 - my_seat]
            winner = self.names[0] if mine > theirs else self.names[1]
            outcome = "a draw" if mine == theirs else f"won by {winner}"
            turns = _count(game.turns, "turn")
            self.say(f"Game over after {turns}: {mine}-{theirs}, {outcome}.")
            if game.turns >= self.rules.turn_limit:
                self.say(f"(the turn limit of docs/london_bridge.md 5.3: {turns})")
            score[0] += 0.5 + 0.5 * np.sign(mine - theirs)
            score[1] += 0.5 - 0.5 * np.sign(mine - theirs)
        if games > 1:
            self.say(f"Games won: {self.names[0]} {score[0]:g}, {self.names[1]} {score[1]:g}.")
        return True

    def _play_game(self, game, my_seat: int) -> bool:
        """Play one game; False if the human quit or input ended."""
        while not game.over:
            human_turn = self.opponent is None or game.seat == my_seat
            if self.show_board:
                self.say(render(game, self.rules, game.seat if human_turn else my_seat))
            if human_turn:
                if not self._human_turn(game, my_seat):
                    return False
            else:
                moves = game.legal()
                row = int(self.opponent.choose(game.state[None], np.array([game.turns]), moves)[0])
                text = game.play_row(row)
                self.say(f"{self.names[1]} plays {text}")
        if self.show_board:
            self.say(render(game, self.rules, my_seat))
        return True

    def _human_turn(self, game, my_seat: int) -> bool:
        """Read lines until one plays a move (True) or ends the session (False); a
        refused line is answered with the reason, and the prompt comes again."""
        name = self.names[0] if game.seat == my_seat else self.names[1]
        self.listed = False  # a bare number plays from a list shown on this turn only
        while True:
            self._write(f"{name} (P{game.seat + 1}) to move> ")
            try:
                line = read_line(self.input)
                if not line:
                    self.say()
                    return False
                words = line.lower().split()
                if not words:
                    continue
                if words[0] in QUIT_WORDS:
                    refuse_words_after(line)
                    return False
                if self._command(game, line, words):
                    return True
            except TdgammonError as error:
                self.say(f"  {error}")

    def _command(self, game, line: str, words: list[str]) -> bool:
        """Carry out one typed line (not quit); True if it played a move."""
        from tdgammon.engine.london_bridge.notation import format_move, listed_move

        word, moves = words[0], game.legal()
        if word in HELP_WORDS:
            refuse_words_after(line)
            self.say(HELP)
        elif word in BOARD_WORDS:
            refuse_words_after(line)
            self.say(render(game, self.rules, game.seat))
        elif word in MOVES_WORDS:
            if words[1:] not in ([], [ALL]):
                extra = quoted(line.split(None, 1)[1].strip())
                raise TdgammonError(f"{word} takes nothing or all after it, got {extra}")
            self.say(list_moves(moves, None if words[1:] else LISTED_MOVES))
            self.listed = True
        elif word in HINT_WORDS:
            refuse_words_after(line)
            row = int(self.hint_player.choose(game.state[None], np.array([game.turns]), moves)[0])
            text = format_move(listed_move(moves, row))
            self.say(f"hint ({self.hint_player.name}): {text}  (row {row + 1})")
            self.listed = True
        elif len(words) == 1 and word.isdecimal():
            if not self.listed:  # "4" may mean pot 4: never a move the human has not seen
                raise TdgammonError(
                    "no list of moves shown this turn: type moves (or hint), then a "
                    "number from it; or type the move, pot:colours/dial"
                )
            self.say(f"  {game.play_row(_list_number(word, len(moves)) - 1)}")
            return True
        else:
            try:
                game.play_text(line.strip())
            except TdgammonError as error:
                raise TdgammonError(f"not played: {error}") from None
            return True
        return False


def _list_number(text: str, count: int) -> int:
    """``text`` (decimal digits) as a number from 1 to ``count`` in the list of moves;
    TdgammonError naming it otherwise (``whole_number``: never a traceback)."""
    value = whole_number(text, count)
    if value is None or value < 1:
        shown = text if len(text) <= QUOTE_LIMIT else f"{text[:QUOTE_LIMIT]}..."
        raise TdgammonError(f"no move {shown}: the list has 1 to {count} (type moves)")
    return value


def _count(number: int, noun: str) -> str:
    """``1 turn``, ``12 turns``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


HELP = """Commands:
  a move in the notation of docs/london_bridge.md 6: pot:colours/dial, e.g. 4:oxo/N
      pot 1-6 your row, 7-12 the opponent's (in sowing order); one letter per bead
      dropped (o yours, x the opponent's, the goal drop included); N or C: the dial
      turned; bonus sowings joined with +: 4:ooo+1:ooo/N; no bead to sow: /N
  a number      the move of that number in the list (after moves or hint)
  moves         the legal moves (the first few; "moves all" for every one)
  hint          the bot's move here
  board         draw the board again
  quit          end the session"""


def list_moves(moves, limit: int | None) -> str:
    """The legal moves of one position, numbered from 1, at most ``limit`` of them."""
    from tdgammon.engine.london_bridge.notation import format_move, listed_move

    shown = len(moves) if limit is None else min(limit, len(moves))
    lines = [f"  {row + 1:>4}. {format_move(listed_move(moves, row))}" for row in range(shown)]
    if shown < len(moves):
        lines.append(f"  ... {len(moves)} moves in all (type moves all)")
    return "\n".join([f"{len(moves)} legal move(s):"] + lines)


def render(game, rules, viewer_seat: int) -> str:
    """The board from ``viewer_seat``'s side: pot colours and bead counts (viewer's / other's),
    both goals, both dials and what turning each would empty (docs/london_bridge.md 4.2)."""
    from tdgammon.engine.london_bridge.rules import (
        COLOUR_CYCLE,
        COLOUR_NAMES,
        COLOURS,
        NUMBER_CYCLE,
    )
    from tdgammon.engine.london_bridge.state import (
        COLOUR_PIN,
        MOVER_GOAL,
        NUMBER_PIN,
        OPPONENT,
        OPPONENT_GOAL,
        OWN,
        SEAT,
        pass_turn,
        pot_colours,
    )

    state = game.state if game.seat == viewer_seat else pass_turn(game.state[None])[0]
    colours = pot_colours(rules)[state[SEAT]]

    def cell(pot: int) -> str:
        return f" {COLOURS[colours[pot]]} {state[OWN][pot]:>2}/{state[OPPONENT][pot]:<2}"

    rule = "+" + "+".join(["--------"] * 6) + "+"
    top = "|" + "|".join(cell(p) for p in range(11, 5, -1)) + "|"
    bottom = "|" + "|".join(cell(p) for p in range(6)) + "|"
    number, colour = int(state[NUMBER_PIN]), int(state[COLOUR_PIN])
    next_number = NUMBER_CYCLE[(number + 1) % len(NUMBER_CYCLE)]
    next_colour = COLOUR_NAMES[COLOUR_CYCLE[(colour + 1) % len(COLOUR_CYCLE)]]
    other = 2 - int(state[SEAT])
    pad = " " * 9
    lines = [
        f"Turn {game.turns + 1}, P{game.seat + 1} to move. Pots show colour and beads "
        f"P{viewer_seat + 1}/P{other}.",
        pad + "".join(f"{p:^9}" for p in range(12, 6, -1)),
        pad + rule,
        pad + top,
        f"{f'goal P{other}':<9}" + rule + f" goal P{viewer_seat + 1}",
        f"{state[OPPONENT_GOAL]:^8} " + bottom + f" {state[MOVER_GOAL]:^8}",
        pad + rule,
        pad + "".join(f"{p:^9}" for p in range(1, 7)),
        f"number dial: {' '.join(_pin(NUMBER_CYCLE, number, str))}   "
        f"colour dial: {' '.join(_pin(COLOUR_CYCLE, colour, lambda c: COLOURS[c]))}",
        f"turning N empties {COLOUR_NAMES[COLOUR_CYCLE[colour]]} pots of {next_number} beads; "
        f"turning C empties {next_colour} pots of {NUMBER_CYCLE[number]}.",
    ]
    return "\n".join(lines)


def _pin(cycle, position: int, name) -> list[str]:
    return [f"[{name(v)}]" if i == position else name(v) for i, v in enumerate(cycle)]
