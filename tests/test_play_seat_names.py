"""Refusals of the rules in ``tdgammon play`` name the players as the session does.

Before: a refused action at the terminal came from ``Game`` naming the seats
"player 0" and "player 1" ("the cube is owned by player 1: only its owner may
redouble", "player 0 must first take or drop the double"), while everything
else the session wrote says "you" and the bot's name: a person could not tell
which seat was his. Now the session names the seats of the match's games as its
output does (``Match.name_seats``), and the messages read well with "you".

``Game`` and ``Match`` keep the neutral "player 0" / "player 1" for library
callers that name no seats.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import numpy as np
import pytest

from tdgammon.engine.flow.game import SEAT_NAMES, Game
from tdgammon.engine.flow.game_records import DOUBLED, RACCOONED, TO_MOVE, GameSettings
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.interfaces.terminal import HumanAgent, TerminalSession
from tdgammon.engine.players.agents import PubevalAgent
from tdgammon.engine.rules.errors import RuleError

SEAT_NUMBERS = re.compile(r"player [01]\b")
"""How ``Game`` names seats by default: never in a session's output."""


def refusal(out: str, typed: str) -> str:
    """The message the session answered the (last) line ``typed`` with."""
    found = re.findall(rf"{re.escape(typed)}\n  (.*)\n", out)
    assert found, f"no refusal of {typed!r} in:\n{out}"
    return found[-1]


# ------------------------------------------------------------ tdgammon play (the CLI)


def test_play_names_the_bot_that_owns_the_cube(monkeypatch, capsys):
    # seed 3: you win the opening roll (5-1); you double, pubeval takes and owns
    # the cube; your next two rolls are made for you, so "double" is refused.
    lines = ["24/23 13/8", "double", "13/6", "double", "quit"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    status = main(["play", "--seed", "3", "--no-board", "--opponent", "pubeval"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert "pubeval takes; the cube is at 2." in out
    assert refusal(out, "double") == (
        "the dice are already rolled (1-1), for you: cannot double, "
        "the cube is owned by pubeval: only its owner may redouble. Play them"
    )
    assert not SEAT_NUMBERS.search(out)


def test_play_between_two_humans_names_them_as_the_prompts_do(monkeypatch, capsys):
    # The second human is "player 2" (--opponent-name's default) at seat 1: a
    # refusal naming him "player 1" would point at the wrong person.
    lines = ["24/23 13/8", "roll", "13/11(2) 6/4(2)", "double", "resign", "take", "quit"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    status = main(["play", "--seed", "3", "--no-board", "--opponent", "human"])
    out, err = capsys.readouterr()
    assert status == 0 and err == ""
    assert "player 2, the cube is offered at 2: take, drop? resign\n" in out
    assert refusal(out, "resign") == (
        "cannot offer a resignation: player 2 must first take or drop the double"
    )
    assert not SEAT_NUMBERS.search(out)


# ------------------------------------------------------------ the session, a bot with a cube


ENGINE = "the engine"


class CubeBot(PubevalAgent):
    """pubeval's plays, with set cube decisions: doubles whenever it may (or never),
    answers a double with ``take_answer`` and a beaver of its double with
    ``beaver_answer``."""

    def __init__(
        self, doubles: bool = True, take_answer: str = "take", beaver_answer: str = "take"
    ) -> None:
        self.name = ENGINE
        self.doubles = doubles
        self.take_answer = take_answer
        self.beaver_answer = beaver_answer

    def decide_double(self, position) -> bool:
        return self.doubles

    def decide_take(self, position) -> str:
        return self.take_answer

    def decide_beaver(self, position) -> str:
        return self.beaver_answer


def first_play(game: Game) -> str:
    """The first legal play of the roll, in notation."""
    legal = game.legal_moves()
    pairs = [(int(a), int(b)) for a, b in legal.moves[0] if a >= 0]
    return format_move(game.board, pairs, int(legal.named_double[0])) or "pass"


class Script:
    """Input lines; a line may be a function of the game (``first_play``)."""

    def __init__(self, lines: list[str | Callable[[Game], str]]) -> None:
        self.lines = list(lines)
        self.match: Match | None = None
        self.phases: list[str] = []

    def readline(self) -> str:
        self.phases.append(self.match.game.phase)
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        return (line(self.match.game) if callable(line) else line) + "\n"


def session(lines: list, bot: CubeBot, seed: int = 3, **settings) -> tuple[str, Match, Script]:
    """You (seat 0) against ``bot`` typing ``lines``: the output, the match, the script."""
    match = Match(MatchSettings(**settings), names=["you", ENGINE], seed=seed)
    script = Script(lines)
    script.match = match
    output = io.StringIO()
    players = [HumanAgent("you"), bot]
    TerminalSession(match, players, input=script, output=output, show_board=False).run()
    return output.getvalue(), match, script


def test_refusals_while_the_engines_double_and_raccoon_wait_name_you():
    # seed 3: you open (5-1) and play, the engine doubles at once; you beaver,
    # the engine raccoons.
    bot = CubeBot(beaver_answer="raccoon")
    lines = [first_play, "resign", "beaver", "resign", "raccoon", "take", "quit"]
    out, match, script = session(lines, bot, beavers=True, raccoons=True)
    assert f"{ENGINE} doubles to 2." in out and f"{ENGINE} raccoons: the cube goes to 8." in out
    assert script.phases[1:3] == [DOUBLED, DOUBLED]
    assert script.phases[3:6] == [RACCOONED] * 3
    messages = re.findall(r"\n  (.*)\n", out)
    assert messages == [
        "cannot offer a resignation: you must first take or drop the double",
        "cannot offer a resignation: you must first take or drop the raccoon",
        "cannot raccoon: you must first take or drop the raccoon",
    ]
    assert match.game.cube_value == 8 and match.game.cube_owner == 1
    assert not SEAT_NUMBERS.search(out)


def test_a_double_after_your_raccoon_was_taken_says_you_doubled_already():
    # you double, the engine beavers, you raccoon, the engine takes: you keep the
    # cube on your turn, past its start, so your roll is made for you.
    bot = CubeBot(doubles=False, take_answer="beaver")
    lines = [first_play, "double", "raccoon", "double", "quit"]
    out, match, script = session(lines, bot, beavers=True, raccoons=True)
    assert f"{ENGINE} beavers: the cube goes to 4." in out
    assert f"{ENGINE} accepts the raccoon; the cube is at 8." in out
    assert script.phases[-2] == TO_MOVE
    # Game's "; roll" is not repeated: the roll was made, the advice is to play it
    assert refusal(out, "double") == (
        "the dice are already rolled (2-5), for you: cannot double, you doubled this turn "
        "already: a double is offered only at the start of one's own turn (docs/rules.md 5)."
        " Play them"
    )
    assert match.game.cube_owner == 0 and match.game.turn == 0
    assert not SEAT_NUMBERS.search(out)


def test_a_double_when_the_engine_owns_the_cube_names_the_engine():
    bot = CubeBot(doubles=False)
    lines = [first_play, "double", first_play, "double", "quit"]
    out, match, _ = session(lines, bot)
    assert f"{ENGINE} takes; the cube is at 2." in out
    assert refusal(out, "double").endswith(
        f"cannot double, the cube is owned by {ENGINE}: only its owner may redouble. Play them"
    )
    assert not SEAT_NUMBERS.search(out)


# ------------------------------------------------------------ library callers


def cube_of_seat_1(**kwargs) -> Game:
    """Seat 0 to roll at the start position, the cube at 2 owned by seat 1."""
    board = GameSettings().rules.starting_board()
    return Game.from_position(board, turn=0, cube_value=2, cube_owner=1, **kwargs)


def refusal_of(action, *args, **kwargs) -> str:
    with pytest.raises(RuleError) as caught:
        action(*args, **kwargs)
    return str(caught.value)


def test_game_names_seats_player_0_and_1_by_default():
    game = cube_of_seat_1()
    assert game.seat_names == SEAT_NAMES == ("player 0", "player 1")
    assert refusal_of(game.double) == (
        "cannot double: the cube is owned by player 1: only its owner may redouble"
    )
    assert refusal_of(game.roll, seat=1) == "the decision is up to player 0, not player 1"
    assert refusal_of(game.take) == "cannot take: it is for player 0 to roll (or double)"
    game.roll((3, 1))
    assert refusal_of(game.take) == "cannot take: player 0 must first play the roll 31"
    assert Game().seat_names == SEAT_NAMES


def test_game_uses_the_seat_names_it_is_given():
    game = cube_of_seat_1(seat_names=("you", "the engine"))
    assert refusal_of(game.double) == (
        "cannot double: the cube is owned by the engine: only its owner may redouble"
    )
    assert refusal_of(game.roll, seat=1) == "the decision is up to you, not the engine"
    assert refusal_of(game.take) == "cannot take: it is for you to roll (or double)"


@pytest.mark.parametrize("names", [("you",), ("a", "b", "c"), "ab"])
def test_two_seat_names_or_none(names):
    with pytest.raises(RuleError, match="two seats to name"):
        Game(seat_names=names)


def test_match_names_seats_neutrally_unless_asked():
    # a library caller naming the players keeps the seat numbers in refusals
    match = Match(MatchSettings(), names=("Ann", "Bob"), rng=np.random.default_rng(1))
    assert match.seat_names == SEAT_NAMES and match.game.seat_names == SEAT_NAMES
    assert refusal_of(match.game.take) == (
        "cannot take: the game has not started: roll the opening roll first"
    )
    named = Match(MatchSettings(max_games=3), names=("Ann", "Bob"), seat_names=("Ann", "Bob"))
    assert named.game.seat_names == ("Ann", "Bob")


def test_name_seats_names_the_games_played_and_to_come():
    match = Match(MatchSettings(max_games=2), seed=1)
    first = match.game
    first.opening_roll((6, 1))
    first.offer_resignation()
    first.accept_resignation()
    match.name_seats(("you", "the engine"))
    second = match.next_game()
    assert first.seat_names == second.seat_names == ("you", "the engine")
    assert refusal_of(first.roll) == "cannot roll: the game is over"
    second.opening_roll((1, 6))
    assert refusal_of(second.roll) == "cannot roll: the engine must first play the roll 61"
    assert refusal_of(second.play_text, "13/7 8/7", seat=0) == (
        "the decision is up to the engine, not you"
    )


def test_a_finished_match_says_who_won_it():
    match = Match(MatchSettings(length=1), names=("you", "the engine"), seed=1)
    match.game.opening_roll((6, 1))
    match.game.offer_resignation(seat=1)
    match.game.accept_resignation()
    assert refusal_of(match.next_game) == "the match is over: you won it"


# ------------------------------------------------------------ the board, the web game, .mat files


def test_the_board_under_the_session_names_the_players():
    match = Match(MatchSettings(), names=["you", ENGINE], seed=3)
    output = io.StringIO()
    players = [HumanAgent("you"), CubeBot(doubles=False)]
    TerminalSession(match, players, input=io.StringIO("quit\n"), output=output).run()
    out = output.getvalue()
    assert f" X: you (on roll)   O: {ENGINE}\n" in out
    assert not SEAT_NUMBERS.search(out)


def test_a_refusal_in_the_web_game_names_the_person():
    from tdgammon.engine.interfaces.serve_games import new_game

    game = new_game({"seed": 3}, max_plies=2)
    with pytest.raises(RuleError) as caught:
        game.act({"action": "take"})
    assert not SEAT_NUMBERS.search(str(caught.value))
    assert "you" in str(caught.value)


def test_a_refused_mat_action_names_the_players_of_the_file():
    from tdgammon.engine.flow.matfile import MatFileError, read_mat

    head = " 3 point match\n\n Game 1\n ann : 0                 bob : 0\n"
    first = "  1) 31: 8/5 6/5                 42: 8/4 6/4\n"
    for rest, said in (
        ("  2)  Doubles => 2               42: 8/4 6/4\n", "bob must first take or drop"),
        ("  2)  Doubles => 2\n  3)  Takes\n", "the decision is up to bob, not ann"),
    ):
        with pytest.raises(MatFileError, match=said):
            read_mat(head + first + rest)
