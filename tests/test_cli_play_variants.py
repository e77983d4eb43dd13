"""`tdgammon play` / `match` pick the variant's own shipped network as the bot."""

from __future__ import annotations

import pytest

from engine.cli_play import make_agent
from engine.heuristic_agent import HeuristicAgent


@pytest.mark.parametrize("variant", ["dutch", "nackgammon", "hypergammon", "acey-deucey"])
def test_bot_is_the_variants_shipped_network(variant):
    agent = make_agent("bot", seed=0, variant=variant)
    assert agent.evaluator.variant.name == variant
    assert agent.evaluator.name == f"tdgammon-{variant}"


def test_standard_bot_is_the_default_network_and_heuristic_is_available():
    assert make_agent("bot").evaluator.variant.name == "standard"
    assert isinstance(make_agent("heuristic", variant="dutch"), HeuristicAgent)
