"""A position with its match context: what the interchange formats carry.

``Position`` is the common currency of the formats (GNU Backgammon IDs, XGID,
FIBS), the CLI and the analysis code. The board is always seen from the player
on roll (the "mover"); ``mover_seat`` remembers which absolute player that is,
so a format read and written again gives back the same string.

Seats: seat 0 and seat 1 are the two players. In GNU Backgammon's Match ID
they are "player 0" and "player 1"; in XGID seat 0 is the bottom player
(uppercase checkers, ``turn = 1``) and seat 1 the top player; in a FIBS board
string seat 0 is "You" (the first name) and seat 1 the opponent.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from tdgammon.engine.rules.board import BOARD_DTYPE, starting_board, validate

CUBE_CENTRED = "centre"
CUBE_MOVER = "mover"
CUBE_OPPONENT = "opponent"
CUBE_OWNERS = (CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT)

RESIGN_NONE, RESIGN_SINGLE, RESIGN_GAMMON, RESIGN_BACKGAMMON = 0, 1, 2, 3


GAME_NOT_STARTED = 0
GAME_PLAYING = 1
GAME_OVER = 2
GAME_RESIGNED = 3
GAME_DROPPED = 4
"""GNU Backgammon's Match ID game states (docs/formats.md): no game yet, playing,
over (borne off), ended by a resignation, ended by a drop."""


@dataclass(frozen=True, eq=False)
class Position:
    """A board plus everything a player needs to decide an action.

    board: ``(30,) int8``, the mover's view (layout in ``tdgammon.engine.rules.board``).
    dice: the mover's roll ``(d1, d2)`` with values 1..6, or None before rolling.
    cube_value: 1, 2, 4, ... ; cube_owner: one of CUBE_OWNERS, from the mover's view.
    mover_score / opponent_score: points won so far in the match (or session).
    match_length: points to win the match; 0 for money play.
    crawford: this game is the Crawford game (docs/rules.md 6: the cube may not be used).
    jacoby, beavers: money-play options (docs/rules.md 5). GNU Backgammon's
        Match ID carries ``jacoby`` (bit 66, docs/formats.md); reading one
        gives False in match play, where the rule never applies.
    double_offered: the mover has doubled and the opponent must take or pass.
    max_cube: highest cube value allowed (docs/rules.md 5, "Cube limit").
    mover_seat: which absolute player (0 or 1) is the mover; see module docstring.
    game_state: GNU Backgammon Match ID game state (``GAME_NOT_STARTED``,
        ``GAME_PLAYING``, ``GAME_OVER``, ``GAME_RESIGNED``, ``GAME_DROPPED``).
    resign_offered: RESIGN_NONE / SINGLE / GAMMON / BACKGAMMON offered by the mover.
    beaver_stage: only with ``double_offered`` (docs/rules.md 5): 0 the mover's
        double awaits take or pass (XGID dice ``D``); 1 the opponent has
        beavered and the mover (the doubler) must accept, refuse or raccoon
        (``B``); 2 the mover has raccooned and the opponent (the beaverer) must
        accept or refuse (``R``). As in GNU Backgammon's match state, from stage
        1 on ``cube_value`` is what a refusal loses (2 on a cube of 1 at stage 1,
        4 at stage 2) and the beaverer (the opponent) owns the cube.
    decision_swapped: True when the player who must act next is not the usual
        one (usual: the mover at beaver stage 1, otherwise the opponent while a
        double or a resignation is pending, otherwise the mover). GNU Backgammon
        writes such Match IDs, e.g. after a drop; the flag lets them round-trip
        exactly.
    raccoons: money-play option (docs/rules.md 5): a beavered doubler may
        re-redouble. No position format carries it (read as False).
    """

    board: np.ndarray = field(default_factory=starting_board)
    dice: tuple[int, int] | None = None
    cube_value: int = 1
    cube_owner: str = CUBE_CENTRED
    mover_score: int = 0
    opponent_score: int = 0
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    double_offered: bool = False
    max_cube: int = 1024
    mover_seat: int = 0
    game_state: int = GAME_PLAYING
    resign_offered: int = RESIGN_NONE
    beaver_stage: int = 0
    decision_swapped: bool = False
    raccoons: bool = False

    def __post_init__(self) -> None:
        board = np.asarray(self.board, dtype=BOARD_DTYPE)
        validate(board)
        object.__setattr__(self, "board", board)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, f), getattr(other, f))
            if f == "board"
            else getattr(self, f) == getattr(other, f)
            for f in self.__dataclass_fields__
        )

    def __hash__(self) -> int:
        return hash((self.board.tobytes(), self.dice, self.cube_value, self.cube_owner))

    def with_changes(self, **changes) -> Position:
        """A copy with some fields replaced (dataclasses.replace)."""
        return replace(self, **changes)

    @property
    def is_money(self) -> bool:
        """True for money play (match_length 0)."""
        return self.match_length == 0
