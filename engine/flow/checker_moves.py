"""Moving checkers by (from, to) pairs, the way a typed or recorded play is made.

A play given as pairs (``Game.play``, a ``.mat`` record) is first made on the
board pair by pair, checking only that each pair can physically be made: a
checker of the mover on the from-point (the hand is 28, the bar 25), and the
landing point not held by two or more of the opponent's checkers (docs/rules.md
2.2: "It may not end on a point held by two or more opposing checkers"); a
single opposing checker there is hit (docs/rules.md 2.4: "Landing on a blot
hits it: the hit checker goes to the bar"). Whether the dice allow the play is the game's business
(``tdgammon.engine.flow.game``), checked against the legal plays.

Boards are ``(30,)`` in the mover's view (``tdgammon.engine.rules.board``).
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.formats.notation import point_name
from tdgammon.engine.movegen.reference import Move
from tdgammon.engine.rules.board import MOVER_BAR, MOVER_HAND, MOVER_OFF, OPPONENT_BAR
from tdgammon.engine.rules.dice import MAX_MOVES_ACEY_DEUCEY
from tdgammon.engine.rules.errors import RuleError


def check_pairs(moves) -> tuple[Move, ...]:
    """``moves`` as a tuple of (from, to) int pairs; RuleError when a pair is malformed."""
    try:
        pairs = tuple((int(a), int(b)) for a, b in moves)
    except (TypeError, ValueError):
        raise RuleError(f"a play is a list of (from, to) pairs, got {moves!r}") from None
    if len(pairs) > MAX_MOVES_ACEY_DEUCEY:
        raise RuleError(f"a play has at most {MAX_MOVES_ACEY_DEUCEY} moves, got {len(pairs)}")
    for a, b in pairs:
        if not (1 <= a <= 25 or a == MOVER_HAND) or not 0 <= b <= 24 or (b >= a):
            raise RuleError(
                f"{point_name(a) if 0 <= a <= 25 or a == MOVER_HAND else a}/{b}: a move goes from "
                "28 (hand), 25 (bar) or a point 1-24 down to a lower point or 0 (off)"
            )
    return pairs


def apply_moves(board: np.ndarray, pairs) -> tuple[np.ndarray, tuple[bool, ...]]:
    """Move checkers one (from, to) pair at a time, hitting a blot where a pair lands.

    board: ``(30,)`` mover's view. Checks only that each pair can physically be
    made (a checker there, the landing point not held by two or more), not the
    dice. Returns the board after (``int8``) and, per pair, whether it hit.
    Raises RuleError.
    """
    moved = move_checkers(board, pairs)
    if isinstance(moved, str):
        raise RuleError(moved)
    return moved


def move_checkers(board: np.ndarray, pairs) -> tuple[np.ndarray, tuple[bool, ...]] | str:
    """``apply_moves`` that returns, instead of raising, the reason (a ``str``) when a
    pair cannot be made. Malformed pairs still raise RuleError (``check_pairs``)."""
    b = np.asarray(board).astype(np.int64).copy()
    hits = []
    for a, t in check_pairs(pairs):
        if b[a] <= 0:
            where = (
                "in hand"
                if a == MOVER_HAND
                else "on the bar"
                if a == MOVER_BAR
                else f"on point {a}"
            )
            return f"{point_name(a)}/{point_name(t)}: you have no checker {where}"
        if t != MOVER_OFF and b[t] <= -2:
            return f"{point_name(a)}/{point_name(t)}: point {t} is held by your opponent"
        b[a] -= 1
        hit = t != MOVER_OFF and b[t] == -1
        if hit:
            b[t] = 0
            b[OPPONENT_BAR] -= 1
        b[t] += 1
        hits.append(hit)
    return b.astype(np.int8), tuple(hits)
