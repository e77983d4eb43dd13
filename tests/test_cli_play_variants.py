"""`tdgammon play` / `match` pick the variant's own shipped network as the bot."""

from __future__ import annotations

import pytest

from tdgammon.engine.players.factory import make_agent
from tdgammon.engine.players.heuristic import HeuristicAgent


@pytest.mark.parametrize("variant", ["dutch", "nackgammon", "hypergammon", "acey-deucey"])
def test_bot_is_the_variants_shipped_network(variant):
    agent = make_agent("bot", seed=0, variant=variant)
    assert agent.evaluator.variant.name == variant
    assert agent.evaluator.name == f"tdgammon-{variant}"


def test_standard_bot_is_the_default_network_and_heuristic_is_available():
    assert make_agent("bot").evaluator.variant.name == "standard"
    assert isinstance(make_agent("heuristic", variant="dutch"), HeuristicAgent)


@pytest.mark.parametrize("variant", ["dutch", "nackgammon", "hypergammon", "acey-deucey"])
def test_hint_analyses_with_the_variants_network_and_rules(variant, monkeypatch, capsys):
    """`hint` during `tdgammon play --variant V` ranks the legal plays of the
    variant with its own network (not the standard one, not pubeval)."""
    import io

    from tdgammon.engine.interfaces.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("hint\nquit\n"))
    assert main(["play", "--variant", variant, "--opponent", "human", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert f"best plays (tdgammon-{variant}, 1-ply" in out
    assert "pubeval" not in out


def test_plies_makes_network_players_search(monkeypatch, capsys):
    """--plies N: network players search N plies (and keep the cube logic)."""
    from tdgammon.engine.cube.agent import CubeAgent
    from tdgammon.engine.interfaces.cli import main

    bot = make_agent("bot", seed=0, variant="hypergammon", plies=1)
    assert isinstance(bot, CubeAgent) and bot.plies == 1
    assert bot.search.variant.name == "hypergammon"
    assert not isinstance(make_agent("heuristic", variant="dutch", plies=1), CubeAgent)
    argv = ["match", "--a", "bot", "--b", "heuristic", "--variant", "nackgammon"]
    assert main([*argv, "--plies", "1", "--games", "2", "--no-progress"]) == 0
    assert "tdgammon-nackgammon-1ply vs heuristic" in capsys.readouterr().out
    assert main([*argv, "--plies", "4", "--games", "2"]) == 2
    assert "plies must be 0-3" in capsys.readouterr().err
