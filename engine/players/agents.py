"""Players: one small interface that every agent implements.

The interface is batched, because training and bot matches play hundreds of
games at once; a single decision is a batch of one.

``choose_plays(boards, dice, moves) -> (B,) int64``: for each of the B
positions (``boards (B, 30) int8``, mover's view, ``dice (B, 2)``) pick one row
of ``moves`` (the ``MoveList`` from ``tdgammon.engine.movegen.vectorized.generate_moves`` for
exactly those boards and dice) whose parent is that position.

Cube decisions (optional; ``tdgammon.engine.players.cube_actions`` supplies the defaults "never
double, always take" for agents without them):

- ``decide_double(position) -> bool``: the player on roll (``position``'s
  mover, before rolling, cube available) doubles or not;
- ``decide_take(position) -> "take" | "drop" | "beaver"``: ``position`` is the
  doubler's view with ``double_offered`` set; the answer is the opponent's
  ("beaver" only where ``position.beavers`` allows it).

A ``HumanAgent`` (``tdgammon.engine.interfaces.terminal``) reads its decisions from a terminal; it
sets ``is_human = True`` so drivers ask it for one play at a time.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tdgammon.engine.cube.theory import BEAVER, DROP, TAKE
from tdgammon.engine.flow.random_play import pick_random_children
from tdgammon.engine.movegen.vectorized import MoveList, best_rows
from tdgammon.engine.players.pubeval import score as pubeval_score
from tdgammon.engine.rules.board import (
    MOVER_BAR,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_OFF,
    POINTS_AND_BAR,
    flip,
    has_contact,
)


class Agent(Protocol):
    """Anything that picks plays: see the module docstring."""

    name: str

    def choose_plays(self, boards: np.ndarray, dice: np.ndarray, moves: MoveList) -> np.ndarray:
        """``(B,) int64`` row indices into ``moves``, one per position."""
        ...


class RandomAgent:
    """Plays a uniformly random legal play; cube decisions are coin flips.

    double_rate: chance of doubling whenever it may; take/drop (and beaver,
    where allowed) are equally likely.
    """

    name = "random"

    def __init__(self, seed: int | None = None, double_rate: float = 0.1) -> None:
        self.rng = np.random.default_rng(seed)
        self.double_rate = double_rate

    def choose_plays(self, boards, dice, moves: MoveList) -> np.ndarray:
        return pick_random_children(moves.counts(len(boards)), self.rng)

    def decide_double(self, position) -> bool:
        return bool(self.rng.random() < self.double_rate)

    def decide_take(self, position) -> str:
        options = [TAKE, DROP, BEAVER] if position.beavers else [TAKE, DROP]
        return options[int(self.rng.integers(len(options)))]


def keith_count(board: np.ndarray) -> float:
    """Keith count of the mover of ``board`` ``(30,)`` (mover's view): pips plus
    2 per checker beyond one on point 1, 1 per checker beyond one on point 2,
    1 per checker beyond three on point 3, 1 per empty point among 4, 5, 6."""
    b = np.asarray(board).astype(np.int64)
    pips = int((np.clip(b[POINTS_AND_BAR], 0, None) * np.arange(1, 26)).sum())
    extra = 2 * max(b[1] - 1, 0) + max(b[2] - 1, 0) + max(b[3] - 3, 0)
    extra += sum(1 for p in (4, 5, 6) if b[p] <= 0)
    return float(pips + extra)


def keith_decisions(board: np.ndarray) -> tuple[bool, bool, bool]:
    """(double, redouble, take) by the Keith count for a race; board: mover's view.

    The roller's count is raised by a seventh; double if it exceeds the
    opponent's by at most 4, redouble by at most 3; the opponent takes if it
    exceeds the opponent's by at least 2.
    """
    roller = keith_count(board) * 8.0 / 7.0
    other = keith_count(flip(np.asarray(board)))
    behind = roller - other  # positive: the roller is behind in the race
    return behind <= 4.0, behind <= 3.0, behind >= 2.0


class PubevalAgent:
    """Tesauro's pubeval: the play with the highest linear score."""

    name = "pubeval"

    def choose_plays(self, boards, dice, moves: MoveList) -> np.ndarray:
        race_before = ~has_contact(boards)[moves.parents]
        return best_rows(pubeval_score(moves.boards, race_before), moves.parents, len(boards))

    def decide_double(self, position) -> bool:
        """Races only, by the Keith count (pubeval has no idea of winning chances);
        never in a contact position."""
        if has_contact(position.board) or _borne_off_any(position.board):
            return False
        double, redouble, _ = keith_decisions(position.board)
        return redouble if position.cube_owner == "mover" else double

    def decide_take(self, position) -> str:
        """Takes everything except a race that the Keith count calls a pass."""
        if has_contact(position.board) or _borne_off_any(position.board):
            return TAKE
        return TAKE if keith_decisions(position.board)[2] else DROP


def _borne_off_any(board: np.ndarray) -> bool:
    """Bear-off positions are beyond the Keith count: leave the cube alone."""
    b = np.asarray(board)
    return bool(b[MOVER_OFF] > 0 or b[OPPONENT_OFF] < 0 or b[MOVER_BAR] or b[OPPONENT_BAR])
