"""One sowing, every distinct way: the tables of the fast move generator.

What a sowing adds to the board depends only on the pot and on the beads taken
out of it (docs/london_bridge.md 3.1), never on the rest of the board. So
``sowing_table(pot, own, opponent, ...)`` lists, once per distinct outcome, the
beads each pot and the mover's goal receive; the generator empties the pot and
adds a row of the table. Tables are built on first use and cached.

The ring of a sowing has 13 slots (2.2 with 3.4, "The opponent's goal is
skipped"): slots 0-5 are pots 1-6, slot 6 the mover's goal, slots 7-12 pots
7-12. The table is built bead by bead over a frontier of partial sowings, kept
distinct at every bead (two partial sowings with the same drops so far and the
same beads in hand have the same futures):

- at a pot the mover drops an own bead or an opponent's (3.2, 3.5; the
  ``sowing`` setting may fix the order);
- at the goal an own bead is dropped if one is in hand (3.3), else the goal is
  passed and the bead goes to the next pot (the ``goal_without_own`` setting
  ``reserve`` then keeps only the sowings that never pass, where there are any).

A row's ``mask`` records one way to sow it: bit j set when drop j (the goal
drops counted) was an own bead, the ``o`` / ``x`` letters of clause 6.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from tdgammon.engine.london_bridge.distinct import first_of_each
from tdgammon.engine.london_bridge.state import N_POTS, ROW

N_SLOTS = N_POTS + 1
GOAL_SLOT = ROW
POT_SLOT = np.array([p if p < ROW else p + 1 for p in range(N_POTS)], dtype=np.intp)
"""Ring slot of pots 1..12 (index 0..11)."""
DELTA_SIZE = 2 * N_POTS + 1
"""A table row: own beads added to pots 1..12, opponent beads added to them, beads to the goal."""


@dataclass(frozen=True)
class SowingTable:
    """The distinct outcomes of sowing one pot.

    deltas: ``(K, DELTA_SIZE) int8``, beads added (own per pot, opponent per pot,
    own to the mover's goal), the emptied pot's own refills included;
    bonus: ``(K,) bool``, the last bead landed in the mover's goal (3.6);
    masks: ``(K,) int64``, one way to sow it, bit j set when drop j was own.
    """

    deltas: np.ndarray
    bonus: np.ndarray
    masks: np.ndarray


@cache
def sowing_table(pot: int, own: int, opponent: int, sowing: str, goal_without_own: str):
    """``SowingTable`` of pot ``pot`` (0..11) holding ``own`` + ``opponent`` beads (own >= 1).

    ``sowing`` and ``goal_without_own`` are the 3.5 and 3.3 settings of ``Rules``.
    """
    n = own + opponent
    slots = np.zeros((1, N_SLOTS), np.int8)  # own beads dropped per slot
    visits = np.zeros((1, N_SLOTS), np.int8)  # drops per slot, either colour
    at = np.array([POT_SLOT[pot]])
    own_left = np.array([own])
    passed = np.zeros(1, bool)
    masks = np.zeros(1, np.int64)
    for drop in range(n):
        at = (at + 1) % N_SLOTS
        # 3.3: "the mover drops one of their own beads into the goal ... [choice] If only
        # opponent beads are left in hand at that moment, the goal is passed and nothing
        # is dropped there"
        skip = (at == GOAL_SLOT) & (own_left == 0)
        passed |= skip
        at = np.where(skip, at + 1, at)
        opponent_left = n - drop - own_left
        at_goal = at == GOAL_SLOT
        may_own = (own_left > 0) & (at_goal | _may_drop_own(sowing, own_left, opponent_left))
        may_opponent = ~at_goal & (opponent_left > 0) & _may_drop_opponent(sowing, own_left)
        rows = np.concatenate([np.flatnonzero(may_own), np.flatnonzero(may_opponent)])
        is_own = np.repeat([True, False], [may_own.sum(), may_opponent.sum()])
        slots, visits, at, own_left, passed, masks = (
            slots[rows],
            visits[rows],
            at[rows],
            own_left[rows] - is_own,
            passed[rows],
            masks[rows] | (is_own.astype(np.int64) << drop),
        )
        slots[np.arange(len(rows)), at] += is_own
        visits[np.arange(len(rows)), at] += 1
        keep = first_of_each(slots, visits, at, own_left, passed)
        slots, visits, at, own_left, passed, masks = (
            a[keep] for a in (slots, visits, at, own_left, passed, masks)
        )
    if goal_without_own == "reserve" and not passed.all():
        # [choice] reserve: keep an own bead for each goal reached, when some order can.
        keep = ~passed
        slots, visits, at, masks = slots[keep], visits[keep], at[keep], masks[keep]
    pots_own = slots[:, POT_SLOT]
    deltas = np.concatenate(
        [pots_own, visits[:, POT_SLOT] - pots_own, slots[:, GOAL_SLOT : GOAL_SLOT + 1]], axis=1
    )
    keep = first_of_each(deltas, at == GOAL_SLOT)
    return SowingTable(
        deltas=deltas[keep].astype(np.int8),
        bonus=at[keep] == GOAL_SLOT,
        masks=masks[keep],
    )


def _may_drop_own(sowing: str, own_left: np.ndarray, opponent_left: np.ndarray) -> np.ndarray:
    """3.5 at a pot: may an own bead go in (given one is in hand)?"""
    if sowing == "opponent-first":
        return opponent_left == 0
    return np.ones(len(own_left), bool)


def _may_drop_opponent(sowing: str, own_left: np.ndarray) -> np.ndarray:
    """3.5 at a pot: may an opponent bead go in (given one is in hand)?"""
    if sowing == "own-first":
        return own_left == 0
    return np.ones(len(own_left), bool)
