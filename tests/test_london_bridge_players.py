"""London Bridge players, search, matches and the network file.

- alpha-beta returns the negamax value: against a plain full-width negamax on
  positions of random games (width 0, depth 3), and its chosen turn has that value;
- the greedy player picks a turn of best margin; random picks any;
- matches alternate seats, share openings within a pair, count what they say;
- the network's inputs, its file (save, load, refusals) and the factory's names.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tdgammon.engine.london_bridge.game import game_over
from tdgammon.engine.london_bridge.movegen import generate_turns
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import margin, pass_turn, start_state
from tdgammon.engine.london_bridge_players.agents import RandomPlayer, SearchPlayer
from tdgammon.engine.london_bridge_players.duel import play_match
from tdgammon.engine.london_bridge_players.factory import SHIPPED_MODEL, make_player
from tdgammon.engine.london_bridge_players.network import (
    N_INPUTS,
    NetworkEvaluator,
    ValueNetwork,
    encode,
    load_model,
    outcome_value,
    save_model,
)
from tdgammon.engine.london_bridge_players.search import Search
from tdgammon.engine.rules.errors import FormatError, TdgammonError

RULES = Rules()


def positions(count: int, seed: int) -> list[tuple[np.ndarray, int]]:
    """(state, turns played) pairs from random games, none over, few turns each."""
    rng = np.random.default_rng(seed)
    out = []
    player = RandomPlayer(seed)
    while len(out) < count:
        state, turn = start_state(RULES), 0
        while not game_over(state[None], [turn], RULES)[0]:
            moves = generate_turns(state[None], RULES)
            if len(moves) <= 12 and rng.random() < 0.3:
                out.append((state, turn))
            state = pass_turn(moves.states[player.choose(state[None], [turn], moves)])[0]
            turn += 1
    return out[:count]


def negamax(state: np.ndarray, turn: int, depth: int, rules: Rules) -> float:
    """Plain full-width negamax on the margin, one position at a time."""
    moves = generate_turns(state[None], rules)
    best = -np.inf
    for after in moves.states:
        child = pass_turn(after[None])
        if depth == 1 or game_over(child, [turn + 1], rules)[0]:
            value = float(margin(after[None])[0])
        else:
            value = -negamax(child[0], turn + 1, depth - 1, rules)
        best = max(best, value)
    return best


def test_alphabeta_finds_the_negamax_value():
    search = Search(RULES, 3, width=0, batch_depth=1)
    rng = np.random.default_rng(0)
    for state, turn in positions(12, seed=3):
        moves = generate_turns(state[None], RULES)
        exact = negamax(state, turn, 3, RULES)
        assert search._alphabeta(state, turn, 3, -np.inf, np.inf) == exact
        row = search.best_row(moves, turn, rng)
        assert search._after_value(moves.states[row], turn + 1, 2, -np.inf, np.inf) == exact
        full = Search(RULES, 3, width=0).move_values(moves, np.array([turn]), 1)
        assert full.max() == exact


def test_width_limits_the_inner_nodes_only():
    """Width 1 at depth 2: of the turns that do not end the game only the best by one-ply
    value is searched deeper, the others are -inf; a turn that ends it keeps its value."""
    for state, turn in positions(6, seed=5):
        moves = generate_turns(state[None], RULES)
        values = Search(RULES, 2, width=1).move_values(moves, np.array([turn]), 1)
        exact = Search(RULES, 2, width=0).move_values(moves, np.array([turn]), 1)
        ended = game_over(pass_turn(moves.states), np.full(len(moves), turn + 1), RULES)
        assert (values[ended] == exact[ended]).all()
        searched = np.isfinite(values) & ~ended
        assert searched.sum() == min(1, (~ended).sum())
        assert (values[searched] == exact[searched]).all()


def test_greedy_picks_a_best_margin_turn_and_random_any():
    for state, turn in positions(10, seed=9):
        moves = generate_turns(state[None], RULES)
        margins = margin(moves.states)
        greedy = SearchPlayer(RULES, 1, "greedy", seed=1)
        row = greedy.choose(state[None], np.array([turn]), moves)[0]
        # an ended game is valued exactly, so a best margin is what greedy picks
        assert margins[row] == margins.max()
        assert 0 <= RandomPlayer(2).choose(state[None], [turn], moves)[0] < len(moves)


def test_match_alternates_seats_and_counts():
    result = play_match(make_player("greedy", RULES, 1), RandomPlayer(2), 6, RULES, seed=4)
    summary = result.summary()
    assert result.seat_a.tolist() == [0, 1, 0, 1, 0, 1]
    assert summary["games"] == 6
    assert summary["a_wins"] + summary["draws"] + summary["b_wins"] == 6
    assert (result.points_a + result.points_b <= 36).all()
    assert summary["turns_min"] >= 2 and summary["at_turn_limit"] == 0
    assert "seats alternating" in result.text()


def test_match_pairs_share_their_opening():
    """Two random players with the same seed in both seats: pair members differ only
    after the opening."""
    short = Rules(turn_limit=2)
    result = play_match(RandomPlayer(1), RandomPlayer(1), 4, short, seed=8, opening_turns=2)
    # with the turn limit at the end of the opening, both games of a pair are one game
    assert result.points_a[0] == result.points_b[1] and result.points_a[1] == result.points_b[0]
    assert (result.turns == 2).all() and result.summary()["at_turn_limit"] == 4


def test_network_inputs_and_outcome_values():
    states = np.stack([start_state(RULES), pass_turn(start_state(RULES)[None])[0]])
    inputs = encode(states, np.array([0, 1]), RULES)
    assert inputs.shape == (2, N_INPUTS) and inputs.dtype == np.float32
    assert np.isfinite(inputs).all()
    assert outcome_value(np.array([0, 1, -12, 30])).tolist() == pytest.approx(
        [0.0, 0.725, -1.0, 1.0]
    )


def test_model_file_round_trip_and_refusals(tmp_path):
    torch.manual_seed(0)
    network = ValueNetwork((8,))
    path = tmp_path / "lb.pt"
    save_model(path, network, RULES, {"games": 1})
    loaded, card = load_model(path, RULES)
    assert card == {"games": 1}
    evaluator = NetworkEvaluator(loaded, RULES)
    states = start_state(RULES)[None]
    expected = NetworkEvaluator(network, RULES).evaluate(states, np.array([0]))
    assert evaluator.evaluate(states, np.array([0])) == pytest.approx(expected)
    with pytest.raises(TdgammonError, match="trained under rules"):
        load_model(path, Rules(turn_limit=50))
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(TdgammonError, match="junk.pt: not a London Bridge model"):
        load_model(tmp_path / "junk.pt", RULES)
    with pytest.raises(TdgammonError, match="no such London Bridge model file"):
        load_model(tmp_path / "missing.pt", RULES)
    player = make_player(f"{path}:1", RULES, seed=0)
    assert player.name == "lb:1" and player.search.depth == 1


def test_factory_names():
    assert make_player("random", RULES).name == "random"
    assert make_player("greedy", RULES).search.depth == 1
    ab = make_player("alphabeta:3:8", RULES)
    assert (ab.search.depth, ab.search.width, ab.name) == (3, 8, "alphabeta:3:8")
    assert make_player("alphabeta", RULES).search.depth == 4
    for bad, message in [
        ("minimax", "unknown London Bridge player"),
        ("alphabeta:0", "depth must be 1-8"),
        ("greedy:2", "takes no depth"),
    ]:
        with pytest.raises(FormatError, match=message):
            make_player(bad, RULES)


@pytest.mark.skipif(not SHIPPED_MODEL.is_file(), reason="no shipped London Bridge model")
def test_the_shipped_network_beats_greedy():
    result = play_match(
        make_player("network:1", RULES, 1), make_player("greedy", RULES, 2), 20, RULES, seed=99
    )
    assert result.score_a().mean() >= 0.6
