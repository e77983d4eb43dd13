"""The London Bridge state layout, the start, passing the turn, the end and the score.

Every state is an integer array seen from the player to move (the "mover"),
batch-first: ``(B, STATE_SIZE) int8``. The twelve playing pots are numbered in
the mover's ring order (docs/london_bridge.md 2.2 and 6): pots 1-6 are the
mover's row from the mover's left to right, pots 7-12 the opponent's row in the
order the ring continues (the opponent's left to right). Sowing runs up the pot
numbers; the mover's goal lies between pots 6 and 7, the opponent's goal
between pots 12 and 1.

=====  ==============  ==================================================
index  name            meaning
=====  ==============  ==================================================
0..11  ``OWN``         the mover's beads in pots 1..12
12..23 ``OPPONENT``    the opponent's beads in pots 1..12
24     ``MOVER_GOAL``  beads (either colour) in the mover's goal
25     ``OPPONENT_GOAL`` beads in the opponent's goal
26     ``NUMBER_PIN``  number-dial pin position 0..3 (``NUMBER_CYCLE``)
27     ``COLOUR_PIN``  colour-dial pin position 0..5 (``COLOUR_CYCLE``)
28     ``SEAT``        the mover's seat: 0 the first player of the layout, 1 the second
=====  ==============  ==================================================

Every count fits an int8: 36 beads in all (1.3). Beads leave the game only by
the discard of 4.2, so ``36 - pots - goals`` is the number discarded. The dials
are shared by both players, so passing the turn leaves them alone. A pot's
colour depends on whose view it is: ``pot_colours`` reads the layout (1.2)
through ``SEAT``.

The turn number is not part of the state (400, the default limit of 5.3, does
not fit an int8, and no rule of a turn reads it): the game record and the
search carry it beside the state (``tdgammon.engine.london_bridge.game``).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tdgammon.engine.london_bridge.rules import COLOURS, Rules
from tdgammon.engine.rules.errors import InvalidBoardError

N_POTS = 12
ROW = 6
OWN = slice(0, 12)
OPPONENT = slice(12, 24)
POTS = slice(0, 24)
"""Both colours of every pot: ``state[:, POTS].sum(1)`` is the beads left in play."""
MOVER_GOAL = 24
OPPONENT_GOAL = 25
NUMBER_PIN = 26
COLOUR_PIN = 27
SEAT = 28
STATE_SIZE = 29
STATE_DTYPE = np.int8

BEADS_PER_PLAYER = 18
"""1.3: "Each player owns 18 beads of their own colour"."""
START_BEADS_PER_POT = 3
"""2.1: "Each player puts 3 of their own beads into each of their six pots"."""

_PASS_INDEX = np.array(
    [OPPONENT.start + (p + ROW) % N_POTS for p in range(N_POTS)]
    + [OWN.start + (p + ROW) % N_POTS for p in range(N_POTS)]
    + [OPPONENT_GOAL, MOVER_GOAL, NUMBER_PIN, COLOUR_PIN, SEAT],
    dtype=np.intp,
)
"""pass_turn: new[i] = old[_PASS_INDEX[i]] (the other player's pot p is this player's p + 6)."""


def start_state(rules: Rules) -> np.ndarray:
    """``(STATE_SIZE,) int8``: the position before the first turn, from the first mover's view.

    2.1: each player has 3 beads in each pot of their own row; 1.4: the pins where
    the rules put them; 2.3: ``rules.first_player`` moves.
    """
    state = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    state[OWN.start : OWN.start + ROW] = START_BEADS_PER_POT
    state[OPPONENT.start + ROW : OPPONENT.stop] = START_BEADS_PER_POT
    state[NUMBER_PIN] = rules.number_start - 1
    state[COLOUR_PIN] = rules.colour_start
    state[SEAT] = rules.first_player
    return state


def pass_turn(states: np.ndarray) -> np.ndarray:
    """``(B, STATE_SIZE) int8`` -> the same positions from the other player's view.

    4.3: "The turn passes to the other player." Passing twice is the identity.
    """
    flipped = states[..., _PASS_INDEX]
    flipped[..., SEAT] = 1 - flipped[..., SEAT]
    return flipped


@cache
def pot_colours(rules: Rules) -> np.ndarray:
    """``(2, N_POTS) int8``, read-only: colour codes of pots 1..12 seen by the mover in
    seat 0 and seat 1.

    1.2: the layout is the first player's row, then the second player's row, each
    left to right from its owner's seat; the mover's ring starts with their own row.
    """
    codes = np.array([COLOURS.index(c) for c in rules.layout], dtype=np.int8)
    table = np.stack([codes, np.roll(codes, ROW)])
    table.setflags(write=False)
    return table


def beads_in_pots(states: np.ndarray) -> np.ndarray:
    """``(B,) int64``: beads of both colours left in the playing pots."""
    return states[..., POTS].sum(axis=-1, dtype=np.int64)


def is_over(states: np.ndarray) -> np.ndarray:
    """``(B,) bool``, 5.1: "The game ends as soon as no bead is left in the playing pots"."""
    return beads_in_pots(states) == 0


def margin(states: np.ndarray) -> np.ndarray:
    """``(B,) int64``: the mover's points less the opponent's.

    5.2: "a point for every bead in their goal, whatever its colour"; 5.3: beads still
    in play at the turn limit count for nobody, so this is the score whenever the game stops.
    """
    return states[..., MOVER_GOAL].astype(np.int64) - states[..., OPPONENT_GOAL]


def check_states(states: np.ndarray) -> None:
    """Raise ``InvalidBoardError`` unless every row of ``(B, STATE_SIZE)`` can occur.

    Counts are non-negative; neither player has more than 18 beads in the pots
    (1.3); pots and goals together hold at most 36; the pins are on their cycles.
    """
    states = np.asarray(states)
    if states.ndim != 2 or states.shape[1] != STATE_SIZE:
        raise InvalidBoardError(f"a London Bridge state has {STATE_SIZE} slots, got {states.shape}")
    counts = states[:, : OPPONENT_GOAL + 1].astype(np.int64)
    problems = {
        "a negative bead count": (counts < 0).any(axis=1),
        f"more than {BEADS_PER_PLAYER} beads of the mover in the pots": (
            counts[:, OWN].sum(1) > BEADS_PER_PLAYER
        ),
        f"more than {BEADS_PER_PLAYER} beads of the opponent in the pots": (
            counts[:, OPPONENT].sum(1) > BEADS_PER_PLAYER
        ),
        f"more than {2 * BEADS_PER_PLAYER} beads in pots and goals": (
            counts.sum(1) > 2 * BEADS_PER_PLAYER
        ),
        "a number pin off its cycle (0-3)": ~np.isin(states[:, NUMBER_PIN], range(4)),
        "a colour pin off its cycle (0-5)": ~np.isin(states[:, COLOUR_PIN], range(6)),
        "a seat other than 0 or 1": ~np.isin(states[:, SEAT], (0, 1)),
    }
    for what, bad in problems.items():
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InvalidBoardError(f"state {row} has {what}: {states[row].tolist()}")
