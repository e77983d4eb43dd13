"""``tdgammon play`` (a game or match at the terminal) and ``tdgammon match`` (bot vs bot).

Thin wrappers: they build agents (``tdgammon.engine.players.factory.make_agent``,
whose vocabulary and ``--plies`` meaning every command shares; ``human`` is
handled here) and a ``Match`` and hand over to
``tdgammon.engine.interfaces.terminal.TerminalSession`` or ``tdgammon.engine.players.duel``.
"""

from __future__ import annotations

import argparse
import json
import sys

from tdgammon.engine.formats.xgid import MAX_CUBE_LOG2, MAX_MATCH_LENGTH
from tdgammon.engine.interfaces import cli_london_bridge
from tdgammon.engine.rules.dice import seed_argument
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.variants import VARIANTS, get_variant

MAX_CUBE = 2**MAX_CUBE_LOG2
"""Highest ``--cube-limit``: the highest cube a Match ID or XGID records (past it the
game has no IDs to show, save or analyse)."""

HUMAN = "human"
"""The one player name of the commands that is not a ``tdgammon.engine.players.factory``
name: a ``HumanAgent`` at this terminal (``tdgammon play`` only)."""


def _is_human(spec: str) -> bool:
    return spec.strip().lower() == HUMAN


def check_texts(args: argparse.Namespace, options: tuple[str, ...]) -> None:
    """Player names and specs of ``options`` (argparse dests) must be printable text on
    one line: a .mat file holds the names (``tdgammon.engine.flow.matfile.check_name``)."""
    from tdgammon.engine.flow.matfile import check_name

    for dest in options:
        value = getattr(args, dest)
        if value is not None:
            try:
                check_name(value)
            except FormatError as error:
                raise FormatError(f"--{dest.replace('_', '-')}: {error}") from None


def match_settings(args: argparse.Namespace, max_games: int = 0):
    """The ``MatchSettings`` of ``play`` / ``match``'s options (also ``tdgammon serve``'s
    ``POST /api/games``), checked; ``max_games``: money sessions' game limit."""
    from tdgammon.engine.evaluation.search import check_plies
    from tdgammon.engine.flow.match import MatchSettings

    check_plies(args.plies)
    if not 0 <= args.length <= MAX_MATCH_LENGTH:
        raise FormatError(
            f"--length must be 0 (money) to {MAX_MATCH_LENGTH} (the longest match a Match ID "
            f"or XGID records), got {args.length}"
        )
    if args.cube_limit > MAX_CUBE:  # below it, the rules' own check (a power of two >= 1)
        raise FormatError(
            f"--cube-limit must be at most {MAX_CUBE} (the highest cube a Match ID or XGID "
            f"records), got {args.cube_limit}"
        )
    variant = get_variant(args.variant)
    if args.acey_deucey_stakes and not variant.acey_deucey_roll:
        raise FormatError(
            "--acey-deucey-stakes is an Acey-Deucey rule (docs/rules.md 7): "
            f"add --variant acey-deucey (the variant here is {variant.name})"
        )
    settings = MatchSettings(
        length=args.length,
        crawford=not args.no_crawford,
        cube=not args.cubeless,
        jacoby=args.jacoby,
        beavers=args.beavers,
        raccoons=args.raccoons,
        max_cube=args.cube_limit,
        auto_doubles=args.auto_doubles,
        max_games=max_games,
        variant=variant.name,
        acey_deucey_stakes=args.acey_deucey_stakes,
    )
    settings.check()
    return settings


def _add_rules(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--length", type=int, default=0, help="match length (0: money play)")
    parser.add_argument("--cubeless", action="store_true", help="play without the cube")
    parser.add_argument("--no-crawford", action="store_true", help="no Crawford rule (match)")
    parser.add_argument("--jacoby", action="store_true", help="Jacoby rule (money)")
    parser.add_argument(
        "--beavers",
        action="store_true",
        help="allow beavers (money): the doubled player may take and redouble at once; "
        "the doubler then takes, drops (losing 2 on a cube of 1) or raccoons",
    )
    parser.add_argument(
        "--raccoons",
        action="store_true",
        help="allow raccoons (money): a beavered doubler may re-redouble",
    )
    parser.add_argument("--cube-limit", type=int, default=1024, help="highest cube value")
    parser.add_argument(
        "--auto-doubles", type=int, default=0, help="automatic doubles on opening ties (money)"
    )
    parser.add_argument("--seed", type=seed_argument, default=None, help="dice seed")
    parser.add_argument(
        "--plies",
        type=int,
        default=0,
        help="search depth 0-3 of network players (default 0: greedy on the network's "
        "values; 1+: n-ply search, slower; with the shipped network 1-ply chooses "
        "better plays, about +0.001 equity a decision by GNU Backgammon's 2-ply: "
        "docs/training.md, session 19)",
    )
    parser.add_argument(
        "--variant",
        default="standard",
        help=f"variant (docs/rules.md 7): {', '.join(VARIANTS)}",
    )
    parser.add_argument(
        "--acey-deucey-stakes",
        action="store_true",
        help="Acey-Deucey's optional rule (with --variant acey-deucey only): the stake "
        "doubles each time a 1-2 is thrown",
    )


# ---------------------------------------------------------------- play


def cmd_play(args: argparse.Namespace) -> int:
    if args.game == cli_london_bridge.LONDON_BRIDGE:
        return cli_london_bridge.cmd_play(args)
    cli_london_bridge.check_backgammon_game(args)
    from tdgammon.engine.flow.match import Match
    from tdgammon.engine.interfaces.terminal import HumanAgent, TerminalSession, check_save_path
    from tdgammon.engine.players.cube_actions import check_match_length
    from tdgammon.engine.players.factory import make_agent

    if args.games < 0:
        raise FormatError(f"--games must be 0 or more, got {args.games}")
    check_texts(args, ("name", "opponent_name", "opponent"))
    if args.save is not None:
        check_save_path(args.save)  # before playing: a game is never lost at the end
    settings = match_settings(args, max_games=0 if args.length else max(args.games, 1))
    me = HumanAgent(args.name)
    if _is_human(args.opponent):
        opponent = HumanAgent(args.opponent_name or "player 2")
    else:
        opponent = make_agent(
            args.opponent, variant=settings.variant, plies=args.plies, seed=args.seed
        )
    players = [me, opponent] if args.seat == 0 else [opponent, me]
    check_match_length(settings, players)
    names = [p.name for p in players]
    if names[0] == names[1]:
        names[1] = names[1] + " (2)"
    match = Match(settings, names=names, seed=args.seed)
    opponent_text = "another human" if getattr(opponent, "is_human", False) else opponent.name
    kind = f"a {args.length}-point match" if args.length else "money play"
    if settings.variant != "standard":
        kind += f" of {settings.variant}"
    if settings.acey_deucey_stakes:
        kind += " (the stake doubles on each 1-2)"
    print(f"tdgammon: {me.name} against {opponent_text}, {kind}. Type help for commands.")
    session = TerminalSession(
        match,
        players,
        input=sys.stdin,
        output=sys.stdout,
        save_path=args.save,
        show_board=not args.no_board,
        analyse_plies=args.analyse,
    )
    return session.run()


# ---------------------------------------------------------------- match


class _Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal, or forced),
    counting ``unit`` (games, or matches of ``match --length``)."""

    def __init__(self, total: int, enabled: bool, unit: str = "games") -> None:
        self.total, self.done, self.enabled, self.unit = total, 0, enabled, unit

    def __call__(self, n: int) -> None:
        self.done += n
        if self.enabled:
            width = 30
            filled = int(width * min(self.done, self.total) / max(self.total, 1))
            bar = "#" * filled + "." * (width - filled)
            sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {self.unit}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


def cmd_match(args: argparse.Namespace) -> int:
    if args.game == cli_london_bridge.LONDON_BRIDGE:
        return cli_london_bridge.cmd_match(args)
    cli_london_bridge.check_backgammon_game(args)
    from tdgammon.engine.players.cube_actions import check_match_length
    from tdgammon.engine.players.duel import play_duel, play_series, rounding_note
    from tdgammon.engine.players.factory import make_agent

    if args.games < 1:
        raise FormatError(f"--games must be at least 1, got {args.games}")
    check_texts(args, ("a", "b"))
    seed = 0 if args.seed is None else args.seed
    variant = get_variant(args.variant).name
    if _is_human(args.a) or _is_human(args.b):
        raise FormatError("tdgammon match is for bots; use tdgammon play to play yourself")
    agent_a = make_agent(args.a, variant=variant, plies=args.plies, seed=seed)
    agent_b = make_agent(args.b, variant=variant, plies=args.plies, seed=seed + 1)
    if agent_a.name == agent_b.name:
        agent_b.name = agent_b.name + "-b"
    settings = match_settings(args)
    check_match_length(settings, [agent_a, agent_b])
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    # the batched duel knows no stakes: the stakes rule plays through the game rules
    cubeful = settings.length > 0 or args.cube or settings.acey_deucey_stakes
    even = args.games + args.games % 2  # both duels play duplicate pairs
    progress = _Progress(even, show, "matches" if settings.length else "games")
    if not cubeful:
        result = play_duel(
            agent_a, agent_b, args.games, seed=seed, progress=progress, variant=settings.variant
        )
    else:
        if settings.length == 0 and args.cubeless and args.cube:
            raise FormatError("--cube and --cubeless contradict each other")
        if args.cube and not settings.rules.cube:
            raise FormatError(f"--cube: {settings.variant} has no doubling cube (docs/rules.md 7)")
        result = play_series(agent_a, agent_b, args.games, settings, seed=seed, progress=progress)
    progress.close()
    if args.json:
        print(json.dumps(result.summary()))
    else:
        print(result.text())
        note = rounding_note(args.games, "match" if settings.length else "game")
        if note:
            print(note)
    return 0


def register(commands, bench_targets: dict) -> None:
    """Add ``play`` and ``match`` to the ``tdgammon`` sub-command parsers."""
    play = commands.add_parser(
        "play",
        help="play a game or match against the bot (or another human) at the terminal",
        description="Play at the terminal. Moves in standard notation (24/18 13/11); "
        "type help at any prompt. Moves can also be piped into stdin.",
    )
    play.add_argument(
        "--opponent",
        default="bot",
        help="bot or network (the variant's shipped network), pubeval, random, heuristic, "
        "human, or a model file",
    )
    play.add_argument("--name", default="you", help="your name")
    play.add_argument("--opponent-name", default=None, help="second human's name")
    play.add_argument("--seat", type=int, choices=(0, 1), default=0, help="your seat (0 or 1)")
    play.add_argument("--games", type=int, default=1, help="money play: games in the session")
    play.add_argument("--save", default=None, help="save the match to this .mat file")
    play.add_argument(
        "--analyse",
        "--analyze",
        type=int,
        nargs="?",
        const=1,
        default=None,
        choices=range(4),
        metavar="PLIES",
        help="at the end, judge every decision as tdgammon analyse does (default 1-ply)",
    )
    play.add_argument("--no-board", action="store_true", help="do not draw the board")
    _add_rules(play)
    cli_london_bridge.add_game_options(play)
    play.set_defaults(run=cmd_play)

    match = commands.add_parser(
        "match",
        help="play many games between two bots and report points per game",
        description="Bot against bot in duplicate pairs (same dice, seats swapped). "
        "Money play without the cube by default (fast, batched); --cube or --length N "
        "plays through the full game and match rules.",
    )
    match.add_argument(
        "--a",
        default="pubeval",
        help="player A (pubeval, random, heuristic, network, a model file)",
    )
    match.add_argument("--b", default="random", help="player B")
    match.add_argument("--games", type=int, default=1000, help="games (or matches) to play")
    match.add_argument("--cube", action="store_true", help="money play with the cube")
    match.add_argument("--json", action="store_true", help="print one JSON object")
    match.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar"
    )
    _add_rules(match)
    cli_london_bridge.add_game_options(match)
    match.set_defaults(run=cmd_match)
