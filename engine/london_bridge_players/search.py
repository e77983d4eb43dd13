"""Negamax search with alpha-beta pruning over London Bridge turns.

A position is valued from the view of the player to move. One ply is one whole
turn (every sowing, the bonus moves and the dial: docs/london_bridge.md 3-4).
A game that has ended (5.1) or reached the turn limit (5.3) is valued by
``terminal(margin)``; a position at the search horizon by ``evaluate``:

- the score-margin search (``margin_values``): both are the margin itself, the
  mover's goal less the opponent's (5.2);
- the network (``tdgammon.engine.london_bridge_players.network``): its value, and
  its target function of the final margin at the end.

Width. The number of distinct turns of a position has a heavy tail (a median
of 6 to 8, but one position in a hundred has over 400 and a few have tens of
thousands: sowing choices of 3.5 multiplied by bonus moves), so a full-width
search to depth 4 has no bound on its cost. At every node with two or more
plies left, only the ``width`` turns of best one-ply value (``after_values``)
are searched deeper; the last ply always looks at every turn, so no capture or
goal drop within the horizon is missed by the player who makes it. ``width``
0 searches every turn (exact negamax; affordable to depth 2 or 3).

The last ``batch_depth`` plies are searched in array code (one
``generate_turns`` call per ply for every position at that depth, one
evaluation for all the leaves); above them alpha-beta visits one position at a
time, its children ordered best first by one-ply value. Alpha-beta returns the
negamax value of the (width-limited) tree: the cut-offs change the cost, never
the value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.london_bridge.game import game_over
from tdgammon.engine.london_bridge.movegen import MoveList, generate_turns
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import margin, pass_turn

DEFAULT_WIDTH = 16
"""Turns searched deeper per inner node (the module docstring, "Width")."""
Evaluate = Callable[[np.ndarray, np.ndarray], np.ndarray]
"""``evaluate(states (N, STATE_SIZE) int8, turns (N,) int) -> (N,) float64``: the value of
positions not over, from the view of the player to move."""
Terminal = Callable[[np.ndarray], np.ndarray]
"""``terminal(margins (N,) int) -> (N,) float64``: the value of an ended game to the player
whose margin it is."""


def margin_values(states: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """The score-margin evaluation: the mover's points less the opponent's (5.2)."""
    return margin(states).astype(np.float64)


def margin_terminal(margins: np.ndarray) -> np.ndarray:
    return np.asarray(margins, dtype=np.float64)


@dataclass
class Search:
    """Negamax to ``depth`` plies (>= 1) under ``rules``, ``width`` turns per inner node."""

    rules: Rules
    depth: int
    evaluate: Evaluate = margin_values
    terminal: Terminal = margin_terminal
    width: int = DEFAULT_WIDTH
    batch_depth: int = 2

    def move_values(self, moves: MoveList, turns: np.ndarray, batch: int) -> np.ndarray:
        """``(M,) float64``: each row's value to the player who makes it, full width per ply
        (``-inf`` for rows outside the width). turns: ``(batch,)`` turns played before."""
        turns_after = np.asarray(turns)[moves.parents] + 1
        return self._row_values(moves, turns_after, self.depth, batch)

    def best_row(self, moves: MoveList, turn: int, rng: np.random.Generator) -> int:
        """The row of a best turn of one position (``moves`` of one parent) by alpha-beta.

        Rows of equal value: the first searched wins, and rows are searched in a
        random order among equal one-ply values.
        """
        order = self._order(moves.states, turn + 1, rng)
        alpha, best_row = -np.inf, int(order[0])
        for row in order:
            value = self._after_value(moves.states[row], turn + 1, self.depth - 1, alpha, np.inf)
            if value > alpha:
                alpha, best_row = value, int(row)
        return best_row

    def after_values(self, afters: np.ndarray, turns_after: np.ndarray) -> np.ndarray:
        """``(M,) float64``: one-ply values of positions just moved into (mover's view,
        not passed), to the player who moved; ``turns_after`` ``(M,)`` counts that turn."""
        children = pass_turn(afters)
        over = game_over(children, turns_after, self.rules)
        values = np.empty(len(afters), dtype=np.float64)
        values[over] = self.terminal(margin(afters[over]))
        if (~over).any():
            values[~over] = -self.evaluate(children[~over], turns_after[~over])
        return values

    def node_values(self, states: np.ndarray, turns: np.ndarray, depth: int) -> np.ndarray:
        """``(N,) float64``: ``depth``-ply values of positions not over, to their mover, in
        array code (every position of each ply in one call)."""
        moves = generate_turns(states, self.rules)
        turns_after = np.asarray(turns)[moves.parents] + 1
        values = self._row_values(moves, turns_after, depth, len(states))
        return np.maximum.reduceat(values, moves.starts(len(states)))

    def _row_values(self, moves: MoveList, turns_after, depth: int, batch: int) -> np.ndarray:
        """Values of the rows of ``moves`` to their movers, ``depth`` plies counting theirs."""
        values = self.after_values(moves.states, turns_after)
        if depth == 1:
            return values
        children = pass_turn(moves.states)
        live = ~game_over(children, turns_after, self.rules)
        deeper = live & self._widest(np.where(live, values, -np.inf), moves.parents, batch)
        values[live & ~deeper] = -np.inf
        if deeper.any():
            values[deeper] = -self.node_values(children[deeper], turns_after[deeper], depth - 1)
        return values

    def _widest(self, values: np.ndarray, parents: np.ndarray, batch: int) -> np.ndarray:
        """``(M,) bool``: rows among the ``width`` best ``values`` of their parent."""
        if not self.width:
            return np.ones(len(values), dtype=bool)
        order = np.lexsort((-values, parents))
        starts = np.searchsorted(parents[order], np.arange(batch))
        rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
        mask = np.zeros(len(values), dtype=bool)
        mask[order[rank < self.width]] = True
        return mask

    def _after_value(self, after, turns_after: int, depth: int, alpha: float, beta: float):
        """Value of one position just moved into, to the player who moved, searching
        ``depth`` more plies within (alpha, beta)."""
        if depth == 0:
            return float(self.after_values(after[None], np.array([turns_after]))[0])
        child = pass_turn(after[None])
        if game_over(child, [turns_after], self.rules)[0]:
            return float(self.terminal(margin(after[None]))[0])
        return -self._alphabeta(child[0], turns_after, depth, -beta, -alpha)

    def _alphabeta(self, state, turns: int, depth: int, alpha: float, beta: float) -> float:
        """Negamax value of one position not over, to its mover, within (alpha, beta)."""
        if depth <= self.batch_depth:
            return float(self.node_values(state[None], np.array([turns]), depth)[0])
        moves = generate_turns(state[None], self.rules)
        best = -np.inf
        for row in self._order(moves.states, turns + 1, None):
            value = self._after_value(moves.states[row], turns + 1, depth - 1, alpha, beta)
            best = max(best, value)
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return best

    def _order(self, afters, turns_after: int, rng: np.random.Generator | None) -> np.ndarray:
        """Rows to search deeper, best first by one-ply value, at most ``width`` of them
        (random order among equal values when ``rng`` is given)."""
        values = self.after_values(afters, np.full(len(afters), turns_after))
        tie = rng.random(len(values)) if rng is not None else np.arange(len(values))
        order = np.lexsort((tie, -values))
        return order[: self.width] if self.width else order
