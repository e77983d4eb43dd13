"""Phase networks: a race net beside the main net, chosen by has_contact
(tdgammon.engine.evaluation.evaluator), loaded from a model card's race_model, and
routed the same way by the rollouts' batch-invariant evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.evaluation.evaluator import NetworkEvaluator, load_evaluator
from tdgammon.engine.evaluation.rollout import (
    BatchInvariantNetwork,
    RolloutSettings,
    combine_trials,
    rollout_trials,
)
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.rules.board import flip, has_contact
from tdgammon.engine.rules.outcome import is_game_over
from tdgammon.models.network import ModelFileError, build_network, get_preset, save_model

TINY = get_preset("tiny")


def _net(seed: int) -> NetworkEvaluator:
    return NetworkEvaluator(build_network(TINY, seed=seed), TINY, f"tiny{seed}")


@pytest.fixture(scope="module")
def mixed_boards():
    boards, _ = random_game_positions(3000, np.random.default_rng(4))
    boards = boards[~is_game_over(boards)]
    racing = ~has_contact(boards)
    assert racing.sum() > 50 and (~racing).sum() > 50
    return boards


def test_races_go_to_the_race_net(mixed_boards):
    contact, race = _net(1), _net(2)
    phased = NetworkEvaluator(contact.network, TINY, "phased", race=race)
    racing = ~has_contact(mixed_boards)
    out = phased.raw_probabilities(mixed_boards)
    np.testing.assert_array_equal(out[racing], race.raw_probabilities(mixed_boards[racing]))
    np.testing.assert_array_equal(out[~racing], contact.raw_probabilities(mixed_boards[~racing]))


def test_a_card_naming_a_race_net_loads_the_set(tmp_path, mixed_boards):
    save_model(tmp_path / "race.pt", TINY, _net(2).network, {"variant": "standard"})
    card = {"variant": "standard", "race_model": "race.pt"}
    save_model(tmp_path / "main.pt", TINY, _net(1).network, card)
    loaded = load_evaluator(tmp_path / "main.pt")
    assert loaded.race is not None and loaded.race.name == "main-race"
    racing = ~has_contact(mixed_boards)
    np.testing.assert_allclose(
        loaded.raw_probabilities(mixed_boards[racing]),
        _net(2).raw_probabilities(mixed_boards[racing]),
        atol=1e-6,
    )
    assert load_evaluator(tmp_path / "race.pt").race is None  # a single net, as before
    for bad, message in (("../race.pt", "beside"), ("gone.pt", "missing")):
        save_model(tmp_path / "bad.pt", TINY, _net(1).network, {"race_model": bad})
        with pytest.raises(ModelFileError, match=message):
            load_evaluator(tmp_path / "bad.pt")


def test_a_race_net_naming_a_race_net_is_refused_at_once(tmp_path):
    """The model itself, or two files naming each other: one error, no recursion."""
    save_model(tmp_path / "self.pt", TINY, _net(1).network, {"race_model": "self.pt"})
    with pytest.raises(ModelFileError, match="self.pt: race_model names the model itself"):
        load_evaluator(tmp_path / "self.pt")
    save_model(tmp_path / "a.pt", TINY, _net(1).network, {"race_model": "b.pt"})
    save_model(tmp_path / "b.pt", TINY, _net(2).network, {"race_model": "a.pt"})
    with pytest.raises(ModelFileError, match="b.pt: a race net cannot name a race net"):
        load_evaluator(tmp_path / "a.pt")
    save_model(tmp_path / "d.pt", TINY, _net(2).network, {"variant": "dutch"})
    save_model(tmp_path / "s.pt", TINY, _net(1).network, {"race_model": "d.pt"})
    with pytest.raises(ModelFileError, match="trained for dutch, not standard"):
        load_evaluator(tmp_path / "s.pt")


def test_batch_invariant_evaluation_routes_the_same_way(mixed_boards):
    phased = NetworkEvaluator(_net(1).network, TINY, "phased", race=_net(2))
    invariant = BatchInvariantNetwork(phased)
    np.testing.assert_allclose(
        invariant.evaluate(mixed_boards), phased.evaluate(mixed_boards), atol=2e-6
    )
    quick = invariant.estimate_flipped(mixed_boards)
    np.testing.assert_allclose(quick, phased.evaluate(flip(mixed_boards)), atol=5e-5)


def test_rollout_trials_do_not_depend_on_the_batch(mixed_boards):
    phased = NetworkEvaluator(_net(1).network, TINY, "phased", race=_net(2))
    search = Search(phased)
    roots = mixed_boards[:3]
    settings = RolloutSettings(seed=5, truncate=8)
    whole = rollout_trials(search, roots, range(8), settings)
    parts = combine_trials(
        [
            rollout_trials(search, roots, range(0, 3), settings),
            rollout_trials(search, roots, range(3, 8), settings),
        ]
    )
    np.testing.assert_array_equal(whole.probabilities, parts.probabilities)
