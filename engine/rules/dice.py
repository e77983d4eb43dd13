"""Dice: the 21 distinct rolls and their probabilities.

Dice arrays are ``(B, 2)`` with values 1..6, never 0..5 (docs/architecture.md).
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.rules.errors import FormatError

MAX_MOVES = 4
"""docs/rules.md 2.3: doubles are "four moves", the most any roll plays."""
MAX_MOVES_ACEY_DEUCEY = 6
"""docs/rules.md 7: the Acey-Deucey 1-2 plays the 1, the 2 and four moves of the named double."""

ALL_ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int8)
"""``(21, 2) int8``: every distinct roll, larger die first."""

ROLL_WEIGHTS = np.where(ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1], 1, 2).astype(np.float64) / 36.0
"""``(21,) float64``: probability of each roll of ALL_ROLLS (1/36 doubles, 2/36 others)."""


def _rolls_reaching() -> np.ndarray:
    """``(26, 36) bool``: row d (0..25), column 6 * (d1 - 1) + (d2 - 1) for the
    ordered roll (d1, d2): can one checker travel exactly d pips with that roll,
    blocks ignored? A non-double moves d1, d2 or d1 + d2 pips; a double
    1 to 4 times the die (docs/rules.md 2.1, 2.3)."""
    out = np.zeros((26, 36), dtype=bool)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            reach = {d1 * k for k in (1, 2, 3, 4)} if d1 == d2 else {d1, d2, d1 + d2}
            for d in reach:
                if d <= 25:
                    out[d, 6 * (d1 - 1) + d2 - 1] = True
    return out


ROLLS_REACHING = _rolls_reaching()
"""``(26, 36) bool``: the shot table. Row d: the 36 ordered rolls with which one
checker can travel exactly d pips, blocks ignored; ``ROLLS_REACHING[d].sum()``
is the number of direct and indirect shots at distance d."""


def parse_dice(text: str) -> tuple[int, int]:
    """Parse ``"52"``, ``"5-2"``, ``"5 2"`` or ``"5,2"`` into ``(5, 2)``.

    Raises FormatError naming the problem (not two dice, a die outside 1..6).
    """
    raw = str(text).strip()
    digits = [c for c in raw if c not in " -,/"]
    if len(digits) != 2 or not all(c in "0123456789" for c in digits):  # ASCII: not '²', '①'
        raise FormatError(f"dice must be two numbers 1-6 such as 52 or 5-2, got {raw!r}")
    dice = (int(digits[0]), int(digits[1]))
    check_dice(dice)
    return dice


def check_dice(dice) -> tuple[int, int]:
    """Return ``dice`` as a tuple of two ints after checking both are 1..6."""
    try:
        values = [int(d) for d in dice]
    except (TypeError, ValueError):
        raise FormatError(f"dice must be two numbers 1-6, got {dice!r}") from None
    if len(values) != 2:
        raise FormatError(f"dice must be two numbers 1-6, got {len(values)} numbers")
    for d in values:
        if not 1 <= d <= 6:
            raise FormatError(f"die {d} is out of range 1-6")
    return values[0], values[1]


MAX_SEED = 2**63 - 1
"""Largest dice seed: numpy's generators take any whole number >= 0; some of the
project's seeds are mixed in signed 64-bit integers."""


def seed_argument(text: str) -> int:
    """A ``--seed`` option's value: a whole number 0..MAX_SEED, else FormatError."""
    try:
        value = int(text)
    except (TypeError, ValueError):
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise FormatError(f"--seed must be a whole number from 0 to 2**63 - 1, got {text!r}")
    return value


def roll_dice(
    rng: np.random.Generator, batch: int, opening: np.ndarray | None = None
) -> np.ndarray:
    """``(batch, 2) int8`` uniformly random dice.

    opening: ``(batch,) bool`` or None: the games whose roll is the opening
    roll, which is never a double (docs/rules.md 1: "Each player rolls one die.
    The higher number moves first and plays the two numbers just rolled. Equal
    numbers: both roll again"). Those rows are re-rolled until the dice differ;
    the order of the two dice (which seat rolled which) is kept.
    """
    dice = rng.integers(1, 7, size=(batch, 2)).astype(np.int8)
    if opening is not None:
        ties = opening & (dice[:, 0] == dice[:, 1])
        while ties.any():
            dice[ties] = rng.integers(1, 7, size=(int(ties.sum()), 2))
            ties = opening & (dice[:, 0] == dice[:, 1])
    return dice
