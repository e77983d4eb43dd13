"""tdgammon.engine.evaluation.search under every variant's rules: 1-ply checked against its
definition
with the reference generator (extra rolls and checkers-left scoring included),
and the searching player finishing games."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.evaluation.evaluator import load_evaluator
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.players.duel import play_duel
from tdgammon.engine.players.heuristic import HeuristicAgent
from tdgammon.engine.rules.board import MOVER_OFF, flip
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outcome import variant_equity
from tdgammon.engine.rules.outputs import invert
from tdgammon.engine.rules.variants import VARIANTS, get_variant
from tdgammon.models import shipped_model

VARIANT_NAMES = [name for name in VARIANTS if name != "standard"]


@pytest.fixture(scope="module", params=VARIANT_NAMES)
def variant_search(request) -> Search:
    return Search(load_evaluator(shipped_model(request.param)))


def _late_and_early_positions(variant, count: int, seed: int) -> np.ndarray:
    boards, _ = random_game_positions(400, np.random.default_rng(seed), variant=variant)
    off = boards[:, MOVER_OFF] - boards[:, 27]  # checkers borne off, both sides
    late = boards[np.argsort(-off, kind="stable")[: count // 2]]  # near the end: exact scores
    return np.concatenate([boards[: count - len(late)], late])


def test_one_ply_is_the_average_of_the_best_zero_ply_play(variant_search):
    """1-ply = sum over the 21 rolls of w(roll) x the value of the best play,
    each play valued at 0-ply from the side that rolls next: the opponent
    (flip, invert) or, after an Acey-Deucey extra roll, the mover himself."""
    search = variant_search
    variant = search.variant
    boards = _late_and_early_positions(variant, 4, seed=5)
    for board in boards:
        expected = np.zeros(5)
        for roll, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
            plays = legal_plays(board.tolist(), tuple(int(d) for d in roll), variant)
            values = []
            for play in plays or [None]:
                after = board if play is None else np.array(play.board, dtype=np.int8)
                if play is not None and play.extra_roll:
                    values.append(search.static(after))
                else:
                    values.append(invert(search.static(flip(after))))
            scores = [float(variant_equity(v, variant)) for v in values]
            expected += weight * values[int(np.argmax(scores))]
        np.testing.assert_allclose(search.evaluate(board, 1), expected, atol=3e-6)


def test_finished_boards_get_the_variant_score(variant_search):
    variant = variant_search.variant
    board = variant.starting_board().copy()
    board[:] = 0
    board[MOVER_OFF] = variant.checkers  # the mover has borne off every checker
    board[27] = -(variant.checkers - 2)  # the opponent all but two (single game)
    board[20] = -2
    probabilities = variant_search.static(board)
    assert float(variant_equity(probabilities, variant)) == pytest.approx(
        2.0 if variant.name == "acey-deucey" else 1.0
    )


def test_search_refuses_another_variants_network():
    evaluator = load_evaluator(shipped_model("dutch"))
    assert Search(evaluator).variant.name == "dutch"
    with pytest.raises(TdgammonError, match="dutch"):
        Search(evaluator, variant="hypergammon")


@pytest.mark.parametrize("name", ["hypergammon", "acey-deucey"])
def test_searching_player_finishes_variant_games(name):
    variant = get_variant(name)
    agent = CubeAgent(Search(load_evaluator(shipped_model(name))), plies=1)
    result = play_duel(agent, HeuristicAgent(variant), games=2, seed=3, variant=variant)
    assert result.games == 2 and np.all(result.points != 0)
