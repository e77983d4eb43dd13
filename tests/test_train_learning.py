"""Training behaviour: exploration in self-play, the learning-rate schedule, and that a
short run of the real training entry point learns to beat the random player."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tdgammon.engine.evaluation.evaluator import NetworkAgent, NetworkEvaluator, load_evaluator
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.players.agents import RandomAgent
from tdgammon.engine.players.duel import play_duel
from tdgammon.engine.rules.board import CHECKERS_PER_SIDE, MOVER_OFF, flip
from tdgammon.engine.rules.outcome import variant_equity
from tdgammon.models.network import PRESETS, build_network
from tdgammon.train.config import load_config
from tdgammon.train.loop import Trainer

TINY = ['model.preset="tiny"', "selfplay.parallel_games=64", "run.tensorboard=false"]


class RecordingEvaluator:
    """An evaluator that remembers the plays self-play asked it to value, with the
    probabilities it answered (everything else goes to the real one)."""

    def __init__(self, evaluator: NetworkEvaluator) -> None:
        self.evaluator = evaluator
        self.calls = []

    def __getattr__(self, name):
        return getattr(self.evaluator, name)

    def play_probabilities(self, moves):
        probs = self.evaluator.play_probabilities(moves)
        self.calls.append((moves, probs))
        return probs


def _greedy_statistics(exploration: float, steps: int, seed: int = 7):
    """Play ``steps`` plies of 64 self-play games built from a config with
    ``selfplay.exploration``; for every ply whose play is seen (the game did not end),
    whether the play made was a greedy one (highest equity among the legal plays of
    the roll), and the chance a uniformly random play would not be greedy."""
    config = load_config(
        None, [*TINY, f"selfplay.exploration={exploration}", f"selfplay.seed={seed}"]
    )
    trainer = Trainer(config)
    play = trainer.selfplay
    assert play.exploration == exploration
    recorder = RecordingEvaluator(trainer.evaluator)
    not_greedy, chance_not_greedy, finished = [], [], 0
    for _ in range(steps):
        recorder.calls.clear()
        play.step(recorder)
        assert len(recorder.calls) == 1, "self-play values all plays in one batched call"
        moves, probs = recorder.calls[0]
        equity = variant_equity(probs)
        made = flip(play.boards)  # the board after each play, mover's view
        starts = np.searchsorted(moves.parents, np.arange(play.games + 1))
        for g in range(play.games):
            rows = slice(starts[g], starts[g + 1])
            match = (moves.boards[rows] == made[g]).all(axis=1)
            if not match.any():  # the game ended and a new one started
                assert (moves.boards[rows, MOVER_OFF] == CHECKERS_PER_SIDE).any()
                finished += 1
                continue
            assert match.sum() == 1
            best = equity[rows] == equity[rows].max()
            not_greedy.append(not best[match][0])
            chance_not_greedy.append(1.0 - best.sum() / len(best))
    return np.array(not_greedy), np.array(chance_not_greedy), finished


def test_no_exploration_always_plays_the_greedy_play():
    not_greedy, chance, _ = _greedy_statistics(0.0, 30)
    assert len(not_greedy) > 1500 and chance.mean() > 0.5  # real choices were made
    assert not not_greedy.any()


@pytest.mark.parametrize("exploration", [0.25, 1.0])
def test_exploration_plays_random_plays_at_the_configured_rate(exploration):
    # With probability `exploration` the play is uniform among the legal ones, so it
    # is not greedy with probability exploration x (1 - greedy plays / legal plays).
    # The count of non-greedy plays is a sum of independent Bernoullis: within 5
    # standard deviations of its mean (a wrong rate, e.g. 0 or 2x, is far outside).
    not_greedy, chance, _ = _greedy_statistics(exploration, 30)
    p = exploration * chance
    mean, sd = p.sum(), np.sqrt((p * (1 - p)).sum())
    assert abs(not_greedy.sum() - mean) <= 5 * sd, (not_greedy.sum(), mean, sd)
    assert not_greedy.sum() > 100


def test_exploration_is_reproducible_from_the_seed():
    def boards(seed):
        play = Trainer(
            load_config(None, [*TINY, "selfplay.exploration=0.5", f"selfplay.seed={seed}"])
        )
        for _ in range(5):
            play.selfplay.step(play.evaluator)
        return play.selfplay.boards.copy()

    np.testing.assert_array_equal(boards(3), boards(3))
    assert not np.array_equal(boards(3), boards(4))


# ------------------------------------------------------------------ learning rate


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_learning_rate_halves_every_half_life_down_to_the_floor(optimizer):
    # td.learning_rate_half_life_games: "Halve the learning rate every this many
    # games", floored at td.min_learning_rate. The rate of a cycle's updates is the
    # schedule at the games trained before it: lr x 2 ** (-games / half_life).
    half_life, rate, floor = 20, 0.01, 0.001
    config = load_config(
        None,
        [
            *TINY,
            "selfplay.parallel_games=16",
            f'td.optimizer="{optimizer}"',
            f"td.learning_rate={rate}",
            f"td.learning_rate_half_life_games={half_life}",
            f"td.min_learning_rate={floor}",
            "td.update_positions=64",
            "td.minibatch_size=32",
        ],
    )
    trainer = Trainer(config)
    used = []
    step = trainer.optimizer.step

    def recording_step(*args, **kwargs):
        used.append([group["lr"] for group in trainer.optimizer.param_groups])
        return step(*args, **kwargs)

    trainer.optimizer.step = recording_step
    expected_at = {0: rate, 10: rate / 2**0.5, 20: rate / 2, 40: rate / 4, 50: rate / 2**2.5}
    expected_at.update({60: rate / 8, 70: floor, 1000: floor})  # 0.01 / 2**3.5 < 0.001
    for games, expected in expected_at.items():
        trainer.counters.games = games
        used.clear()
        stats = trainer.cycle()
        assert stats["learning_rate"] == pytest.approx(expected, rel=1e-3), games
        assert used and np.allclose(used, expected, rtol=1e-3), games
    # and in a run as it goes: each cycle's rate is the schedule at its start
    trainer.counters.games = 0
    for _ in range(6):
        before = trainer.counters.games
        used.clear()
        stats = trainer.cycle()
        expected = max(rate * 0.5 ** (before / half_life), floor)
        assert stats["learning_rate"] == pytest.approx(expected, rel=1e-6)
        assert np.allclose(used, expected, rtol=1e-6)
    assert trainer.counters.games > 0 and stats["learning_rate"] < rate


def test_learning_rate_is_constant_without_a_half_life():
    trainer = Trainer(load_config(None, [*TINY, "td.learning_rate=0.003"]))
    for games in (0, 10**6):
        trainer.counters.games = games
        assert trainer.learning_rate() == 0.003


# ------------------------------------------------------------------ learning


def _beats_random_clearly(evaluator: NetworkEvaluator) -> tuple[bool, str]:
    """100 duplicate pairs (200 games) against the random player; the lower end of
    the 95% confidence interval of the points per game must exceed 1.0. (A player
    that bears off sensibly wins about 2.6 ppg against random, mostly gammons;
    pubeval: +2.59 +/- 0.09 over the same 200 games.)"""
    result = play_duel(
        NetworkAgent(evaluator), RandomAgent(seed=3), games=200, seed=5, parallel_pairs=100
    )
    return result.ppg - result.ci95 > 1.0, result.text()


def test_a_short_training_run_beats_random_clearly(tmp_path, tiny_config):
    torch.set_num_threads(1)
    run_dir = tmp_path / "run"
    config = tiny_config(
        run_dir,
        td={"learning_rate": 0.01, "minibatch_size": 16},
        eval={"every_games": 0},
        run={"max_games": 400},
    )
    assert main(["train", "--config", str(config)]) == 0
    trained, text = _beats_random_clearly(load_evaluator(run_dir / "checkpoint.pt"))
    assert trained, text
    # the same test fails for the network the run started from (model.init_seed 1)
    start = NetworkEvaluator(build_network(PRESETS["tiny"], seed=1), PRESETS["tiny"])
    untrained, text = _beats_random_clearly(start)
    assert not untrained, text
