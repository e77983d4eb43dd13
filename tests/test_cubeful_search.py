"""Cubeful n-ply (engine/cube/cubeful_search.py, docs/cube.md section 4).

The 1-ply numbers are checked against their definition computed by hand: the
reference move generator's plays of each of the 21 rolls, the best by cubeless
value, and the opponent's cubeful 0-ply value (``cube_decision``, Janowski,
with his own cube action) after it.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.cube import match_equity as me
from tdgammon.engine.cube import theory
from tdgammon.engine.cube.cubeful_search import CubefulSearch, cubeful_decision
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.evaluation.two_sided_bearoff import two_sided_cube_equities
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.rules.board import board_from_points, flip
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.outputs import N_OUTPUTS, equity, invert
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position


class SmoothEvaluator:
    """Deterministic probabilities that differ from board to board (no ties between plays).

    boards ``(B, 30)`` side-to-move view -> ``(B, 5) float32``, consistent cumulative
    probabilities with gammons on both sides.
    """

    name = "smooth"

    def __init__(self) -> None:
        rng = np.random.default_rng(18)
        self.w = rng.normal(0.0, 0.08, size=(3, 30))

    def evaluate(self, boards):
        b = np.asarray(boards, dtype=np.float64)
        z = b @ self.w.T
        win = 1 / (1 + np.exp(-z[:, 0]))
        gammon_win = 0.4 / (1 + np.exp(-z[:, 1]))
        gammon_loss = 0.4 / (1 + np.exp(-z[:, 2]))
        out = np.empty((len(b), N_OUTPUTS), dtype=np.float32)
        out[:, 0] = win
        out[:, 1] = win * gammon_win
        out[:, 2] = win * gammon_win * 0.05
        out[:, 3] = (1 - win) * gammon_loss
        out[:, 4] = (1 - win) * gammon_loss * 0.05
        return out


@pytest.fixture(scope="module")
def search():
    return Search(SmoothEvaluator())


# A middle game with contact on both sides, and a holding game.
MIDDLE = board_from_points({24: 2, 13: 4, 8: 3, 6: 4, 5: 2}, {24: 1, 13: 5, 8: 2, 6: 5, 4: 2})
HOLDING = board_from_points({20: 2, 8: 3, 6: 5, 5: 3, 4: 2}, {18: 2, 13: 4, 6: 5, 4: 2, 2: 2})


def _after(board, dice):
    """Every legal play's board of ``dice`` (the reference generator), or the board
    itself when the turn passes."""
    plays = legal_plays(board, dice)
    return [p.board_array() for p in plays] or [np.asarray(board, dtype=np.int8)]


def _hand_value(search, position: Position, board) -> float:
    """The mover's cubeful 0-ply value after his cube action, search units
    (money: normalised equity x cube; match: MWC), by ``cube_decision``."""
    p = search.static(board)
    decision = theory.cube_decision(p, position, board=board)
    if position.is_money:
        return decision.cubeful_equity * position.cube_value
    return decision.mwc["cubeful"]


def _hand_rolled(search, position: Position) -> float:
    """1-ply ND by its definition: sum over the 21 rolls of the roll's weight times
    the opponent's cubeful 0-ply value after the mover's best play, turned to the
    mover (money ``-v``, match ``1 - v``), in search units."""
    board = position.board
    total = 0.0
    for dice, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        afters = _after(board, dice)
        mover_view = [invert(search.static(flip(a)).astype(np.float64)) for a in afters]
        if position.is_money:
            scores = [equity(p) for p in mover_view]
        else:
            state = me.MatchState.from_position(position)
            scores = [me.cubeless_mwc(p, state, position.cube_value) for p in mover_view]
        best = afters[int(np.argmax(scores))]
        child = position.with_changes(
            board=flip(best),
            cube_owner={"centre": "centre", "mover": "opponent", "opponent": "mover"}[
                position.cube_owner
            ],
            mover_score=position.opponent_score,
            opponent_score=position.mover_score,
        )
        value = _hand_value(search, child, flip(best))
        total += weight * (-value if position.is_money else 1.0 - value)
    return total


@pytest.mark.parametrize(
    "position",
    [
        Position(board=MIDDLE),
        Position(board=HOLDING, cube_value=2, cube_owner=CUBE_OPPONENT),
        Position(board=MIDDLE, match_length=7, mover_score=4, opponent_score=2),
        Position(
            board=HOLDING,
            match_length=5,
            mover_score=1,
            opponent_score=3,
            cube_value=2,
            cube_owner=CUBE_MOVER,
        ),
    ],  # fmt: skip
    ids=["money-centred", "money-opponent-owns", "match-3a5a", "match-4a2a-cube2"],
)
def test_one_ply_equals_its_definition(search, position):
    numbers = CubefulSearch(search).numbers(position, 1)
    scale = position.cube_value if position.is_money else 1.0
    assert numbers.no_double == pytest.approx(_hand_rolled(search, position) / scale, abs=1e-6)
    doubled = position.with_changes(cube_value=2 * position.cube_value, cube_owner=CUBE_OPPONENT)
    assert numbers.double_take == pytest.approx(_hand_rolled(search, doubled) / scale, abs=1e-6)
    assert numbers.available == theory.cube_available(position)[0]


def test_zero_ply_is_janowski(search):
    position = Position(board=MIDDLE, match_length=7, mover_score=2, opponent_score=5)
    numbers = CubefulSearch(search).numbers(position, 0)
    p = search.static(MIDDLE)
    decision = theory.cube_decision(p, position, board=MIDDLE)
    assert numbers.no_double == pytest.approx(decision.mwc["no_double"])
    assert numbers.double_take == pytest.approx(decision.mwc["double_take"])
    assert numbers.double_pass == pytest.approx(decision.mwc["double_pass"])


def test_covered_bearoff_takes_the_exact_database(search):
    board = board_from_points({6: 2, 3: 1, 1: 2}, {5: 2, 4: 1, 2: 1})
    for plies in (0, 2):
        for owner in (CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT):
            cube = 1 if owner == CUBE_CENTRED else 2
            position = Position(board=board, cube_value=cube, cube_owner=owner)
            numbers = CubefulSearch(search).numbers(position, plies)
            exact = two_sided_cube_equities(board, owner)
            assert (numbers.no_double, numbers.double_take) == pytest.approx(tuple(exact[:2]))


def test_dead_cube_search_is_cubeless(search):
    """2-away/2-away with the cube on 2: a win at the cube takes the match for
    either side, so nobody may double (can_double) and every node is worth its
    dead-cube MWC from the match equity table."""
    position = Position(
        board=MIDDLE,
        match_length=5,
        mover_score=3,
        opponent_score=3,
        cube_value=2,
        cube_owner=CUBE_OPPONENT,
    )
    assert not theory.cube_available(position)[0]
    state = me.MatchState.from_position(position)
    numbers = CubefulSearch(search).numbers(position, 1)
    total = 0.0
    for dice, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        values = [
            me.cubeless_mwc(invert(search.static(flip(a)).astype(np.float64)), state, 2)
            for a in _after(MIDDLE, dice)
        ]
        total += weight * max(values)
    assert numbers.no_double == pytest.approx(total, abs=1e-6)
    assert me.outcome_mwcs(state, 2)[0, 0] == 1.0  # a single win at the cube wins the match


def test_crawford_game_has_no_cube_anywhere(search):
    position = Position(
        board=MIDDLE, match_length=5, mover_score=2, opponent_score=4, crawford=True
    )
    numbers = CubefulSearch(search).numbers(position, 1)
    assert not numbers.available
    p = search.evaluate(MIDDLE, 1)
    decision = cubeful_decision(search, position, 1)
    assert decision.action == "No cube action" and "Crawford" in decision.reason
    # no cube on either side: ND is the dead-cube MWC averaged like the definition
    assert numbers.no_double == pytest.approx(numbers.value)
    assert 0.0 < numbers.no_double < 1.0 and p.shape == (5,)


def test_post_crawford_trailer_doubles_at_once_and_leader_may_drop_free(search):
    """Post-Crawford, trailer 2-away, leader 1-away: the leader never doubles;
    the trailer's double makes the game for the match, so DT (MWC) is his
    chance of winning the game, and DP is the MET's 1-away/1-away, 50%."""
    trailer = Position(board=HOLDING, match_length=5, mover_score=3, opponent_score=4)
    leader = trailer.with_changes(mover_score=4, opponent_score=3)
    assert not theory.cube_available(leader)[0]
    assert "leader" in theory.cube_available(leader)[1]
    numbers = CubefulSearch(search).numbers(trailer, 1)
    assert numbers.double_pass == pytest.approx(me.mwc(1, 1, post_crawford=True))
    win = 0.0
    for dice, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        mover_view = [
            invert(search.static(flip(a)).astype(np.float64)) for a in _after(HOLDING, dice)
        ]
        win += weight * max(p[0] for p in mover_view)
    assert numbers.double_take == pytest.approx(win, abs=1e-6)
    assert numbers.double_take >= numbers.no_double  # double at once
    decision = cubeful_decision(search, trailer, 1)
    assert decision.double
    # the leader takes only with more than the free drop's 50% left
    answer = "pass" if numbers.double_take >= numbers.double_pass else "take"
    assert decision.action == f"Double, {answer}"


def test_decision_reports_cubeful_figures(search):
    position = Position(board=MIDDLE)
    decision = cubeful_decision(search, position, 1)
    numbers = CubefulSearch(search).numbers(position, 1)
    assert decision.no_double == pytest.approx(numbers.no_double)
    assert decision.double_take == pytest.approx(numbers.double_take)
    assert decision.cubeful_equity == pytest.approx(numbers.value)
    assert decision.explanation[0].startswith("25% theory")
    assert decision.explanation[-1].startswith("Cubeful 1-ply search")


def test_a_match_bearoff_is_searched_not_janowski_at_the_root(search):
    """A covered bear-off in match play: the database knows its cubeless chances,
    not the cube's worth at the score, so it is searched. Here the mover (6-away,
    opponent 5-away) has 3 checkers on his ace point, the opponent 2 on his
    3-point: the mover wins at once with a double (6/36), else the opponent
    bears off with 17/36 (both dice 3 or more, or 2-2) and otherwise loses.
    Nobody redoubles a last roll he is less than even in, so 2-ply is exact:
    ND and DT are the dead-cube MWCs of those chances at cubes 1 and 2, and the
    double is right (Janowski's 0-ply guess, with a 0.6 cube efficiency, holds)."""
    board = board_from_points({1: 3}, {3: 2})
    position = Position(board=board, match_length=7, mover_score=1, opponent_score=2)
    state = me.MatchState.from_position(position)
    win = 6 / 36 + 30 / 36 * 19 / 36
    numbers = CubefulSearch(search).numbers(position, 2)
    for cube, value in ((1, numbers.no_double), (2, numbers.double_take)):
        out = me.outcome_mwcs(state, cube)
        assert value == pytest.approx(win * out[0, 0] + (1 - win) * out[1, 0], abs=1e-6)
    assert theory.proper_double(numbers.no_double, numbers.double_take, numbers.double_pass)
    janowski = CubefulSearch(search).numbers(position, 0)
    assert not theory.proper_double(janowski.no_double, janowski.double_take, janowski.double_pass)
