"""The value of a play, seen by the player who made it: flip, evaluate, invert.

An evaluation (the network, a search) gives the probabilities of the player
ABOUT TO ROLL. A play leaves a board that is still the mover's view with the
opponent to roll next, so its value for the mover is
``invert(evaluate(flip(after)))`` (``tdgammon.engine.rules.board.flip``,
``tdgammon.engine.rules.outputs.invert``). Two exceptions:

- the play bears off the mover's last checker (``variant.checkers``): the game
  is over and the value is its exact result (docs/rules.md 4,
  ``tdgammon.engine.rules.outcome.terminal_probs``), never an evaluation;
- Acey-Deucey's 1-2 that earns an extra roll (``MoveList.extra_roll``): the
  mover rolls again, so the value is ``evaluate(after)``, without the flip.

``play_probabilities`` is the one place this is written: the network player
(``tdgammon.engine.evaluation.evaluator.NetworkEvaluator.play_probabilities``) and the
n-ply search (``tdgammon.engine.evaluation.search.Search.play_probabilities``) both
call it with their own ``evaluate``. numpy only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tdgammon.engine.rules.board import flip
from tdgammon.engine.rules.outcome import MOVER_WINS, terminal_probs, winner
from tdgammon.engine.rules.outputs import N_OUTPUTS, invert
from tdgammon.engine.rules.variants import Variant


def play_probabilities(
    after: np.ndarray,
    evaluate: Callable[[np.ndarray], np.ndarray],
    variant: Variant,
    extra_roll: np.ndarray | None = None,
) -> np.ndarray:
    """``(M, 5) float32``: the mover's probabilities after each play (module docstring).

    after: ``(M, 30) int8``, the mover's view after each play (not flipped).
    evaluate: boards ``(N, 30)``, view of the player about to roll, game not
    over -> ``(N, 5)`` probabilities for that player; it is only called with
    boards whose game is not over. variant: the rules (``checkers`` ends the
    game; its scoring values finished games). extra_roll: ``(M,) bool``, the
    plays after which the mover rolls again (Acey-Deucey; None: none).
    """
    after = np.asarray(after)
    out = np.empty((len(after), N_OUTPUTS), dtype=np.float32)
    if len(after) == 0:
        return out
    done = winner(after, variant.checkers) == MOVER_WINS
    if extra_roll is None:
        again = np.zeros(len(after), dtype=bool)
    else:
        again = np.asarray(extra_roll, dtype=bool) & ~done
    flipped = ~done & ~again
    if flipped.all():
        out[:] = invert(np.asarray(evaluate(flip(after))))
        return out
    if flipped.any():
        out[flipped] = invert(np.asarray(evaluate(flip(after[flipped]))))
    if again.any():
        out[again] = evaluate(after[again])
    if done.any():
        out[done] = terminal_probs(after[done], variant)
    return out
