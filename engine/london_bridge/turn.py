"""One written move played on one state, checked clause by clause.

``play_move(state, move, rules)`` is how a typed move (``tdgammon.engine.london_bridge.notation``)
reaches the board: it walks the ring bead by bead, and a move the rules refuse
raises ``IllegalMoveError`` naming the clause and what is wrong, before anything
is returned. The generators never call it; the tests replay every move they
give through it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdgammon.engine.london_bridge.dials import NO_DIAL, turn_dials
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import (
    MOVER_GOAL,
    N_POTS,
    ROW,
    STATE_DTYPE,
)
from tdgammon.engine.rules.errors import IllegalMoveError

OWN_LETTER = "o"
OPPONENT_LETTER = "x"


@dataclass(frozen=True)
class Move:
    """A turn as written in clause 6.

    sowings: ``(pot 0..11, colours)`` in order, the first and then each bonus move;
    colours has one letter per bead dropped, goal drops included (``o`` own,
    ``x`` opponent). dial: ``NUMBER_DIAL``, ``COLOUR_DIAL`` or ``NO_DIAL``.
    """

    sowings: tuple[tuple[int, str], ...]
    dial: int


def play_move(state: np.ndarray, move: Move, rules: Rules) -> np.ndarray:
    """``(STATE_SIZE,) int8``: ``state`` (mover's view) after ``move``, not passed.

    Raises ``IllegalMoveError`` for a move the rules do not allow here.
    """
    board = [int(x) for x in state]
    if not any(board[:N_POTS]):
        if move.sowings:
            raise IllegalMoveError(
                "3.7: you have no bead of your own in the pots, so there is no bead move: "
                "only turn a dial (/N or /C)"
            )
    elif not move.sowings:
        raise IllegalMoveError("3.7: you have beads of your own in the pots: choose a pot to sow")
    last_in_goal = False
    for index, (pot, colours) in enumerate(move.sowings):
        if index and not last_in_goal:
            raise IllegalMoveError(
                f"3.6: sowing {index} did not end in your goal, so there is no bonus move "
                f"(drop '+{pot + 1}:{colours}')"
            )
        last_in_goal = _sow(board, pot, colours, rules)
    if last_in_goal and any(board[:N_POTS]):
        raise IllegalMoveError(
            "3.6: your last bead landed in your goal: you must sow again (add +pot:colours)"
        )
    after = np.array(board, dtype=STATE_DTYPE)
    if not after[: 2 * N_POTS].any():
        if move.dial != NO_DIAL:
            raise IllegalMoveError("4.1: no bead is left in the pots, so no dial is turned")
        return after
    if move.dial == NO_DIAL:
        raise IllegalMoveError(
            "4.1: beads are left in the pots: turn a dial (end the move with /N or /C)"
        )
    return turn_dials(after[None], np.array([move.dial]), rules)[0]


def _sow(board: list[int], pot: int, colours: str, rules: Rules) -> bool:
    """Sow ``pot`` on ``board`` (changed in place) dropping ``colours``; True if the last
    bead landed in the mover's goal (3.6)."""
    own, opponent = board[pot], board[N_POTS + pot]
    if own == 0:
        raise IllegalMoveError(
            f"3.1: pot {pot + 1} holds no bead of your own (it has {opponent} of the opponent's)"
        )
    if len(colours) != own + opponent:
        raise IllegalMoveError(
            f"3.1: pot {pot + 1} holds {own + opponent} beads ({own} yours, {opponent} the "
            f"opponent's): write one letter per bead dropped, got {len(colours)}"
        )
    board[pot] = board[N_POTS + pot] = 0
    place, passed = pot if pot < ROW else pot + 1, False
    for number, letter in enumerate(colours, start=1):
        place = (place + 1) % (N_POTS + 1)
        if place == ROW and own == 0:
            passed, place = True, place + 1  # 3.3 [choice]: the goal is passed
        if letter not in (OWN_LETTER, OPPONENT_LETTER):
            raise IllegalMoveError(f"bead {number} of pot {pot + 1}: {letter!r} is not o or x")
        if place == ROW:
            if letter != OWN_LETTER:
                raise IllegalMoveError(
                    f"3.3: bead {number} of pot {pot + 1} goes into your goal: it must be "
                    "your own (o); the opponent's beads may never be put into a goal"
                )
            board[MOVER_GOAL] += 1
            own -= 1
            continue
        _check_choice(letter, own, opponent, number, pot, rules)
        target = place if place < ROW else place - 1
        if letter == OWN_LETTER:
            board[target] += 1
            own -= 1
        else:
            board[N_POTS + target] += 1
            opponent -= 1
    if passed and rules.goal_without_own == "reserve" and not _greedy_passes(pot, colours):
        raise IllegalMoveError(
            f"3.3 (reserve): pot {pot + 1} can be sown keeping an own bead for every goal "
            "reached: this order passes your goal with only the opponent's beads in hand"
        )
    return place == ROW


def _check_choice(letter: str, own: int, opponent: int, number: int, pot: int, rules: Rules):
    """3.5: the bead dropped into a playing pot must be in hand and, under a fixed
    order (the ``sowing`` setting), the one that order puts first."""
    if letter == OWN_LETTER and own == 0:
        raise IllegalMoveError(f"bead {number} of pot {pot + 1}: no bead of your own is left")
    if letter == OPPONENT_LETTER and opponent == 0:
        raise IllegalMoveError(f"bead {number} of pot {pot + 1}: no bead of the opponent's is left")
    if rules.sowing == "own-first" and letter == OPPONENT_LETTER and own:
        raise IllegalMoveError(f"3.5 (own-first): bead {number} of pot {pot + 1} must be yours")
    if rules.sowing == "opponent-first" and letter == OWN_LETTER and opponent:
        raise IllegalMoveError(
            f"3.5 (opponent-first): bead {number} of pot {pot + 1} must be the opponent's"
        )


def _greedy_passes(pot: int, colours: str) -> bool:
    """Does dropping the opponent's beads first (which keeps the most own beads in hand
    at every goal) still pass the goal? Then no order can keep an own bead for it."""
    own, opponent = colours.count(OWN_LETTER), colours.count(OPPONENT_LETTER)
    place = pot if pot < ROW else pot + 1
    for _ in range(own + opponent):
        place = (place + 1) % (N_POTS + 1)
        if place == ROW and own == 0:
            return True
        if place == ROW or opponent == 0:
            own -= 1
        else:
            opponent -= 1
    return False
