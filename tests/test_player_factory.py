"""tdgammon.engine.players.factory: one vocabulary and one meaning of plies for every command."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.evaluation.evaluator import NetworkAgent, NetworkEvaluator, default_evaluator
from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.players.agents import PubevalAgent, RandomAgent
from tdgammon.engine.players.factory import (
    NETWORK_NAMES,
    is_player_name,
    make_agent,
    network_player,
)
from tdgammon.engine.players.heuristic import HeuristicAgent
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.models import shipped_model
from tdgammon.models.network import PRESETS, ModelFileError, build_network, save_model

needs_shipped = pytest.mark.skipif(not shipped_model().is_file(), reason="no shipped model")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "tiny.pt"
    save_model(path, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=1))
    return path


def test_the_simple_players():
    assert isinstance(make_agent("pubeval"), PubevalAgent)
    assert isinstance(make_agent("Random", seed=3), RandomAgent)
    heuristic = make_agent("heuristic", variant="dutch", plies=2)  # plies: network players only
    assert isinstance(heuristic, HeuristicAgent) and heuristic.variant.name == "dutch"
    assert all(is_player_name(name) for name in ("pubeval", "NETWORK", "bot", "default"))
    assert not is_player_name("human") and not is_player_name("model.pt")


@needs_shipped
def test_network_and_its_aliases_are_the_shipped_network_of_the_variant():
    agents = [make_agent(name) for name in NETWORK_NAMES]
    assert all(isinstance(a, NetworkAgent) for a in agents)
    assert all(a.evaluator is default_evaluator("standard") for a in agents)
    assert {a.name for a in agents} == {"tdgammon"}
    dutch = make_agent("bot", variant="dutch")
    assert dutch.evaluator is default_evaluator("dutch") and dutch.name == "tdgammon-dutch"


@needs_shipped
def test_plies_make_a_searching_cube_agent():
    zero = make_agent("network", plies=0)
    assert isinstance(zero, NetworkAgent)
    one = make_agent("network", plies=1)
    assert isinstance(one, CubeAgent) and one.plies == 1 and one.name == "tdgammon-1ply"
    assert one.evaluator is zero.evaluator
    with pytest.raises(TdgammonError, match="plies must be 0-3"):
        make_agent("network", plies=4)
    with pytest.raises(TdgammonError, match="plies"):
        make_agent("pubeval", plies=-1)


def test_a_missing_shipped_network_is_refused_not_replaced(monkeypatch, tmp_path):
    """No silent fallback to pubeval: the error names the file and the alternatives."""
    import tdgammon.engine.evaluation.evaluator as evaluator_module

    monkeypatch.setattr(evaluator_module, "shipped_model", lambda v: tmp_path / f"{v}.pt")
    monkeypatch.setattr(evaluator_module, "_SHIPPED", {})
    for name in ("bot", "network"):
        with pytest.raises(FormatError, match=r"standard\.pt is missing.*or play pubeval"):
            make_agent(name)


def test_model_files(tiny_model, tmp_path):
    agent = make_agent(str(tiny_model))
    assert isinstance(agent, NetworkAgent) and agent.name == "tiny"
    searching = make_agent(str(tiny_model), plies=1)
    assert isinstance(searching, CubeAgent) and searching.name == "tiny-1ply"
    with pytest.raises(TdgammonError, match="a standard model cannot play dutch"):
        make_agent(str(tiny_model), variant="dutch")
    with pytest.raises(ModelFileError, match="no such tdgammon model"):
        make_agent(str(tmp_path / "absent.pt"))


def test_unknown_names_and_human_are_refused():
    for name in ("stockfish", "human"):
        with pytest.raises(FormatError, match="unknown player"):
            make_agent(name)


def test_the_searching_player_plays_the_search_s_best_rows():
    """CubeAgent.choose_plays is Search.choose_rows (what the removed SearchAgent
    returned): the bench's n-ply figures are those of plain n-ply search."""
    search = Search(PipCountEvaluator())
    boards, dice = random_game_positions(12, np.random.default_rng(8))
    moves = generate_moves(boards, dice)
    for plies in (0, 1):
        rows = CubeAgent(search, plies).choose_plays(boards, dice, moves)
        np.testing.assert_array_equal(rows, search.choose_rows(moves, len(boards), plies))


def test_network_player_names():
    evaluator = NetworkEvaluator(build_network(PRESETS["tiny"], seed=2), PRESETS["tiny"], "net")
    assert network_player(evaluator).name == "net"
    assert network_player(evaluator, 2, "x").name == "x-2ply"


def test_bench_strength_uses_the_factory(tiny_model):
    from tdgammon.train.evaluate import strength

    torch.set_num_threads(1)
    summary, text = strength(str(tiny_model), "random", 2, 1, 1, plies=1)
    assert summary["games"] == 2 and "tiny-1ply" in text
    with pytest.raises(FormatError, match="unknown player"):
        strength(str(tiny_model), "nobody", 2, 1, 1)
