"""The London Bridge players: each picks one row per position of a ``MoveList``.

Every player has a ``name`` and ``choose(states, turns, moves) -> (B,) int64``:
states ``(B, STATE_SIZE) int8`` (mover's view, none over), turns ``(B,)`` turns
played so far (the turn limit, docs/london_bridge.md 5.3, is part of the
search), moves their ``generate_turns``. Rows of equal value are picked at
random (``seed``), so that games between two players differ.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.london_bridge.movegen import MoveList
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge_players.choice import best_rows, random_rows
from tdgammon.engine.london_bridge_players.search import (
    DEFAULT_WIDTH,
    Evaluate,
    Search,
    Terminal,
    margin_terminal,
    margin_values,
)


class RandomPlayer:
    """A uniformly random distinct turn."""

    def __init__(self, seed: int | None = None, name: str = "random") -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)

    def choose(self, states: np.ndarray, turns: np.ndarray, moves: MoveList) -> np.ndarray:
        return random_rows(moves.parents, len(states), self.rng)


class SearchPlayer:
    """The turn of best negamax value at ``depth`` plies.

    With the defaults, the score margin (docs/london_bridge.md 5.2): depth 1 is
    the greedy player (best margin after its own turn), depth N the alpha-beta
    player. With a network's ``evaluate`` and ``terminal``, the network player.
    Depths up to ``Search.batch_depth`` are searched in array code for the whole
    batch at once; deeper ones by alpha-beta, one position at a time.
    """

    def __init__(
        self,
        rules: Rules,
        depth: int,
        name: str,
        seed: int | None = None,
        evaluate: Evaluate = margin_values,
        terminal: Terminal = margin_terminal,
        width: int = DEFAULT_WIDTH,
    ) -> None:
        self.name = name
        self.search = Search(rules, depth, evaluate, terminal, width)
        self.rng = np.random.default_rng(seed)

    def choose(self, states: np.ndarray, turns: np.ndarray, moves: MoveList) -> np.ndarray:
        batch = len(states)
        if self.search.depth <= self.search.batch_depth:
            values = self.search.move_values(moves, turns, batch)
            return best_rows(values, moves.parents, batch, self.rng)
        rows = []
        for i in range(batch):
            own, where = moves.subset(np.array([i]))
            rows.append(where[self.search.best_row(own, int(turns[i]), self.rng)])
        return np.array(rows, dtype=np.int64)
