"""Players: one small interface that every agent implements.

The interface is batched, because training and bot matches play hundreds of
games at once; a single decision is a batch of one.

``choose_plays(boards, dice, moves) -> (B,) int64``: for each of the B
positions (``boards (B, 30) int8``, mover's view, ``dice (B, 2)``) pick one row
of ``moves`` (the ``MoveList`` from ``engine.movegen.generate_moves`` for
exactly those boards and dice) whose parent is that position.

Cube decisions (double / take / drop) join this interface with the game and
match issue; cubeless bot matches need only plays.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from engine.board import has_contact
from engine.movegen import MoveList
from engine.pubeval import score as pubeval_score
from engine.random_play import pick_random_children


class Agent(Protocol):
    """Anything that picks plays: see the module docstring."""

    name: str

    def choose_plays(self, boards: np.ndarray, dice: np.ndarray, moves: MoveList) -> np.ndarray:
        """``(B,) int64`` row indices into ``moves``, one per position."""
        ...


def best_per_parent(scores: np.ndarray, parents: np.ndarray, batch: int) -> np.ndarray:
    """Row of the highest score of each parent (the first such row on ties).

    scores: ``(M,)``; parents: ``(M,)`` ascending, every parent 0..batch-1 present.
    Returns ``(batch,) int64``.
    """
    order = np.lexsort((np.arange(len(scores)), -scores, parents))
    starts = np.searchsorted(parents[order], np.arange(batch))
    return order[starts]


class RandomAgent:
    """Plays a uniformly random legal play."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def choose_plays(self, boards, dice, moves: MoveList) -> np.ndarray:
        return pick_random_children(moves.counts(len(boards)), self.rng)


class PubevalAgent:
    """Tesauro's pubeval: the play with the highest linear score."""

    name = "pubeval"

    def choose_plays(self, boards, dice, moves: MoveList) -> np.ndarray:
        race_before = ~has_contact(boards)[moves.parents]
        return best_per_parent(pubeval_score(moves.boards, race_before), moves.parents, len(boards))
