"""Bad input at the ``tdgammon play`` prompt (review of the terminal session).

The project rule: "a malformed ID, an illegal move, a bad command gets a clear
error message naming what is wrong, never a traceback (an internal error) and
never a silent wrong answer; nothing already saved is lost". Each test types a
refused line and checks the exact message and that the game is unchanged by it:

- a number ``int`` cannot read (``resign ²``, 5000 digits) was an internal error;
- a ``double`` after a roll made for the human (the cube not available) was told
  that "a double must come before rolling", not why there was no double;
- words after a command that acts at once (``drop 8/2``, ``roll 24/13``,
  ``hint 3``) were ignored and the command carried out;
- ``hint`` while a double or a resignation waited for an answer said "roll first".
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import DOUBLED, RESIGNING, TO_MOVE, TO_ROLL
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.interfaces.terminal import HumanAgent, TerminalSession


def first_play(game: Game) -> str:
    """The first legal play of the roll on the board, in notation."""
    legal = game.legal_moves()
    pairs = [(int(a), int(b)) for a, b in legal.moves[0] if a >= 0]
    return format_move(game.board, pairs, int(legal.named_double[0])) or "pass"


PLAY = first_play
"""In a script: type the first legal play of the roll."""


def state(match: Match) -> tuple:
    """Everything a refused line must leave as it was."""
    game = match.game
    return (
        len(match.games),
        match.scores,
        game.phase,
        game.turn,
        game.dice,
        game.board.tobytes(),
        game.cube_value,
        game.cube_owner,
        game.resign_offer if game.phase == RESIGNING else None,
        len(game.history),
    )


class Script:
    """Input lines for a session, noting the game's state before each is read.

    A line is text, or a function of the game giving the text (``PLAY``).
    """

    def __init__(self, lines: list[str | Callable[[Game], str]]) -> None:
        self.lines = list(lines)
        self.typed: list[str] = []
        self.states: list[tuple] = []
        self.session: TerminalSession | None = None

    def readline(self) -> str:
        match = self.session.match
        self.states.append(state(match))
        if not self.lines:
            return ""
        line = self.lines.pop(0)
        text = line(match.game) if callable(line) else line
        self.typed.append(text)
        return text + "\n"

    def unchanged_by(self, text: str) -> bool:
        """The game is the same after the line ``text`` (its last time) as before it."""
        index = len(self.typed) - 1 - self.typed[::-1].index(text)
        return self.states[index] == self.states[index + 1]


def play(lines: list, seed: int = 1, **settings) -> tuple[Script, str, Match]:
    """Two humans ("you", seat 0, and "p2") typing ``lines``; the script, the
    output and the match at the end."""
    match = Match(MatchSettings(**settings), names=["you", "p2"], seed=seed)
    script = Script(lines)
    output = io.StringIO()
    session = TerminalSession(
        match, [HumanAgent("you"), HumanAgent("p2")], input=script, output=output, show_board=False
    )
    script.session = session
    assert session.run() == 0
    return script, output.getvalue(), match


def refused(out: str, text: str, message: str) -> bool:
    """``text`` was typed at a prompt and answered with exactly ``message``."""
    return f"{text}\n  {message}\n" in out


# With seed 1, p2 wins the opening roll (4-3); "you" roll 5-6 next, p2 then 1-1.


# ------------------------------------------------------------ numbers int cannot read


ACEY_RESIGN = (
    "resign how many points? resign N, N from 1 to 15 (acey-deucey: the stake per "
    "checker not borne off; the stake is 1)"
)


@pytest.mark.parametrize("number", ["²", "9" * 5000, "0", "16", "00000000000000000000016"])
def test_resign_points_that_are_no_number_1_to_15_are_refused(number):
    # Before: "²" (a digit int() refuses) and 5000 digits (past int()'s limit)
    # ended the session with an internal error (ValueError).
    text = f"resign {number}"
    script, out, match = play([PLAY, text, "quit"], variant="acey-deucey")
    assert refused(out, text, ACEY_RESIGN)
    assert script.unchanged_by(text) and match.game.phase == TO_MOVE
    assert "Session stopped." in out


def test_resign_points_still_accepts_a_number_with_leading_zeros():
    script, out, match = play([PLAY, "resign 003", "quit"], variant="acey-deucey")
    assert "p2, accept the resignation for 3 points? (accept/reject) quit" in out
    assert match.game.phase == RESIGNING and match.game.resign_offer == 3


def test_analyse_with_a_depth_of_5000_digits_is_refused():
    # Before: an internal error (ValueError: exceeds the limit for integer strings).
    text = "analyse " + "9" * 5000
    script, out, _ = play([text, "quit"])
    assert refused(out, text, f"analyse takes a depth 0-3, got {'9' * 5000!r}")
    assert script.unchanged_by(text)


@pytest.mark.parametrize(
    "argv, number",
    [
        (["--variant", "acey-deucey"], "resign " + "9" * 5000),
        (["--variant", "acey-deucey"], "resign ²"),
        ([], "analyse " + "9" * 5000),
    ],
)
def test_no_internal_error_at_the_command_line(monkeypatch, capsys, argv, number):
    monkeypatch.setattr("sys.stdin", io.StringIO(f"roll\n{number}\nquit\n"))
    status = main(["play", "--seed", "1", "--no-board", "--opponent", "random", *argv])
    out, err = capsys.readouterr()
    assert status == 0 and err == "" and "Session stopped." in out


# ------------------------------------------------------------ double after a roll made for you


def test_double_when_the_cube_is_not_in_use_says_so():
    script, out, match = play([PLAY, "double", "quit"], cube=False)
    assert "you roll 5-6.\n" in out
    message = (
        "the dice are already rolled (5-6), for you: cannot double, "
        "the cube is not in use in this game. Play them"
    )
    assert refused(out, "double", message)
    assert script.unchanged_by("double") and match.game.phase == TO_MOVE


def test_double_when_the_other_side_owns_the_cube_says_so():
    # you double, p2 takes (p2 owns the cube at 2), p2 rolls and plays: your roll is automatic
    lines = [PLAY, "double", "take", PLAY, "roll", PLAY, "d", "quit"]
    script, out, match = play(lines)
    message = (
        "the dice are already rolled (5-6), for you: cannot double, "
        "the cube is owned by p2: only its owner may redouble. Play them"
    )
    assert refused(out, "d", message)
    assert script.unchanged_by("d") and match.game.cube_owner == 1


def test_double_in_the_crawford_game_says_so():
    # 2-point match: p2 drops your double (1-0), game 2 is the Crawford game
    lines = [PLAY, "double", "drop", PLAY, "double", "quit"]
    script, out, match = play(lines, length=2)
    message = (
        "the dice are already rolled (1-1), for you: cannot double, "
        "no doubling in the Crawford game (docs/rules.md 6). Play them"
    )
    assert refused(out, "double", message)
    assert script.unchanged_by("double") and match.scores == (1, 0)


def test_double_in_acey_deucey_says_there_is_no_cube():
    script, out, _ = play([PLAY, "double", "quit"], variant="acey-deucey")
    message = (
        "the dice are already rolled (5-6), for you: cannot double, "
        "there is no doubling cube in acey-deucey (docs/rules.md 7). Play them"
    )
    assert refused(out, "double", message)
    assert script.unchanged_by("double")


def test_double_after_rolling_oneself_still_says_it_comes_too_late():
    script, out, _ = play([PLAY, "roll", "double", "quit"])
    message = "the dice are already rolled (5-6): play them (a double must come before rolling)"
    assert refused(out, "double", message)
    assert script.unchanged_by("double")


# ------------------------------------------------------------ words after a command


@pytest.mark.parametrize(
    "before, text",
    [
        ([PLAY], "roll 24/13"),
        ([PLAY], "double now"),
        ([PLAY], "hint 3"),
        ([PLAY, "roll"], "hint 2"),
        ([PLAY, "roll"], "moves 2"),
        ([PLAY, "double"], "drop 8/2"),
        ([PLAY, "double"], "take it"),
        ([PLAY, "double"], "Pass 13/8"),
        ([PLAY, "roll", "resign"], "accept 2"),
        ([PLAY, "roll", "resign"], "r now"),
    ],
)
def test_a_command_with_words_after_it_is_refused(before, text):
    # Before: the words were ignored: "drop 8/2" dropped the double, "roll 24/13"
    # rolled, "hint 3" gave the 1-ply hint.
    script, out, match = play([*before, text, "quit"], max_games=2)
    word, extra = text.split(None, 1)
    message = f"{word.lower()} takes nothing after it, got {extra!r}: type {word.lower()} alone"
    assert refused(out, text, message)
    assert script.unchanged_by(text)
    assert len(match.games) == 1 and not match.game.is_over


def test_the_same_commands_alone_still_act():
    script, out, match = play([PLAY, "double", "drop"], max_games=1)
    assert "you win a single game (double dropped): 1 point" in out


def test_save_and_resign_still_take_their_words(tmp_path):
    path = tmp_path / "My Game.mat"
    script, out, match = play([PLAY, f"save {path}", "resign gammon", "quit"])
    assert f"Match saved to {path}\n" in out
    assert match.game.phase == RESIGNING and path.exists()


# ------------------------------------------------------------ hint while an answer waits


@pytest.mark.parametrize(
    "before, expected, phase",
    [
        ([PLAY, "double"], "Type take or drop.", DOUBLED),
        ([PLAY, "roll", "resign"], "Type accept or reject.", RESIGNING),
    ],
)
def test_hint_while_an_answer_waits_names_the_answer(before, expected, phase):
    # Before: "hint is for moves: roll first", though nobody could roll.
    script, out, match = play([*before, "hint", "quit"])
    assert refused(out, "hint", f"hint is for moves, not this decision. {expected}")
    assert script.unchanged_by("hint") and match.game.phase == phase


def test_hint_before_rolling_still_says_roll_first():
    script, out, match = play([PLAY, "hint", "quit"])
    assert refused(out, "hint", "hint is for moves: roll first")
    assert script.unchanged_by("hint") and match.game.phase == TO_ROLL


def test_a_long_line_not_understood_is_quoted_cut_short():
    from tdgammon.engine.rules.errors import QUOTE_LIMIT, quoted

    assert quoted("abc") == "'abc'"
    assert quoted("x" * 100_000) == repr("x" * QUOTE_LIMIT) + "..."


def test_moves_before_the_roll_says_what_to_type():
    # Before: "not understood: 'moves'", though moves is a command.
    script, out, match = play([PLAY, "moves", "quit"])
    assert refused(
        out,
        "moves",
        "moves lists the plays of the dice rolled, and none are: Type roll or double "
        "(help for all commands).",
    )
    assert script.unchanged_by("moves") and match.game.phase == TO_ROLL


def test_board_shows_the_board_under_no_board(monkeypatch, capsys):
    # --no-board stops the board after every action; the board command still draws it

    monkeypatch.setattr("sys.stdin", io.StringIO("13/8 13/11\nboard\nquit\n"))
    assert main(["play", "--opponent", "pubeval", "--seed", "8", "--no-board"]) == 0
    out = capsys.readouterr().out
    before, after = out.split("roll or double? board\n")
    assert "Pip count" not in before
    assert "Pip count" in after and "X: you (on roll)   O: pubeval" in after
