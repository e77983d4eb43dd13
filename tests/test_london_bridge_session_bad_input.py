"""Bad input at the ``tdgammon play --game london-bridge`` prompt (review of the session).

The project rule: "Bad input (a malformed move, an illegal move, a bad option)
gets a clear error message naming what is wrong, never a traceback and never a
silent wrong answer; nothing already saved is lost". Each test types what was
mishandled and checks the message, and that the refused line played nothing:

- words after a command that takes none (``hint 3``, ``quit now``) were read as
  a move ("'hint3' is not pot:colours"); ``moves  all`` with two spaces was too;
- a number of 5000 digits, as a list number or a pot, was an internal error;
- a pasted line was quoted back in full, twice;
- a line that is not UTF-8 was an internal error, and so was quoting a typed
  ``é`` back to an ASCII terminal;
- Ctrl-C at the prompt left the prompt's line open and ended with status 130;
- "Game over after 1 turns";
- an empty or multi-line ``--name`` was taken, and two players of one name made
  "won by you" say nothing;
- a bare number played that move of a list never shown ("4" meant as pot 4);
- ``hint`` asked the opponent bot itself, drawing its random numbers, so a game
  with hints went otherwise than the same game without.
"""

from __future__ import annotations

import io

import pytest
from cli_runner import run

from tdgammon.engine.interfaces.cli_london_bridge import Session
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge_players.factory import make_player

PLAY = ("play", "--game", "london-bridge", "--opponent", "random", "--seed", "3", "--no-board")
HUGE = "9" * 5000
"""More digits than ``int`` reads (4300)."""


def play(capsys, monkeypatch, lines: list[str], *options: str):
    """A session against the random bot, ``lines`` typed; (status, stdout, stderr)."""
    stdin = "".join(line + "\n" for line in lines)
    return run(capsys, *PLAY, *options, stdin=stdin, monkeypatch=monkeypatch)


def refused_alone(out: str) -> bool:
    """Nothing was played: the bot never had a turn."""
    return "random plays" not in out and "Session ended." in out


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("hint 3", "hint takes nothing after it, got '3': type hint alone"),
        ("hint\t3", "hint takes nothing after it, got '3': type hint alone"),
        ("quit now", "quit takes nothing after it, got 'now': type quit alone"),
        ("Board please", "board takes nothing after it, got 'please': type board alone"),
        ("help me", "help takes nothing after it, got 'me': type help alone"),
        ("moves 3", "moves takes nothing or all after it, got '3'"),
    ],
)
def test_words_after_a_command_are_refused_by_name(capsys, monkeypatch, line, message):
    status, out, _ = play(capsys, monkeypatch, [line, "quit"])
    assert status == 0
    assert f"  {message}\n" in out
    assert refused_alone(out)


def test_quit_with_words_after_it_does_not_end_the_session(capsys, monkeypatch):
    status, out, _ = play(capsys, monkeypatch, ["quit now", "moves", "1", "quit"])
    assert status == 0
    assert "quit takes nothing after it" in out and "random plays" in out


@pytest.mark.parametrize("line", ["moves  all", "MOVES\tALL", "m all"])
def test_moves_all_in_any_spacing_and_case(capsys, monkeypatch, line):
    status, out, _ = play(capsys, monkeypatch, [line, "quit"])
    assert status == 0
    assert "20 legal move(s):" in out and "20. 4:ooo+6:oooo/C" in out
    assert refused_alone(out)


def test_a_huge_list_number_is_no_move(capsys, monkeypatch):
    status, out, err = play(capsys, monkeypatch, ["moves", HUGE, "quit"])
    assert status == 0 and err == ""
    assert f"  no move {'9' * 60}...: the list has 1 to 20 (type moves)\n" in out
    assert refused_alone(out)


def test_a_huge_pot_number_is_no_pot(capsys, monkeypatch):
    status, out, err = play(capsys, monkeypatch, [HUGE + ":ooo/N", "quit"])
    assert status == 0 and err == ""
    assert f"not played: move '{'9' * 60}'...: '{'9' * 60}'... is not pot:colours" in out
    assert refused_alone(out)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("hello " * 500, "'hellohellohello"),
        ("4:ooo+1:ooo+2:" + "o" * 3000 + "/N", "pot 2 drops 3000 beads, but the game has 36"),
        ("4:ooo/" + "N" * 3000, "after '/' comes the dial turned"),
    ],
)
def test_a_pasted_line_is_quoted_at_most_60_characters(capsys, monkeypatch, line, message):
    status, out, _ = play(capsys, monkeypatch, [line, "quit"])
    assert status == 0
    assert message in out
    assert max(len(text) for text in out.splitlines()) < 300
    assert refused_alone(out)


def test_a_line_that_is_not_utf8_is_refused_and_the_next_one_read(capsys, monkeypatch):
    stdin = io.TextIOWrapper(io.BytesIO(b"\xff\xfe\nmoves\n1\nquit\n"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    status, out, err = run(capsys, *PLAY)
    assert status == 0 and err == ""
    assert "  that line is not UTF-8 text: b'\\xff\\xfe'\n" in out
    assert "random plays" in out


def test_a_typed_character_an_ascii_terminal_cannot_show_is_escaped():
    rules = Rules()
    bot = make_player("random", rules, 3)
    output = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    session = Session(
        rules, "you", bot, "random", bot, io.StringIO("é\nquit\n"), output, show_board=False
    )
    assert session.run(1, first_seat=0) == 0
    output.seek(0)
    assert "not played: move '\\xe9': '\\xe9' is not pot:colours" in output.read()


class Interrupted(io.StringIO):
    """Input that is Ctrl-C after its lines."""

    def readline(self, *args) -> str:
        line = super().readline(*args)
        if not line:
            raise KeyboardInterrupt
        return line


def test_ctrl_c_at_the_prompt_ends_the_line_and_the_session(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", Interrupted("1\n"))
    status, out, err = run(capsys, *PLAY)
    assert status == 0 and err == ""
    assert out.endswith("you (P1) to move> \nSession ended.\n")


def test_one_turn_is_a_turn(capsys, monkeypatch):
    status, out, _ = play(capsys, monkeypatch, ["hint", "1"], "--rule", "turn_limit=1")
    assert status == 0
    assert "Game over after 1 turn: 0-0, a draw.\n" in out
    assert "(the turn limit of docs/london_bridge.md 5.3: 1 turn)\n" in out


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--name", ""], "--name: a player name must not be empty"),
        (["--name", "a\nb"], "--name: a player name must be printable text on one line"),
        (["--opponent-name", " "], "--opponent-name: a player name must not be empty"),
    ],
)
def test_a_name_that_cannot_be_shown_is_a_bad_option(capsys, monkeypatch, option, message):
    status, out, err = play(capsys, monkeypatch, ["quit"], *option)
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_two_players_of_one_name_are_told_apart(capsys, monkeypatch):
    status, out, _ = play(
        capsys, monkeypatch, ["moves", "1"], "--name", "random", "--rule", "turn_limit=2"
    )
    assert status == 0
    assert "random (P1) to move> " in out and "random (2) plays " in out


def test_a_number_plays_only_from_a_list_shown_this_turn(capsys, monkeypatch):
    lines = ["4", "moves", "4", "1", "quit"]
    status, out, _ = play(capsys, monkeypatch, lines, "--rule", "turn_limit=20")
    assert status == 0
    refusal = "  no list of moves shown this turn: type moves (or hint), then a number from it"
    first, after_list = out.split("20 legal move(s):")
    assert refusal in first and "random plays" not in first  # "4" played nothing
    listed_turn, next_turn = after_list.split("random plays", 1)
    assert refusal not in listed_turn  # 4 from the list just shown was played
    assert refusal in next_turn  # the list was of the turn before: "1" is refused


def test_hints_leave_the_opponents_random_numbers_alone(capsys, monkeypatch):
    """The same moves typed with and without hints: the random bot answers alike."""
    plain = ["moves", "1"] * 6 + ["quit"]
    hinted = ["hint", "moves", "1", "hint"] * 6 + ["quit"]
    transcripts = []
    for lines in (plain, hinted):
        status, out, _ = play(capsys, monkeypatch, lines)
        assert status == 0
        transcripts.append([line for line in out.splitlines() if "random plays" in line])
    assert len(transcripts[0]) == 6 and transcripts[0] == transcripts[1]
