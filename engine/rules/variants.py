"""Backgammon variants (docs/rules.md section 7) as data: start, checkers, rule switches.

- Nackgammon: start with 2 on 24, 2 on 23, 4 on 13, 3 on 8, 4 on 6.
- Hypergammon: 3 checkers each, on the 24, 23 and 22 points.
- Dutch backgammon: all 15 start in hand and enter like checkers on the bar;
  all 15 must be entered before any checker may move on; no hitting until one
  of your checkers has reached your home board.
- Acey-Deucey: all 15 start in hand; entering is optional (a hit checker on
  the bar must enter first); 1-2 = play 1 and 2, name a double and play it
  four times, then roll again; no cube; the loser pays the stake times his
  checkers not borne off.

Move generation reads the switches below; the game flow reads ``cube`` and
``scoring``. The rules core stays numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    HYPERGAMMON_START,
    MOVER_HAND,
    MOVER_OFF,
    NACKGAMMON_START,
    OPPONENT_HAND,
    OPPONENT_OFF,
    STANDARD_START,
    board_from_points,
)
from tdgammon.engine.rules.errors import FormatError

SCORING_STANDARD = "standard"
"""Single / gammon / backgammon times the cube (docs/rules.md 4)."""
SCORING_CHECKERS_LEFT = "checkers-left"
"""Acey-Deucey: "the loser pays the stake times the number of checkers he has not borne off"."""


@dataclass(frozen=True)
class Variant:
    """The rules of one variant.

    name: the name used on the command line and in records.
    start: {point: count} for each side in its own numbering, or None when all
        checkers start in hand.
    checkers: checkers per side.
    hand_enters_first: Dutch: "all 15 must be entered before any checker may
        move on" -- while a checker is in hand only entering moves are legal.
    no_hit_before_home: Dutch: "a player may not hit until at least one of his
        own checkers has reached his home board".
    acey_deucey_roll: a 1-2 is played as 1 and 2, then a named double four
        times, then the player rolls again.
    cube: the doubling cube is used.
    scoring: SCORING_STANDARD or SCORING_CHECKERS_LEFT.
    """

    name: str
    start: dict[int, int] | None
    checkers: int = 15
    hand_enters_first: bool = False
    no_hit_before_home: bool = False
    acey_deucey_roll: bool = False
    cube: bool = True
    scoring: str = SCORING_STANDARD

    def starting_board(self) -> np.ndarray:
        """``(30,) int8`` start position, mover's view."""
        if self.start is not None:
            if self.checkers == 15:
                return board_from_points(self.start, self.start)
            board = np.zeros(BOARD_SIZE, dtype=np.int64)
            for point, count in self.start.items():
                board[point] += count
                board[25 - point] -= count
            return board.astype(BOARD_DTYPE)
        board = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
        board[MOVER_HAND] = self.checkers
        board[OPPONENT_HAND] = -self.checkers
        return board

    def position_board(self, board: np.ndarray) -> np.ndarray:
        """The board a ``Position`` holds for this variant's ``board (30,)``.

        ``Position`` (and GNU Backgammon's Position ID) always has 15 checkers a
        side, so the checkers a variant does not play (Hypergammon: 12) count
        as borne off. ``board_in_play`` undoes this."""
        out = np.asarray(board).astype(BOARD_DTYPE).copy()
        out[MOVER_OFF] += CHECKERS_PER_SIDE - self.checkers
        out[OPPONENT_OFF] -= CHECKERS_PER_SIDE - self.checkers
        return out

    def board_in_play(self, position_board: np.ndarray) -> np.ndarray:
        """The variant's board ``(30,)`` of a ``Position``'s board: the checkers not
        in play (counted as borne off by ``position_board``) taken out again. A
        board that does not count them (fewer borne off than that) is already
        the variant's and comes back unchanged."""
        out = np.asarray(position_board).astype(BOARD_DTYPE).copy()
        unused = CHECKERS_PER_SIDE - self.checkers
        if out[MOVER_OFF] < unused or -out[OPPONENT_OFF] < unused:
            return out
        out[MOVER_OFF] -= unused
        out[OPPONENT_OFF] += unused
        return out


STANDARD = Variant("standard", STANDARD_START)
NACKGAMMON = Variant("nackgammon", NACKGAMMON_START)
HYPERGAMMON = Variant("hypergammon", HYPERGAMMON_START, checkers=3)
DUTCH = Variant("dutch", None, hand_enters_first=True, no_hit_before_home=True)
ACEY_DEUCEY = Variant(
    "acey-deucey", None, acey_deucey_roll=True, cube=False, scoring=SCORING_CHECKERS_LEFT
)

VARIANTS = {v.name: v for v in (STANDARD, NACKGAMMON, HYPERGAMMON, DUTCH, ACEY_DEUCEY)}


def get_variant(variant: str | Variant | None) -> Variant:
    """A Variant from its name (None = standard); FormatError for an unknown name."""
    if variant is None:
        return STANDARD
    if isinstance(variant, Variant):
        return variant
    key = str(variant).strip().lower().replace("_", "-")
    aliases = {"backgammon": "standard", "aceydeucey": "acey-deucey", "acey": "acey-deucey"}
    key = aliases.get(key, key)
    if key not in VARIANTS:
        raise FormatError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
    return VARIANTS[key]
