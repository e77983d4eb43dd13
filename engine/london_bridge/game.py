"""One game of London Bridge from the start to its end, with the turn limit of 5.3.

``Game`` is the state machine of ``tdgammon play --game london-bridge``: it
keeps the state (mover's view, ``tdgammon.engine.london_bridge.state``), the
number of turns played and the moves written so far, and checks every move it
is given. Batch play (matches, self-play, search) uses the array functions
directly; ``game_over`` is the one test of the end they share.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tdgammon.engine.london_bridge.movegen import MoveList, generate_turns
from tdgammon.engine.london_bridge.notation import format_move, listed_move, parse_move
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import (
    MOVER_GOAL,
    OPPONENT_GOAL,
    SEAT,
    check_states,
    is_over,
    pass_turn,
    start_state,
)
from tdgammon.engine.london_bridge.turn import play_move
from tdgammon.engine.rules.errors import RuleError


def game_over(states: np.ndarray, turns: np.ndarray, rules: Rules) -> np.ndarray:
    """``(B,) bool``: 5.1, no bead left in the pots; or 5.3, ``turns`` (``(B,)``, turns
    played) has reached the turn limit. states: ``(B, STATE_SIZE) int8``."""
    return is_over(states) | (np.asarray(turns) >= rules.turn_limit)


def seat_points(state: np.ndarray) -> tuple[int, int]:
    """5.2: (points of seat 0, points of seat 1) of one state: the beads in each goal."""
    mover = int(state[SEAT])
    points = [0, 0]
    points[mover], points[1 - mover] = int(state[MOVER_GOAL]), int(state[OPPONENT_GOAL])
    return points[0], points[1]


@dataclass
class Game:
    """A game in progress: ``state`` ``(STATE_SIZE,) int8`` from the view of the player to
    move, ``turns`` played, the ``moves`` played as clause 6 text."""

    rules: Rules = field(default_factory=Rules)
    state: np.ndarray | None = None
    turns: int = 0
    moves: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = start_state(self.rules)
        self.state = np.asarray(self.state, dtype=np.int8)
        check_states(self.state[None])
        self._legal: MoveList | None = None

    @property
    def over(self) -> bool:
        return bool(game_over(self.state[None], [self.turns], self.rules)[0])

    @property
    def seat(self) -> int:
        """The seat to move (0 or 1)."""
        return int(self.state[SEAT])

    def legal(self) -> MoveList:
        """Every distinct turn of the player to move (``generate_turns`` of one state)."""
        if self.over:
            raise RuleError("the game is over: no move can be made")
        if self._legal is None:
            self._legal = generate_turns(self.state[None], self.rules)
        return self._legal

    def play_row(self, row: int) -> str:
        """Play row ``row`` of ``legal()``; returns the move's text."""
        legal = self.legal()
        text = format_move(listed_move(legal, row))
        self._advance(legal.states[row], text)
        return text

    def play_text(self, text: str) -> str:
        """Play a clause 6 move; ``FormatError`` or ``IllegalMoveError`` leave the game as is."""
        self.legal()  # refuses a move after the end
        move = parse_move(text)
        after = play_move(self.state, move, self.rules)
        text = format_move(move)
        self._advance(after, text)
        return text

    def points(self) -> tuple[int, int]:
        """5.2: points of seat 0 and seat 1 so far (final once ``over``)."""
        return seat_points(self.state)

    def winner(self) -> int | None:
        """5.2: the seat with more points at the end, or None for a draw."""
        first, second = self.points()
        return None if first == second else int(second > first)

    def _advance(self, after: np.ndarray, text: str) -> None:
        self.state = pass_turn(after[None])[0]
        self.turns += 1
        self.moves.append(text)
        self._legal = None
