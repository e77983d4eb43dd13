"""End of game: who won and how much (docs/rules.md section 4).

"The first player to bear off all 15 checkers wins:
- single game (1 x cube value) when the loser has borne off at least one;
- gammon (2 x cube) when the loser has borne off none;
- backgammon (3 x cube) when the loser has borne off none and still has a
  checker on the bar or in the winner's home board."

All functions take ``boards: (B, 30)`` or ``(30,)`` signed ints in the
side-to-move view of ``tdgammon.engine.rules.board``. Checkers still in hand (variants) have
not entered at all, so they count like checkers on the bar.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.rules.board import (
    CHECKERS_PER_SIDE,
    HOME_BOARD,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_HOME_BOARD,
    OPPONENT_OFF,
)
from tdgammon.engine.rules.outputs import LOSE_GAMMON, N_OUTPUTS, WIN_GAMMON, equity, outcome_probs
from tdgammon.engine.rules.variants import SCORING_CHECKERS_LEFT, STANDARD, Variant, get_variant

NO_WINNER = 0
MOVER_WINS = 1
OPPONENT_WINS = -1

NOT_OVER = 0
SINGLE = 1
GAMMON = 2
BACKGAMMON = 3
RESULT_NAMES = {SINGLE: "single game", GAMMON: "gammon", BACKGAMMON: "backgammon"}


def winner(boards: np.ndarray, checkers_per_side: int = CHECKERS_PER_SIDE) -> np.ndarray:
    """``(B,) int8`` (or a scalar for one board): MOVER_WINS, OPPONENT_WINS or NO_WINNER."""
    b = np.asarray(boards)
    mover_done = b[..., MOVER_OFF] == checkers_per_side
    opponent_done = -b[..., OPPONENT_OFF] == checkers_per_side
    return np.where(
        mover_done, MOVER_WINS, np.where(opponent_done, OPPONENT_WINS, NO_WINNER)
    ).astype(np.int8)


def is_game_over(boards: np.ndarray, checkers_per_side: int = CHECKERS_PER_SIDE) -> np.ndarray:
    """``(B,) bool``: one side has borne off all its checkers."""
    return winner(boards, checkers_per_side) != NO_WINNER


def result_kind(boards: np.ndarray, checkers_per_side: int = CHECKERS_PER_SIDE) -> np.ndarray:
    """``(B,) int8``: NOT_OVER, SINGLE, GAMMON or BACKGAMMON, for whichever side won.

    The winner's home board is points 1..6 of the winner: for a mover win these
    are the mover's points 1..6 (indices 1..6), for an opponent win the
    opponent's points 1..6, which are the mover's points 19..24 (indices 19..24).
    """
    b = np.asarray(boards).astype(np.int16)
    win = winner(b, checkers_per_side)
    # Loser = opponent (mover won): opponent's checkers are negative.
    opp_none_off = b[..., OPPONENT_OFF] == 0
    opp_back = (
        (b[..., OPPONENT_BAR] < 0)
        | (b[..., OPPONENT_HAND] < 0)
        | (b[..., HOME_BOARD] < 0).any(axis=-1)
    )
    # Loser = mover (opponent won).
    mover_none_off = b[..., MOVER_OFF] == 0
    mover_back = (
        (b[..., MOVER_BAR] > 0)
        | (b[..., MOVER_HAND] > 0)
        | (b[..., OPPONENT_HOME_BOARD] > 0).any(axis=-1)
    )
    none_off = np.where(win == MOVER_WINS, opp_none_off, mover_none_off)
    back = np.where(win == MOVER_WINS, opp_back, mover_back)
    kind = np.where(none_off, np.where(back, BACKGAMMON, GAMMON), SINGLE)
    return np.where(win == NO_WINNER, NOT_OVER, kind).astype(np.int8)


def points_won(board: np.ndarray, cube_value: int = 1, jacoby_single: bool = False) -> int:
    """Signed points for one finished board ``(30,)``: positive if the mover won.

    ``jacoby_single``: count gammons and backgammons as single games (docs/rules.md 5,
    Jacoby rule, when the cube was not turned). Raises ValueError if not over.
    """
    win = int(winner(board))
    if win == NO_WINNER:
        raise ValueError("the game is not over: nobody has borne off all checkers")
    kind = SINGLE if jacoby_single else int(result_kind(board))
    return win * kind * cube_value


def game_values(boards: np.ndarray, variant=None) -> np.ndarray:
    """``(B,) int64`` signed stake multiples of finished boards under a variant's
    scoring (positive: the mover won; 0: not over). ``boards: (B, 30)``.

    Standard scoring (docs/rules.md 4): 1 / 2 / 3 for single / gammon / backgammon.
    Acey-Deucey (docs/rules.md 7): "the loser pays the stake times the number of
    checkers he has not borne off".
    """
    variant = get_variant(variant)
    b = np.asarray(boards)
    win = winner(b, variant.checkers).astype(np.int64)
    if variant.scoring == SCORING_CHECKERS_LEFT:
        loser_off = np.where(win == MOVER_WINS, -b[..., OPPONENT_OFF], b[..., MOVER_OFF])
        return win * (variant.checkers - loser_off.astype(np.int64))
    return win * result_kind(b, variant.checkers).astype(np.int64)


def terminal_probs(boards: np.ndarray, variant: Variant = STANDARD) -> np.ndarray:
    """Exact outputs ``(B, 5) float32`` of finished boards ``(B, 30)`` on which the
    MOVER has just borne off ``variant.checkers`` (mover's view).

    Standard scoring: single / gammon / backgammon (``outcome_probs``).
    Acey-Deucey (checkers-left scoring): win = 1, win gammon = the opponent's
    checkers not borne off / ``variant.checkers``, the rest 0, so that
    ``variant_equity`` gives the stake multiple the loser pays.
    """
    boards = np.asarray(boards)
    if variant.scoring == SCORING_CHECKERS_LEFT:
        out = np.zeros((len(boards), N_OUTPUTS), dtype=np.float32)
        out[:, 0] = 1.0
        left = variant.checkers + boards[:, OPPONENT_OFF].astype(np.float32)
        out[:, WIN_GAMMON] = left / variant.checkers
        return out
    return outcome_probs(result_kind(boards, variant.checkers))


def variant_equity(probs: np.ndarray, variant: Variant = STANDARD) -> np.ndarray:
    """Cubeless equity in stakes of probabilities ``(..., 5)`` (one player's view).

    Standard scoring: ``2 pW - 1 + pWG - pLG + pWBG - pLBG``
    (``tdgammon.engine.rules.outputs.equity``).
    Acey-Deucey: ``checkers * (wg - lg)``, the expected stake multiple, since its
    gammon outputs hold the expected checkers left over ``checkers`` (``terminal_probs``).
    """
    if variant.scoring == SCORING_CHECKERS_LEFT:
        return variant.checkers * (probs[..., WIN_GAMMON] - probs[..., LOSE_GAMMON])
    return equity(probs)
