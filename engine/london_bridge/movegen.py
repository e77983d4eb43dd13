"""The vectorized London Bridge move generator: every distinct result of a turn, for a batch.

``generate_turns(states, rules)`` plays every turn of every state at once and
returns a ``MoveList`` of flat arrays (the shape of the backgammon generator's,
docs/architecture.md, "Array conventions"):

- ``states``  ``(M, STATE_SIZE) int8``: each distinct position after the turn,
  still from the mover's view (not passed: ``pass_turn`` hands it over);
- ``parents`` ``(M,) int64``: the input row each came from, ascending;
- ``sowings`` ``(M, K, 3) int64``: the sowings that made it, in order, each
  (pot 0..11, beads sown, colour mask; bit j set when drop j was own), padded with -1;
  K is the longest chain of bonus moves in the batch (at least 1);
- ``dials``   ``(M,) int8``: the dial turned (``NUMBER_DIAL``, ``COLOUR_DIAL``) or
  ``NO_DIAL`` when no bead was left to turn one for.

docs/london_bridge.md 3.5: "Two sowings that leave the same board are one move: a
move is identified by where it leaves the game"; so is a turn here: turns that
leave the same position are one row, with the first way found as its move.
Every state has at least one row (a turn always changes a dial, or ends the game).

How it works
------------
The bead move is built sowing by sowing over a frontier of positions. Every
(position, pot with an own bead) pair (3.1) takes the rows of its cached
``sowing_table``; children whose last bead landed in the goal and that still
have an own bead in the pots go round again (3.6), the others have finished
their bead move. Positions without an own bead in the pots skip it (3.7). The
frontier is kept distinct per (parent, position, bonus) after every sowing.
Then each finished bead move branches on the two dials where beads are left (4.1),
and the results are kept distinct per parent.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdgammon.engine.london_bridge.dials import NO_DIAL, turn_dials
from tdgammon.engine.london_bridge.distinct import first_of_each
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.sowing import DELTA_SIZE, sowing_table
from tdgammon.engine.london_bridge.state import (
    BEADS_PER_PLAYER,
    OPPONENT,
    OWN,
    STATE_DTYPE,
    beads_in_pots,
)

NO_SOWING = -1
_COUNT_BASE = BEADS_PER_PLAYER + 1


@dataclass(frozen=True)
class MoveList:
    """Flat result of ``generate_turns``; the module docstring gives the shapes."""

    states: np.ndarray
    parents: np.ndarray
    sowings: np.ndarray
    dials: np.ndarray

    def __len__(self) -> int:
        return len(self.parents)

    def counts(self, batch: int) -> np.ndarray:
        """``(batch,) int64``: number of distinct turns per parent."""
        return np.bincount(self.parents, minlength=batch)

    def starts(self, batch: int) -> np.ndarray:
        """``(batch,) int64``: the first row of each parent."""
        return np.searchsorted(self.parents, np.arange(batch))

    def subset(self, parents: np.ndarray) -> tuple[MoveList, np.ndarray]:
        """The rows of ``parents`` (ascending), renumbered 0..k-1 in that order, and
        ``(R,) int64`` the indices of those rows here."""
        rows = np.flatnonzero(np.isin(self.parents, parents))
        return (
            MoveList(
                self.states[rows],
                np.searchsorted(parents, self.parents[rows]),
                self.sowings[rows],
                self.dials[rows],
            ),
            rows,
        )


def generate_turns(states: np.ndarray, rules: Rules) -> MoveList:
    """Every distinct result of a turn of each of ``states`` (``(B, STATE_SIZE) int8``, mover).

    The states must not be over (5.1: some bead in the pots); the game or the
    search stops before that.
    """
    states = np.asarray(states, dtype=STATE_DTYPE)
    frontier = _Frontier(states, np.arange(len(states)), np.zeros((len(states), 0, 3), np.int64))
    finished: list[_Frontier] = []
    while True:
        # 3.7: "A mover with any own bead in the playing pots must make a bead move. A
        # mover with none skips the bead move" (at the start, or after a bonus).
        can_sow = frontier.states[:, OWN].any(axis=1)
        finished.append(frontier.take(~can_sow))
        if not can_sow.any():
            break
        frontier, bonus = _sow(frontier.take(can_sow), rules)
        finished.append(frontier.take(~bonus))
        # 3.6: "when the last bead of a sowing lands in the mover's goal, the mover
        # picks a pot again (3.1) and sows again, as often as it happens."
        frontier = frontier.take(bonus)
    moved = _Frontier.concat(finished)
    return _turn_dials(moved, rules)


@dataclass(frozen=True)
class _Frontier:
    """Positions part-way through a turn: states (F, STATE_SIZE), roots (F,), chains (F, k, 3)."""

    states: np.ndarray
    roots: np.ndarray
    chains: np.ndarray

    def take(self, rows: np.ndarray) -> _Frontier:
        return _Frontier(self.states[rows], self.roots[rows], self.chains[rows])

    @staticmethod
    def concat(parts: list[_Frontier]) -> _Frontier:
        width = max(1, max(p.chains.shape[1] for p in parts))
        roots = np.concatenate([p.roots for p in parts])
        chains = np.full((len(roots), width, 3), NO_SOWING, dtype=np.int64)
        start = 0
        for part in parts:
            chains[start : start + len(part.roots), : part.chains.shape[1]] = part.chains
            start += len(part.roots)
        return _Frontier(np.concatenate([p.states for p in parts]), roots, chains)


def _sow(frontier: _Frontier, rules: Rules) -> tuple[_Frontier, np.ndarray]:
    """Every distinct sowing of every pot holding an own bead (3.1), and the bonus flags (3.6)."""
    rows, pots = np.nonzero(frontier.states[:, OWN] > 0)
    own = frontier.states[rows, OWN.start + pots].astype(np.int64)
    opponent = frontier.states[rows, OPPONENT.start + pots].astype(np.int64)
    keys = (pots * _COUNT_BASE + own) * _COUNT_BASE + opponent
    unique_keys, which = np.unique(keys, return_inverse=True)
    tables = [
        sowing_table(
            int(k // _COUNT_BASE**2),
            int(k // _COUNT_BASE % _COUNT_BASE),
            int(k % _COUNT_BASE),
            rules.sowing,
            rules.goal_without_own,
        )
        for k in unique_keys
    ]
    sizes = np.array([len(t.bonus) for t in tables], dtype=np.int64)
    offsets = np.cumsum(sizes) - sizes
    counts = sizes[which]
    pair = np.repeat(np.arange(len(rows)), counts)
    table_row = (
        offsets[which][pair]
        + np.arange(counts.sum())
        - np.repeat(np.cumsum(counts) - counts, counts)
    )
    deltas = np.concatenate([t.deltas for t in tables])[table_row]
    bonus = np.concatenate([t.bonus for t in tables])[table_row]
    masks = np.concatenate([t.masks for t in tables])[table_row]

    parent = rows[pair]
    child_pots = pots[pair]
    children = frontier.states[parent].copy()
    # 3.1: "They lift out all of its beads, both colours, and sow them"
    children[np.arange(len(pair)), OWN.start + child_pots] = 0
    children[np.arange(len(pair)), OPPONENT.start + child_pots] = 0
    children[:, :DELTA_SIZE] += deltas
    step = np.stack([child_pots, own[pair] + opponent[pair], masks], axis=1)
    chains = np.concatenate([frontier.chains[parent], step[:, None, :]], axis=1)
    roots = frontier.roots[parent]
    keep = first_of_each(roots, children, bonus)
    return _Frontier(children[keep], roots[keep], chains[keep]), bonus[keep]


def _turn_dials(moved: _Frontier, rules: Rules) -> MoveList:
    """4.1: "If any bead, of either colour, is left in the playing pots, the mover must
    turn one dial"; one row per dial (or one row with ``NO_DIAL``), kept distinct."""
    has_beads = beads_in_pots(moved.states) > 0
    branches = np.where(has_beads, 2, 1)
    row = np.repeat(np.arange(len(has_beads)), branches)
    within = np.arange(len(row)) - np.repeat(np.cumsum(branches) - branches, branches)
    dials = np.where(has_beads[row], within, NO_DIAL).astype(np.int8)
    states = moved.states[row]
    turned = dials != NO_DIAL
    states[turned] = turn_dials(states[turned], dials[turned], rules)
    roots = moved.roots[row]
    keep = first_of_each(roots, states)
    keep = keep[np.argsort(roots[keep], kind="stable")]
    return MoveList(
        states=states[keep],
        parents=roots[keep].astype(np.int64),
        sowings=moved.chains[row][keep],
        dials=dials[keep],
    )
