"""Cubeful n-ply: equities searched with the cube (docs/cube.md section 4).

Janowski's interpolation (``tdgammon.engine.cube.theory``) turns cubeless
probabilities into cubeful equities with one cube efficiency. Here, as in GNU
Backgammon's cubeful evaluation, the cube is part of the search and Janowski
is used only at the leaves:

- a node is a ``Position`` before rolling: the board in the view of the player
  on roll, the cube value and owner from his side, the match score, Crawford;
- its **value** (after his cube action) is ND, or max(ND, min(DT, DP)) where he
  may double (``theory.cube_available``: "only the owner may redouble", the
  cube limit, the Crawford game, the post-Crawford leader, a cube that already
  wins the match, docs/rules.md 5-6);
- ``ND`` (rolling without doubling) is the average over the 21 rolls
  (``tdgammon.engine.rules.dice.ROLL_WEIGHTS``) of the chosen play's child
  valued one ply shallower, seen by the player who rolls next (the
  opponent, cube owner and score turned to him: ``position_after_play``);
- ``DT`` is the same with the cube doubled and owned by the taker; ``DP``
  wins the current cube (money: +1 stake; match: the MWC of that win);
- a leaf (depth 0, a finished game, or in money play a bear-off the exact
  two-sided database covers, where the cube has room for ``BEAROFF_DB_ROOM``
  more doublings: the database assumes no cube limit) is valued with its own
  cube action by ``theory.janowski_numbers`` on the 0-ply probabilities
  (``Search.static``, which is exact for finished games and bear-offs), the
  covered money bear-off by the database's exact cubeful ND / DT / DP
  (``two_sided_cube_equities``) instead. A covered bear-off in match play (or
  with the cube near its limit) is searched like any other position: the
  database gives its exact cubeless probabilities at every node, and
  Janowski's interpolation is used only at depth 0.

So 1-ply ND is the average over the 21 rolls of minus the opponent's cubeful
0-ply value (Janowski, with his cube action) after the best play.

Units inside the search: money, points (normalised equity x cube value), so
that a node's value seen by the other player is its negation; match, the
match winning chance (MWC) of the node's player on roll, ``1 - MWC`` for the
other. The MWCs come from the match equity table at every node
(``tdgammon.engine.cube.match_equity``), so gammon values, cube life and dead
cubes follow the score.

Plays: for each roll the mover's play is the one ``Search`` would choose inside
its tree (its default ``inner_keep`` 1): the best at 0-ply (the project's
move generator and ``Search.play_probabilities``), by cubeless money equity
(``Search.score``) in money play and by dead-cube MWC at the node's cube and
score (``match_equity.cubeless_mwc``) in match play. The chosen play is then
valued deeper. Positions with the same board share one move generation and
one evaluation whatever their cube states.

Perspective of everything returned: the player on roll of the root position.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.cube import match_equity as me
from tdgammon.engine.cube.theory import (
    CubeDecision,
    CubeNumbers,
    cube_available,
    cube_decision,
    cube_efficiency,
    doubles_left,
    janowski_numbers,
    position_kinds,
)
from tdgammon.engine.evaluation.search import Search, check_plies
from tdgammon.engine.evaluation.two_sided_bearoff import covers, two_sided_cube_equities
from tdgammon.engine.movegen.vectorized import best_rows, generate_moves
from tdgammon.engine.rules.board import flip, mover_pips
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.outcome import is_game_over
from tdgammon.engine.rules.outputs import invert
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position

__all__ = [
    "BEAROFF_DB_ROOM",
    "CubefulSearch",
    "cubeful_decision",
    "position_after_play",
]

BEAROFF_DB_ROOM = 6
"""Doublings the cube limit must still allow for the exact two-sided database's
cubeful money equities (computed without a limit) to value a bear-off."""

N_ROLLS = len(ALL_ROLLS)
_SWAPPED_OWNER = {CUBE_CENTRED: CUBE_CENTRED, CUBE_MOVER: CUBE_OPPONENT, CUBE_OPPONENT: CUBE_MOVER}


def position_after_play(position: Position, board_after: np.ndarray, extra_roll: bool) -> Position:
    """The position after a play of ``position``'s mover, from the view of the player
    who rolls next (the opponent, or the mover again after an Acey-Deucey extra
    roll): board, cube owner and score turned to him. ``board_after``: the
    mover's view after the play (``(30,)``, the ``Position`` board layout)."""
    if extra_roll:
        return position.with_changes(board=np.asarray(board_after), dice=None)
    return position.with_changes(
        board=flip(np.asarray(board_after)),
        dice=None,
        cube_owner=_SWAPPED_OWNER[position.cube_owner],
        mover_score=position.opponent_score,
        opponent_score=position.mover_score,
        mover_seat=1 - position.mover_seat,
        double_offered=False,
    )


def _doubled(position: Position, owner: str) -> Position:
    """``position`` after its mover's double is taken: twice the cube, held by ``owner``."""
    return position.with_changes(cube_value=2 * position.cube_value, cube_owner=owner)


def _scale(position: Position) -> float:
    """Search units per unit of ``CubeNumbers``: the cube value (money), 1 (match MWC)."""
    return float(position.cube_value) if position.is_money else 1.0


def _other_view(values: np.ndarray, money: bool) -> np.ndarray:
    """Search values turned to the other player: money ``-v``, match ``1 - v``."""
    return -values if money else 1.0 - values


class CubefulSearch:
    """Cubeful n-ply around a cubeless ``Search`` (module docstring).

    search: the project's ``Search`` (network, bear-off databases, variant);
    its variant must use the cube (so no play earns an extra roll: that is
    Acey-Deucey's, played without the cube). met: a match equity table
    (default Kazaross-XG2).
    """

    def __init__(self, search: Search, met=None) -> None:
        if not search.variant.cube:
            raise ValueError(f"{search.variant.name} is played without the cube")
        self.search = search
        self.variant = search.variant
        self.met = met or me.load_met()

    # ------------------------------------------------------------ the root

    def numbers(self, position: Position, plies: int) -> CubeNumbers:
        """ND, DT, DP (money: normalised to the current stake; match: MWC) of the
        mover of ``position`` (before rolling), searched ``plies`` deep.

        ``keep`` (money with beavers only) is ``KEEP``: the doubled cube kept by
        the mover. Depth 0, finished games and covered bear-offs: the leaf
        numbers (Janowski, or the exact database)."""
        check_plies(plies)
        boards = self.variant.board_in_play(position.board)[None, :]
        if plies == 0 or self._is_leaf([position], boards)[0]:
            return self._leaf_numbers([position], boards, self.search.static(boards))[0]
        branches = [position, _doubled(position, CUBE_OPPONENT)]
        if position.is_money and position.beavers:
            branches.append(_doubled(position, CUBE_MOVER))
        rolled = self._rolled(branches, np.repeat(boards, len(branches), axis=0), plies)
        rolled = rolled / _scale(position)
        if position.is_money:
            double_pass = 1.0
        else:
            state = me.MatchState.from_position(position)
            double_pass = float(me.outcome_mwcs(state, position.cube_value, self.met)[0, 0])
        keep = float(rolled[2]) if len(branches) == 3 else None
        available = cube_available(position)[0]
        return CubeNumbers(float(rolled[0]), float(rolled[1]), double_pass, available, keep)

    # ------------------------------------------------------------ the tree

    def _values(self, nodes: list[Position], boards: np.ndarray, plies: int) -> np.ndarray:
        """``(N,) float64``: each node's value after its mover's best cube action, in
        search units from his view; boards ``(N, 30)`` the variant's, his view."""
        may = np.array([cube_available(node)[0] for node in nodes], dtype=bool)
        doubling = [_doubled(node, CUBE_OPPONENT) for node, m in zip(nodes, may, strict=True) if m]
        rolled = self._rolled(nodes + doubling, np.concatenate([boards, boards[may]]), plies)
        values = rolled[: len(nodes)].copy()
        if may.any():
            double_pass = np.array([self._pass_value(node) for node in doubling])
            no_double, double_take = values[may], rolled[len(nodes) :]
            values[may] = np.maximum(no_double, np.minimum(double_take, double_pass))
        return values

    def _pass_value(self, doubled: Position) -> float:
        """What the doubler of ``doubled`` (his view, the taker holding twice the old
        cube) wins when the double is passed: the old cube, in search units."""
        cube = doubled.cube_value // 2
        if doubled.is_money:
            return float(cube)
        state = me.MatchState.from_position(doubled)
        return float(me.outcome_mwcs(state, cube, self.met)[0, 0])

    def _rolled(self, nodes: list[Position], boards: np.ndarray, plies: int) -> np.ndarray:
        """``(N,) float64``: each node's ND (rolling with the cube as it is), search
        units, his view: the roll-weighted children at ``plies - 1``."""
        unique, inverse = np.unique(boards, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        moves = generate_moves(
            np.repeat(unique, N_ROLLS, axis=0), np.tile(ALL_ROLLS, (len(unique), 1)), self.variant
        )
        after = self.search.play_probabilities(moves.boards, 0)
        rows = self._chosen_rows(nodes, inverse, moves, after, len(unique)).reshape(-1)
        children = [
            position_after_play(nodes[i // N_ROLLS], self.variant.position_board(board), False)
            for i, board in enumerate(moves.boards[rows])
        ]
        values = self._child_values(
            children, flip(moves.boards[rows]), invert(after[rows]), plies - 1
        )
        values = _other_view(values, nodes[0].is_money)
        return values.reshape(len(nodes), N_ROLLS) @ ROLL_WEIGHTS

    def _chosen_rows(self, nodes, inverse, moves, after, count) -> np.ndarray:
        """``(N, 21) int64``: the row of ``moves`` each node's mover plays per roll
        (module docstring: 0-ply, money equity or dead-cube MWC at his cube)."""
        pairs = count * N_ROLLS
        best: dict[tuple | None, np.ndarray] = {}
        out = np.empty((len(nodes), N_ROLLS), dtype=np.int64)
        for i, node in enumerate(nodes):
            key = (
                None if node.is_money else (node.cube_value, node.mover_score, node.opponent_score)
            )
            if key not in best:
                if node.is_money:
                    scores = self.search.score(after)
                else:
                    state = me.MatchState.from_position(node)
                    scores = me.cubeless_mwc(after, state, node.cube_value, self.met)
                best[key] = best_rows(scores, moves.parents, pairs).reshape(count, N_ROLLS)
            out[i] = best[key][inverse[i]]
        return out

    def _child_values(self, children, boards, probabilities, plies: int) -> np.ndarray:
        """``(N,)`` values of children (their mover's view) at ``plies``: leaves by
        ``_leaf_numbers`` on their 0-ply ``probabilities (N, 5)``, the rest searched."""
        leaf = self._is_leaf(children, boards) if plies else np.ones(len(children), dtype=bool)
        values = np.empty(len(children), dtype=np.float64)
        if leaf.any():
            at = np.flatnonzero(leaf)
            numbers = self._leaf_numbers([children[i] for i in at], boards[at], probabilities[at])
            values[at] = [n.value * _scale(children[i]) for n, i in zip(numbers, at, strict=True)]
        if (~leaf).any():
            at = np.flatnonzero(~leaf)
            values[at] = self._values([children[i] for i in at], boards[at], plies)
        return values

    # ------------------------------------------------------------ leaves

    def _is_leaf(self, nodes: list[Position], boards: np.ndarray) -> np.ndarray:
        """``(N,) bool``: finished games, and the bear-offs whose cubeful numbers the
        two-sided database gives exactly (``_uses_database``). Other bear-offs it
        covers (match play, a cube near its limit) are searched like any
        position: the database knows their cubeless probabilities, not what the
        cube is worth at the score, which Janowski's interpolation at the root
        would only guess (a last-roll position's cube is not 60% efficient)."""
        over = is_game_over(boards, self.variant.checkers)
        if self.search.use_bearoff:
            exact = covers(boards, self.variant.checkers)
            over |= exact & np.array([_uses_database(node) for node in nodes], dtype=bool)
        return over

    def _leaf_numbers(self, nodes, boards, probabilities) -> list[CubeNumbers]:
        """``CubeNumbers`` of leaves (module docstring): exact two-sided database
        (money), else Janowski on the 0-ply ``probabilities (N, 5)``, movers' view."""
        exact = covers(boards, self.variant.checkers) & self.search.use_bearoff
        kinds, pips = position_kinds(boards), mover_pips(boards)
        out = []
        for i, node in enumerate(nodes):
            if exact[i] and _uses_database(node):
                out.append(self._database_numbers(node, boards[i]))
                continue
            kind = str(kinds[i])
            x = cube_efficiency(kind, float(pips[i]))
            out.append(janowski_numbers(probabilities[i], node, kind, x, self.met))
        return out

    def _database_numbers(self, node: Position, board: np.ndarray) -> CubeNumbers:
        """Exact money ND, DT, DP (and KEEP) of a covered bear-off."""
        nd, dt, dp = two_sided_cube_equities(board, node.cube_owner)
        keep = 2.0 * float(two_sided_cube_equities(board, CUBE_MOVER)[0])
        return CubeNumbers(float(nd), float(dt), float(dp), cube_available(node)[0], keep)


def _uses_database(node: Position) -> bool:
    """A covered bear-off of ``node`` takes the two-sided database's exact cubeful
    money numbers: money play with ``BEAROFF_DB_ROOM`` doublings left."""
    return node.is_money and doubles_left(node.cube_value, node.max_cube) >= BEAROFF_DB_ROOM


def cubeful_decision(
    search: Search,
    position: Position,
    plies: int,
    *,
    met=None,
    cubeful: CubefulSearch | None = None,
) -> CubeDecision:
    """The cube decision of ``position``'s mover (before rolling) at ``plies``.

    The verdict rests on the cubeful search's ND / DT / DP (``CubefulSearch``);
    the probabilities, market window and explanation come from the cubeless
    ``plies`` evaluation, and the explanation ends with the cubeful figures
    beside Janowski's at the root. Variants without the cube: Janowski only.
    """
    board = search.variant.board_in_play(position.board)
    probabilities = search.evaluate(board, plies)
    janowski = cube_decision(probabilities, position, board=board, met=met)
    if not search.variant.cube:
        return janowski
    cubeful = cubeful or CubefulSearch(search, met)
    numbers = cubeful.numbers(position, plies)
    decision = cube_decision(probabilities, position, board=board, met=met, numbers=numbers)
    decision.explanation.append(_search_line(decision, janowski, plies))
    return decision


def _search_line(decision: CubeDecision, janowski: CubeDecision, plies: int) -> str:
    """The explanation's last line: the cubeful figures the verdict rests on."""
    unit = "EMG" if decision.mwc is not None else "equity"

    def figures(d: CubeDecision) -> str:
        return f"ND {d.no_double:+.3f}, DT {d.double_take:+.3f}, DP {d.double_pass:+.3f}"

    how = (
        f"Cubeful {plies}-ply search ({unit}): every roll's best play, the cube decided "
        f"at every node with its owner and value carried down, Janowski at the leaves"
        if plies
        else f"Cubeful 0-ply ({unit}): Janowski's interpolation at the root"
    )
    return (
        f"{how}: {figures(decision)} -> {decision.action}. Janowski on the {plies}-ply "
        f"cubeless probabilities alone: {figures(janowski)} -> {janowski.action}."
    )
