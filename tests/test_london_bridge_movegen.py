"""The vectorized London Bridge generator against the reference, and invariants of play.

Differential: on positions from random games under every rule setting and on
constructed positions (beads scattered at random, big mixed pots, laps of the
ring, random pins and seats), the fast generator
(``tdgammon.engine.london_bridge.movegen``) must give exactly the set of
positions of the reference (``tdgammon.engine.london_bridge.reference``), each
once, and every move it lists, replayed as typed through ``play_move``, must
give its row. The quick form takes a few seconds; ``TDGAMMON_CHAOS_GAMES`` (the
chaos tests' variable) sets the number of random games of the long form
(thousands of positions per setting). The seed comes from ``TDGAMMON_TEST_SEED``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from tdgammon.engine.london_bridge.game import game_over
from tdgammon.engine.london_bridge.movegen import generate_turns
from tdgammon.engine.london_bridge.notation import listed_move
from tdgammon.engine.london_bridge.reference import reference_turns
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import (
    BEADS_PER_PLAYER,
    COLOUR_PIN,
    MOVER_GOAL,
    NUMBER_PIN,
    OPPONENT,
    OPPONENT_GOAL,
    OWN,
    POTS,
    SEAT,
    STATE_DTYPE,
    STATE_SIZE,
    check_states,
    is_over,
    pass_turn,
    start_state,
)
from tdgammon.engine.london_bridge.turn import play_move

SEED = int(os.environ.get("TDGAMMON_TEST_SEED", "20261129"))
CHAOS = os.environ.get("TDGAMMON_CHAOS_GAMES")
GAMES = int(CHAOS) if CHAOS else 12
CONSTRUCTED = 40 * GAMES
CROWD = 12 if CHAOS else 9
"""Most beads of a side dropped into the crowded pots. 12 gives positions of tens of
thousands of distinct turns (31 ms a position on average); 16 would reach a million
(a minute each for the reference)."""

SETTINGS = {
    "default": Rules(),
    "reserve": Rules(goal_without_own="reserve"),
    "own-first": Rules(sowing="own-first"),
    "opponent-first": Rules(sowing="opponent-first", layout="RRYYBBRYBBYR"),
    "pins": Rules(number_start=4, colour_start=3, first_player=1),
}


def random_game_positions(rules: Rules, games: int, rng: np.random.Generator) -> np.ndarray:
    """``(N, STATE_SIZE) int8``: every position of ``games`` random games, played together."""
    states = np.repeat(start_state(rules)[None], games, axis=0)
    turns = np.zeros(games, dtype=np.int64)
    seen = []
    while True:
        live = np.flatnonzero(~game_over(states, turns, rules))
        if not len(live):
            return np.concatenate(seen)
        seen.append(states[live])
        moves = generate_turns(states[live], rules)
        pick = moves.starts(len(live)) + (rng.random(len(live)) * moves.counts(len(live))).astype(
            np.int64
        )
        states[live] = pass_turn(moves.states[pick])
        turns[live] += 1


def constructed_positions(count: int, rng: np.random.Generator) -> np.ndarray:
    """``(count, STATE_SIZE) int8``: beads dropped into few pots (so pots hold many, of
    both colours), the rest in the goals or discarded; random pins and seat."""
    states = np.zeros((count, STATE_SIZE), dtype=STATE_DTYPE)
    for state in states:
        for side in (OWN, OPPONENT):
            beads = rng.integers(0, BEADS_PER_PLAYER + 1)
            crowded = rng.choice(12, size=rng.integers(1, 5), replace=False)
            np.add.at(state[side], rng.choice(crowded, size=min(beads, CROWD)), 1)
        state[OWN.start + rng.integers(12)] += 1  # never empty, usually an own bead
        left = 2 * BEADS_PER_PLAYER - int(state[POTS].sum())
        state[MOVER_GOAL] = rng.integers(0, left + 1)
        state[OPPONENT_GOAL] = rng.integers(0, left - state[MOVER_GOAL] + 1)
        state[NUMBER_PIN], state[COLOUR_PIN], state[SEAT] = (
            rng.integers(4),
            rng.integers(6),
            rng.integers(2),
        )
    check_states(states)
    return states


def assert_same_turns(states: np.ndarray, rules: Rules, label: str) -> int:
    """Both generators agree on every state; every listed move replays. Returns the rows."""
    moves = generate_turns(states, rules)
    starts = np.append(moves.starts(len(states)), len(moves))
    for i, state in enumerate(states):
        rows = range(starts[i], starts[i + 1])
        fast = [tuple(int(x) for x in moves.states[r]) for r in rows]
        reference = reference_turns(tuple(int(x) for x in state), rules)
        where = f"{label}, seed {SEED}, state {state.tolist()}"
        assert len(fast) >= 1, where
        assert len(set(fast)) == len(fast), f"a result listed twice: {where}"
        assert set(fast) == set(reference), f"generators differ: {where}"
        for r in rows[:50]:
            replayed = play_move(state, listed_move(moves, r), rules)
            assert (replayed == moves.states[r]).all(), f"row {r} does not replay: {where}"
    return len(moves)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_generators_agree_on_random_games(name):
    rules = SETTINGS[name]
    rng = np.random.default_rng([SEED, list(SETTINGS).index(name)])
    games = GAMES if name == "default" else max(2, GAMES // 4)
    positions = random_game_positions(rules, games, rng)
    assert len(positions) >= 20 * games
    assert_same_turns(positions, rules, name)


@pytest.mark.parametrize("name", ["default", "reserve", "opponent-first"])
def test_generators_agree_on_constructed_positions(name):
    rules = SETTINGS[name]
    rng = np.random.default_rng([SEED, 100 + list(SETTINGS).index(name)])
    count = CONSTRUCTED if name == "default" else CONSTRUCTED // 4
    states = constructed_positions(count, rng)
    rows = assert_same_turns(states, rules, f"constructed {name}")
    assert rows > count  # the constructed positions have choices to make


def test_invariants_of_every_turn():
    """Every result of every turn of random games: a valid state, the same mover,
    beads only leave the pots for the goals or the discard (36 in all), goals never
    shrink, one pin moved one step, or none when the bead move emptied the pots (4.1)."""
    rules = Rules()
    rng = np.random.default_rng(SEED)
    states = random_game_positions(rules, max(4, GAMES // 2), rng)
    moves = generate_turns(states, rules)
    parents = states[moves.parents]
    results = moves.states
    check_states(results)
    assert (results[:, SEAT] == parents[:, SEAT]).all()
    total = lambda s: s[:, : OPPONENT_GOAL + 1].astype(int).sum(1)  # noqa: E731
    assert (total(results) <= total(parents)).all()
    assert (results[:, MOVER_GOAL] >= parents[:, MOVER_GOAL]).all()
    assert (results[:, OPPONENT_GOAL] == parents[:, OPPONENT_GOAL]).all()
    number = (results[:, NUMBER_PIN].astype(int) - parents[:, NUMBER_PIN]) % 4
    colour = (results[:, COLOUR_PIN].astype(int) - parents[:, COLOUR_PIN]) % 6
    steps = (number == 1).astype(int) + (colour == 1)
    assert ((number == 0) | (number == 1)).all() and ((colour == 0) | (colour == 1)).all()
    assert (steps <= 1).all() and is_over(results[steps == 0]).all()


def test_empty_batch_and_one_state():
    rules = Rules()
    empty = generate_turns(np.zeros((0, STATE_SIZE), STATE_DTYPE), rules)
    assert len(empty) == 0
    start = generate_turns(start_state(rules)[None], rules)
    assert start.counts(1).tolist() == [len(start)] and len(start) == 20
