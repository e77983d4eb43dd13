"""Positions for ``tdgammon refine``: the leaves of a network's 1-ply search.

Usage:
    python scripts/leaf_positions.py OUT COUNT SEED [MODEL]

A 1-ply value is the mean, over the opponent's 21 rolls, of the 0-ply value of
the position his best reply leaves; those positions are where the 1-ply gets
its values, and the best reply is picked by the network, so they are the
positions it misjudges in the opponent's favour. This samples them for MODEL
(default: the shipped set): decisions from its self-play (contact,
``refine``'s ``sample_positions``), one random roll each and its best 0-ply
play, then three random rolls of the opponent and his best 0-ply reply to
each. Kept: with contact, not over, not a
pure bear-off (what the contact net judges), distinct. Writes
``OUT/positions.npz`` with COUNT boards (player on roll's view), which
``tdgammon refine --out OUT --positions COUNT`` then labels and fits instead of
sampling its own (docs/training.md, "Session 15").
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.evaluation.evaluator import default_evaluator, load_evaluator
from tdgammon.engine.evaluation.search import rank_per_parent
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.board import flip, has_contact
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.outcome import is_game_over, variant_equity
from tdgammon.train.refine import sample_positions, save_npz

REPLIES = 3
"""Opponent rolls sampled per decision."""


def best_plays(evaluator, boards: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``(B, 30) int8``: for each board ``(B, 30)`` (player on roll's view) and a random
    roll, the position its best 0-ply play leaves, from the view of the opponent."""
    moves = generate_moves(boards, roll_dice(rng, len(boards)))
    scores = variant_equity(evaluator.play_probabilities(moves), evaluator.variant)
    rows, rank = rank_per_parent(scores, moves.parents)
    return flip(moves.boards[rows[rank == 0]])


def leaf_positions(evaluator, count: int, rng: np.random.Generator) -> np.ndarray:
    """``(count, 30) int8`` distinct leaves (module docstring), shuffled by ``rng``."""
    found = np.zeros((0, 30), dtype=np.int8)
    while len(found) < count:
        decisions = sample_positions(evaluator, 20_000, rng, 0.0, contact_only=True)
        replies = best_plays(evaluator, decisions, rng)
        replies = np.repeat(replies[~is_game_over(replies)], REPLIES, axis=0)
        leaves = best_plays(evaluator, replies, rng)
        judged = ~is_game_over(leaves) & ~is_bearoff_position(leaves) & has_contact(leaves)
        found = np.unique(np.concatenate([found, leaves[judged]]), axis=0)
    return found[rng.permutation(len(found))[:count]]


def main() -> None:
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__.split("\n\n")[1])
    out, count, seed = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(2)
    evaluator = load_evaluator(sys.argv[4]) if len(sys.argv) == 5 else default_evaluator()
    boards = leaf_positions(evaluator, count, np.random.default_rng(seed))
    out.mkdir(parents=True, exist_ok=True)
    save_npz(out / "positions.npz", boards=boards)
    print(f"{out / 'positions.npz'}: {len(boards)} positions")


if __name__ == "__main__":
    main()
