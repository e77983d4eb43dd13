"""Test doubles for the ``tdgammon.engine.evaluation.search.Evaluator`` protocol."""

from __future__ import annotations

import numpy as np


class FixedEvaluator:
    """Every position gets the same probabilities (player on roll's view)."""

    name = "fixed"

    def __init__(self, probabilities) -> None:
        self.p = np.asarray(probabilities, dtype=np.float32)

    def evaluate(self, boards):
        return np.tile(self.p, (len(np.asarray(boards)), 1))
