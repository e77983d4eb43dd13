"""Keeping the first of equal rows: the de-duplication of the fast generator's array code.

Rows are packed as bytes into 64-bit words, hashed to one 64-bit key (a random
odd weight per word, sums modulo 2**64) and sorted by key; rows of equal key
are then compared in full, and the rare call where two different rows share a
key is settled by an exact sort of the rows themselves. So the answer is always
exact; the hash only makes it fast.
"""

from __future__ import annotations

import math

import numpy as np

_MAX_WORDS = 64
_WEIGHTS = np.random.default_rng(20261201).integers(
    0, 2**63, size=_MAX_WORDS, dtype=np.uint64
) * np.uint64(2) + np.uint64(1)


def first_of_each(*columns: np.ndarray) -> np.ndarray:
    """``(K,) intp``, ascending: the first index of each distinct row.

    columns: integer (or bool) arrays of equal length, each ``(N,)`` or ``(N, w)``;
    a row is the concatenation of row i of every one (at most 512 bytes).
    """
    parts = [np.ascontiguousarray(c.reshape(len(c), math.prod(c.shape[1:]))) for c in columns]
    parts = [p.view(np.uint8) for p in parts]
    width = sum(p.shape[1] for p in parts)
    parts.append(np.zeros((len(parts[0]), -width % 8), dtype=np.uint8))
    rows = np.ascontiguousarray(np.concatenate(parts, axis=1)).view(np.uint64)
    with np.errstate(over="ignore"):
        keys = (rows * _WEIGHTS[: rows.shape[1]]).sum(axis=1, dtype=np.uint64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    new_key = np.ones(len(order), dtype=bool)
    new_key[1:] = sorted_keys[1:] != sorted_keys[:-1]
    sorted_rows = rows[order]
    if (~new_key[1:] & (sorted_rows[1:] != sorted_rows[:-1]).any(axis=1)).any():
        return _exact_first_of_each(rows)  # two different rows share a key
    return np.sort(order[new_key])


def _exact_first_of_each(rows: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(rows)
    keys = rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel()
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)
