"""The dial operation, docs/london_bridge.md 4: turn one dial, then empty the matching pots."""

from __future__ import annotations

import numpy as np

from tdgammon.engine.london_bridge.rules import COLOUR_CYCLE, NUMBER_CYCLE, Rules
from tdgammon.engine.london_bridge.state import (
    COLOUR_PIN,
    MOVER_GOAL,
    NUMBER_PIN,
    OPPONENT,
    OWN,
    SEAT,
    pot_colours,
)

NUMBER_DIAL = 0
COLOUR_DIAL = 1
NO_DIAL = -1
"""No dial turned: no bead was left in the pots (4.1)."""
DIAL_LETTERS = "NC"
"""Clause 6: ``N`` the number dial, ``C`` the colour dial (index = the dial's code)."""

_NUMBERS = np.array(NUMBER_CYCLE, dtype=np.int64)
_COLOURS = np.array(COLOUR_CYCLE, dtype=np.int8)


def turn_dials(states: np.ndarray, dials: np.ndarray, rules: Rules) -> np.ndarray:
    """``(B, STATE_SIZE) int8`` after turning dial ``dials[i]`` of row i (a new array).

    states: ``(B, STATE_SIZE) int8``, mover's view, after the bead move, with beads
    left in the pots; dials: ``(B,)`` ``NUMBER_DIAL`` or ``COLOUR_DIAL``.

    4.1: "the mover must turn one dial of their choice: its pin moves one step along
    its cycle". 4.2: "Then every playing pot that has the colour dial's colour and
    holds exactly the number dial's number of beads (both colours together) is
    emptied: the opponent's beads in it go into the mover's goal, and the mover's own
    beads in it are discarded".
    """
    out = states.copy()
    number = dials == NUMBER_DIAL
    out[number, NUMBER_PIN] = (out[number, NUMBER_PIN] + 1) % len(NUMBER_CYCLE)
    out[~number, COLOUR_PIN] = (out[~number, COLOUR_PIN] + 1) % len(COLOUR_CYCLE)
    colours = pot_colours(rules)[out[:, SEAT]]
    beads = out[:, OWN].astype(np.int64) + out[:, OPPONENT]
    emptied = (colours == _COLOURS[out[:, COLOUR_PIN], None]) & (
        beads == _NUMBERS[out[:, NUMBER_PIN], None]
    )
    out[:, MOVER_GOAL] += np.where(emptied, out[:, OPPONENT], 0).sum(axis=1, dtype=np.int8)
    out[:, OWN][emptied] = 0
    out[:, OPPONENT][emptied] = 0
    return out
