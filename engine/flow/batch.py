"""One ply of many games at once: the batched game driver.

Self-play (``tdgammon.train.selfplay``), bot duels (``tdgammon.engine.players.duel``)
and random-game samples (``tdgammon.engine.flow.random_play``) all advance a batch
of games the same way, with this one function, so the rules of a turn are
written once:

1. the mover's legal plays of the roll, for every game at once
   (``generate_moves``, the variant's rules);
2. a chooser picks one play per game: ``choose(boards, dice, moves) -> (B,) rows``
   (the ``Agent.choose_plays`` protocol of the players layer, or any function);
3. the game is over when the mover has borne off all the variant's checkers
   (docs/rules.md 4, ``tdgammon.engine.rules.outcome.is_game_over``);
4. docs/rules.md 7 (Acey-Deucey): when the named double of a 1-2 was played in
   full the same player "rolls again": the board is not flipped; otherwise the
   turn passes and the next board is the opponent's view (``flip``).

Dice come from the caller (each user has its own dice discipline: duplicate
dice, a seeded stream); ``tdgammon.engine.rules.dice.roll_dice`` applies the
opening-roll rule for games at their first ply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.movegen.vectorized import MoveList, generate_moves
from tdgammon.engine.rules.board import flip
from tdgammon.engine.rules.outcome import is_game_over
from tdgammon.engine.rules.variants import Variant

Chooser = Callable[[np.ndarray, np.ndarray, MoveList], np.ndarray]
"""``choose(boards (B, 30) int8, dice (B, 2) int8, moves) -> (B,) int64`` rows of ``moves``."""


@dataclass(frozen=True)
class Ply:
    """What one ply did in each of B games (all boards ``(B, 30) int8``).

    moves: the legal plays of every game (``MoveList``, parents 0..B-1).
    chosen: ``(B,) int64`` the row of ``moves`` played in each game.
    after: the board after the play, still the mover's view.
    over: ``(B,) bool`` the mover has just borne off its last checker (and won).
    again: ``(B,) bool`` the same player rolls again (Acey-Deucey; never when over).
    next_boards: the board of the next ply: ``after`` when ``again``, else ``flip(after)``.
    """

    moves: MoveList
    chosen: np.ndarray
    after: np.ndarray
    over: np.ndarray
    again: np.ndarray
    next_boards: np.ndarray


def play_ply(boards: np.ndarray, dice: np.ndarray, choose: Chooser, variant: Variant) -> Ply:
    """Play one ply in each game (module docstring).

    boards: ``(B, 30) int8``, side-to-move view, games not over; dice ``(B, 2)`` 1..6.
    """
    moves = generate_moves(boards, dice, variant)
    chosen = np.asarray(choose(boards, dice, moves), dtype=np.int64)
    after = moves.boards[chosen]
    over = is_game_over(after, variant.checkers)
    again = moves.extra_roll[chosen].astype(bool) & ~over
    next_boards = np.where(again[:, None], after, flip(after))
    return Ply(moves, chosen, after, over, again, next_boards)
