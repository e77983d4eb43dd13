"""Board layout, starting positions, flip and validation.

Every board in tdgammon is an integer array seen from the side to move (the
"mover"), batch-first: ``(B, BOARD_SIZE) int8``. Mover checkers are counted
positive, opponent checkers negative. Index = pip number for the 24 points, so
a move of one checker by ``die`` goes from index ``s`` to index ``s - die``
(index 0, ``MOVER_OFF``, when it bears off).

Index table (human point numbers are from the mover's view, docs/rules.md: "The
mover's checkers travel from point 24 down to point 1"):

=====  ==============  =================  ======================================
index  name            human point        GNU Backgammon Position ID slot
=====  ==============  =================  ======================================
0      MOVER_OFF       off (``0``)        not encoded (implied by 15 - on board)
1..24  points          mover's 1..24      mover slot p-1; opponent slot 24-p
25     MOVER_BAR       bar (``25``)       mover slot 24
26     OPPONENT_BAR    opponent's bar     opponent slot 24
27     OPPONENT_OFF    opponent's off     not encoded
28     MOVER_HAND      mover in hand      not encoded (variants only)
29     OPPONENT_HAND   opponent in hand   not encoded (variants only)
=====  ==============  =================  ======================================

The Position ID writes the opponent's 25 slots first (its own numbering: its
point k is the mover's point 25 - k, slot 24 its bar), then the mover's.

Checkers "in hand" (Dutch backgammon, Acey-Deucey: docs/rules.md section 7) have
not yet entered; they are zero in the standard game. Every checker is in
exactly one of: off, a point, the bar, the hand, so the per-side totals are
``checkers_per_side`` (15 in the standard game, 3 in Hypergammon).
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.rules.errors import InvalidBoardError

BOARD_SIZE = 30
BOARD_DTYPE = np.int8

MOVER_OFF = 0
FIRST_POINT = 1
LAST_POINT = 24
MOVER_BAR = 25
OPPONENT_BAR = 26
OPPONENT_OFF = 27
MOVER_HAND = 28
OPPONENT_HAND = 29

POINTS = slice(FIRST_POINT, LAST_POINT + 1)
"""The 24 points, indices 1..24."""
POINTS_AND_BAR = slice(FIRST_POINT, MOVER_BAR + 1)
"""The points and the mover's bar, indices 1..25 (index = pips to bear off)."""
HOME_BOARD = slice(1, 7)
"""Mover's home board, points 1..6 (docs/rules.md: "the mover's home board is points 1-6")."""
OFF_AND_HOME_BOARD = slice(MOVER_OFF, 7)
"""Borne off or in the home board, indices 0..6: checkers that have reached home."""
OUTSIDE_HOME = slice(7, MOVER_BAR + 1)
"""Points 7..24 and the bar: a mover checker here forbids bearing off."""
OPPONENT_HOME_BOARD = slice(19, LAST_POINT + 1)
"""The opponent's home board, the mover's points 19..24."""
OPPONENT_OUTSIDE_HOME = slice(FIRST_POINT, 19)
"""The mover's points 1..18: outside the opponent's home board."""

CHECKERS_PER_SIDE = 15

# flip(): new[i] = -old[FLIP_INDEX[i]]
FLIP_INDEX = np.array(
    [OPPONENT_OFF]
    + [25 - p for p in range(1, 25)]
    + [OPPONENT_BAR, MOVER_BAR, MOVER_OFF, OPPONENT_HAND, MOVER_HAND],
    dtype=np.intp,
)

STANDARD_START = {24: 2, 13: 5, 8: 3, 6: 5}
"""docs/rules.md 1: "2 on its 24-point, 5 on its 13-point, 3 on its 8-point, 5 on its 6-point"."""
NACKGAMMON_START = {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
HYPERGAMMON_START = {24: 1, 23: 1, 22: 1}


def board_from_points(mover: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    """Build one board from two {point: count} maps, each in its owner's numbering.

    Point 25 is the bar; checkers not placed are counted as borne off.
    Returns ``(BOARD_SIZE,) int8``, mover's view. Raises InvalidBoardError.
    """
    board = np.zeros(BOARD_SIZE, dtype=np.int64)
    for side, points in ((1, mover), (-1, opponent)):
        for point, count in points.items():
            if not 1 <= point <= 25:
                raise InvalidBoardError(f"point {point} is not 1..24 or 25 (bar)")
            if count < 0:
                raise InvalidBoardError(f"negative checker count {count} on point {point}")
            if side == 1:
                index = point
            else:
                index = OPPONENT_BAR if point == 25 else 25 - point
            if board[index] != 0 and count:
                raise InvalidBoardError(f"both players have checkers on point {index}")
            board[index] += side * count
        on_board = sum(points.values())
        if on_board > CHECKERS_PER_SIDE:
            who = "mover" if side == 1 else "opponent"
            raise InvalidBoardError(f"{who} has {on_board} checkers, more than {CHECKERS_PER_SIDE}")
    board[MOVER_OFF] = CHECKERS_PER_SIDE - sum(mover.values())
    board[OPPONENT_OFF] = -(CHECKERS_PER_SIDE - sum(opponent.values()))
    validate(board)
    return board.astype(BOARD_DTYPE)


def starting_board(layout: dict[int, int] = STANDARD_START) -> np.ndarray:
    """The starting position for a layout (both sides mirror each other): ``(30,) int8``."""
    return board_from_points(layout, layout)


def empty_boards(batch: int) -> np.ndarray:
    """``(batch, BOARD_SIZE) int8`` zeros."""
    return np.zeros((batch, BOARD_SIZE), dtype=BOARD_DTYPE)


def flip(boards: np.ndarray) -> np.ndarray:
    """Turn the view to the other player.

    boards: ``(..., BOARD_SIZE)`` signed ints, side-to-move view.
    Returns the same shape, seen from the opponent. ``flip(flip(b)) == b``.
    """
    return -boards[..., FLIP_INDEX]


def mover_pips(boards: np.ndarray) -> np.ndarray:
    """Pip count of the mover: ``boards (..., 30)`` -> ``(...,) int64``.

    A checker on point p needs p pips, on the bar or in hand 25.
    """
    b = np.asarray(boards, dtype=np.int64)
    weights = np.zeros(BOARD_SIZE, dtype=np.int64)
    weights[POINTS_AND_BAR] = np.arange(1, 26)
    weights[MOVER_HAND] = 25
    return (np.clip(b, 0, None) * weights).sum(axis=-1)


def pip_counts(board: np.ndarray) -> tuple[int, int]:
    """(mover pips, opponent pips) of one board ``(30,)``."""
    return int(mover_pips(board)), int(mover_pips(flip(np.asarray(board))))


def validate(boards: np.ndarray, checkers_per_side: int = CHECKERS_PER_SIDE) -> None:
    """Raise InvalidBoardError naming the first impossible thing in ``boards``.

    boards: ``(30,)`` or ``(B, 30)`` signed ints, side-to-move view. Checks the
    shape, the sign of every slot (mover slots >= 0, opponent slots <= 0), that
    every point holds at most one colour (the sign encodes it, so a point is
    never both), that each side has exactly ``checkers_per_side`` checkers
    counting off, board, bar and hand, and that not both sides have borne off
    every checker (the game ends when the first side has; a board where only
    one side has is a finished game and is valid). Checkers a variant does not
    play count as borne off, so the rule is the same for every variant.
    """
    b = np.asarray(boards)
    if b.ndim == 1:
        b = b[None, :]
    if b.ndim != 2 or b.shape[1] != BOARD_SIZE:
        raise InvalidBoardError(f"board must have shape (B, {BOARD_SIZE}), got {np.shape(boards)}")
    if not np.issubdtype(b.dtype, np.integer):
        raise InvalidBoardError(f"board must hold integers, got {b.dtype}")
    b = b.astype(np.int64)
    totals = np.stack([np.where(b > 0, b, 0).sum(axis=1), np.where(b < 0, -b, 0).sum(axis=1)], 1)
    suspect = (
        (b[:, _MOVER_ONLY] < 0).any(axis=1)
        | (b[:, _OPPONENT_ONLY] > 0).any(axis=1)
        | (totals != checkers_per_side).any(axis=1)
        | ~(b[:, FIRST_POINT : OPPONENT_BAR + 1].any(axis=1) | b[:, MOVER_HAND:].any(axis=1))
    )  # vectorized; the first bad board is then named by the checks of one board
    for row in np.flatnonzero(suspect):
        _check_one(b[row], checkers_per_side, f" (board {row})" if len(b) > 1 else "")


_MOVER_ONLY = [MOVER_OFF, MOVER_BAR, MOVER_HAND]
_OPPONENT_ONLY = [OPPONENT_OFF, OPPONENT_BAR, OPPONENT_HAND]
_SLOT_NAMES = {
    MOVER_OFF: "mover's off tray",
    MOVER_BAR: "mover's bar",
    MOVER_HAND: "mover's hand",
    OPPONENT_OFF: "opponent's off tray",
    OPPONENT_BAR: "opponent's bar",
    OPPONENT_HAND: "opponent's hand",
}


def _check_one(board: np.ndarray, checkers_per_side: int, where: str) -> None:
    """``validate``'s checks of one ``(30,) int64`` board, in order; ``where`` ends
    each message (which board of a batch)."""
    for index in _MOVER_ONLY:
        if board[index] < 0:
            raise InvalidBoardError(f"negative count {board[index]} in {_SLOT_NAMES[index]}{where}")
    for index in _OPPONENT_ONLY:
        if board[index] > 0:
            raise InvalidBoardError(
                f"negative count {-board[index]} in {_SLOT_NAMES[index]}{where}"
            )
    mover_total = int(board[board > 0].sum())
    opponent_total = int(-board[board < 0].sum())
    for who, total in (("mover", mover_total), ("opponent", opponent_total)):
        if total != checkers_per_side:
            relation = "more" if total > checkers_per_side else "fewer"
            raise InvalidBoardError(
                f"{who} has {total} checkers, {relation} than {checkers_per_side}{where}"
            )
    if not board[FIRST_POINT : OPPONENT_BAR + 1].any() and not board[MOVER_HAND:].any():
        raise InvalidBoardError(
            "both players have borne off all their checkers (none is left on the "
            "board, the bar or in hand); the game ends when the first player has "
            f"borne off all{where}"
        )


def as_batch(boards: np.ndarray) -> np.ndarray:
    """View one board ``(30,)`` as a batch ``(1, 30)``; a batch is returned unchanged."""
    b = np.asarray(boards)
    return b[None, :] if b.ndim == 1 else b


def has_contact(boards: np.ndarray) -> np.ndarray:
    """``(B,) bool``: some mover checker still has to pass an opponent checker.

    boards: ``(B, 30)`` or ``(30,)`` signed ints, mover's view. The mover's
    rearmost checker is its highest occupied point (bar or hand = 25); the
    opponent's rearmost is its lowest occupied point in the mover's numbering
    (its bar or hand = 0). Contact while the first is above the second; a race
    (no contact) otherwise.
    """
    b = np.asarray(boards)
    # argmax over booleans finds the first True (the rearmost checker) without
    # int64 temporaries: this runs on every leaf of a search
    mover_here = b[..., MOVER_BAR : FIRST_POINT - 1 : -1] > 0  # bar, 24, ..., 1
    mover_back = np.where(mover_here.any(axis=-1), MOVER_BAR - np.argmax(mover_here, axis=-1), 0)
    mover_back = np.where(b[..., MOVER_HAND] > 0, 25, mover_back)
    opponent_here = b[..., POINTS] < 0  # 1, ..., 24
    opponent_back = np.where(
        opponent_here.any(axis=-1), FIRST_POINT + np.argmax(opponent_here, axis=-1), 25
    )
    opponent_back = np.where(
        (b[..., OPPONENT_BAR] < 0) | (b[..., OPPONENT_HAND] < 0), 0, opponent_back
    )
    return mover_back > opponent_back
