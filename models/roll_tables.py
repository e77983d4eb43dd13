"""Tables of how one checker can move with each of the 36 rolls, shared by the encodings.

``roll_paths``: the paths one checker can take with each roll (a non-double:
d1, d2, d1 then d2, d2 then d1; a double: one to four steps). The escape
table ``ESCAPES_PAST`` gives, for each pattern of blocked points in the 12 in
front of a checker, the share of the 36 rolls that carry it past the farthest
blocked point touching down only on open points (docs/rules.md 2.2: a checker
may not stop on a point held by two or more opposing checkers). Rolls are
indexed row-major: ``6 * (d1 - 1) + (d2 - 1)``.
"""

from __future__ import annotations

import numpy as np


def roll_paths() -> tuple[np.ndarray, np.ndarray]:
    """Paths one checker can take with each of the 36 rolls.

    Returns ``offsets (36, 4, 4) int`` (path p of roll r: cumulative pips after
    each step, 0-padded) and ``lengths (36, 4) int`` (steps in the path; 0 =
    no such path). Non-doubles: d1, d2, d1 then d2, d2 then d1. Doubles: 1..4
    steps of the die.
    """
    offsets = np.zeros((36, 4, 4), dtype=np.intp)
    lengths = np.zeros((36, 4), dtype=np.intp)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            r = (d1 - 1) * 6 + d2 - 1
            if d1 == d2:
                paths = [[d1 * (k + 1) for k in range(n)] for n in range(1, 5)]
            else:
                paths = [[d1], [d2], [d1, d1 + d2], [d2, d1 + d2]]
            for p, path in enumerate(paths):
                offsets[r, p, : len(path)] = path
                lengths[r, p] = len(path)
    return offsets, lengths


PATH_OFFSETS, PATH_LENGTHS = roll_paths()

ESCAPE_WINDOW = 12
"""Escapes look at the 12 points in front of the rearmost checker (as gnubg does)."""


def escape_past_table() -> np.ndarray:
    """``(4096,) float32``: escapes for each pattern of blocked points in front.

    Bit k-1 of the pattern is set when the point k pips in front of the
    checker is held by the other side (k = 1..12); points further away, or
    past the end of the board, are open. A roll escapes when one of its paths
    touches down only on open points and ends beyond the farthest blocked
    point. 1.0 when nothing in the window is blocked.
    """
    patterns = np.arange(2**ESCAPE_WINDOW)
    bits = (patterns[:, None] >> np.arange(ESCAPE_WINDOW)[None, :]) & 1  # (4096, 12)
    farthest = np.where(bits == 1, np.arange(1, ESCAPE_WINDOW + 1)[None, :], 0).max(axis=1)
    escaped = np.zeros((len(patterns), 36), dtype=bool)
    for roll in range(36):
        for path in range(4):
            steps = PATH_LENGTHS[roll, path]
            if steps == 0:
                continue
            ok = np.ones(len(patterns), dtype=bool)
            for offset in PATH_OFFSETS[roll, path, :steps]:
                if offset <= ESCAPE_WINDOW:
                    ok &= bits[:, offset - 1] == 0
            escaped[:, roll] |= ok & (PATH_OFFSETS[roll, path, steps - 1] > farthest)
    share = escaped.mean(axis=1)
    return np.where(farthest == 0, 1.0, share).astype(np.float32)


ESCAPES_PAST = escape_past_table()
"""``(4096,) float32``: ``escape_past_table()``, computed once at import."""
