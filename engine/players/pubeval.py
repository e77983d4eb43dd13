"""Tesauro's pubeval: the public linear evaluator, our baseline opponent.

Weights and input layout: ``engine/players/pubeval_weights.json`` (public domain,
as distributed with BSD games). 122 inputs for the board AFTER a play, from the
mover's view; "use the race weights when the position BEFORE the move is a
race (no contact), the contact weights otherwise; pick the legal move with the
highest score; a move that bears off the last checker always wins".
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from tdgammon.engine.rules.board import CHECKERS_PER_SIDE, MOVER_OFF, OPPONENT_BAR
from tdgammon.engine.rules.outcome import MOVER_WINS, winner

N_INPUTS = 122


@lru_cache(maxsize=1)
def weights() -> tuple[np.ndarray, np.ndarray]:
    """(contact, race) weight vectors, each ``(122,) float64``."""
    text = resources.files(__package__).joinpath("pubeval_weights.json").read_text()
    data = json.loads(text)
    return np.array(data["contact"], dtype=np.float64), np.array(data["race"], dtype=np.float64)


def encode(boards: np.ndarray) -> np.ndarray:
    """``(N, 30)`` boards after a play, mover's view -> ``(N, 122) float64`` inputs.

    Block b = 0..23 is the mover's point 24 - b with n checkers (mover
    positive): inputs 5b..5b+4 are n == -1, n == 1, n >= 2, n == 3, (n-3)/2 if
    n >= 4. Input 120 = opponent checkers on the bar / 2; 121 = mover off / 15.
    """
    b = np.asarray(boards)
    n = b[:, 24:0:-1].astype(np.float64)
    blocks = np.stack(
        [n == -1, n == 1, n >= 2, n == 3, np.where(n >= 4, (n - 3) / 2, 0.0)], axis=-1
    ).astype(np.float64)
    x = np.empty((len(b), N_INPUTS), dtype=np.float64)
    x[:, :120] = blocks.reshape(len(b), 120)
    x[:, 120] = -b[:, OPPONENT_BAR] / 2.0
    x[:, 121] = b[:, MOVER_OFF] / float(CHECKERS_PER_SIDE)
    return x


def score(boards_after: np.ndarray, race_before: np.ndarray) -> np.ndarray:
    """``(N,) float64`` pubeval scores; higher is better for the mover.

    boards_after: ``(N, 30)`` boards after the play, mover's view (not flipped).
    race_before: ``(N,) bool``, the position before the play had no contact.
    A board with all the mover's checkers off scores +inf.
    """
    contact_w, race_w = weights()
    x = encode(boards_after)
    s = np.where(race_before, x @ race_w, x @ contact_w)
    return np.where(winner(boards_after) == MOVER_WINS, np.inf, s)
