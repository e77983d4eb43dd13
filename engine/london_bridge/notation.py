"""London Bridge notation, docs/london_bridge.md 6: positions and moves as text.

A move: the pot (1-6 the mover's row, 7-12 the opponent's, in ring order), a
colon, one letter per bead dropped in order (``o`` own, ``x`` the opponent's,
goal drops included), then ``/`` and the dial turned (``N`` number, ``C``
colour); bonus moves are joined with ``+``: ``4:oxo/N``, ``6:o+2:oox/C``.
A turn without a bead move (3.7) is ``/N`` or ``/C``; a turn that empties the
pots turns no dial (4.1) and has no ``/`` part.

A position, 16 fields separated by spaces, all from the mover's view::

    3/0 3/0 3/0 3/0 3/0 3/0 0/3 0/3 0/3 0/3 0/3 0/3 0:0 N1 R1 P1

the 12 pots as own/opponent bead counts (pots 1-12), the goals as
mover:opponent, the number pin's value (``N1``-``N4``), the colour pin as its
colour and which of that colour's two places on the cycle it is on (``R1`` the
first red, ``Y1``, ``B1``, ``R2``, ``B2``, ``Y2``: clause 1.4's order), and the
player to move (``P1`` the first player of the layout, ``P2`` the second).
"""

from __future__ import annotations

import re

import numpy as np

from tdgammon.engine.london_bridge.dials import DIAL_LETTERS, NO_DIAL
from tdgammon.engine.london_bridge.movegen import MoveList
from tdgammon.engine.london_bridge.rules import COLOUR_CYCLE, COLOURS, NUMBER_CYCLE
from tdgammon.engine.london_bridge.state import (
    BEADS_PER_PLAYER,
    COLOUR_PIN,
    MOVER_GOAL,
    N_POTS,
    NUMBER_PIN,
    OPPONENT,
    OPPONENT_GOAL,
    OWN,
    SEAT,
    STATE_DTYPE,
    STATE_SIZE,
    check_states,
)
from tdgammon.engine.london_bridge.turn import OPPONENT_LETTER, OWN_LETTER, Move
from tdgammon.engine.rules.errors import FormatError, InvalidBoardError, quoted

COLOUR_PLACES = tuple(
    f"{COLOURS[c]}{COLOUR_CYCLE[: i + 1].count(c)}" for i, c in enumerate(COLOUR_CYCLE)
)
"""Names of the colour pin's positions 0..5: R1 Y1 B1 R2 B2 Y2."""

_SOWING = re.compile(r"0*([0-9]{1,2}):([ox]+)")
"""A sowing: the pot (leading zeros allowed; three digits or more are no pot, and never
reach ``int``, which refuses 4300), a colon, its colours."""
_COUNT = re.compile(r"[0-9]{1,2}")
MOST_BEADS = 2 * BEADS_PER_PLAYER
"""No sowing drops more beads than the game has (1.3): a longer one is malformed."""


# ---------------------------------------------------------------- moves


def format_move(move: Move) -> str:
    """The clause 6 text of ``move``."""
    beads = "+".join(f"{pot + 1}:{colours}" for pot, colours in move.sowings)
    return beads if move.dial == NO_DIAL else f"{beads}/{DIAL_LETTERS[move.dial]}"


def parse_move(text: str) -> Move:
    """``Move`` from clause 6 text (spaces ignored, case-insensitive); ``FormatError`` if malformed.

    Only the form is checked here: whether the move is legal is
    ``tdgammon.engine.london_bridge.turn.play_move``'s to say.
    """
    cleaned = "".join(text.split()).lower()
    if not cleaned:
        raise FormatError("empty move: write e.g. 4:oxo/N (pot:colours/dial)")
    beads, slash, dial_text = cleaned.partition("/")
    dial = NO_DIAL
    if slash:
        if dial_text.upper() not in DIAL_LETTERS or len(dial_text) != 1:
            raise FormatError(
                f"move {quoted(text)}: after '/' comes the dial turned, N (number) or "
                f"C (colour), got {quoted(dial_text)}"
            )
        dial = DIAL_LETTERS.index(dial_text.upper())
    sowings = []
    for part in beads.split("+") if beads else []:
        match = _SOWING.fullmatch(part)
        if not match:
            raise FormatError(
                f"move {quoted(text)}: {quoted(part)} is not pot:colours (a pot 1-12, a "
                "colon, then o for each own bead and x for each of the opponent's, e.g. 4:oxo)"
            )
        pot, colours = int(match.group(1)), match.group(2)
        if not 1 <= pot <= N_POTS:
            raise FormatError(f"move {quoted(text)}: pot {pot} is not 1-{N_POTS}")
        if len(colours) > MOST_BEADS:
            raise FormatError(
                f"move {quoted(text)}: pot {pot} drops {len(colours)} beads, but the game "
                f"has {MOST_BEADS} (one letter per bead dropped)"
            )
        sowings.append((pot - 1, colours))
    if not sowings and dial == NO_DIAL:
        raise FormatError(f"move {quoted(text)}: no pot and no dial")
    return Move(tuple(sowings), dial)


def listed_move(moves: MoveList, row: int) -> Move:
    """The ``Move`` of row ``row`` of a ``MoveList`` (its colour masks read as o/x)."""
    sowings = []
    for pot, beads, mask in moves.sowings[row]:
        if pot < 0:
            break
        colours = "".join(
            OWN_LETTER if (int(mask) >> j) & 1 else OPPONENT_LETTER for j in range(int(beads))
        )
        sowings.append((int(pot), colours))
    return Move(tuple(sowings), int(moves.dials[row]))


# ---------------------------------------------------------------- positions


def format_position(state: np.ndarray) -> str:
    """Clause 6 text of one state ``(STATE_SIZE,)`` (mover's view)."""
    state = [int(x) for x in state]
    pots = " ".join(f"{state[OWN][p]}/{state[OPPONENT][p]}" for p in range(N_POTS))
    return (
        f"{pots} {state[MOVER_GOAL]}:{state[OPPONENT_GOAL]} "
        f"N{NUMBER_CYCLE[state[NUMBER_PIN]]} {COLOUR_PLACES[state[COLOUR_PIN]]} P{state[SEAT] + 1}"
    )


def parse_position(text: str) -> np.ndarray:
    """``(STATE_SIZE,) int8`` from clause 6 text; ``FormatError`` names the field that is wrong."""
    fields = text.split()
    if len(fields) != N_POTS + 4:
        raise FormatError(
            f"a London Bridge position has {N_POTS + 4} fields (12 pots own/opponent, "
            f"goals mover:opponent, N1-N4, R1/Y1/B1/R2/B2/Y2, P1/P2), got {len(fields)}"
        )
    state = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    for pot, field in enumerate(fields[:N_POTS]):
        own, opponent = _pair(field, "/", f"pot {pot + 1}")
        state[OWN.start + pot], state[OPPONENT.start + pot] = own, opponent
    state[MOVER_GOAL], state[OPPONENT_GOAL] = _pair(fields[N_POTS], ":", "the goals")
    number, colour, player = (f.upper() for f in fields[N_POTS + 1 :])
    numbers = [f"N{n}" for n in NUMBER_CYCLE]
    if number not in numbers:
        raise FormatError(f"number dial {number!r}: expected one of {', '.join(numbers)}")
    if colour not in COLOUR_PLACES:
        raise FormatError(f"colour dial {colour!r}: expected one of {', '.join(COLOUR_PLACES)}")
    if player not in ("P1", "P2"):
        raise FormatError(f"player to move {player!r}: expected P1 or P2")
    state[NUMBER_PIN] = numbers.index(number)
    state[COLOUR_PIN] = COLOUR_PLACES.index(colour)
    state[SEAT] = int(player[1]) - 1
    try:
        check_states(state[None])
    except InvalidBoardError as error:
        raise FormatError(f"position {text!r}: {error}") from None
    return state


def _pair(field: str, separator: str, what: str) -> tuple[int, int]:
    left, sep, right = field.partition(separator)
    if not (sep and _COUNT.fullmatch(left) and _COUNT.fullmatch(right)):
        raise FormatError(
            f"{what}: expected two bead counts as a{separator}b (0-99), got {field!r}"
        )
    return int(left), int(right)
