"""Agents' cube and resignation decisions, and drivers that play games with agents.

The game and match state machines (``tdgammon.engine.flow.game``, ``tdgammon.engine.flow.match``)
know
nothing of agents; this module asks agents (``tdgammon.engine.players.agents``) for decisions
and applies them as actions. Agents without cube methods get the defaults:

- a network player without them (an agent with an ``evaluator``, such as
  ``NetworkAgent``) doubles, takes, passes and beavers as
  ``tdgammon.engine.cube.agent.CubeAgent`` on the same evaluator does (0-ply cubeless
  probabilities, then ``tdgammon.engine.cube.theory``: Janowski for money, the match equity
  table in a match);
- any other agent never doubles and always takes;
- a beavered doubler (docs/rules.md 5) is asked ``decide_beaver(position)``
  (his own view, beaver stage 1: "take", "drop" or "raccoon"); a network
  player gets the ``CubeAgent`` answer, any agent without the method accepts.
  After a raccoon the beaverer is asked ``decide_take`` (beaver stage 2; any
  answer but "drop" accepts).
- resignations offered to a bot are accepted only when they give the bot the
  most it could still win on the board (``resignation_is_full``);
- a match longer than the match equity table is refused before it starts when
  a bot takes its cube decisions from the table (``check_match_length``).

Bots play through ``Game.play_row`` (one ``generate_moves`` call per play).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tdgammon.engine.cube.theory import (
    BEAVER,
    BEAVER_ANSWERS,
    DROP,
    RACCOON,
    TAKE,
    TAKE_ANSWERS,
)
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import (
    BEAVERED,
    DOUBLED,
    RACCOONED,
    RESIGNING,
    TO_MOVE,
    TO_ROLL,
    GameResult,
)
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.rules.board import MOVER_BAR, MOVER_HAND, MOVER_OFF, OPPONENT_HOME_BOARD
from tdgammon.engine.rules.errors import RuleError
from tdgammon.engine.rules.outcome import BACKGAMMON, GAMMON, SINGLE
from tdgammon.engine.rules.position import Position
from tdgammon.engine.rules.variants import SCORING_CHECKERS_LEFT, get_variant


def _cube_player(agent):
    """Who makes ``agent``'s cube decisions: itself when it has cube methods, a
    ``CubeAgent`` on its evaluator for a network player, else None (defaults)."""
    if hasattr(agent, "decide_double"):
        return agent
    evaluator = getattr(agent, "evaluator", None)
    if evaluator is None or not hasattr(evaluator, "evaluate"):
        return None
    from tdgammon.engine.cube.agent import CubeAgent

    return CubeAgent(evaluator, name=getattr(agent, "name", None))


def check_match_length(settings: MatchSettings, agents: Sequence) -> None:
    """RuleError, before any game, for a match longer than the match equity table
    when a bot among ``agents`` makes its cube decisions from it (a ``CubeAgent``,
    as every network player: docs/cube.md 2); other players need no table."""
    from tdgammon.engine.cube.agent import CubeAgent
    from tdgammon.engine.cube.match_equity import load_met

    if not settings.length or not settings.cube or not settings.rules.cube:
        return
    longest = load_met().max_away
    if settings.length > longest and any(
        isinstance(_cube_player(agent), CubeAgent) for agent in agents
    ):
        raise RuleError(
            f"a {settings.length}-point match is longer than the match equity table "
            f"({longest} points), which the bots' cube decisions need: play at most "
            f"{longest} points, or without the cube (--cubeless)"
        )


def ask_double(agent, position: Position) -> bool:
    """Does ``agent`` (the player on roll of ``position``) double?"""
    player = _cube_player(agent)
    return player is not None and bool(player.decide_double(position))


def ask_take(agent, position: Position) -> str:
    """``agent``'s answer to the double in ``position`` (doubler's view): take/drop/beaver.

    At beaver stage 2 (a raccoon on the table) the beaverer's answer: a beaver
    is not possible there and counts as a take."""
    player = _cube_player(agent)
    if player is None:
        return TAKE
    answer = str(player.decide_take(position)).lower()
    if answer not in TAKE_ANSWERS:
        raise RuleError(f"{agent.name}: answer to a double must be take, drop or beaver")
    if answer == BEAVER and (not position.beavers or position.beaver_stage):
        answer = TAKE
    return answer


def ask_beaver(agent, position: Position) -> str:
    """``agent``'s answer to a beaver of its double (``position``: its own view,
    beaver stage 1): take (accept), drop (refuse) or raccoon. Agents without
    ``decide_beaver`` (and that are no network player) accept."""
    player = _cube_player(agent)
    if player is None or not hasattr(player, "decide_beaver"):
        return TAKE
    answer = str(player.decide_beaver(position)).lower()
    if answer not in BEAVER_ANSWERS:
        raise RuleError(f"{agent.name}: answer to a beaver must be take, drop or raccoon")
    return answer


def max_result(board: np.ndarray, variant=None) -> int:
    """The most the mover of ``board`` ``(30,)`` could still lose: SINGLE, GAMMON or BACKGAMMON.

    docs/rules.md 4: a gammon needs the loser to have borne off none; a backgammon
    also a checker on the bar, in hand or in the winner's home board.
    Acey-Deucey (docs/rules.md 7): the number of checkers not yet borne off.
    """
    b = np.asarray(board)
    rules = get_variant(variant)
    if rules.scoring == SCORING_CHECKERS_LEFT:
        return rules.checkers - int(b[MOVER_OFF])
    if b[MOVER_OFF] > 0:
        return SINGLE
    if b[MOVER_BAR] > 0 or b[MOVER_HAND] > 0 or (b[OPPONENT_HOME_BOARD] > 0).any():
        return BACKGAMMON
    return GAMMON


def resignation_is_full(game: Game) -> bool:
    """The resignation on offer is worth the most the resigner could lose on the board."""
    return game.resign_offer >= max_result(game.board_of(game.resigner), game.variant)


def ask_resignation(agent, game: Game) -> bool:
    """Does ``agent`` (the resigner's opponent) accept? Default: only a full resignation."""
    if hasattr(agent, "decide_resignation"):
        return bool(agent.decide_resignation(game.position()))
    return resignation_is_full(game)


def bot_move(agent, game: Game) -> None:
    """Let ``agent`` play the dice of ``game`` (phase TO_MOVE)."""
    moves = game.legal_moves()
    if len(moves) == 1:
        game.play_row(0)
        return
    row = agent.choose_plays(game.board[None, :], np.array([game.dice], dtype=np.int8), moves)
    game.play_row(int(np.asarray(row)[0]))


def bot_step(game: Game, agents: Sequence) -> None:
    """Make the one decision that ``game`` waits for, by the agent whose decision it is."""
    if game.phase == TO_MOVE:
        bot_move(agents[game.turn], game)
    elif game.phase == TO_ROLL:
        if game.may_double and ask_double(agents[game.turn], game.position()):
            game.double()
        else:
            game.roll()
    elif game.phase == DOUBLED:
        answer = ask_take(agents[1 - game.turn], game.position())
        if answer == BEAVER and game.may_beaver:
            game.beaver()
        elif answer == DROP:
            game.drop()
        else:
            game.take()
    elif game.phase == BEAVERED:
        answer = ask_beaver(agents[game.turn], game.position())
        if answer == RACCOON and game.may_raccoon:
            game.raccoon()
        elif answer == DROP:
            game.drop()
        else:
            game.take()
    elif game.phase == RACCOONED:
        if ask_take(agents[1 - game.turn], game.position()) == DROP:
            game.drop()
        else:
            game.take()
    elif game.phase == RESIGNING:
        if ask_resignation(agents[game.decider], game):
            game.accept_resignation()
        else:
            game.reject_resignation()
    else:
        game.opening_roll()


def play_game(game: Game, agents: Sequence, max_steps: int = 10000) -> GameResult:
    """Play ``game`` to its end with two bots (``agents[seat]``)."""
    steps = 0
    while not game.is_over:
        bot_step(game, agents)
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"game still running after {max_steps} decisions")
    return game.result


def play_match(match: Match, agents: Sequence) -> Match:
    """Play ``match`` to its end (a money session needs ``max_games``)."""
    if match.is_money and not match.settings.max_games:
        raise RuleError("a money session with bots needs a number of games (max_games)")
    while True:
        play_game(match.game, agents)
        if match.is_over:
            return match
        match.next_game()


__all__ = [
    "ask_beaver",
    "ask_double",
    "ask_resignation",
    "ask_take",
    "bot_move",
    "bot_step",
    "check_match_length",
    "max_result",
    "play_game",
    "play_match",
    "resignation_is_full",
]
