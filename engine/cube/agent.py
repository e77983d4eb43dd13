"""Cube-aware play: an agent that plays, doubles, takes and passes from an evaluation.

``CubeAgent`` implements the batched ``Agent`` protocol of the players layer
(``tdgammon.engine.players.agents``)
together with its optional cube methods (the names the game drivers in
``tdgammon.engine.players.cube_actions`` call):

- ``choose_plays(boards, dice, moves) -> (B,) int64``: the best play of each
  position at ``plies`` with move filters (``tdgammon.engine.evaluation.search.Search``);
- ``decide_double(position) -> bool``: ``position`` is the player on roll's
  view before rolling; doubles when the cube decision says so
  (``CubeDecision.double``; money, or match through the match equity table);
- ``decide_take(position) -> "take" | "drop" | "beaver"``: ``position`` is the
  *doubler's* view with ``double_offered`` set; the answer is the taker's.
  The doubler's cubeful numbers give it: take when double/take is worth less
  to the doubler than double/pass (``DT < DP``), else drop; beaver (money,
  beavers on, cube limit allowing) when the beaver is worth less to the
  doubler than the take, ``2 x beaver_reply < DT`` (without raccoons
  ``-2 < DT < 0``: the take is worth more than the current stake to the
  taker, and the doubler would not rather refuse the beaver). At beaver stage
  2 (the doubler has raccooned) the beaverer answers: drop when ``KEEP >= 1``
  (``tdgammon.engine.cube.theory.raccoon_answer``), else take.
- ``decide_beaver(position) -> "take" | "drop" | "raccoon"``: ``position`` is
  the beavered doubler's own view at beaver stage 1 (cube: the beaverer's
  take); the answer is his (docs/rules.md 5), the best of refuse (-1 in units
  of that stake), accept (``DT``) and, with raccoons within the cube limit,
  raccoon (``min(2, 2 KEEP)``), ``tdgammon.engine.cube.theory.beaver_reply``.

The cube decisions are those of ``tdgammon cube`` at ``cube_plies``
(``tdgammon.engine.cube.cubeful_search.cubeful_decision``): from 1-ply up ND,
DT and DP are searched with the cube (each node's doubling decision inside
the search, Janowski's interpolation at the leaves); at 0-ply they are
Janowski's on the cubeless evaluation. Resignations are left to the defaults
of ``tdgammon.engine.players.cube_actions``.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.cube.cubeful_search import CubefulSearch, cubeful_decision
from tdgammon.engine.cube.theory import (
    TAKE,
    CubeDecision,
    beaver_reply,
    proper_answer,
    raccoon_answer,
)
from tdgammon.engine.evaluation.search import Evaluator, Search, check_plies
from tdgammon.engine.movegen.vectorized import MoveList
from tdgammon.engine.rules.position import Position


class CubeAgent:
    """Plays and handles the cube from one evaluation (module docstring).

    search: a ``Search`` or any ``Evaluator`` (wrapped in a default ``Search``).
    plies: depth for plays and for the cube's cubeless probabilities.
    cube_plies: depth for cube decisions only (default ``plies``).
    """

    def __init__(
        self,
        search: Search | Evaluator,
        plies: int = 0,
        *,
        cube_plies: int | None = None,
        name: str | None = None,
    ) -> None:
        check_plies(plies)
        self.search = search if isinstance(search, Search) else Search(search)
        self.plies = plies
        self.cube_plies = plies if cube_plies is None else cube_plies
        check_plies(self.cube_plies)
        self.evaluator = self.search.evaluator
        self.cubeful = CubefulSearch(self.search) if self.search.variant.cube else None
        self.name = name or f"{self.search.name}-cube-{plies}ply"

    # ------------------------------------------------------------ plays

    def choose_plays(self, boards: np.ndarray, dice: np.ndarray, moves: MoveList) -> np.ndarray:
        """``(B,) int64`` rows of ``moves``; boards ``(B, 30)`` mover's view, dice ``(B, 2)``."""
        return self.search.choose_rows(moves, len(boards), self.plies)

    # ------------------------------------------------------------ cube

    def cube_analysis(self, position: Position) -> CubeDecision:
        """The cube decision of ``position``'s mover (before rolling), at ``cube_plies``."""
        return cubeful_decision(self.search, position, self.cube_plies, cubeful=self.cubeful)

    def decide_double(self, position: Position) -> bool:
        """Does the player on roll of ``position`` (mover's view, before rolling) double?"""
        decision = self.cube_analysis(position)
        return decision.double

    def decide_take(self, position: Position) -> str:
        """The taker's answer to the double in ``position`` (the doubler's view);
        at beaver stage 2 the beaverer's answer to the raccoon."""
        decision = self.cube_analysis(position)
        return take_answer(decision, position)

    def decide_beaver(self, position: Position) -> str:
        """The beavered doubler's answer (``position``: his view, beaver stage 1)."""
        decision = self.cube_analysis(position)
        return beaver_answer(decision, position)


def take_answer(decision: CubeDecision, position: Position) -> str:
    """ "take", "drop" or "beaver" from the doubler's ``decision`` on ``position``.

    The taker takes when the doubler's double/take value is below double/pass
    (``DT < DP``); beavers (money play with beavers allowed, cube limit
    permitting) when the beaver is worth less to the doubler than the take
    (``tdgammon.engine.cube.theory.proper_answer``). At beaver stage 2 (a
    raccoon on the table) the answer is the beaverer's: ``raccoon_answer``.
    """
    if position.beaver_stage == 2:
        keep = decision.double_keep
        return TAKE if keep is None else raccoon_answer(keep)
    money = position.is_money and decision.double_keep is not None
    beaver = (
        money
        and position.beavers
        and 4 * position.cube_value <= position.max_cube
        and position.beaver_stage == 0
    )
    raccoon = beaver and position.raccoons and 8 * position.cube_value <= position.max_cube
    return proper_answer(
        decision.double_take, decision.double_pass, beaver, decision.double_keep, raccoon
    )


def beaver_answer(decision: CubeDecision, position: Position) -> str:
    """ "take", "drop" or "raccoon": the beavered doubler's answer from his own
    ``decision`` on ``position`` (beaver stage 1: the cube holds the beaverer's
    take, twice the first stake), by ``tdgammon.engine.cube.theory.beaver_reply``.
    A raccoon needs raccoons allowed and four times this cube within the limit."""
    raccoon = position.raccoons and 4 * position.cube_value <= position.max_cube
    answer, _ = beaver_reply(decision.double_take, decision.double_keep, raccoon)
    return answer
