"""Training and evaluation of the variants: targets, extra rolls, smoke run, bench."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tdgammon.engine.evaluation.evaluator import NetworkAgent, NetworkEvaluator, load_evaluator
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.players.agents import RandomAgent
from tdgammon.engine.players.duel import play_duel
from tdgammon.engine.players.heuristic import HeuristicAgent
from tdgammon.engine.rules.board import MOVER_HAND, OPPONENT_OFF
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outcome import terminal_probs, variant_equity
from tdgammon.engine.rules.outputs import invert
from tdgammon.engine.rules.variants import get_variant
from tdgammon.models.network import PRESETS, build_network, load_model, save_model
from tdgammon.train.checkpoint import load_checkpoint
from tdgammon.train.evaluate import strength
from tdgammon.train.selfplay import SelfPlay, lambda_returns

TINY_DUTCH = {
    "model": {"preset": "tiny_hand", "variant": "dutch"},
    "eval": {"best_games": 2},
    "run": {"checkpoint_games": 12},
}


def test_acey_deucey_terminal_targets_and_equity():
    ad = get_variant("acey-deucey")
    board = np.zeros(30, dtype=np.int8)
    board[0] = 15  # the mover has borne off all 15
    board[OPPONENT_OFF] = -11  # the opponent 11: 4 checkers left
    board[3] = -4
    probs = terminal_probs(board[None, :], ad)
    np.testing.assert_allclose(probs[0], [1, 4 / 15, 0, 0, 0], rtol=1e-6)
    assert variant_equity(probs, ad)[0] == pytest.approx(4.0)
    assert variant_equity(invert(probs), ad)[0] == pytest.approx(-4.0)
    # standard scoring of the same board: a single game (the loser bore off some)
    std = terminal_probs(board[None, :], get_variant("standard"))
    np.testing.assert_allclose(std[0], [1, 0, 0, 0, 0])


def test_hypergammon_ends_at_three_checkers():
    hyper = get_variant("hypergammon")
    board = np.zeros(30, dtype=np.int8)
    board[0] = 3
    board[20] = -3  # the opponent has none off and sits in the winner's... its own side
    np.testing.assert_allclose(terminal_probs(board[None, :], hyper)[0], [1, 1, 0, 0, 0])


def test_lambda_returns_keep_the_view_on_an_extra_roll():
    v = np.array(
        [[[0.6, 0.1, 0, 0.1, 0], [0.3, 0.1, 0, 0.2, 0], [1, 0.2, 0, 0, 0]]], dtype=np.float32
    )
    lengths = np.array([3])
    same = np.array([[False, True, False]])  # ply 1's player also plays ply 2
    g = lambda_returns(v, lengths, 0.5, same)[0]
    np.testing.assert_allclose(g[2], v[0, 2])
    g1 = 0.5 * v[0, 1] + 0.5 * v[0, 2]  # no invert: same player
    np.testing.assert_allclose(g[1], g1, rtol=1e-6)
    g0 = 0.5 * v[0, 0] + 0.5 * invert(g1[None])[0]
    np.testing.assert_allclose(g[0], g0, rtol=1e-6)


@pytest.mark.parametrize("name", ["dutch", "acey-deucey", "hypergammon"])
def test_selfplay_in_a_variant(name):
    variant = get_variant(name)
    preset = PRESETS["tiny_hand"]
    evaluator = NetworkEvaluator(build_network(preset, seed=1), preset, "t", name)
    play = SelfPlay(8, np.random.default_rng(0), variant=name)
    np.testing.assert_array_equal(play.boards[0], variant.starting_board())
    extra = 0
    for _ in range(60):
        before = play.plies.copy()
        play.step(evaluator)
        extra += int(play.history_same[np.arange(8), np.maximum(before, 0)].sum())
        on = np.abs(play.boards[:, 1:]).sum(axis=1) + play.boards[:, 0]
        assert (on <= 2 * variant.checkers).all()
    if name != "acey-deucey":
        assert not play.history_same.any()
    state = play.state()
    again = SelfPlay(8, np.random.default_rng(0), variant=name)
    again.load_state(state)
    np.testing.assert_array_equal(
        again.history_same[:, : state["history_same"].shape[1]], state["history_same"]
    )


def test_acey_deucey_extra_roll_keeps_the_mover():
    # A 1-2 at the start: enter 1 and 2, then four of a named double, roll again.
    ad = get_variant("acey-deucey")
    preset = PRESETS["tiny_hand"]
    evaluator = NetworkEvaluator(build_network(preset, seed=1), preset, "t", ad)
    play = SelfPlay(1, np.random.default_rng(0), variant=ad)
    play.plies[:] = 1  # not the opening roll, so a 1-2 may come
    play._roll = lambda: np.array([[1, 2]], dtype=np.int8)
    play.step(evaluator)
    assert play.history_same[0, 1]
    assert play.boards[0, MOVER_HAND] == 15 - 6  # still the same player's view


def test_variant_duel_scores_by_the_variant():
    result = play_duel(
        HeuristicAgent("acey-deucey"), RandomAgent(seed=2), 2, 4, variant="acey-deucey"
    )
    assert result.games == 2 and np.all(
        (np.abs(result.points) >= 1) & (np.abs(result.points) <= 15)
    )
    assert result.points.max() > 3  # checkers-left scoring, not 1-3


def test_train_a_dutch_network_resume_and_bench(tmp_path, capsys, tiny_config):
    run_dir = tmp_path / "run"
    assert main(["train", "--config", str(tiny_config(run_dir, **TINY_DUTCH))]) == 0
    first = load_checkpoint(run_dir / "checkpoint.pt")
    assert first["config"]["model"]["variant"] == "dutch"
    assert first["counters"]["games"] >= 24
    metrics = [
        json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().split("\n") if line
    ]
    assert "ppg_vs_heuristic" in metrics[0] and "ppg_vs_pubeval" not in metrics[0]
    _, _, card = load_model(run_dir / "best.pt")
    assert card["variant"] == "dutch" and "ppg_vs_heuristic" in card

    assert main(["train", "--resume", str(run_dir), "--set", "run.max_games=40"]) == 0
    second = load_checkpoint(run_dir / "checkpoint.pt")
    assert second["counters"]["games"] >= 40 > first["counters"]["games"]
    assert second["counters"]["steps"] > first["counters"]["steps"]
    assert main(["train", "--resume", str(run_dir), "--set", 'model.variant="standard"']) == 2
    assert "[model]" in capsys.readouterr().err  # the variant of a run is fixed

    evaluator = load_evaluator(run_dir / "checkpoint.pt")
    assert evaluator.variant.name == "dutch"
    # bench strength: variant from the card, reproducible with the same seed
    model = str(run_dir / "best.pt")
    capsys.readouterr()
    args = [
        "bench",
        "strength",
        "--model",
        model,
        "--opponent",
        "heuristic",
        "--games",
        "4",
        "--seed",
        "9",
        "--json",
    ]
    assert main(args) == 0
    a = json.loads(capsys.readouterr().out)
    assert main(args + ["--variant", "dutch"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a["variant"] == b["variant"] == "dutch"
    assert (a["ppg"], a["win_rate"]) == (b["ppg"], b["win_rate"])
    assert main(args[:-1] + ["--variant", "standard"]) == 2  # a dutch model plays dutch only
    with pytest.raises(TdgammonError, match="pubeval"):
        strength(model, "pubeval", 2, 1, 1)
    assert (
        main(
            [
                "bench",
                "strength",
                "--model",
                model,
                "--opponent",
                "random",
                "--games",
                "2",
                "--threads",
                "1",
            ]
        )
        == 0
    )
    assert "(dutch)" in capsys.readouterr().out


def test_standard_runs_are_unchanged_by_the_variant_field(tmp_path):
    # A standard model has no variant in its card and plays standard.
    path = tmp_path / "m.pt"
    save_model(path, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=1))
    assert load_evaluator(path).variant.name == "standard"
    torch.set_num_threads(1)
    agent = NetworkAgent(load_evaluator(path))
    summary, text = strength(str(path), "random", 2, 1, 1)
    assert summary["variant"] == "standard" and "(standard)" not in text
    assert agent.evaluator.variant.checkers == 15


@pytest.mark.parametrize("name", ["nackgammon", "hypergammon", "dutch", "acey-deucey"])
def test_shipped_variant_models_load_and_play_their_variant(name):
    from tdgammon.models import shipped_model

    path = shipped_model(name)
    if not path.is_file():
        pytest.skip(f"{path.name} not shipped")
    torch.set_num_threads(1)
    preset, _, card = load_model(path)
    assert card["variant"] == name and preset.encoding == "raw_hand"
    strength = {(row["opponent"], row["plies"]): row["ppg"] for row in card["strength"]}
    assert strength["random", 0] > 0 and strength["heuristic", 0] > 0
    evaluator = load_evaluator(path)
    assert evaluator.variant.name == name
    result = play_duel(NetworkAgent(evaluator), RandomAgent(seed=0), 4, 1, variant=name)
    assert result.games == 4 and result.ppg > 0
