"""Random play: positions from random games, and arbitrary random boards.

Used by the differential tests and by ``tdgammon bench movegen`` to get fixed,
reproducible samples of positions. Boards are ``(B, 30) int8``, mover's view.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.flow.batch import play_ply
from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    MOVER_BAR,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_OFF,
)
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.variants import Variant, get_variant


def pick_random_children(counts: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Index of one uniformly chosen child per parent.

    counts: ``(B,)`` number of children of each parent (>= 1), children stored
    contiguously per parent in parent order. Returns ``(B,) int64`` row indices.
    """
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return starts + (rng.random(len(counts)) * counts).astype(np.int64)


def random_game_positions(
    count: int,
    rng: np.random.Generator,
    parallel_games: int = 64,
    choose_plays=None,
    variant: str | Variant | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Positions and rolls met in games with random dice.

    Both sides play uniformly random plays, or the plays picked by
    ``choose_plays(boards, dice, moves) -> (B,) rows`` (an agent's method, see
    ``tdgammon.engine.players.agents``) when given. Returns ``boards (count, 30) int8`` (side to
    move's view, games not over) and ``dice (count, 2) int8``: the roll the
    mover has to play there. ``variant`` (default standard) sets the start,
    the rules and the number of checkers. Games follow the rules of a turn of
    ``tdgammon.engine.flow.batch.play_ply``: no double as the opening roll, an
    Acey-Deucey extra roll is taken; a finished game restarts at once.
    """
    variant = get_variant(variant)
    start = variant.starting_board()
    games = np.repeat(start[None, :], parallel_games, axis=0)
    first_ply = np.ones(parallel_games, dtype=bool)
    kept_boards, kept_dice, total = [], [], 0
    if choose_plays is None:

        def choose_plays(boards, dice, moves):
            return pick_random_children(moves.counts(len(boards)), rng)

    while total < count:
        dice = roll_dice(rng, parallel_games, opening=first_ply)
        kept_boards.append(games.copy())
        kept_dice.append(dice)
        total += parallel_games
        ply = play_ply(games, dice, choose_plays, variant)
        games = ply.next_boards
        games[ply.over] = start
        first_ply = ply.over
    boards = np.concatenate(kept_boards)[:count]
    dice = np.concatenate(kept_dice)[:count]
    return boards, dice


def random_boards(count: int, rng: np.random.Generator) -> np.ndarray:
    """Arbitrary valid boards ``(count, 30) int8``: checkers scattered at random.

    Each side puts its 15 checkers on a random handful of slots (points, bar,
    off), with a bias toward few slots so that tall stacks, closed boards,
    crowded bars and bear-offs all occur. Points are never shared by both sides.
    """
    boards = np.zeros((count, BOARD_SIZE), dtype=np.int64)
    for row in range(count):
        board = boards[row]
        for side in (1, -1):
            slots = _random_slots(rng, side, board)
            chosen = rng.choice(slots, size=rng.integers(1, min(len(slots), 9) + 1), replace=False)
            weights = rng.dirichlet(np.ones(len(chosen)) * 0.7)
            counts = rng.multinomial(CHECKERS_PER_SIDE, weights)
            for slot, n in zip(chosen, counts, strict=True):
                board[slot] += side * n
    return boards.astype(BOARD_DTYPE)


def _random_slots(rng: np.random.Generator, side: int, board: np.ndarray) -> np.ndarray:
    """Slots a side may use: free points (of a random region), its bar and its off tray."""
    points = np.arange(1, 25)
    region = rng.integers(0, 4)
    if region == 1:  # the side's own home board, for bear-offs
        points = np.arange(1, 7) if side == 1 else np.arange(19, 25)
    elif region == 2:  # home board plus a few outfield points
        points = np.arange(1, 13) if side == 1 else np.arange(13, 25)
    free = points[board[points] == 0]
    extra = [MOVER_BAR, MOVER_OFF] if side == 1 else [OPPONENT_BAR, OPPONENT_OFF]
    return np.concatenate([free, extra])
