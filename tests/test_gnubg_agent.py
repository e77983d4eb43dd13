"""GNU Backgammon as an optional benchmark opponent (tdgammon.engine.players.gnubg_agent).

The tests that need the bindings skip without them (``pytest.importorskip``);
the ones about the spec, the variant and the missing package run everywhere.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.formats.position_id import encode_position_id
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.players.factory import make_agent
from tdgammon.engine.players.gnubg_agent import GnubgAgent, gnubg_board, spec_plies
from tdgammon.engine.rules.board import MOVER_BAR, MOVER_OFF, board_from_points, flip
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.outputs import LOSE_GAMMON, WIN, WIN_BACKGAMMON, WIN_GAMMON

SEED = int(os.environ.get("TDGAMMON_TEST_SEED", "20261129"))
REPO = Path(__file__).resolve().parents[1]
START_ID = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def gnubg():
    return pytest.importorskip("gnubg")


@pytest.fixture(scope="module")
def agent(gnubg):
    return GnubgAgent()


@pytest.fixture(scope="module")
def sample():
    """Boards and rolls of whole random games: hits (bar) and bear-offs among them."""
    return random_game_positions(400, np.random.default_rng(SEED), parallel_games=4)


# ---------------------------------------------------------------- no bindings needed


def test_the_spec_names_the_depth():
    assert spec_plies("gnubg") == 0 and spec_plies("gnubg:0") == 0 and spec_plies("gnubg:2") == 2
    with pytest.raises(FormatError, match="gnubg:PLIES"):
        spec_plies("gnubg:one")
    with pytest.raises(TdgammonError, match="plies must be 0-3"):
        spec_plies("gnubg:4")


def test_gnubg_plays_standard_backgammon_only():
    with pytest.raises(TdgammonError, match="standard backgammon here, not dutch"):
        make_agent("gnubg", variant="dutch")


def test_without_the_bindings_one_line_says_how_to_install_them(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "gnubg", None)  # import gnubg -> ImportError
    with pytest.raises(TdgammonError, match=r"pip install 'tdgammon\[gnubg\]'$"):
        make_agent("GNUBG:1")
    argv = ["bench", "strength", "--model", "pubeval", "--opponent", "gnubg", "--games", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [
        "tdgammon: error: player 'gnubg' needs GNU Backgammon's Python bindings: "
        "pip install 'tdgammon[gnubg]'"
    ]


def test_only_the_gnubg_player_imports_the_bindings():
    """Training, evaluation and analysis never import gnubg (issue 12)."""
    importers = {
        path.relative_to(REPO).as_posix()
        for folder in ("engine", "models", "train", "tdgammon")
        for path in (REPO / folder).rglob("*.py")
        if "import gnubg" in path.read_text()
    }
    assert importers == {"engine/players/gnubg_agent.py"}


# ---------------------------------------------------------------- the board conversion


def test_the_starting_position_converts_and_is_even(gnubg, agent):
    board = board_from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert gnubg_board(board) == gnubg.positionfromid(START_ID)
    probs = agent.evaluate(board[None])[0]
    assert probs[WIN] == pytest.approx(0.5, abs=0.05)


def test_bars_and_borne_off_checkers_land_in_their_slots(gnubg):
    """Mover (on roll): 1 on the bar, 14 on its 6-point. Opponent: 2 on the bar,
    12 on its ace point, 1 borne off. Each side's slots are its own numbering."""
    board = board_from_points({25: 1, 6: 14}, {25: 2, 1: 12})
    opponent, mover = gnubg_board(board)
    assert mover == (0,) * 5 + (14,) + (0,) * 18 + (1,)
    assert opponent == (12,) + (0,) * 23 + (2,)
    assert gnubg.positionid((opponent, mover)) == encode_position_id(board)


def test_random_positions_convert_as_gnubg_reads_their_position_ids(gnubg, sample):
    boards, _ = sample
    assert (boards[:, MOVER_BAR] > 0).any() and (boards[:, MOVER_OFF] > 0).any()
    for board in boards:
        assert gnubg.positionid(gnubg_board(board)) == encode_position_id(board)


def test_the_player_on_roll_is_the_mover(agent):
    """14 borne off against none: the roller wins a gammon for sure. The other way
    round the roller cannot win, and saves the gammon with a 6 or two dice that
    make 6 (17 of 36 rolls)."""
    ahead = board_from_points({1: 1}, {6: 15})
    probs = agent.evaluate(np.stack([ahead, flip(ahead)]))
    assert probs[0, WIN] == pytest.approx(1.0) and probs[0, WIN_GAMMON] == pytest.approx(1.0)
    assert probs[0, WIN_BACKGAMMON] == pytest.approx(0.0)
    assert probs[1, WIN] == pytest.approx(0.0)
    assert probs[1, LOSE_GAMMON] == pytest.approx(19 / 36, abs=1e-5)


def test_a_checker_on_the_bar_against_a_closed_board(agent):
    """The roller has a closed board and the race; the opponent is on the bar."""
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3}
    board = board_from_points(closed, {25: 1, 6: 14})
    probs = agent.evaluate(np.stack([board, flip(board)]))
    assert probs[0, WIN] > 0.95 and probs[1, WIN] < 0.05


# ---------------------------------------------------------------- checker play


def test_its_0ply_play_has_gnubg_s_best_score(gnubg, agent, sample):
    """Our best play per position is worth what gnubg's own 0-ply move list says
    its best is worth (its scores are cubeless money equities, mover's view)."""
    boards, dice = sample[0][::5], sample[1][::5]
    moves = generate_moves(boards, dice)
    rows = agent.choose_plays(boards, dice, moves)
    ours = agent.play_equities(moves.boards[rows])
    context = gnubg.evalcontext(0, 0, 1, 1, 0.0)
    for board, roll, equity, row in zip(boards, dice, ours, rows, strict=True):
        if moves.moves[row, 0, 0] < 0:  # no legal play: the turn passes
            continue
        listed = gnubg.find_best_moves(gnubg_board(board), gnubg.cubeinfo(), context, tuple(roll))
        assert equity == pytest.approx(listed[0]["score"], abs=1e-5)


def test_deeper_plays_are_best_at_their_depth(gnubg, sample):
    """At 1-ply the choice is worth at least the 0-ply choice, both valued at 1-ply."""
    deep = make_agent("gnubg:1")
    assert isinstance(deep, GnubgAgent) and deep.name == "gnubg-1ply"
    boards, dice = sample[0][::40], sample[1][::40]
    moves = generate_moves(boards, dice)
    rows = deep.choose_plays(boards, dice, moves)
    greedy = GnubgAgent().choose_plays(boards, dice, moves)
    assert (moves.parents[rows] == np.arange(len(boards))).all()
    at_one = deep.play_equities(moves.boards[np.concatenate([rows, greedy])], 1)
    assert (at_one[: len(rows)] >= at_one[len(rows) :] - 1e-6).all()


def test_bench_strength_plays_gnubg(gnubg):
    from tdgammon.train.evaluate import strength

    summary, text = strength("pubeval", "gnubg", 4, SEED, 1)
    assert summary["b"] == "gnubg" and summary["games"] == 4
    assert "pubeval vs gnubg" in text
