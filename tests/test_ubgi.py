"""UBGI: a scripted session in-process, then a whole game through the pipe."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from evaluators import FixedEvaluator

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.evaluation.search import PipCountEvaluator
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import (
    BEAVERED,
    DOUBLED,
    OPENING,
    OVER,
    RACCOONED,
    TO_MOVE,
    TO_ROLL,
    GameSettings,
)
from tdgammon.engine.formats.match_id import position_to_gnubg
from tdgammon.engine.formats.move_matching import match_move
from tdgammon.engine.formats.notation import parse_move
from tdgammon.engine.formats.xgid import position_from_xgid, position_to_xgid
from tdgammon.engine.interfaces.ubgi import UbgiEngine
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.rules.board import board_from_points, starting_board
from tdgammon.engine.rules.position import Position

REPO = Path(__file__).resolve().parents[1]


def session(
    lines: list[str], evaluator=None, err: io.StringIO | None = None, raccoons: bool = False
) -> list[str]:
    """Run the engine on ``lines``; return what it wrote, line by line (the reasons
    of its ``sorry`` answers go to ``err``)."""
    agent = CubeAgent(evaluator or PipCountEvaluator(), plies=0)
    engine = UbgiEngine(agent, err=err, raccoons=raccoons)
    out = io.StringIO()
    assert engine.run(iter(line + "\n" for line in lines), out) == 0
    return out.getvalue().split("\n")[:-1]


def xgid(board=None, dice=None, **fields) -> str:
    board = starting_board() if board is None else board
    return position_to_xgid(Position(board=board, dice=dice, **fields))


def check_plain_move(board, dice, answer: str) -> None:
    """The answer is a legal play written the UBGI way: single-die steps, no ``*``."""
    assert "*" not in answer and "(" not in answer
    play = match_move(board, dice, answer)
    steps = parse_move(answer)
    assert len(steps) == len(play.moves)  # every partial move written out
    die_values = set(dice)
    for source, target in steps:
        distance = source - target
        assert distance in die_values or target == 0  # a bear-off may use a larger die


def test_handshake():
    out = session(["ubgi"])
    assert out[0] == "id name tdgammon"
    assert out[1].startswith("id author ") and out[2].startswith("id version ")
    assert out[3] == "readyok" and len(out) == 4


def test_scripted_session():
    opening = starting_board()
    # bear-off: 66 takes all four checkers off
    bearing = board_from_points({1: 2, 2: 2}, {6: 5, 5: 5, 4: 5})
    # on the bar against a closed board: no legal move
    closed = board_from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    # on the bar with the board open: must enter first
    entering = board_from_points({25: 1, 6: 5, 8: 3, 13: 5, 24: 1}, {6: 5, 8: 3, 13: 5, 24: 2})
    lines = [
        "ubgi",
        xgid(opening, (5, 2)),
        xgid(opening, (6, 6)),
        xgid(bearing, (6, 6)),
        xgid(closed, (6, 4)),
        xgid(entering, (3, 1)),
        "this is not a position",
        "XGID=garbage",
        "",
        "stop",
        xgid(opening, (3, 1)).replace("XGID=", ""),  # prefix optional
        "quit",
        xgid(opening, (4, 2)),  # never answered
    ]
    out = session(lines)
    assert out[:4] == ["id name tdgammon", out[1], out[2], "readyok"]
    answers = out[4:]
    assert len(answers) == 8
    check_plain_move(opening, (5, 2), answers[0])
    check_plain_move(opening, (6, 6), answers[1])
    assert len(answers[1].split()) == 4  # doubles written out
    assert answers[2] == "2/off 2/off 1/off 1/off"
    assert answers[3] == ""  # no legal move: an empty line
    assert answers[4].startswith("bar/")
    check_plain_move(entering, (3, 1), answers[4])
    assert answers[5] == "sorry" and answers[6] == "sorry"
    check_plain_move(opening, (3, 1), answers[7])


def test_fibs_board_is_accepted():
    fibs = (
        "board:You:Opp:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
        "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
    )
    (answer,) = session([fibs])
    assert answer and answer != "sorry"
    assert all(len(step.split("/")) == 2 for step in answer.split())


def test_cube_decisions():
    money = xgid()
    offered = xgid(double_offered=True)
    assert session([money, offered], FixedEvaluator([0.72, 0, 0, 0, 0])) == ["double", "take"]
    assert session([money, offered], FixedEvaluator([0.85, 0, 0, 0, 0])) == ["double", "drop"]
    assert session([money], FixedEvaluator([0.5, 0.1, 0, 0.1, 0])) == ["roll"]
    beaver = xgid(double_offered=True, beavers=True)
    assert session([beaver], FixedEvaluator([0.3, 0, 0, 0, 0])) == ["beaver"]
    # the cube on the other side: just roll
    theirs = xgid(cube_value=2, cube_owner="opponent")
    assert session([theirs], FixedEvaluator([0.8, 0, 0, 0, 0])) == ["roll"]
    # a bad double beavered (2 -> 4): the taker would rather take than let the
    # doubler refuse at -2 (DT = -2.76)
    awful = FixedEvaluator([0.1, 0.03, 0, 0.5, 0.04])
    assert session([beaver], awful) == ["take"]


# docs/rules.md 5: the answers to a beaver and to a raccoon. The player on roll
# (the bottom player, X) doubled; O beavered. The position is as GNU Backgammon
# keeps it (cube 2, O's) and as XGID dice B writes it:
#
#   XGID ...:1:-1:1:B:...   X answers: take (accept, 4), drop (refuse, -2), raccoon
#   XGID ...:2:-1:1:R:...   X raccooned (cube 4, O's); O answers: take (8) or drop (-4)
BEAVERED_XGID = xgid(cube_value=2, cube_owner="opponent", double_offered=True, beaver_stage=1)
RACCOONED_XGID = xgid(cube_value=4, cube_owner="opponent", double_offered=True, beaver_stage=2)


@pytest.mark.parametrize(
    "win, answer, with_raccoons",
    [(0.2, "drop", "drop"), (0.4, "take", "raccoon"), (0.6, "take", "raccoon")],
)
def test_answers_to_a_beaver(win, answer, with_raccoons):
    assert ":B:" in BEAVERED_XGID
    evaluator = FixedEvaluator([win, 0, 0, 0, 0])
    assert session([BEAVERED_XGID], evaluator) == [answer]
    assert session([BEAVERED_XGID], evaluator, raccoons=True) == [with_raccoons]
    # the same state as a GNU Backgammon ID: the decision bit says "the doubler"
    gnubg = position_to_gnubg(position_from_xgid(BEAVERED_XGID))
    assert session([gnubg], evaluator) == [answer]


@pytest.mark.parametrize("win, answer", [(0.6, "take"), (0.7, "drop")])
def test_answers_to_a_raccoon(win, answer):
    assert ":R:" in RACCOONED_XGID
    evaluator = FixedEvaluator([win, 0, 0, 0, 0])
    assert session([RACCOONED_XGID], evaluator) == [answer]
    assert session([position_to_gnubg(position_from_xgid(RACCOONED_XGID))], evaluator) == [answer]


def test_a_bad_line_is_sorry_with_the_reason_on_stderr():
    err = io.StringIO()
    finished = xgid(board_from_points({}, {6: 15}), cube_value=1)
    lines = ["XGID=garbage", "nonsense", finished, "ubgi"]
    out = session(lines, err=err)
    assert out[:3] == ["sorry"] * 3 and out[3] == "id name tdgammon"
    reasons = err.getvalue().splitlines()
    assert len(reasons) == 3 and all(r.startswith("ubgi: sorry: ") for r in reasons)
    assert "XGID" in reasons[0] and "'nonsense'" in reasons[1]
    assert "over" in reasons[2]


@pytest.mark.parametrize(
    "fields",
    [{"dice": (5, 2)}, {"dice": (6, 6)}, {"double_offered": True}, {}],
    ids=["roll", "double", "pending double", "before rolling"],
)
@pytest.mark.parametrize("done", ["mover", "opponent"])
def test_a_finished_game_is_sorry_whatever_the_decision(fields, done):
    """docs/formats.md: no play and no cube action once a side has borne off every checker."""
    board = board_from_points({6: 15}, {}) if done == "opponent" else board_from_points({}, {6: 15})
    err = io.StringIO()
    assert session([xgid(board, **fields), "isready"], err=err) == ["sorry", "readyok"]
    assert err.getvalue().startswith("ubgi: sorry: the game is over: ")


def test_lines_that_are_not_utf8_are_sorry_and_the_session_goes_on():
    err = io.StringIO()
    engine = UbgiEngine(CubeAgent(PipCountEvaluator(), plies=0), err=err)
    out = io.StringIO()
    lines = [b"\xff\xfe\n", b"isready\n", b"XGID=\xc3\n", xgid(dice=(5, 2)).encode() + b"\n"]
    assert engine.run(iter(lines), out) == 0
    sorry, ready, sorry_again, play = out.getvalue().split("\n")[:-1]
    assert (sorry, ready, sorry_again) == ("sorry", "readyok", "sorry")
    check_plain_move(starting_board(), (5, 2), play)
    assert err.getvalue().splitlines() == [
        "ubgi: sorry: the line is not UTF-8 text (byte 0xff at column 1)",
        "ubgi: sorry: the line is not UTF-8 text (byte 0xc3 at column 6)",
    ]


def test_console_script_reads_bytes_under_a_strict_utf8_locale(tiny_model):
    """Standard input is read as bytes, so one bad line cannot stop the engine."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tdgammon.engine.interfaces.cli",
            "ubgi",
            "--model",
            str(tiny_model),
        ],
        input=b"\xe9t\xe9\nisready\n\xed\xa0\x80\nisready\n",
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict"},
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stdout.decode().splitlines() == ["sorry", "readyok", "sorry", "readyok"]
    assert proc.stderr.decode().count("is not UTF-8 text") == 2


class Broken:
    name = "broken"

    def evaluate(self, boards):
        raise RuntimeError("boom")


def test_an_internal_error_is_not_answered_sorry():
    """A bug is not bad input: it propagates instead of being hidden behind ``sorry``."""
    err = io.StringIO()
    with pytest.raises(RuntimeError, match="boom"):
        session([xgid(), "ubgi"], Broken(), err=err)
    assert err.getvalue() == ""


def test_cli_ubgi_internal_error_exits_3_with_one_line(monkeypatch, capsys):
    from tdgammon.engine.interfaces import cli_analysis
    from tdgammon.engine.interfaces.cli import main

    monkeypatch.setattr(cli_analysis, "load_search", lambda model=None: Broken())
    monkeypatch.setattr("sys.stdin", io.StringIO("XGID=garbage\n" + xgid() + "\nubgi\n"))
    monkeypatch.delenv("TDGAMMON_DEBUG", raising=False)
    status = main(["ubgi"])
    out, err = capsys.readouterr()
    assert status == 3 and out == "sorry\n"  # answered up to the bug, then stopped
    first, second = err.splitlines()
    assert first.startswith("ubgi: sorry: ")
    assert second.startswith("tdgammon: internal error (please report it): RuntimeError: boom")
    assert "--debug" in second and "Traceback" not in err
    monkeypatch.setattr("sys.stdin", io.StringIO(xgid() + "\n"))
    assert main(["--debug", "ubgi"]) == 3
    assert "Traceback" in capsys.readouterr().err


# --------------------------------------------------------------------- the pipe


class Pipe:
    def __init__(self, model: Path) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tdgammon.engine.interfaces.cli",
                "ubgi",
                "--model",
                str(model),
                "--plies",
                "0",
            ],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def ask(self, line: str, answers: int = 1) -> list[str]:
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return [self.process.stdout.readline().rstrip("\n") for _ in range(answers)]

    def close(self) -> int:
        self.process.stdin.write("quit\n")
        self.process.stdin.flush()
        return self.process.wait(timeout=10)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    from tdgammon.models.network import PRESETS, build_network, save_model

    path = tmp_path_factory.mktemp("ubgi") / "tiny.pt"
    save_model(path, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=3))
    return path


def _play_through_pipe(pipe: Pipe, game: Game) -> dict:
    counts = {"moves": 0, "cube": 0}
    while game.phase == OPENING:  # ties roll again
        game.opening_roll()
    while game.phase != OVER:
        assert counts["moves"] < 2000, "runaway game"
        position = game.position()
        text = position_to_xgid(position)
        (answer,) = pipe.ask(text)
        if game.phase == TO_ROLL:
            assert answer in ("double", "roll"), (text, answer)
            if answer == "double":
                assert game.may_double, text
                game.double()
                counts["cube"] += 1
            else:
                game.roll()
        elif game.phase in (DOUBLED, RACCOONED):
            allowed = ("take", "drop", "beaver") if game.phase == DOUBLED else ("take", "drop")
            assert answer in allowed, (text, answer)
            counts["cube"] += 1
            {"take": game.take, "drop": game.drop, "beaver": game.beaver}[answer]()
        elif game.phase == BEAVERED:
            assert answer in ("take", "drop", "raccoon"), (text, answer)
            counts["cube"] += 1
            {"take": game.take, "drop": game.drop, "raccoon": game.raccoon}[answer]()
        elif game.phase == TO_MOVE:
            assert answer != "sorry", text
            if answer:
                check_plain_move(game.board, game.dice, answer)
            else:
                assert all(not p.moves for p in legal_plays(game.board.tolist(), game.dice)), text
            game.play_text(answer)  # raises if illegal
            counts["moves"] += 1
        game.check_invariants()
    return counts


def test_full_game_through_the_pipe(tiny_model):
    start = time.perf_counter()
    pipe = Pipe(tiny_model)
    try:
        hello = pipe.ask("ubgi", 4)
        assert hello[0] == "id name tdgammon" and hello[3] == "readyok"
        assert pipe.ask("nonsense") == ["sorry"]  # and the reason on stderr
        finished_by_bear_off = False
        cube_answers = 0
        for seed in range(6):
            game = Game(GameSettings(beavers=True), rng=np.random.default_rng(seed))
            counts = _play_through_pipe(pipe, game)
            cube_answers += counts["cube"]
            if game.result.ended_by == "bear-off":
                finished_by_bear_off = True
                assert counts["moves"] > 10
                break
        assert finished_by_bear_off
        assert cube_answers > 0  # doubles were offered and answered through the pipe
        assert pipe.close() == 0
    finally:
        if pipe.process.poll() is None:
            pipe.process.kill()
    assert pipe.process.stderr.read().splitlines() == [
        "ubgi: sorry: 'nonsense' is not an XGID, GNU Backgammon ID or FIBS board"
    ]
    assert time.perf_counter() - start < 60
