"""Fuzzing ``tdgammon play`` and its .mat records (adversarial review, issue 19).

- Arbitrary text as player names and save paths through ``tdgammon play``: it
  plays and saves, or refuses with one ``tdgammon: error:`` line and status 2,
  never an internal error (3); every file it saves reads back to the match saved.
- Random sequences of game actions, every cube action (double, take, drop,
  beaver, raccoon, automatic doubles on opening ties) and resignations
  (accepted, rejected), by the game API and by two humans at the prompt: after
  every step the record reads back to the same match.

The quick forms run a few dozen examples; set ``TDGAMMON_CHAOS_GAMES`` (the
chaos tests' variable, ``tests/test_match.py``) for that many examples each.
"""

from __future__ import annotations

import io
import os
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from cli_runner import run
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import (
    ACT_ACCEPT,
    ACT_REJECT,
    ACT_RESIGN,
    BEAVERED,
    CUBE_ANSWER_PHASES,
    DOUBLED,
    ENDED_BY_RESIGNATION,
    OPENING,
    OVER,
    RACCOONED,
    RESIGNING,
    TO_MOVE,
    TO_ROLL,
)
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.flow.matfile import format_mat, load_mat, read_mat
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.interfaces import terminal


def examples(quick: int) -> settings:
    """``quick`` examples, or ``TDGAMMON_CHAOS_GAMES`` of them for the long form."""
    return settings(
        max_examples=int(os.environ.get("TDGAMMON_CHAOS_GAMES", quick)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


# ------------------------------------------------------------ the same match


def recorded(game: Game) -> bool:
    """The game has something a .mat record holds (else the record leaves it out)."""
    unwritten = (ACT_RESIGN, ACT_ACCEPT, ACT_REJECT)
    return (
        game.result is not None
        or game.auto_doubles_done > 0
        or any(a.kind not in unwritten for a in game.history)
    )


def rules(s: MatchSettings) -> MatchSettings:
    """The settings a record keeps: not the session length; a cube that can never
    be doubled (limit 1) is written, and read, as no cube."""
    live = s.cube and s.max_cube > 1
    return replace(s, max_games=0, cube=live, max_cube=s.max_cube if live else 1024)


def result_key(game: Game) -> tuple | None:
    """What a record says of a result (a resigned gammon that Jacoby counts single
    is written as the single game it scores)."""
    r = game.result
    if r is None:
        return None
    kind = None if r.ended_by == ENDED_BY_RESIGNATION else r.kind
    return (r.winner, r.points, r.ended_by, r.cube_value, r.stake, kind)


def assert_reloads(match: Match, text: str | None = None) -> None:
    """The record of ``match`` (``text``: the one saved) reads back to the same match."""
    text = format_mat(match) if text is None else text
    assert text == format_mat(match)
    loaded = read_mat(text).match
    assert format_mat(loaded) == text
    assert loaded.names == match.names and loaded.scores == match.scores
    assert rules(loaded.settings) == rules(match.settings)
    games = [game for game in match.games if recorded(game)]
    assert len(loaded.games) == max(len(games), 1)
    for original, copy in zip(games, loaded.games, strict=False):
        assert result_key(copy) == result_key(original)
        assert (copy.cube_value, copy.cube_owner) == (original.cube_value, original.cube_owner)
        assert copy.auto_doubles_done == original.auto_doubles_done
        assert (copy.board_of(0) == original.board_of(0)).all()
        assert (copy.settings.crawford, copy.settings.scores) == (
            original.settings.crawford,
            original.settings.scores,
        )
        if original.phase in CUBE_ANSWER_PHASES + (OVER,):
            assert copy.phase == original.phase  # a pending double is in the record


# ------------------------------------------------------------ random actions, by the API


@st.composite
def match_settings(draw) -> MatchSettings:
    variant = draw(st.sampled_from(["standard", "standard", "nackgammon", "hypergammon"]))
    max_cube = draw(st.sampled_from([1024, 4, 8, 2, 1]))
    if draw(st.sampled_from([True, True, False])):
        beavers = draw(st.sampled_from([True, True, False]))
        return MatchSettings(
            length=0,
            max_games=draw(st.integers(1, 3)),
            jacoby=draw(st.booleans()),
            beavers=beavers,
            raccoons=beavers and draw(st.booleans()),
            auto_doubles=draw(st.sampled_from([2, 0, 1, 3])),
            max_cube=max_cube,
            variant=variant,
        )
    return MatchSettings(
        length=draw(st.integers(1, 5)),
        crawford=draw(st.booleans()),
        cube=draw(st.booleans()),
        max_cube=max_cube,
        variant=variant,
    )


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
different_dice = st.tuples(st.integers(1, 6), st.integers(1, 5)).map(
    lambda d: (d[0], d[1] + (d[1] >= d[0]))
)


def choices(match: Match) -> list[str]:
    """The actions allowed now, cube actions and resignations weighted up."""
    game = match.game
    if game.phase == OVER:
        return [] if match.is_over else ["next game"]
    # hypothesis favours the ends of a list: the rare choices go in the middle
    return {
        OPENING: ["opening tie"] + ["opening"] * 3 + ["resign"] + ["opening"] * 3,
        TO_ROLL: ["double"] * 4 * game.may_double + ["roll"] * 2 + ["resign"] + ["roll"] * 2,
        TO_MOVE: ["play"] * 5 + ["resign"] + ["play"] * 5,
        DOUBLED: ["beaver"] * 2 * game.may_beaver + ["take", "take", "drop"],
        BEAVERED: ["raccoon"] * 2 * game.may_raccoon + ["take", "drop"],
        RACCOONED: ["take", "drop"],
        RESIGNING: ["reject", "accept"],
    }[game.phase]


def act(match: Match, name: str, data) -> None:
    """Do ``name`` (one of ``choices``) with what it needs drawn from ``data``."""
    game = match.game
    if name == "next game":
        match.next_game()
    elif name == "opening":
        game.opening_roll(data.draw(different_dice, label="opening roll"))
    elif name == "opening tie":
        die = data.draw(st.integers(1, 6), label="tie")
        game.opening_roll((die, die))
    elif name == "roll":
        game.roll(data.draw(dice, label="roll"))
    elif name == "play":
        game.play_row(data.draw(st.integers(0, len(game.legal_moves()) - 1), label="play"))
    elif name == "resign":
        kind = data.draw(st.integers(1, 3), label="resign kind")
        game.offer_resignation(kind, seat=data.draw(st.integers(0, 1), label="resigner"))
    else:
        method = {"accept": "accept_resignation", "reject": "reject_resignation"}
        getattr(game, method.get(name, name))()


@examples(25)
@given(settings=match_settings(), data=st.data())
def test_random_actions_reload_identically_at_every_step(settings, data):
    match = Match(settings, names=("ann", "bob"), seed=0)
    for _ in range(16):
        options = choices(match)
        if not options:
            break
        act(match, data.draw(st.sampled_from(options), label="action"), data)
        match.check_invariants()
        assert_reloads(match)
    tell_kinds(match)


# ------------------------------------------------------------ names and paths through play


PRINTABLE = st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
ODD = st.sampled_from(list(';:"] )0123456789/.') + [" : 3 ", "1) ", "Game 2", "Wins 1 point"])
ODD_CHARACTERS = st.sampled_from(list("\t\r\x00\x85\u2028\ufeff\udc80"))
ANY = st.characters(blacklist_categories=(), blacklist_characters="\n") | ODD_CHARACTERS
"""Any character but a newline (which would end the line typed)."""


def texts(pieces, min_size: int = 0) -> st.SearchStrategy[str]:
    """Strings of up to 8 ``pieces`` (characters or words)."""
    return st.lists(pieces, min_size=min_size, max_size=8).map("".join)


def mostly(good, bad) -> st.SearchStrategy:
    """``good`` four times in five, else ``bad``."""
    return st.integers(0, 4).flatmap(lambda i: bad if i == 0 else good)


NAME_TEXT = mostly(texts(PRINTABLE | ODD, 1), texts(ANY | st.just("\n")))
"""Player names: mostly printable text of any script, with the format's own
punctuation and words; sometimes anything (control characters, surrogates, nothing)."""
FILE_TEXT = mostly(texts(PRINTABLE | ODD), texts(ANY)).map(lambda t: "f" + t.replace("..", "._"))
"""File names for ``--save`` and ``save``: anything, kept inside the test's folder."""
save_paths = st.one_of(
    FILE_TEXT.map(lambda t: t + ".mat"),
    FILE_TEXT.map(lambda t: t + ".mat"),
    FILE_TEXT.map(lambda t: "sub/" + t + ".MAT"),
    FILE_TEXT,
)
COMMANDS = [
    "roll",
    "double",
    "take",
    "drop",
    "beaver",
    "raccoon",
    "resign",
    "resign gammon",
    "accept",
    "reject",
    "save",
    "board",
    "13/11 24/23",
    "",
]


class Saves:
    """Every successful save of the session: the path and the record saved there."""

    def __init__(self, monkeypatch) -> None:
        self.records: dict[str, str] = {}
        self.names: tuple[str, str] | None = None
        write = terminal.write_match

        def recording(match: Match, path: str) -> None:
            write(match, path)
            self.records[path] = format_mat(match)
            self.names = match.names

        monkeypatch.setattr(terminal, "write_match", recording)

    def check(self) -> None:
        """Each file holds its last record, which reads back to the same match."""
        for path, text in self.records.items():
            assert Path(path).read_text(encoding="utf-8") == text
            loaded = load_mat(path)
            assert format_mat(loaded.match, loaded.headers) == text
            assert loaded.match.names == self.names


def tell_kinds(match: Match) -> None:
    """Hypothesis statistics: the action kinds the examples reached, automatic doubles."""
    for kind in sorted({a.kind for game in match.games for a in game.history}):
        event(kind)
    if any(game.auto_doubles_done for game in match.games):
        event("automatic double")


def check_exit(status: int, err: str) -> None:
    """0, or 2 with one clear line: never an internal error."""
    assert status in (0, 2), err
    if status == 2:
        assert err.startswith("tdgammon: error: ") and err.count("\n") == 1, err


@examples(40)
@given(
    name=NAME_TEXT,
    other=NAME_TEXT,
    path=save_paths,
    lines=st.lists(st.sampled_from(COMMANDS) | save_paths.map("save {}".format), max_size=8),
    seed=st.integers(0, 50),
)
def test_names_and_save_paths_through_play(monkeypatch, capsys, name, other, path, lines, seed):
    saves = Saves(monkeypatch)
    with tempfile.TemporaryDirectory() as folder:
        monkeypatch.chdir(folder)
        (Path(folder) / "sub").mkdir()
        argv = ["play", "--opponent", "human", "--seed", str(seed), "--no-board", "--beavers"]
        argv += [f"--name={name}", f"--opponent-name={other}", f"--save={path}"]
        stdin = "".join(line + "\n" for line in lines)
        status, out, err = run(capsys, *argv, stdin=stdin, monkeypatch=monkeypatch)
        check_exit(status, err)
        event(f"exit {status}")
        if status == 0:
            assert path in saves.records  # the session's own file, saved at the end
        saves.check()


# ------------------------------------------------------------ cube actions at the prompt


class Typist(io.TextIOBase):
    """Two humans at ``tdgammon play``: each line is drawn for the game it answers,
    after checking that the record of the match so far reads back the same."""

    def __init__(self, data, lines: int) -> None:
        self.data, self.left = data, lines
        self.session: terminal.TerminalSession | None = None

    def readline(self, size: int = -1) -> str:
        match = self.session.match
        assert_reloads(match)
        if self.left == 0:
            return ""
        self.left -= 1
        return self.data.draw(st.sampled_from(self.options(match.game)), label="typed") + "\n"

    def options(self, game: Game) -> list[str]:
        """Mostly what the prompt asks for, sometimes any command at all."""
        if game.phase == TO_MOVE:
            legal = game.legal_moves()
            rows = range(min(3, len(legal)))
            pairs = [[(int(a), int(b)) for a, b in legal.moves[row] if a >= 0] for row in rows]
            asked = [format_move(game.board, p) for p in pairs if p] + ["resign gammon"]
        else:
            asked = {
                TO_ROLL: ["double", "double", "roll", "resign", "save"],
                DOUBLED: ["beaver", "beaver", "take", "take", "drop"],
                BEAVERED: ["raccoon", "raccoon", "take", "drop"],
                RACCOONED: ["take", "drop"],
                RESIGNING: ["accept", "reject"],
            }.get(game.phase, ["quit"])
        return asked * 8 + COMMANDS


@examples(20)
@given(
    data=st.data(),
    seed=st.integers(0, 200),
    options=st.sampled_from(
        [
            ["--beavers", "--raccoons", "--auto-doubles", "2"],
            ["--beavers", "--raccoons", "--jacoby"],
            ["--beavers", "--jacoby", "--cube-limit", "8"],
            ["--length", "3"],
            ["--auto-doubles", "3", "--cube-limit", "4"],
        ]
    ),
)
def test_cube_actions_and_resignations_at_the_prompt(monkeypatch, capsys, data, seed, options):
    saves = Saves(monkeypatch)
    typist = Typist(data, lines=20)
    run_session = terminal.TerminalSession.run

    def run_typed(session: terminal.TerminalSession) -> int:
        typist.session = session
        return run_session(session)

    monkeypatch.setattr(terminal.TerminalSession, "run", run_typed)
    monkeypatch.setattr("sys.stdin", typist)
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "typed.mat")
        argv = ["play", "--opponent", "human", "--seed", str(seed), "--no-board", "--save", path]
        status, out, err = run(capsys, *argv, *options)
        assert status == 0, err
        saves.check()
        assert_reloads(typist.session.match, saves.records[path])
        tell_kinds(typist.session.match)


@pytest.mark.parametrize(
    "name",
    ["a\nb", "\u2028", "x\x00", "\ud800", "", " "],
)
def test_names_a_record_cannot_hold_are_one_clear_line(monkeypatch, capsys, name):
    status, _, err = run(capsys, "play", f"--name={name}", stdin="", monkeypatch=monkeypatch)
    check_exit(status, err)
    assert status == 2 and "--name: a player name must" in err
