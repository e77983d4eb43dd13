"""The evaluator splits large batches into chunks of ``evaluator.CHUNK`` rows (a bound
on memory): the answer must not depend on the split."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tdgammon.engine.evaluation import evaluator as evaluator_module
from tdgammon.engine.evaluation.evaluator import NetworkAgent, NetworkEvaluator
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.outcome import variant_equity
from tdgammon.models.network import PRESETS, build_network

ATOL = 1e-6
"""float32 matrix products may round differently for different batch shapes."""


@pytest.fixture(scope="module")
def sample():
    torch.set_num_threads(1)
    boards, dice = random_game_positions(300, np.random.default_rng(21), parallel_games=10)
    return boards, dice


def _evaluator(name="tesauro80", seed=3):
    return NetworkEvaluator(build_network(PRESETS[name], seed=seed), PRESETS[name])


def _count_network_calls(evaluator):
    calls = []
    evaluator.network.register_forward_hook(lambda module, args, out: calls.append(len(out)))
    return calls


@pytest.mark.parametrize("name", ["tesauro80", "extended128"])
@pytest.mark.parametrize("chunk", [1, 7, 100, 299, 300])
def test_chunked_evaluation_equals_one_batch_and_one_at_a_time(monkeypatch, sample, name, chunk):
    boards, _ = sample
    evaluator = _evaluator(name)
    whole = evaluator.evaluate(boards)  # 300 rows < the default CHUNK: one call
    one_by_one = np.stack([evaluator.evaluate(b) for b in boards[:40]])
    monkeypatch.setattr(evaluator_module, "CHUNK", chunk)
    calls = _count_network_calls(evaluator)
    chunked = evaluator.evaluate(boards)
    # the batch really was split: ceil(300 / chunk) calls of at most chunk rows
    assert len(calls) == -(-len(boards) // chunk) and max(calls) <= chunk
    assert sum(calls) == len(boards)
    assert chunked.shape == (len(boards), 5) and chunked.dtype == np.float32
    np.testing.assert_allclose(chunked, whole, rtol=0, atol=ATOL)
    np.testing.assert_allclose(chunked[:40], one_by_one, rtol=0, atol=ATOL)


def test_chunked_play_probabilities_and_choices(monkeypatch, sample):
    # All plays of 300 positions (thousands of rows) in chunks of 64: the same
    # probabilities, and the same chosen plays, as in one call.
    boards, dice = sample
    evaluator = _evaluator()
    moves = generate_moves(boards, dice)
    assert len(moves) > 1000
    whole = evaluator.play_probabilities(moves)
    whole_choice = NetworkAgent(evaluator).choose_plays(boards, dice, moves)
    monkeypatch.setattr(evaluator_module, "CHUNK", 64)
    calls = _count_network_calls(evaluator)
    chunked = evaluator.play_probabilities(moves)
    assert len(calls) > 1 and max(calls) <= 64
    np.testing.assert_allclose(chunked, whole, rtol=0, atol=ATOL)
    rows = NetworkAgent(evaluator).choose_plays(boards, dice, moves)
    # the same choices, unless two plays are equal to within rounding
    equity = variant_equity(whole)
    differ = rows != whole_choice
    np.testing.assert_allclose(equity[rows[differ]], equity[whole_choice[differ]], atol=1e-5)
