"""The best row of each parent of a ``MoveList``, ties broken at random."""

from __future__ import annotations

import numpy as np


def best_rows(
    values: np.ndarray, parents: np.ndarray, batch: int, rng: np.random.Generator
) -> np.ndarray:
    """``(batch,) int64``: for each parent, a row of its highest value (uniform among equals).

    values: ``(M,)`` float, one per row; parents: ``(M,) int64`` ascending, every
    parent 0..batch-1 present (``MoveList.parents``).
    """
    order = np.lexsort((rng.random(len(values)), -np.asarray(values, dtype=np.float64), parents))
    starts = np.searchsorted(parents[order], np.arange(batch))
    return order[starts].astype(np.int64)


def random_rows(parents: np.ndarray, batch: int, rng: np.random.Generator) -> np.ndarray:
    """``(batch,) int64``: a uniformly random row of each parent."""
    return best_rows(np.zeros(len(parents)), parents, batch, rng)
