"""``tdgammon play`` through its scripted stdin path, and ``tdgammon match``."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest

from tdgammon.engine.flow.game_records import TO_MOVE
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.flow.matfile import load_mat
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.players.agents import PubevalAgent
from tdgammon.engine.players.cube_actions import bot_step


def pubeval_script(seed: int, settings: MatchSettings, human_seat: int = 0) -> list[str]:
    """The moves pubeval would type for ``human_seat`` in the game the CLI will deal.

    The CLI's dice come from ``Match(seed=seed)``; a human whose cube is not
    available rolls automatically and passes automatically, exactly like the
    bots here, so the same dice fall in the same order.
    """
    match = Match(settings, seed=seed)
    agents = [PubevalAgent(), PubevalAgent()]
    lines = []
    game = match.game
    while not game.is_over:
        if game.phase == TO_MOVE and game.turn == human_seat and game.can_play():
            board = game.board.copy()
            bot_step(game, agents)
            lines.append(format_move(board, list(game.history[-1].moves)))
        else:
            bot_step(game, agents)
    return lines


def run_cli(monkeypatch, capsys, argv: list[str], stdin: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_scripted_game_is_completed_and_saved(monkeypatch, capsys, tmp_path):
    seed = 12
    script = pubeval_script(seed, MatchSettings(cube=False, max_games=1))
    path = tmp_path / "game.mat"
    # a bad line first: it is explained and the prompt comes again
    stdin = "13/1 bar/off\n" + "\n".join(script) + "\n"
    status, out, err = run_cli(
        monkeypatch,
        capsys,
        ["play", "--opponent", "pubeval", "--seed", str(seed), "--cubeless", "--save", str(path)],
        stdin,
    )
    assert status == 0, err
    assert "illegal play" in out or "not a legal" in out or "is not" in out
    assert ("wins a" in out or "you win a" in out) and "The session is over." in out
    assert "Match saved to" in out and "+13-14-15" in out  # the board was drawn
    assert "you play" in out and "pubeval plays" in out and "you plays" not in out
    loaded = load_mat(path)
    game = loaded.match.game
    assert game.is_over and loaded.match.names == ("you", "pubeval")
    assert sum(loaded.match.scores) == game.result.points


def test_scripted_match_with_cube_and_resignation(monkeypatch, capsys, tmp_path):
    path = tmp_path / "m.mat"
    # the bot is seat 1; "roll"/"double" prompts appear only when the cube is available.
    stdin = "\n".join(["double", "24/1", "help", "resign gammon", "resign", "resign 1"]) + "\n"
    status, out, err = run_cli(
        monkeypatch,
        capsys,
        ["play", "--opponent", "pubeval", "--seed", "3", "--length", "1", "--save", str(path)],
        stdin,
    )
    assert status == 0, err
    assert "Commands:" in out or "Session stopped." in out
    assert path.exists()
    load_mat(path)  # whatever happened, the file reads back


def test_end_of_input_saves_a_game_in_progress(monkeypatch, capsys, tmp_path):
    path = tmp_path / "partial.mat"
    status, out, _ = run_cli(
        monkeypatch,
        capsys,
        ["play", "--opponent", "random", "--seed", "4", "--save", str(path), "--no-board"],
        "",
    )
    assert status == 0 and "Session stopped." in out and "Match saved" in out
    loaded = load_mat(path)
    assert not loaded.match.game.is_over


def test_two_humans(monkeypatch, capsys):
    status, out, _ = run_cli(
        monkeypatch,
        capsys,
        ["play", "--opponent", "human", "--seed", "1", "--no-board"],
        "quit\n",
    )
    assert status == 0 and "another human" in out


def test_bad_options_give_one_line_errors(monkeypatch, capsys):
    for argv in (
        ["play", "--opponent", "chess"],
        ["play", "--length", "5", "--jacoby"],
        ["play", "--save", "x.txt"],
        ["match", "--games", "0"],
        ["match", "--a", "human"],
    ):
        status, out, err = run_cli(monkeypatch, capsys, argv, "")
        assert status == 2, argv
        assert err.startswith("tdgammon: error:") and err.count("\n") == 1, err


def test_match_command_money_cubeless(monkeypatch, capsys):
    status, out, _ = run_cli(
        monkeypatch,
        capsys,
        ["match", "--a", "pubeval", "--b", "random", "--games", "40", "--json"],
        "",
    )
    summary = json.loads(out)
    assert status == 0 and summary["games"] == 40 and summary["ppg"] > 1.0
    assert {"ci95", "win_rate", "gammon_rate", "backgammon_rate", "games_per_second"} <= set(
        summary
    )


def test_match_command_match_play(monkeypatch, capsys):
    status, out, _ = run_cli(
        monkeypatch,
        capsys,
        [
            "match",
            "--a",
            "pubeval",
            "--b",
            "random",
            "--games",
            "4",
            "--length",
            "3",
            "--seed",
            "2",
        ],
        "",
    )
    assert status == 0 and "matches to 3" in out and "pubeval won" in out


@pytest.mark.parametrize(
    ("options", "last"),
    [
        (["--length", "3", "--games", "3"], "4/4 matches"),  # matches, not their games
        (["--cube", "--games", "3"], "4/4 games"),
        (["--games", "3"], "4/4 games"),  # rounded up to duplicate pairs, as played
    ],
)
def test_match_progress_counts_what_games_counts(monkeypatch, capsys, options, last):
    argv = ["match", "--a", "pubeval", "--b", "random", "--seed", "2", "--progress", *options]
    status, _, err = run_cli(monkeypatch, capsys, argv, "")
    assert status == 0
    assert err.split("\r")[-1].strip().endswith(last), err


def test_duplicate_pairs_share_dice():
    from tdgammon.engine.players.duel import play_series

    class Recorder(PubevalAgent):
        def __init__(self):
            self.dice = []

        def choose_plays(self, boards, dice, moves):
            self.dice.append(tuple(np.asarray(dice)[0]))
            return super().choose_plays(boards, dice, moves)

    a, b = Recorder(), Recorder()
    a.name, b.name = "a", "b"
    result = play_series(a, b, 2, MatchSettings(cube=False), seed=5)
    assert result.games == 2


# ------------------------------------------------------------ hint without a network


def _no_shipped_network(monkeypatch, path) -> None:
    """The shipped standard network is ``path`` (missing or corrupt); no caches."""
    from tdgammon.engine.analysis import reports
    from tdgammon.engine.evaluation import evaluator

    monkeypatch.setattr("tdgammon.models.shipped_model", lambda variant="standard": path)
    monkeypatch.setattr(evaluator, "shipped_model", lambda variant="standard": path)
    monkeypatch.setattr(reports, "_SEARCHES", {})
    monkeypatch.setattr(evaluator, "_SHIPPED", {})


HINT_ARGV = ["play", "--opponent", "random", "--seed", "2", "--cubeless", "--no-board"]


def test_hint_says_why_when_the_model_is_missing(monkeypatch, capsys, tmp_path):
    _no_shipped_network(monkeypatch, tmp_path / "missing.pt")
    status, out, err = run_cli(monkeypatch, capsys, HINT_ARGV, "hint\nquit\n")
    assert status == 0 and err == ""
    assert "no network hint: " in out and "missing.pt is missing" in out
    assert "pubeval's top plays instead" in out


def test_hint_says_why_when_the_model_is_corrupt(monkeypatch, capsys, tmp_path):
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a model")
    _no_shipped_network(monkeypatch, corrupt)
    status, out, err = run_cli(monkeypatch, capsys, HINT_ARGV, "hint\nquit\n")
    assert status == 0 and err == ""
    assert "no network hint: " in out and "corrupt.pt: not a tdgammon model or checkpoint" in out


def test_a_bug_in_hint_is_an_internal_error_not_pubeval(monkeypatch, capsys, tmp_path):
    from tdgammon.engine.analysis import reports

    def broken(model=None, variant="standard"):
        raise RuntimeError("boom")

    monkeypatch.setattr(reports, "load_search", broken)
    monkeypatch.delenv("TDGAMMON_DEBUG", raising=False)
    path = tmp_path / "saved.mat"
    argv = HINT_ARGV + ["--save", str(path)]
    status, out, err = run_cli(monkeypatch, capsys, argv, "hint\nquit\n")
    assert status == 3 and "pubeval" not in out
    assert err.startswith("tdgammon: internal error (please report it): RuntimeError: boom")
    assert "Match saved" in out and path.exists()  # the session still saved the match


# ------------------------------------------------------------ beavers at the prompt


def first_move(seed: int, settings: MatchSettings) -> str:
    """A legal first play for whoever wins the opening roll ``Match(seed=seed)`` deals."""
    game = Match(settings, seed=seed).game
    while not game.opening_roll():
        pass
    pairs = [(int(a), int(b)) for a, b in game.legal_moves().moves[0] if a >= 0]
    return format_move(game.board, pairs)


TWO_HUMANS = ["play", "--opponent", "human", "--seed", "1", "--no-board", "--beavers"]
TWO_HUMANS += ["--name", "ann", "--opponent-name", "bob"]


def test_a_beaver_refused_at_the_prompt(monkeypatch, capsys, tmp_path):
    # docs/rules.md 5: one human doubles, the other beavers (takes at 2 and
    # redoubles to 4), the doubler refuses: the beaverer scores 2.
    #   bob (won the opening): <first move>    ann: double
    #   bob: beaver                            ann: roll (refused: answer first), drop
    path = tmp_path / "beaver.mat"
    stdin = [first_move(1, MatchSettings(beavers=True)), "double", "beaver", "roll", "drop"]
    argv = TWO_HUMANS + ["--save", str(path)]
    status, out, err = run_cli(monkeypatch, capsys, argv, "\n".join(stdin) + "\n")
    assert status == 0, err
    assert "the cube is offered at 2: take, drop, beaver?" in out
    assert "your double was beavered to 4: take, drop (lose 2)?" in out
    assert "not understood: 'roll'. Type take or drop." in out
    assert "ann refuses the beaver." in out and "bob wins a single game" in out
    assert "(double dropped): 2 points" in out and "The session is over." in out
    text = path.read_text()
    assert "Beavers => 4" in text and "Drops" in text and "Wins 2 points" in text
    loaded = load_mat(path)
    assert sum(loaded.match.scores) == 2 and loaded.match.game.result.ended_by == "drop"


def test_a_beaver_accepted_and_a_raccoon_at_the_prompt(monkeypatch, capsys):
    move = first_move(1, MatchSettings(beavers=True, raccoons=True))
    # accepted: play goes on at 4, the beaverer's cube
    stdin = "\n".join([move, "double", "beaver", "take", "quit"]) + "\n"
    status, out, _ = run_cli(monkeypatch, capsys, TWO_HUMANS, stdin)
    assert status == 0 and "ann accepts the beaver; the cube is at 4." in out
    # raccooned and refused by the beaverer: the doubler scores 4
    stdin = "\n".join([move, "double", "beaver", "raccoon", "drop"]) + "\n"
    argv = TWO_HUMANS + ["--raccoons"]
    status, out, _ = run_cli(monkeypatch, capsys, argv, stdin)
    assert status == 0
    assert "take, drop (lose 2), raccoon?" in out
    assert "your beaver was raccooned to 8: take, drop (lose 4)?" in out
    assert "bob refuses the raccoon." in out and "ann wins a single game (double dropped)" in out
    assert "(double dropped): 4 points" in out


def test_play_help_lists_beavers_and_acey_deucey_stakes(monkeypatch, capsys):
    monkeypatch.setattr("sys.argv", ["tdgammon"])
    try:
        main(["play", "--help"])
    except SystemExit as stop:
        assert stop.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--acey-deucey-stakes" in out and "the stake doubles each time a 1-2 is thrown" in out
    assert "drops (losing 2 on a cube of 1) or raccoons" in out


# ------------------------------------------------------------ Acey-Deucey stakes


def test_acey_deucey_stakes_option_is_refused_for_other_variants(monkeypatch, capsys):
    for command in (["play"], ["match"]):
        argv = command + ["--acey-deucey-stakes", "--variant", "nackgammon"]
        status, _, err = run_cli(monkeypatch, capsys, argv, "")
        assert status == 2 and err.count("\n") == 1
        assert "--acey-deucey-stakes is an Acey-Deucey rule" in err and "nackgammon" in err


def test_play_acey_deucey_with_stakes(monkeypatch, capsys, tmp_path):
    from test_variant_games import _script

    seed = 3
    settings = MatchSettings(max_games=1, variant="acey-deucey", acey_deucey_stakes=True)
    script = _script(seed, settings)
    path = tmp_path / "acey.mat"
    argv = ["play", "--variant", "acey-deucey", "--acey-deucey-stakes", "--opponent", "pubeval"]
    argv += ["--seed", str(seed), "--no-board", "--save", str(path)]
    status, out, err = run_cli(monkeypatch, capsys, argv, "\n".join(script) + "\n")
    assert status == 0, err
    assert "(the stake doubles on each 1-2)" in out and "The session is over." in out
    loaded = load_mat(path)
    game = loaded.match.game
    assert loaded.match.settings.acey_deucey_stakes and game.is_over
    assert game.stake >= 4 and game.result.points == game.stake * game.result.kind
    assert "A 1-2: the stake doubles to 2 (Acey-Deucey stakes)." in out
    assert f"at a stake of {game.stake}: {game.result.points} points" in out


def test_match_command_acey_deucey_stakes_plays_the_full_rules(monkeypatch, capsys):
    argv = ["match", "--variant", "acey-deucey", "--acey-deucey-stakes", "--a", "pubeval"]
    argv += ["--b", "heuristic", "--games", "2", "--json", "--seed", "1"]
    status, out, _ = run_cli(monkeypatch, capsys, argv, "")
    summary = json.loads(out)
    assert status == 0 and summary["games"] == 2


# ------------------------------------------------------------ adversarial review (issue 19)


def test_after_a_raccoon_the_doubler_must_roll(monkeypatch, capsys, tmp_path):
    # docs/rules.md 5: "A double is offered only at the start of one's own turn,
    # before rolling". ann doubles, bob beavers, ann raccoons, bob takes: the
    # cube is 8 and ann's, but her turn began with her double: she rolls at once.
    path = tmp_path / "raccoon.mat"
    move = first_move(1, MatchSettings(beavers=True, raccoons=True))
    stdin = [move, "double", "beaver", "raccoon", "take", "double", "quit"]
    argv = TWO_HUMANS + ["--raccoons", "--save", str(path)]
    status, out, err = run_cli(monkeypatch, capsys, argv, "\n".join(stdin) + "\n")
    assert status == 0, err
    assert "bob accepts the raccoon; the cube is at 8." in out
    after = out.split("the cube is at 8.")[1]
    assert after.lstrip().startswith("ann rolls")  # no second double: she rolled
    assert "the dice are already rolled" in after  # 'double' typed after the roll
    game = load_mat(path).match.game
    assert game.cube_value == 8 and game.cube_owner == 0 and not game.may_double


def test_a_game_resigned_before_its_first_move_is_saved_and_loads(monkeypatch, capsys, tmp_path):
    path = tmp_path / "r.mat"
    argv = ["play", "--seed", "2", "--no-board", "--opponent", "random", "--save", str(path)]
    status, out, err = run_cli(monkeypatch, capsys, argv, "resign backgammon\n")
    assert status == 0, err
    assert "wins a backgammon (resignation): 3 points" in out
    loaded = load_mat(path)
    assert loaded.match.scores == (0, 3) and loaded.match.game.result.ended_by == "resignation"


def test_automatic_doubles_are_saved_and_load(monkeypatch, capsys, tmp_path):
    # Match(seed=11) ties once on the opening roll: the cube goes to 2 (seat 0 then
    # wins the opening roll); seat 0 resigns a gammon at once: 4 points.
    path = tmp_path / "auto.mat"
    argv = TWO_HUMANS[:4] + ["11", "--no-board", "--auto-doubles", "2", "--save", str(path)]
    status, out, err = run_cli(monkeypatch, capsys, argv, "resign gammon\naccept\n")
    assert status == 0, err
    assert "Opening roll: a tie, roll again; the cube is now 2" in out
    text = path.read_text()
    assert "  1)  Doubles => 2\n" in text and "Wins 4 points" in text
    loaded = load_mat(path)
    assert loaded.match.scores == (0, 4) and loaded.match.game.cube_value == 2


def test_save_at_the_prompt_says_why_it_failed_and_play_goes_on(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Upper").mkdir()
    stdin = ["save /nonexistent/x.mat", "save notes.txt", "save Upper/Game.mat", "quit"]
    argv = ["play", "--seed", "2", "--no-board", "--opponent", "random"]
    status, out, err = run_cli(monkeypatch, capsys, argv, "\n".join(stdin) + "\n")
    assert status == 0 and err == ""
    assert "cannot save to '/nonexistent/x.mat': there is no folder '/nonexistent'" in out
    assert "the name must end in .mat: 'notes.txt'" in out
    assert "Match saved to Upper/Game.mat" in out  # the path's case is kept
    assert (tmp_path / "Upper" / "Game.mat").exists()
    assert not (tmp_path / "upper").exists() and not (tmp_path / "notes.txt").exists()
    assert "Session stopped." in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "--save", "/nonexistent/x.mat"], "there is no folder '/nonexistent'"),
        (["play", "--save", "notes.txt"], "the name must end in .mat"),
        (["play", "--name", "ann\nbob"], "--name: a player name must be printable text"),
        (["play", "--opponent", "human", "--opponent-name", "b\tc"], "--opponent-name: "),
        (["play", "--opponent", "human", "--opponent-name", ""], "must not be empty"),
        (["play", "--length", "30"], "longer than the match equity table (25 points)"),
        (["match", "--a", "network", "--length", "30"], "longer than the match equity table"),
        (["match", "--a", "x\n.pt"], "--a: a player name must be printable text"),
    ],
)
def test_bad_play_options_are_refused_before_playing(monkeypatch, capsys, argv, message):
    status, out, err = run_cli(monkeypatch, capsys, argv, "roll\n")
    assert status == 2 and "you roll" not in out
    assert err.startswith("tdgammon: error: ") and err.count("\n") == 1, err
    assert message in err


def test_a_save_into_a_folder_that_vanished_is_an_error_at_the_end(monkeypatch, capsys, tmp_path):
    from tdgammon.engine.interfaces.terminal import TerminalSession

    folder = tmp_path / "gone"
    folder.mkdir()
    argv = ["play", "--seed", "2", "--no-board", "--opponent", "random"]
    argv += ["--save", str(folder / "m.mat")]

    def read(session, prompt: str) -> str:
        folder.rmdir()  # checked before playing, gone by the end
        return "quit"

    monkeypatch.setattr(TerminalSession, "_read", read)
    status, out, err = run_cli(monkeypatch, capsys, argv, "")
    assert status == 2 and "Session stopped." in out
    assert err.startswith("tdgammon: error: cannot save to ") and "there is no folder" in err
    assert err.count("\n") == 1


def test_a_line_that_is_not_utf8_is_one_bad_line(monkeypatch, capsys, tmp_path):
    """Whatever the locale: the line is refused, the session goes on, and a file
    name with undecodable bytes (from the command line) is shown escaped."""
    path = tmp_path / "g\udcff.mat"  # the byte 0xff of a file name, as argv gives it
    stdin = io.TextIOWrapper(io.BytesIO(b"save g\xff.mat\nquit\n"), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    status = main(
        ["play", "--seed", "2", "--no-board", "--opponent", "random", "--save", str(path)]
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "that line is not UTF-8 text: b'save g\\xff.mat'" in out
    assert "Match saved to " in out and "g\\udcff.mat" in out
    assert os.path.exists(os.fsencode(path))


def test_play_offers_the_match_analysis(monkeypatch, capsys):
    # issue 14, item 4: the same code as tdgammon analyse, at the prompt and at the end
    move = first_move(1, MatchSettings(beavers=True))
    stdin = ["analyse", move, "analyse 0", "analyse 7", "quit"]
    status, out, err = run_cli(
        monkeypatch, capsys, TWO_HUMANS + ["--analyse", "0"], "\n".join(stdin) + "\n"
    )
    assert status == 0, err
    assert "nothing to analyse yet" in out
    assert "analyse takes a depth 0-3, got '7'" in out
    # twice: "analyse 0" at the prompt, then --analyse at the end of the session
    assert out.count("Checker decisions") == 2 and out.count("PR ") >= 2
