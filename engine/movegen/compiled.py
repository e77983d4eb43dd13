"""The compiled move generator: the vectorized generator's results, made by a
numba-compiled loop per (board, roll) pair.

``generate_pairs(boards, dice)`` gives exactly what the numpy generator
(``tdgammon.engine.movegen.vectorized.generate_moves_numpy``) gives for the
same batch: the same plays, in the same order, with the same moves
(``tests/test_movegen_compiled.py`` compares them row for row on many
thousands of random positions, and both are tested against the slow
reference generator). Order matters: ``best_rows`` breaks ties by row, so
the two generators must never disagree on it.

Why a second fast generator: move generation was more than half of the time
of a 0-ply rollout and of raw-network self-play, and numpy pays for every intermediate array
(``F x 26`` legality masks, copies of every child board per die). Compiled, a
play is found by a depth-first walk that touches one board at a time.

Scope: the rules of the variants whose checkers start on the board
(standard, Nackgammon, Hypergammon). Dutch (hand, no hit before home) and
Acey-Deucey (hand, named doubles) stay with the numpy generator
(``supports``).

How it works (rules quoted from docs/rules.md; the orders are the numpy
generator's, see its module docstring):

- Source columns 0..24 are points 1..24 and the bar (board index column + 1),
  visited in that order.
- Non-doubles: the larger die first, then the smaller die first; each
  two-dice play kept once per board (first seen wins, a 64-bit key then an
  exact comparison). 2.6: when no play uses both dice, the larger die's
  one-die plays if it can be played at all, else the smaller die's, else the
  turn passes.
- Doubles: up to four moves, each from a source of no higher rank than the
  previous one (bar first, then points from the back), which gives every
  multiset of moves once; only the plays using the most dice are kept.

numba is a dependency of tdgammon; when it cannot be imported (a platform
without wheels) ``available()`` is False and the numpy generator does the
work alone. ``TDGAMMON_NUMBA=0`` (every compiled kernel of tdgammon off)
forces that path.
"""

from __future__ import annotations

import importlib
import os

import numpy as np

from tdgammon.engine.rules.board import BOARD_DTYPE, BOARD_SIZE
from tdgammon.engine.rules.variants import Variant

_WEIGHTS = np.random.default_rng(20261201).integers(-(2**62), 2**62, size=BOARD_SIZE)
"""Zobrist-style weights of the de-duplication key: sum(board[i] * W[i]), wrapping int64."""

_kernel = None
"""The ``_compiled_kernel`` module once loaded."""
_unavailable = None
"""Why the compiled generator is not used here, once known (None: it is, or not yet asked)."""


def supports(variant: Variant) -> bool:
    """Whether ``variant``'s rules are compiled here (checkers start on the board)."""
    return (
        variant.start is not None
        and not variant.no_hit_before_home
        and not variant.acey_deucey_roll
    )


def available() -> bool:
    """Whether numba can compile the generator here (and it is not switched off)."""
    return _load() is not None


def import_kernel(name: str):
    """``(module, None)`` for the numba kernel module ``name`` (importing it imports
    numba), or ``(None, why)`` when ``TDGAMMON_NUMBA=0`` or numba cannot be
    imported: every compiled kernel of tdgammon is loaded through here."""
    if os.environ.get("TDGAMMON_NUMBA", "").strip() == "0":
        return None, "TDGAMMON_NUMBA=0"
    try:
        return importlib.import_module(name), None
    except ImportError as error:  # pragma: no cover - numba is a dependency
        return None, str(error)


def _load():
    global _kernel, _unavailable
    if _kernel is None and _unavailable is None:
        _kernel, _unavailable = import_kernel("tdgammon.engine.movegen._compiled_kernel")
    return _kernel


def generate_pairs(boards: np.ndarray, dice: np.ndarray):
    """Every legal play of every (board, roll) pair, compiled.

    boards: ``(B, 30) int8`` C-contiguous, mover's view, valid, no checker in
    hand; dice: ``(B, 2)`` 1..6. Returns ``(boards (M, 30) int8, parents (M,)
    int64, moves (M, 4, 2) int8)`` in the numpy generator's order: views of
    the kernel's buffers (``32 B + 2048`` rows, doubled when a batch needs
    more; not copied: a copy would be one more pass over every play). Call only when
    ``available()``.
    """
    kernel = _load()
    return kernel.generate(
        np.ascontiguousarray(boards, dtype=BOARD_DTYPE),
        np.ascontiguousarray(dice, dtype=np.int64),
        _WEIGHTS,
        kernel.LOWEST_BIT,
        kernel.HIGHEST_HOME,
    )
