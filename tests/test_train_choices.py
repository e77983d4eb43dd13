"""tdgammon bench choices: two players' plays on the same decisions, valued by a
judge (tdgammon.train.choices), with small networks as players and judges."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
from cli_runner import run

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.evaluation.evaluator import load_evaluator
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.players.agents import PubevalAgent
from tdgammon.engine.rules.errors import FormatError
from tdgammon.models.network import build_network, get_preset, save_model
from tdgammon.train.choices import Judge, _unforced, decision_sample, judged_gains, parse_judge

TINY = get_preset("tiny")


@pytest.fixture(scope="module")
def tiny_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("choices") / "tiny.pt"
    save_model(path, TINY, build_network(TINY, seed=4), {"variant": "standard"})
    return path


@pytest.fixture(scope="module")
def sample():
    return decision_sample(200, seed=3)


def test_a_player_judged_by_its_own_evaluation_never_loses(tiny_file, sample):
    """Judged by the search it plays with (0-ply, bear-offs from the databases), a
    player's play is the judge's best: it gains wherever it differs, never loses."""
    boards, dice = sample
    player = CubeAgent(load_evaluator(tiny_file), 0)
    judge = Judge(f"{tiny_file}:0")
    gain, differ, unforced = judged_gains(player, PubevalAgent(), judge, boards, dice)
    assert differ.sum() > 20 and (differ <= unforced).all()
    assert (gain >= -1e-6).all() and gain[differ].mean() > 0.01
    assert (gain[~differ] == 0).all()
    # the other way round, the same decisions with the sign turned
    back, back_differ, _ = judged_gains(PubevalAgent(), player, judge, boards, dice)
    np.testing.assert_array_equal(back_differ, differ)
    np.testing.assert_allclose(back, -gain, atol=1e-6)  # float32 batches


def test_a_deeper_judge_values_plays_by_its_search(tiny_file, sample):
    boards, dice = sample
    judge = Judge(f"{tiny_file}:1")
    moves = generate_moves(boards[:5], dice[:5])
    expected = judge._search.score(judge._search.play_probabilities(moves.boards, 1))
    np.testing.assert_allclose(judge.equities(moves.boards), expected)
    assert judge.name == "tiny-1ply"


def test_forced_decisions_are_those_with_one_distinct_result(sample):
    boards, dice = sample
    moves = generate_moves(boards, dice)
    unforced = _unforced(moves, len(boards))
    for i in range(len(boards)):
        distinct = {bytes(b) for b in moves.boards[moves.parents == i]}
        assert unforced[i] == (len(distinct) >= 2)


def test_sample_is_fixed_by_the_seed():
    a, b = decision_sample(50, seed=8), decision_sample(50, seed=8)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert ((a[1] >= 1) & (a[1] <= 6)).all()


def test_positions_come_from_the_baseline_network(tiny_file):
    """Player B's network plays the sample's games; without one, the shipped net."""
    mine = decision_sample(40, seed=3, evaluator=load_evaluator(tiny_file))[0]
    shipped = decision_sample(40, seed=3)[0]
    assert mine.shape == shipped.shape and not np.array_equal(mine, shipped)


def test_judge_specs():
    assert parse_judge("gnubg:2") == ("gnubg", 2)
    assert parse_judge("gnubg") == ("gnubg", 0)
    assert parse_judge("runs/a:b/model.pt") == ("runs/a:b/model.pt", 0)
    with pytest.raises(FormatError, match="plies must be"):
        parse_judge("network:7")
    with pytest.raises(FormatError, match="a judge is"):
        Judge("pubeval:1")


def test_command_reports_gain_and_classes(tiny_file, capsys):
    argv = ["bench", "choices", "--model", str(tiny_file), "--opponent", "pubeval"]
    code, out, err = run(capsys, *argv, "--judge", f"{tiny_file}:0", "--sample", "120", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["gain"] > 0 and summary["decisions"] <= 120
    assert set(summary["classes"]) == {"contact", "crashed", "race"}
    assert sum(c["decisions"] for c in summary["classes"].values()) == summary["decisions"]


def test_both_players_may_search(tiny_file, capsys):
    """--opponent-plies: player B searches too; the same network at the same depth on
    both sides chooses the same plays, and a depth for a player without a network
    is refused in one line."""
    argv = ["bench", "choices", "--model", str(tiny_file), "--opponent", str(tiny_file)]
    judge = ("--judge", f"{tiny_file}:0", "--sample", "40", "--json")
    code, out, err = run(capsys, *argv, "--plies", "1", "--opponent-plies", "1", *judge)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["opponent"] == "tiny-1ply" and summary["decisions"] > 0
    assert summary["gain"] == 0 and summary["differ"] == 0
    code, out, err = run(capsys, *argv, "--opponent-plies", "1", *judge)
    assert code == 0, err
    assert json.loads(out)["differ"] > 0  # 0-ply against 1-ply: some plays change
    code, _, err = run(capsys, *argv[:4], "--opponent", "pubeval", "--opponent-plies", "1", *judge)
    assert code == 2 and "--opponent-plies is for a network" in err and err.count("\n") == 1


def test_gnubg_judge_without_the_bindings_is_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "gnubg", None)  # import gnubg -> ImportError
    code, _, err = run(capsys, "bench", "choices", "--sample", "10", "--judge", "gnubg:2")
    assert code == 2 and "pip install 'tdgammon[gnubg]'" in err and err.count("\n") == 1
