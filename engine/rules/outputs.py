"""The five cumulative outputs of a cubeless evaluation, and what to do with them.

Every evaluation is ``(B, 5) float32`` in the GNU Backgammon order, from the
view of the player it is about (docs/architecture.md, "Array conventions"):
win, win gammon, win backgammon, lose gammon, lose backgammon. They are
cumulative (a backgammon is also a gammon, a gammon also a win), so a
consistent vector has ``win >= wg >= wbg >= 0`` and ``1 - win >= lg >= lbg >= 0``.

numpy only: used by the engine, the networks and training alike.
"""

from __future__ import annotations

import numpy as np

WIN = 0
WIN_GAMMON = 1
WIN_BACKGAMMON = 2
LOSE_GAMMON = 3
LOSE_BACKGAMMON = 4
N_OUTPUTS = 5
OUTPUT_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

_SWAP = np.array([WIN, LOSE_GAMMON, LOSE_BACKGAMMON, WIN_GAMMON, WIN_BACKGAMMON])
"""``invert``: the other player's wg is our lg and so on."""


def invert(probs: np.ndarray) -> np.ndarray:
    """The same probabilities seen by the other player.

    probs: ``(..., 5)`` float, one player's view. Returns the other player's:
    win <-> 1 - win, wg <-> lg, wbg <-> lbg. ``invert(invert(p)) == p``.
    """
    out = probs[..., _SWAP].copy()
    out[..., WIN] = 1.0 - probs[..., WIN]
    return out


def equity(probs: np.ndarray) -> np.ndarray:
    """Cubeless money equity ``2 p(win) - 1 + p(wg) - p(lg) + p(wbg) - p(lbg)``.

    probs: ``(..., 5)`` float. Returns ``(...)`` of the same float type.
    """
    return (
        2.0 * probs[..., WIN]
        - 1.0
        + probs[..., WIN_GAMMON]
        - probs[..., LOSE_GAMMON]
        + probs[..., WIN_BACKGAMMON]
        - probs[..., LOSE_BACKGAMMON]
    )


def outcome_probs(kind: np.ndarray) -> np.ndarray:
    """Exact "probabilities" of a finished game won by the player whose view it is.

    kind: ``(B,)`` ints 1 (single), 2 (gammon), 3 (backgammon), as in
    ``tdgammon.engine.rules.outcome.result_kind``. Returns ``(B, 5) float32`` (no losses).
    """
    kind = np.asarray(kind)
    out = np.zeros(kind.shape + (N_OUTPUTS,), dtype=np.float32)
    out[..., WIN] = kind >= 1
    out[..., WIN_GAMMON] = kind >= 2
    out[..., WIN_BACKGAMMON] = kind >= 3
    return out
