"""Cubeful rollouts: every trial played with the cube, money or match.

The trials are those of the cubeless rollout (``tdgammon.engine.evaluation.rollout``:
the same dice per (seed, trial), the same plays, the same luck adjustment),
advanced together as one batch; before each roll the player on roll may
double (not before the first roll with ``root_doubles=False``):

- the cube's cubeless input is the ``cube_plies`` evaluation of the board
  before rolling, from the player on roll's view, and the decision is
  Janowski's, ``cube_decision(probabilities, position, board=board)``, as the
  cube-aware agent (``tdgammon.engine.cube.agent.CubeAgent``) makes it at
  0-ply (the evaluations of all trials are one batched ``Search.evaluate``;
  the agent's cubeful search from 1-ply up, ``cubeful_search``, is too slow
  for every turn of every trial); the player doubles when ``decision.double``;
- the opponent answers with ``take_answer`` (take when double/take is worth
  less to the doubler than double/pass, else drop). Rollouts play without
  beavers; a pending double in the root position is ignored.

A trial's cubeful result, in the root player's view:

- money: points won or lost (cube value x 1, 2 or 3; a drop wins the cube
  value; the Jacoby rule counts gammons single while the cube was never
  turned) divided by the root position's cube value: cubeful equity in units
  of the root's stake;
- match: the root player's match winning chance after the game (the match
  equity table at the new score; a drop wins the cube value), reported also
  as EMG (``mwc_to_equity`` at the root's score and cube).

Truncated trials (``truncate``, ``bearoff_truncate``) take the cubeful value
of the position reached, before the next player's roll: ``cube_decision``'s
``cubeful_equity`` times the cube (money) or its cubeful MWC (match). With
variance reduction each roll's cubeless luck (``TrialState``) is turned into
the cubeful result's units with what is known before the roll: money, its
equity times the cube value at that moment; match, the change of the dead-cube
MWC at that cube (``cubeless_mwc`` is linear in the probabilities). Both have
mean zero, so the adjusted mean is unbiased.

The cubeless outcomes of the same games come with the results; a game ended
by a dropped double is valued there by the cube's evaluation at the drop (as a
truncated trial is).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.cube.agent import take_answer
from tdgammon.engine.cube.match_equity import (
    MatchState,
    can_double,
    mwc_to_equity,
    outcome_mwcs,
)
from tdgammon.engine.cube.theory import DROP, cube_decision
from tdgammon.engine.evaluation.rollout import (
    DEFAULT_SETTINGS,
    RolloutSettings,
    TrialResults,
    TrialState,
    combine_trials,
)
from tdgammon.engine.evaluation.search import Search, check_plies
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outputs import equity, invert
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position

__all__ = [
    "CubefulEstimate",
    "CubefulTrialResults",
    "combine_cubeful",
    "cubeful_estimate",
    "cubeful_rollout_trials",
    "to_mover_view",
]

_OWNER_NAMES = {0: CUBE_CENTRED, 1: CUBE_MOVER, -1: CUBE_OPPONENT}
_OWNER_CODES = {CUBE_CENTRED: 0, CUBE_MOVER: 1, CUBE_OPPONENT: -1}
CI95 = 1.959963984540054


@dataclass(frozen=True)
class CubefulTrialResults:
    """Per-trial results of a cubeful rollout of P roots.

    cubeless: the cubeless ``TrialResults`` of the same games (module docstring).
    values: ``(P, T) float64``: each trial's cubeful result in the root
        player's view (money: equity in units of the root's cube value; match:
        MWC), luck-adjusted when variance reduction was on.
    raw_values: ``(P, T) float64``: the same without the adjustment.
    match: the values are match winning chances.
    """

    cubeless: TrialResults
    values: np.ndarray
    raw_values: np.ndarray
    match: bool

    def __len__(self) -> int:
        return len(self.cubeless)


def _match_state(position: Position) -> MatchState | None:
    return None if position.is_money else MatchState.from_position(position)


def _mwc_slope(state: MatchState, cube: int) -> tuple[np.ndarray, np.ndarray]:
    """(outcome MWCs ``(2, 3)``, d MWC / d probabilities ``(5,)``) of the dead-cube MWC
    at ``cube`` (``cubeless_mwc`` is affine in the cumulative probabilities)."""
    m = outcome_mwcs(state, cube)
    slope = np.array(
        [m[0, 0] - m[1, 0], m[0, 1] - m[0, 0], m[0, 2] - m[0, 1], m[1, 1] - m[1, 0],
         m[1, 2] - m[1, 1]]
    )  # fmt: skip
    return m, slope


class _Roots:
    """The cube and score context of each root, from the root player's view."""

    def __init__(self, roots: Sequence[Position], variant) -> None:
        self.positions = list(roots)
        self.variant = variant
        self.states = [_match_state(p) for p in self.positions]
        kinds = {p.is_money for p in self.positions}
        if len(kinds) != 1:
            raise TdgammonError("roll out money and match positions separately")
        self.match = not kinds.pop()
        self._slopes: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def slope(self, root: int, cube: int) -> tuple[np.ndarray, np.ndarray]:
        key = (root, cube)
        if key not in self._slopes:
            self._slopes[key] = _mwc_slope(self.states[root], cube)
        return self._slopes[key]

    def mover_position(self, root: int, board, cube: int, owner_root: int, root_moves: bool):
        """The ``Position`` of the player on roll (board: the variant's, his view)."""
        base = self.positions[root]
        owner = owner_root if root_moves else -owner_root
        scores = (base.mover_score, base.opponent_score)
        if not root_moves:
            scores = scores[::-1]
        return Position(
            board=self.variant.position_board(board),
            cube_value=int(cube),
            cube_owner=_OWNER_NAMES[int(owner)],
            mover_score=scores[0],
            opponent_score=scores[1],
            match_length=base.match_length,
            crawford=base.crawford,
            jacoby=base.jacoby,
            beavers=False,
            max_cube=base.max_cube,
        )

    def may_double(self, root: int, cube: int, owner_root: int, root_moves: bool) -> bool:
        """Can the player on roll double now (cube access, limit, Crawford, dead cube)?"""
        if not self.variant.cube:
            return False
        base = self.positions[root]
        owner = owner_root if root_moves else -owner_root
        holds = owner in (0, 1)
        if base.is_money:
            return holds and 2 * cube <= base.max_cube
        state = self.states[root] if root_moves else self.states[root].swapped()
        return can_double(state, int(cube), holds)[0]

    def game_value(self, root: int, points_root: float, cube: int) -> float:
        """The root's cubeful result of a game won (``points_root`` 1, 2, 3) or lost
        (-1, -2, -3) by the root player at ``cube``."""
        base = self.positions[root]
        if not self.match:
            return points_root * cube / base.cube_value
        m = outcome_mwcs(self.states[root], int(cube))
        kind = int(round(abs(points_root)))
        return float(m[0 if points_root > 0 else 1, kind - 1])


def cubeful_rollout_trials(
    search: Search,
    roots: Sequence[Position] | Position,
    trials: Iterable[int] | np.ndarray,
    settings: RolloutSettings = DEFAULT_SETTINGS,
    *,
    cube_plies: int | None = None,
    progress: Callable[[int], None] | None = None,
    root_doubles: bool = True,
) -> CubefulTrialResults:
    """Play trials ``trials`` of each root with the cube (module docstring).

    roots: ``Position`` (or several, all money or all match) of the player on
    roll before rolling; its cube value, owner, score, match length, Crawford
    and Jacoby settings are the trials' starting cube state. cube_plies: depth
    of the cube's evaluation (default ``settings.plies``). root_doubles: False
    keeps the cube where it is before the first roll (the rollout of "no
    double", ND; the cube is used from the second turn on).
    """
    roots = [roots] if isinstance(roots, Position) else list(roots)
    if not roots:
        raise TdgammonError("give at least one position to roll out")
    cube_plies = settings.plies if cube_plies is None else cube_plies
    check_plies(cube_plies)
    variant = search.variant
    if not variant.cube:
        raise TdgammonError(f"{variant.name} is played without the cube: roll it out cubeless")
    boards = np.stack([variant.board_in_play(p.board) for p in roots])
    state = TrialState(search, boards, trials, settings, progress)
    search = state.search
    context = _Roots(roots, variant)
    rows_total = len(state.active)
    cube = np.array([roots[r].cube_value for r in state.root_of], dtype=np.int64)
    owner = np.array([_OWNER_CODES[roots[r].cube_owner] for r in state.root_of], dtype=np.int8)
    root_cubes = cube.astype(np.float64)
    value = np.zeros(rows_total, dtype=np.float64)
    luck = np.zeros(rows_total, dtype=np.float64)
    # roots already over: their exact cubeless value gives the points
    for row in np.flatnonzero(~state.active):
        points = float(equity(state.result[row]))
        value[row] = context.game_value(state.root_of[row], points, cube[row])

    def decide(rows: np.ndarray, probabilities: np.ndarray):
        """The cube decision of the player on roll in each row (probabilities: his)."""
        out = []
        for row, p in zip(rows, probabilities, strict=True):
            board = state.boards[row]
            position = context.mover_position(
                state.root_of[row], board, cube[row], owner[row], state.root_on_roll[row]
            )
            out.append((position, cube_decision(p, position, board=board)))
        return out

    while state.active.any():
        rows = np.flatnonzero(state.active)
        # ---- the cube, before the roll (never before the opening roll, nor before
        # the first one with root_doubles=False)
        if state.ply > 0 or (root_doubles and not settings.opening):
            may = np.array(
                [
                    context.may_double(state.root_of[r], cube[r], owner[r], state.root_on_roll[r])
                    for r in rows
                ],
                dtype=bool,
            )
            candidates = rows[may]
            if len(candidates):
                probabilities = search.evaluate(state.boards[candidates], cube_plies)
                dropped, dropped_values, dropped_cubeless = [], [], []
                for row, p, (position, decision) in zip(
                    candidates, probabilities, decide(candidates, probabilities), strict=True
                ):
                    if not decision.double:
                        continue
                    root_moves = bool(state.root_on_roll[row])
                    offered = position.with_changes(double_offered=True)
                    if take_answer(decision, offered) == DROP:
                        points = 1.0 if root_moves else -1.0
                        dropped.append(row)
                        dropped_values.append(
                            context.game_value(state.root_of[row], points, cube[row])
                        )
                        p64 = np.asarray(p, dtype=np.float64)
                        dropped_cubeless.append(p64 if root_moves else invert(p64))
                    else:
                        cube[row] *= 2
                        owner[row] = -1 if root_moves else 1
                if dropped:
                    dropped = np.array(dropped)
                    value[dropped] = dropped_values
                    state.finish(dropped, np.array(dropped_cubeless))
                rows = np.flatnonzero(state.active)
                if len(rows) == 0:
                    break
        # ---- the roll and the play
        before = state.luck[rows].copy()
        played = state.play(rows)
        gained = state.luck[rows] - before
        if settings.variance_reduction:
            if context.match:
                for i, row in enumerate(rows):
                    slope = context.slope(state.root_of[row], int(cube[row]))[1]
                    luck[row] += float(slope @ gained[i])
            else:
                luck[rows] += (equity(gained) + 1.0) * cube[rows] / root_cubes[rows]  # linear part
        end = state.stops(played)
        ended = rows[end]
        for i in np.flatnonzero(end):
            row = rows[i]
            root = state.root_of[row]
            if played.over[i]:
                points = float(equity(played.value_root[i]))
                base = context.positions[root]
                if not context.match and base.jacoby and owner[row] == 0:
                    points = float(np.sign(points))
                value[row] = context.game_value(root, points, cube[row])
            else:
                value[row] = _cubeful_value(context, state, row, played.value_root[i], cube, owner)
        state.finish(ended, played.value_root[end])

    cubeless = state.results()
    shape = cubeless.plies.shape
    adjusted = value - luck if settings.variance_reduction else value
    return CubefulTrialResults(
        cubeless=cubeless,
        values=adjusted.reshape(shape),
        raw_values=value.reshape(shape),
        match=context.match,
    )


def _cubeful_value(context: _Roots, state: TrialState, row: int, value_root, cube, owner) -> float:
    """The root's cubeful value of a trial stopped before the next player's roll."""
    root = state.root_of[row]
    next_is_root = bool(state.root_on_roll[row])
    p = np.asarray(value_root, dtype=np.float64)
    p_next = p if next_is_root else invert(p)
    board = state.boards[row]
    position = context.mover_position(root, board, cube[row], owner[row], next_is_root)
    decision = cube_decision(p_next, position, board=board)
    if context.match:
        mwc = float(decision.mwc["cubeful"])
        return mwc if next_is_root else 1.0 - mwc
    points = float(decision.cubeful_equity) * cube[row] / context.positions[root].cube_value
    return points if next_is_root else -points


def combine_cubeful(parts: Sequence[CubefulTrialResults]) -> CubefulTrialResults:
    """One ``CubefulTrialResults`` from pieces with disjoint trials, sorted by trial."""
    parts = [p for p in parts if len(p)]
    if not parts:
        raise TdgammonError("no trials to combine")
    if len({p.match for p in parts}) != 1:
        raise TdgammonError("these trial results come from different rollouts")
    cubeless = combine_trials([p.cubeless for p in parts])
    trials = np.concatenate([p.cubeless.trials for p in parts])
    order = np.argsort(trials, kind="stable")
    return CubefulTrialResults(
        cubeless=cubeless,
        values=np.concatenate([p.values for p in parts], axis=1)[:, order],
        raw_values=np.concatenate([p.raw_values for p in parts], axis=1)[:, order],
        match=parts[0].match,
    )


@dataclass(frozen=True)
class CubefulEstimate:
    """The cubeful estimate of one root (the root player's view).

    equity: money, cubeful equity in units of the root's cube value; match, EMG.
    equity_se: its standard error. mwc / mwc_se: match only (None in money play).
    trials: trials averaged.
    """

    equity: float
    equity_se: float
    mwc: float | None
    mwc_se: float | None
    trials: int

    @property
    def equity_ci95(self) -> float:
        return CI95 * self.equity_se

    @property
    def mwc_ci95(self) -> float | None:
        return None if self.mwc_se is None else CI95 * self.mwc_se


def cubeful_estimate(
    results: CubefulTrialResults, roots: Sequence[Position] | Position, *, adjusted: bool = True
) -> list[CubefulEstimate]:
    """One ``CubefulEstimate`` per root (``adjusted=False``: without the luck adjustment)."""
    roots = [roots] if isinstance(roots, Position) else list(roots)
    data = results.values if adjusted else results.raw_values
    out = []
    for samples, position in zip(data, roots, strict=True):
        n = len(samples)
        mean = float(samples.mean())
        se = float(samples.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
        if not results.match:
            out.append(CubefulEstimate(mean, se, None, None, n))
            continue
        state = MatchState.from_position(position)
        emg = mwc_to_equity(mean, state, position.cube_value)
        spread = outcome_mwcs(state, position.cube_value)
        scale = 2.0 / (spread[0, 0] - spread[1, 0])
        out.append(CubefulEstimate(emg, float(se * scale), mean, se, n))
    return out


def to_mover_view(results: CubefulTrialResults, flipped: np.ndarray) -> CubefulTrialResults:
    """Results of play roots (``flipped``: rolled out from the opponent's side) turned
    to the view of the player who made the plays: money equity negated, MWC
    ``1 - MWC``; the cubeless part as ``tdgammon.engine.evaluation.rollout.to_mover_view``."""
    from tdgammon.engine.evaluation.rollout import to_mover_view as cubeless_view

    flipped = np.asarray(flipped, dtype=bool)[:, None]

    def turn(values):
        other = 1.0 - values if results.match else -values
        return np.where(flipped, other, values)

    return CubefulTrialResults(
        cubeless=cubeless_view(results.cubeless, flipped[:, 0]),
        values=turn(results.values),
        raw_values=turn(results.raw_values),
        match=results.match,
    )
