"""A simple hand-written player for every variant (a yardstick, not a strong bot).

``HeuristicAgent(variant)`` scores each legal play by the position it leaves
(mover's view, before the flip) and takes the best (greedy), in one vectorized
numpy pass over all plays of a batch. pubeval was tuned on standard positions
and has no input for checkers in hand, so this is the opponent used to measure
the variant models (Dutch and Acey-Deucey start with every checker in hand).

The score, in pips (higher is better for the mover):

- race: opponent's pips - mover's pips, a checker in hand or on the bar
  counting 25 (so a hit gains what the hit checker had travelled);
- hits: +4 per opponent checker on the bar;
- points made (2+ checkers): +3 on home-board points 1-6 and the 7 point,
  +1.5 on points 8-11, +1 elsewhere (anchors);
- blots: minus (shots / 36) * (pips the checker would lose + 6) per blot,
  shots counted from each opponent checker behind it (on the bar or in hand
  it enters from point 0), direct and indirect, ignoring blocks, capped at
  36; none while the opponent may not hit (Dutch, before it has a checker in
  its home board);
- stacking: -0.5 per checker beyond the third on one point;
- borne off: +2 per checker;
- a play that wins the game scores above every other; an Acey-Deucey play
  that earns the extra roll gets +8.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.movegen.vectorized import MoveList, best_rows
from tdgammon.engine.rules.board import (
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_HOME_BOARD,
    POINTS,
    POINTS_AND_BAR,
    flip,
)
from tdgammon.engine.rules.dice import ROLLS_REACHING
from tdgammon.engine.rules.outcome import MOVER_WINS, winner
from tdgammon.engine.rules.variants import Variant, get_variant

SHOTS = ROLLS_REACHING[:25].sum(axis=1).astype(np.float64)
"""Rolls out of 36 that can carry one checker exactly d pips (no blocks), d = 1..24."""

POINT_VALUE = np.array([0.0] + [3.0] * 7 + [1.5] * 4 + [1.0] * 13, dtype=np.float64)
"""Value of a made point by index 0..24 (index 0 unused)."""

WIN_SCORE = 1e6
EXTRA_ROLL_BONUS = 8.0


def _pips(b: np.ndarray) -> np.ndarray:
    """Mover's pips of ``b (M, 30) int16``: points, bar and hand (25 each)."""
    mover = np.maximum(b, 0)
    return (mover[:, POINTS_AND_BAR] * np.arange(1, 26)).sum(axis=1) + 25 * mover[:, MOVER_HAND]


def heuristic_scores(boards: np.ndarray, variant: str | Variant | None = None) -> np.ndarray:
    """``(M,) float64`` scores of positions ``(M, 30)`` just played by the mover
    (mover's view, the opponent to roll); see the module docstring."""
    variant = get_variant(variant)
    b = np.asarray(boards).astype(np.int16)
    fb = flip(b)
    race = _pips(fb).astype(np.float64) - _pips(b)
    hits = -b[:, OPPONENT_BAR].astype(np.float64)
    made = b[:, POINTS] >= 2
    points = (made * POINT_VALUE[POINTS]).sum(axis=1)
    stacks = np.maximum(b[:, POINTS] - 3, 0).sum(axis=1)
    off = b[:, MOVER_OFF].astype(np.float64)

    # Blots and the opponent's checkers behind them (opponent moves up in index).
    blot = b[:, POINTS] == 1  # (M, 24), column p-1 = point p
    attacker = np.zeros((len(b), 25), dtype=bool)  # column q = index q, 0 = entering
    attacker[:, 0] = (b[:, OPPONENT_BAR] < 0) | (b[:, OPPONENT_HAND] < 0)
    attacker[:, POINTS] = b[:, POINTS] < 0
    shots = np.zeros((len(b), 24), dtype=np.float64)
    for d in range(1, 25):
        # blot at point p (column p-1) hit from index p - d (column p - d of attacker)
        shots[:, d - 1 :] += SHOTS[d] * attacker[:, : 25 - d]
    shots = np.minimum(shots, 36.0) * blot
    if variant.no_hit_before_home:
        may_hit = (b[:, OPPONENT_HOME_BOARD] < 0).any(axis=1)
        shots *= may_hit[:, None]
    loss = 25 - np.arange(1, 25) + 6.0
    risk = (shots / 36.0 * loss).sum(axis=1)

    score = race + 4.0 * hits + points - risk - 0.5 * stacks + 2.0 * off
    won = winner(b, variant.checkers) == MOVER_WINS
    return np.where(won, WIN_SCORE + off, score)


class HeuristicAgent:
    """Agent protocol (``tdgammon.engine.players.agents``): the play with the best
    ``heuristic_scores``."""

    def __init__(self, variant: str | Variant | None = None, name: str = "heuristic") -> None:
        self.variant = get_variant(variant)
        self.name = name

    def choose_plays(self, boards: np.ndarray, dice: np.ndarray, moves: MoveList) -> np.ndarray:
        scores = heuristic_scores(moves.boards, self.variant)
        if self.variant.acey_deucey_roll and moves.extra_roll is not None:
            scores = scores + EXTRA_ROLL_BONUS * np.asarray(moves.extra_roll, dtype=bool)
        return best_rows(scores, moves.parents, len(boards))
