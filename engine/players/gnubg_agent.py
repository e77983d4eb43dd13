"""GNU Backgammon as a benchmark opponent, through its Python bindings.

The PyPI package ``gnubg`` (the optional extra ``pip install 'tdgammon[gnubg]'``)
is imported here only, when ``tdgammon.engine.players.factory.make_agent`` is
asked for ``gnubg`` or ``gnubg:PLIES``; training, evaluation and analysis never
import it. Without the package the answer is one ``TdgammonError`` line
(``GNUBG_MISSING``).

Boards in the bindings: two 25-tuples ``(player not on roll, player on roll)``,
each in its owner's numbering (slot k-1 = its point k, slot 24 its bar);
borne-off checkers are implied. ``gnubg_board`` converts one board of
``tdgammon.engine.rules.board`` (mover = player on roll) through the Position
ID slot tables (``tdgammon.engine.formats.position_id``): both write the same
two arrays, so ``gnubg.positionid`` of the converted board is our
``encode_position_id``.

Checker play (``GnubgAgent``): the bindings' ``find_best_moves`` may cut a
move tuple short after the first bear-off, so its moves are never applied.
Instead every legal play of our move generator is valued by ``gnubg.evaluate``
(cubeless, deterministic, no noise) on the position it leaves, opponent to
roll, and the play with the highest cubeless money equity for the mover wins
(``tdgammon.engine.evaluation.perspective.play_probabilities``: flip,
evaluate, invert; a play that bears off the last checker gets its exact
result). At PLIES >= 1 the plays go through GNU Backgammon's "normal" move
filter (``tdgammon.engine.evaluation.search.DEFAULT_FILTERS``: 8 plays within
0.16 of the best at 0-ply are valued at 1-ply, 2 within 0.04 of those at
2-ply), each level valued by ``gnubg.evaluate`` at that depth: GNU
Backgammon's own n-ply search (its 21 rolls, its pruning nets as in its
named playing levels, its bear-off databases), not ours. One ``evaluate``
call per position: ``tdgammon bench strength --opponent gnubg`` plays about
40 games/s on two cores against a Tesauro-size network, ``gnubg:1`` about 3.5.

The player has no cube: the bindings evaluate cubeless only, so drivers give
it the defaults of ``tdgammon.engine.players.cube_actions`` (never doubles,
always takes).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from tdgammon.engine.evaluation.perspective import play_probabilities
from tdgammon.engine.evaluation.search import DEFAULT_FILTERS, check_plies, top_per_parent
from tdgammon.engine.formats.position_id import MOVER_SLOT_INDEX, OPPONENT_SLOT_INDEX
from tdgammon.engine.movegen.vectorized import MoveList, best_rows
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.outputs import N_OUTPUTS, equity
from tdgammon.engine.rules.variants import STANDARD, Variant, get_variant

GNUBG_NAME = "gnubg"
"""The player's name in ``make_agent`` specs: ``gnubg`` (0-ply) or ``gnubg:PLIES``."""

GNUBG_MISSING = "needs GNU Backgammon's Python bindings: pip install 'tdgammon[gnubg]'"
"""The end of the error line when the ``gnubg`` package is not installed."""

_OPPONENT_SLOTS = np.array(OPPONENT_SLOT_INDEX, dtype=np.intp)
_MOVER_SLOTS = np.array(MOVER_SLOT_INDEX, dtype=np.intp)


def spec_plies(key: str) -> int:
    """The search depth of the player spec ``gnubg[:PLIES]`` (0 without ``:PLIES``);
    FormatError or TdgammonError (``check_plies``) unless it is a whole number 0..3."""
    _, colon, text = key.partition(":")
    if not colon:
        return 0
    try:
        plies = int(text)
    except ValueError:
        raise FormatError(
            f"bad player {key!r}: write gnubg or gnubg:PLIES (PLIES a whole number, e.g. gnubg:1)"
        ) from None
    check_plies(plies)
    return plies


def import_gnubg():
    """The ``gnubg`` module, or a TdgammonError ending in ``GNUBG_MISSING``."""
    try:
        import gnubg
    except ImportError:
        raise TdgammonError(f"player {GNUBG_NAME!r} {GNUBG_MISSING}") from None
    return gnubg


def gnubg_board(board: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One board in the bindings' layout (module docstring).

    board: ``(30,)`` signed ints, the mover's view, standard backgammon (no
    checkers in hand). Returns ``(opponent's 25 counts, mover's 25 counts)``,
    each in its owner's numbering, bar last; the mover is the player on roll.
    """
    b = np.asarray(board, dtype=np.int64)
    opponent = np.maximum(-b[_OPPONENT_SLOTS], 0)
    mover = np.maximum(b[_MOVER_SLOTS], 0)
    return tuple(opponent.tolist()), tuple(mover.tolist())


class GnubgAgent:
    """Agent protocol (``tdgammon.engine.players.agents``): GNU Backgammon's cubeless
    checker play at ``plies`` (module docstring). Named ``gnubg`` at 0-ply,
    ``gnubg-<plies>ply`` deeper. Standard backgammon only."""

    def __init__(self, plies: int = 0, variant: str | Variant | None = None) -> None:
        check_plies(plies)
        if get_variant(variant) != STANDARD:
            raise TdgammonError(
                f"GNU Backgammon plays standard backgammon here, not {get_variant(variant).name}"
            )
        self.gnubg = import_gnubg()
        self.plies = plies
        self.name = GNUBG_NAME if plies == 0 else f"{GNUBG_NAME}-{plies}ply"
        self._cube = self.gnubg.cubeinfo()
        # cubeless, `level` plies, deterministic, pruning nets (its playing levels), no noise
        self._contexts = [self.gnubg.evalcontext(0, level, 1, 1, 0.0) for level in range(plies + 1)]

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        """GNU Backgammon's cubeless probabilities at ``plies``, one call per board.

        boards: ``(N, 30) int8``, the view of the player on roll, games not over.
        Returns ``(N, 5) float32`` (win, wg, wbg, lg, lbg) for the player on roll.
        """
        context = self._contexts[plies]
        out = np.empty((len(boards), N_OUTPUTS), dtype=np.float32)
        for row, board in enumerate(np.asarray(boards)):
            out[row] = self.gnubg.evaluate(gnubg_board(board), self._cube, context)[:N_OUTPUTS]
        return out

    def play_equities(self, after: np.ndarray, plies: int = 0) -> np.ndarray:
        """``(M,) float32``: the mover's cubeless money equity after each play, valued
        by GNU Backgammon at ``plies``. after: ``(M, 30) int8``, the mover's view
        after the play (not flipped), opponent to roll."""
        return equity(play_probabilities(after, partial(self.evaluate, plies=plies), STANDARD))

    def choose_plays(self, boards: np.ndarray, dice: np.ndarray, moves: MoveList) -> np.ndarray:
        """``(B,) int64`` rows of ``moves``: the best play of each position at
        ``self.plies`` (filtered levels, module docstring). A play left alone by a
        filter needs no deeper value: it is that position's choice."""
        scores = self.play_equities(moves.boards)
        for level in range(1, self.plies + 1):
            f = DEFAULT_FILTERS[min(level - 1, len(DEFAULT_FILTERS) - 1)]
            candidates = top_per_parent(scores, moves.parents, f.keep, f.threshold)
            alone = np.bincount(moves.parents[candidates], minlength=len(boards)) == 1
            deeper = candidates & ~alone[moves.parents]
            scores = np.where(candidates, scores, -np.inf)
            scores[deeper] = self.play_equities(moves.boards[deeper], level)
        return best_rows(scores, moves.parents, len(boards))
