"""The slow, obviously-correct reference move generator.

One board at a time, plain Python, written to read like docs/rules.md sections 2
and 3. It tries every order of the dice, one die at a time, and keeps the
plays that the maximum-use rule allows. The vectorized generator
(``tdgammon.engine.movegen.vectorized``) is tested against this one; nothing fast depends on it.

Boards are ``(30,)`` arrays or sequences in the layout of ``tdgammon.engine.rules.board``,
mover's view. A move is a ``(from, to)`` pair of mover point numbers, with 25
for the bar, 0 for off and 28 (the board index of the hand) for a checker
entering from the hand in the variants that have one (docs/rules.md 7).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    LAST_POINT,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
)
from tdgammon.engine.rules.variants import STANDARD, Variant, get_variant

Move = tuple[int, int]


@dataclass(frozen=True)
class Play:
    """One legal play: the moves in the order played and the board after them.

    ``board`` is a tuple of 30 ints, still from the mover's view (not flipped).
    Acey-Deucey 1-2 only: ``named_double`` is the double named after the 1 and
    the 2 (0 otherwise) and ``extra_roll`` says it was played in full, so the
    player rolls again.
    """

    moves: tuple[Move, ...]
    board: tuple[int, ...]
    named_double: int = 0
    extra_roll: bool = False

    def board_array(self) -> np.ndarray:
        """The resulting board as ``(30,) int8``."""
        return np.array(self.board, dtype=BOARD_DTYPE)


def can_bear_off(board) -> bool:
    """docs/rules.md 3.1: "Bearing off is allowed only while all of the mover's remaining
    checkers are in the home board (none on the bar, none on points 7-24)."
    Checkers still in hand (variants) are not home either."""
    return all(board[p] <= 0 for p in range(7, MOVER_BAR + 1)) and board[MOVER_HAND] <= 0


def single_die_moves(board, die: int, variant: Variant = STANDARD) -> list[Move]:
    """Every legal move of one checker by ``die`` on ``board`` (mover's view).

    Implements docs/rules.md 2.2, 2.5 and 3.1-3.3 for a single die, and the entering
    rules of the variants with checkers in hand (docs/rules.md 7).
    """
    # 2.5: "A player with any checker on the bar must enter it before moving
    # anything else. A die of n enters on the opponent's n-point, which is the
    # mover's point 25-n."
    if board[MOVER_BAR] > 0:
        target = MOVER_BAR - die
        return [(MOVER_BAR, target)] if is_open(board, target, variant) else []
    moves = []
    if board[MOVER_HAND] > 0:
        # 7: checkers in hand "enter into the opponent's home board like
        # checkers on the bar".
        target = MOVER_BAR - die
        if is_open(board, target, variant):
            moves.append((MOVER_HAND, target))
        # Dutch: "all 15 must be entered before any checker may move on".
        if variant.hand_enters_first:
            return moves
    for source in range(LAST_POINT, 0, -1):
        if board[source] <= 0:
            continue
        target = source - die
        if target >= 1:
            if is_open(board, target, variant):
                moves.append((source, target))
        elif bear_off_allowed(board, source, die):
            moves.append((source, MOVER_OFF))
    return moves


def is_open(board, point: int, variant: Variant = STANDARD) -> bool:
    """docs/rules.md 2.2: a move "may not end on a point held by two or more opposing checkers".

    Dutch backgammon adds: "a player may not hit until at least one of his own
    checkers has reached his home board" (a checker borne off has reached it).
    """
    if variant.no_hit_before_home and board[point] == -1:
        return any(board[p] > 0 for p in range(MOVER_OFF, 7))
    return board[point] >= -1


def bear_off_allowed(board, source: int, die: int) -> bool:
    """docs/rules.md 3.1-3.2 for a checker on ``source`` (1..6) and a die of ``die`` >= source.

    "A die of n bears off a checker from point n. If point n is empty, the die
    must be played by a checker on a higher point if one exists; if no checker
    stands higher than n, the die bears off a checker from the highest occupied
    point."
    """
    if not can_bear_off(board):
        return False
    if source == die:
        return True
    return all(board[p] <= 0 for p in range(source + 1, 7))


def apply_move(board, move: Move) -> list[int]:
    """Return a new board (list of 30 ints) after one checker move.

    docs/rules.md 2.4: "Landing on a blot hits it: the hit checker goes to the bar."
    """
    source, target = move
    after = list(board)
    after[source] -= 1
    if target == MOVER_OFF:
        after[MOVER_OFF] += 1
        return after
    if after[target] == -1:
        after[target] = 0
        after[OPPONENT_BAR] -= 1
    after[target] += 1
    return after


def _extend(board, dice_left: tuple[int, ...], moves: tuple, out: list, variant: Variant) -> None:
    """Depth-first: play the next die in every legal way; record each finished sequence.

    A sequence is finished when the dice are used up or the next die cannot be
    played (docs/rules.md 2.6: "After each die the position has changed, so a die that
    was unplayable at first can become playable" -- hence one die at a time).
    """
    if not dice_left:
        out.append((moves, tuple(board)))
        return
    options = single_die_moves(board, dice_left[0], variant)
    if not options:
        out.append((moves, tuple(board)))
        return
    for move in options:
        _extend(apply_move(board, move), dice_left[1:], moves + (move,), out, variant)


def _maximal_sequences(board, d1: int, d2: int, variant: Variant) -> list[tuple]:
    """(moves, board after) of every sequence the maximum-use rule allows (2.3, 2.6)."""
    if d1 == d2:
        # 2.3: "Doubles are played four times."
        orders = [(d1,) * 4]
    else:
        high, low = max(d1, d2), min(d1, d2)
        orders = [(high, low), (low, high)]
    sequences: list[tuple[tuple[Move, ...], tuple[int, ...], int]] = []
    for order in orders:
        found: list = []
        _extend(board, order, (), found, variant)
        for moves, after in found:
            sequences.append((moves, after, sum(order[: len(moves)])))
    # 2.6: "the mover must play a sequence that uses the most dice possible."
    most = max(len(moves) for moves, _, _ in sequences)
    sequences = [s for s in sequences if len(s[0]) == most]
    # 2.6: "If only one die of a non-double can be played, the larger one must
    # be played when it can be; if only the smaller one can be played, play it."
    if d1 != d2 and most == 1:
        largest = max(pips for _, _, pips in sequences)
        sequences = [s for s in sequences if s[2] == largest]
    return [(moves, after) for moves, after, _ in sequences]


def legal_plays(board, dice, variant: str | Variant | None = None) -> list[Play]:
    """Every legal play of ``dice`` on ``board``, one per distinct resulting board.

    board: ``(30,)`` ints, mover's view. dice: two ints 1..6. variant: a name
    or ``tdgammon.engine.rules.variants.Variant`` (default standard backgammon).
    Returns plays in a deterministic order (larger die first, sources from the
    back); an empty list when nothing can be played (docs/rules.md 2.6: "If nothing
    can be played, the turn passes"). For the Acey-Deucey 1-2, one play per
    distinct (board, extra roll): see ``_acey_deucey_plays``.
    """
    variant = get_variant(variant)
    board = [int(x) for x in board]
    d1, d2 = int(dice[0]), int(dice[1])
    if variant.acey_deucey_roll and {d1, d2} == {1, 2}:
        return _acey_deucey_plays(board, variant)
    plays: list[Play] = []
    seen: set[tuple[int, ...]] = set()
    for moves, after in _maximal_sequences(board, d1, d2, variant):
        if moves and after not in seen:
            seen.add(after)
            plays.append(Play(moves, after))
    return plays


def _acey_deucey_plays(board: list[int], variant: Variant) -> list[Play]:
    """docs/rules.md 7: "a roll of 1-2 ("acey-deucey") is played as 1 and 2, then the
    player names any double and plays it as four moves, then rolls again; if the
    1 and the 2 cannot both be played the turn ends at once, and if the named
    double cannot be played in full the extra roll is lost".

    The named double is the player's choice, so every double 1..6 is offered;
    the double itself is played under the maximum-use rule.
    """
    plays: list[Play] = []
    seen: set[tuple[tuple[int, ...], bool]] = set()

    def add(play: Play) -> None:
        if (play.board, play.extra_roll) not in seen:
            seen.add((play.board, play.extra_roll))
            plays.append(play)

    for moves, after in _maximal_sequences(board, 2, 1, variant):
        if len(moves) < 2:
            if moves:
                add(Play(moves, after))
            continue
        for double in range(1, 7):
            for more, final in _maximal_sequences(list(after), double, double, variant):
                add(Play(moves + more, final, double, len(more) == 4))
    return plays
