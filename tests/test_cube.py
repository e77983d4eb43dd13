"""Money and match cube decisions (docs/cube.md sections 1 and 3)."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.cube import match_equity as me
from tdgammon.engine.cube import theory as cube
from tdgammon.engine.rules.board import board_from_points, starting_board
from tdgammon.engine.rules.position import Position

GAMMONLESS = [0.5, 0, 0, 0, 0]


def money(owner="centre", value=None, **kw):
    return Position(cube_owner=owner, cube_value=value or (1 if owner == "centre" else 2), **kw)


def match(away, opponent_away, length=7, **kw):
    return Position(
        match_length=length,
        mover_score=length - away,
        opponent_score=length - opponent_away,
        **kw,
    )


def decide(probs, position=None, **kw):
    return cube.cube_decision(probs, position or money(), kind=kw.pop("kind", "contact"), **kw)


# ---------------------------------------------------------------- take points


def test_25_percent_theory():
    """No gammons, dead cube: take 2 x (1 win in 4) - 2 x 3 = -4 = pass 4 x -1."""
    assert cube.take_point_money(1.0, 1.0, 0.0) == pytest.approx(0.25)
    # With x = 0 the doubler at 75% is exactly at the taker's take point: DT = DP.
    d = decide([0.75, 0, 0, 0, 0], efficiency=0.0)
    assert d.double_take == pytest.approx(d.double_pass) == pytest.approx(1.0)
    assert d.window["take"]["dead"] == pytest.approx(0.25)


def test_gammon_adjusted_dead_take_point():
    """(L - 1/2)/(W + L) with the taker's W, L; W = L = 1.25 gives 30%."""
    assert cube.take_point_money(1.25, 1.25, 0.0) == pytest.approx(0.30)
    assert cube.take_point_money(1.0, 1.5, 0.0) == pytest.approx(1.0 / 2.5)
    w, big_l = cube.average_win_loss([0.6, 0.15, 0.0, 0.1, 0.0])
    assert w == pytest.approx(1.25) and big_l == pytest.approx(1.25)


def test_janowski_live_take_points():
    """No gammons: 25% dead, 20% live, 21.4% at x = 0.68; W = L = 1.25: 30/25/26.4%."""
    assert cube.take_point_money(1, 1, 1.0) == pytest.approx(0.20)
    assert cube.take_point_money(1, 1, 0.68) == pytest.approx(0.2137, abs=1e-4)
    assert cube.take_point_money(1.25, 1.25, 1.0) == pytest.approx(0.25)
    assert cube.take_point_money(1.25, 1.25, 0.68) == pytest.approx(0.264, abs=1e-3)


def test_numeric_window_agrees_with_the_formulas():
    """DT = DP of the interpolated curves sits exactly at Janowski's take point."""
    probs = [0.6, 0.15, 0.0, 0.1, 0.0]  # W = L = 1.25
    d = decide(probs)
    curves, _ = cube._money_curves(probs, "centre", 0.68, False, 10)
    numeric = cube._window(curves, 0.68)
    for label in ("dead", "live", "used"):
        assert numeric["take"][label] == pytest.approx(d.window["take"][label], abs=1e-6)
    assert d.window["take"]["used"] == pytest.approx(0.2641, abs=1e-4)
    owned, _ = cube._money_curves(probs, "mover", 0.68, False, 10)
    redouble = cube._window(owned, 0.68)["double"]["used"]
    assert redouble == pytest.approx(cube.redouble_point_money(1.25, 1.25, 0.68), abs=1e-6)


def test_cube_efficiency():
    assert cube.cube_efficiency("contact") == 0.68
    assert cube.cube_efficiency("bearoff") == 0.6
    assert cube.cube_efficiency("race", 40) == pytest.approx(0.60)
    assert cube.cube_efficiency("race", 100) == pytest.approx(0.675)
    assert cube.cube_efficiency("race", 200) == 0.70
    assert cube.position_kind(starting_board()) == "contact"
    assert cube.position_kind(board_from_points({6: 5, 8: 2}, {6: 5})) == "race"
    assert cube.position_kind(board_from_points({6: 5}, {6: 5})) == "bearoff"
    d = cube.cube_decision(GAMMONLESS, Position(board=board_from_points({6: 5}, {6: 5})))
    assert d.kind == "bearoff" and d.cube_efficiency == 0.6


def test_jacoby_counts_no_gammons_with_a_centred_cube():
    probs = [0.6, 0.3, 0.0, 0.1, 0.0]
    assert decide(probs, money(jacoby=True)).cubeless_equity == pytest.approx(0.2)
    assert decide(probs, money()).cubeless_equity == pytest.approx(0.4)
    assert decide(probs, money("mover", jacoby=True)).cubeless_equity == pytest.approx(0.4)


# ------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    "probs, position, action",
    [
        ([0.5, 0, 0, 0, 0], money(), "No double, take"),
        ([0.2, 0, 0, 0, 0], money(beavers=True), "No double, beaver"),
        ([0.7, 0, 0, 0, 0], money(), "Double, take"),
        ([0.85, 0, 0, 0, 0], money(), "Double, pass"),
        ([0.8, 0.5, 0.02, 0.02, 0], money(), "Too good to double, pass"),
        ([0.5, 0, 0, 0, 0], money("mover"), "No redouble, take"),
        ([0.3, 0, 0, 0, 0], money("mover", beavers=True), "No redouble, beaver"),
        # DT = -2.76 < -2: the doubler would refuse a beaver (losing 2), so the
        # taker takes (worth 2.76 to him); see test_beaver_answers_clause_by_clause
        ([0.1, 0.03, 0, 0.5, 0.04], money("mover", beavers=True), "No redouble, take"),
        ([0.75, 0, 0, 0, 0], money("mover"), "Redouble, take"),
        ([0.9, 0, 0, 0, 0], money("mover"), "Redouble, pass"),
        ([0.96, 0.28, 0.01, 0.03, 0], money("mover"), "Too good to redouble, pass"),
        ([0.9, 0, 0, 0, 0], money("opponent"), "No cube action"),
        ([0.9, 0, 0, 0, 0], money("mover", value=64, max_cube=64), "No cube action"),
    ],
)
def test_money_verdicts(probs, position, action):
    assert decide(probs, position).action == action


def test_too_good_needs_gammons():
    """Without gammons a hopeless position for the taker is double/pass, never too good."""
    for win in (0.9, 0.99, 1.0):
        assert decide([win, 0, 0, 0, 0]).action == "Double, pass"


def test_phrases_the_money_model_does_not_reach():
    """ND > DP >= DT (too good, take) and a beaverable double come from action_phrase."""
    assert cube.action_phrase(1.2, 0.9, 1.0, False, False) == "Too good to double, take"
    assert cube.action_phrase(-0.5, -0.2, 1.0, False, True) == "Double, beaver"
    assert cube.action_phrase(-0.5, -0.2, 1.0, True, False) == "Redouble, take"


# ---------------------------------------------------------------- beavers and raccoons
#
# docs/rules.md 5: after a beaver the doubler refuses (loses 2 on a cube of 1),
# accepts (4, the beaverer's cube) or raccoons (8, his cube, if the beaverer
# accepts; 4 to him if refused). In units of the beaverer's stake (2):
#
#   refuse   -1
#   accept   DT                    (the beaverer owns the cube at twice that stake)
#   raccoon  min(+2, 2 x KEEP)     (KEEP: 2 x the equity owning the doubled cube)


def test_beaver_answers_clause_by_clause():
    # accept while accepting loses less than the refused stake
    assert cube.beaver_reply(-0.8) == (cube.TAKE, -0.8)
    # refuse: accepting would lose more than the stake of the first double (a tie refuses)
    assert cube.beaver_reply(-1.3) == (cube.DROP, -1.0)
    assert cube.beaver_reply(-1.0) == (cube.DROP, -1.0)
    # raccoon only with raccoons allowed and only when strictly best
    assert cube.beaver_reply(-0.8, keep=0.1, raccoon=False) == (cube.TAKE, -0.8)
    assert cube.beaver_reply(-0.8, keep=0.1, raccoon=True) == (cube.RACCOON, pytest.approx(0.2))
    assert cube.beaver_reply(0.5, keep=1.5, raccoon=True) == (cube.RACCOON, 2.0)  # refused: +2
    assert cube.beaver_reply(-0.8, keep=-0.6, raccoon=True) == (cube.TAKE, -0.8)
    # the beaverer's answer to a raccoon, in units of the raccooned stake
    assert cube.raccoon_answer(0.9) == cube.TAKE and cube.raccoon_answer(1.0) == cube.DROP


def test_the_taker_beavers_only_when_the_doublers_best_reply_is_worse_than_the_take():
    # without raccoons: -2 < DT < 0
    assert cube.proper_answer(-0.5, 1.0, beaver=True) == cube.BEAVER
    assert cube.proper_answer(-1.9, 1.0, beaver=True) == cube.BEAVER
    assert cube.proper_answer(-2.0, 1.0, beaver=True) == cube.TAKE  # refused: the same 2
    assert cube.proper_answer(-2.7, 1.0, beaver=True) == cube.TAKE  # refused: only 2
    assert cube.proper_answer(0.1, 1.0, beaver=True) == cube.TAKE
    assert cube.proper_answer(-0.5, 1.0, beaver=False) == cube.TAKE
    assert cube.proper_answer(1.0, 1.0, beaver=True) == cube.DROP
    # a raccoon worth more to the doubler than the take spoils the beaver
    assert cube.proper_answer(-0.8, 1.0, True, keep=-0.128, raccoon=True) == cube.TAKE
    assert cube.proper_answer(-0.8, 1.0, True, keep=-0.128, raccoon=False) == cube.BEAVER
    assert cube.proper_answer(-1.3, 1.0, True, keep=-0.6, raccoon=True) == cube.BEAVER


def test_keep_is_twice_the_equity_owning_the_cube():
    # gammonless pW 0.4, contact (x = 0.68): dead -0.2; live owned (0, -1)..(CPl 0.8, +1)
    # gives 0; KEEP = 2 x (0.32 x -0.2 + 0.68 x 0) = -0.128
    d = decide([0.4, 0, 0, 0, 0], money(beavers=True, raccoons=True))
    assert d.double_keep == pytest.approx(-0.128)
    assert d.double_take == pytest.approx(-0.808)
    assert d.action == "No double, take"  # a raccoon (-0.256 x 2) beats the take (-0.808)
    assert decide([0.4, 0, 0, 0, 0], money(beavers=True)).action == "No double, beaver"
    # at a beaver stage the cube is the beaverer's: no cube action, the numbers are there
    stage = money("opponent", value=2, double_offered=True, beaver_stage=1, beavers=True)
    d1 = decide([0.4, 0, 0, 0, 0], stage)
    assert d1.action == "No cube action"
    assert d1.double_take == pytest.approx(-0.808) and d1.double_keep == pytest.approx(-0.128)
    assert decide([0.4, 0, 0, 0, 0], match(3, 3)).double_keep is None


def test_differences_and_json():
    d = decide([0.7, 0, 0, 0, 0])
    assert d.differences["double_take"] == pytest.approx(0.0)
    assert d.differences["no_double"] < 0 < d.differences["double_pass"]
    assert d.cubeful_equity == pytest.approx(d.double_take)
    js = d.to_json()
    for key in ("action", "no_double", "double_take", "double_pass", "take_point", "cash_point"):
        assert key in js
    assert js["probabilities"]["win"] == pytest.approx(0.7)
    assert len(d.explanation) >= 4 and "25%" in d.explanation[0]


def test_cubeful_equity_ordering_by_owner():
    """Owning the cube is worth more than a centred cube, which beats the opponent's."""
    probs = [0.6, 0.1, 0, 0.05, 0]
    own, centred, theirs = (
        decide(probs, money(o)).no_double for o in ("mover", "centre", "opponent")
    )
    assert own > centred > theirs


# ---------------------------------------------------------------------- match


def test_match_2_away_2_away_take_point_is_dead_gammonless():
    d = decide([0.6, 0, 0, 0, 0], match(2, 2))
    assert d.take_point == pytest.approx(0.32264, abs=1e-3)
    assert d.window["take"]["dead"] == pytest.approx(d.window["take"]["live"])


def test_match_3_away_3_away_uses_the_live_take_point():
    d = decide([0.7, 0, 0, 0, 0], match(3, 3))
    assert d.window["take"]["dead"] == pytest.approx(0.3017, abs=1e-4)
    assert d.window["take"]["live"] == pytest.approx(0.2265, abs=1e-4)
    assert 0.2265 < d.take_point < 0.3017
    assert d.action == "Double, take"
    assert d.mwc["double_pass"] == pytest.approx(0.59947)


def test_match_verdicts():
    assert decide([0.5, 0.1, 0, 0.1, 0], match(3, 3)).action == "No double, take"
    assert decide([0.8, 0.1, 0, 0.02, 0], match(3, 3)).action == "Double, pass"
    assert decide([0.85, 0.6, 0.1, 0.0, 0], match(5, 5)).action == "Too good to double, pass"


def test_crawford_game_has_no_cube():
    d = decide([0.3, 0, 0, 0, 0], match(3, 1, crawford=True))
    assert d.action == "No cube action" and "Crawford" in d.reason
    assert d.take_point is None


def test_post_crawford_trailer_doubles_leader_cannot():
    assert decide([0.5, 0.1, 0, 0.1, 0], match(3, 1)).action == "Double, take"
    assert decide([0.45, 0.05, 0, 0.1, 0], match(4, 1)).action.startswith("Double")
    leader = decide([0.6, 0.1, 0, 0.1, 0], match(1, 3))
    assert leader.action == "No cube action" and "leader" in leader.reason
    free = decide([0.5, 0, 0, 0, 0], match(2, 1))
    assert any("Free drop" in line for line in free.explanation)


def test_dead_cube_for_the_doubler_who_already_wins_the_match():
    d = decide([0.7, 0, 0, 0, 0], match(2, 5, cube_value=2, cube_owner="mover"))
    assert d.action == "No cube action" and "dead" in d.reason


def test_match_emg_matches_mwc():
    d = decide([0.6, 0.2, 0.01, 0.1, 0.0], match(5, 4))
    assert d.double_pass == pytest.approx(1.0)
    assert np.isfinite([d.no_double, d.double_take, d.cubeless_equity]).all()
    # each EMG is its MWC rescaled by the table at this score (cube 1):
    # E = 2 (MWC - MWC(lose 1)) / (MWC(win 1) - MWC(lose 1)) - 1
    win_1, lose_1 = me.mwc(4, 4), me.mwc(5, 3)
    for emg, mwc in (
        (d.no_double, d.mwc["no_double"]),
        (d.double_take, d.mwc["double_take"]),
        (d.double_pass, d.mwc["double_pass"]),
        (d.cubeless_equity, d.mwc["cubeless"]),
        (d.cubeful_equity, d.mwc["cubeful"]),
    ):
        assert emg == pytest.approx(2 * (mwc - lose_1) / (win_1 - lose_1) - 1, abs=1e-9)
    # a pass gives the doubler one point: 5-away becomes 4-away
    assert d.mwc["double_pass"] == pytest.approx(me.mwc(4, 4))
    # cubeless: the outcome probabilities times the MWC after each outcome, by hand
    # (single win 0.4, gammon 0.19, backgammon 0.01; single loss 0.3, gammon 0.1)
    cubeless = (
        0.40 * me.mwc(4, 4)
        + 0.19 * me.mwc(3, 4)
        + 0.01 * me.mwc(2, 4)
        + 0.30 * me.mwc(5, 3)
        + 0.10 * me.mwc(5, 2)
    )
    assert d.mwc["cubeless"] == pytest.approx(cubeless, abs=1e-9)
    js = d.to_json()
    assert js["mwc"] == d.mwc and js["double_pass"] == d.double_pass


# ---------------------------------------------------------------- a dead cube


@pytest.mark.parametrize(
    "position",
    [
        money(value=1, max_cube=1),  # XGID max-cube field 0: nobody may ever double
        money("mover", value=4, max_cube=4),  # the roller owns a cube at the limit
        money("opponent", value=4, max_cube=4),  # the opponent does
        money(value=1, max_cube=1, jacoby=True),  # Jacoby: the cube can never be turned
    ],
)
def test_a_cube_at_its_limit_is_dead_cubeful_equals_cubeless(position):
    """docs/rules.md 5, "Cube limit": at the limit nobody may double, so no side's
    cube has any value: the cubeful equity is the cubeless one, and no double."""
    probs = [0.75, 0.1, 0.0, 0.05, 0.0]
    d = decide(probs, position)
    assert d.cubeful_equity == pytest.approx(d.cubeless_equity)
    assert d.no_double == pytest.approx(d.cubeless_equity)
    assert d.action == "No cube action" and not d.double and not d.cube_available
    assert d.differences["no_double"] == pytest.approx(0.0)


def test_one_double_left_leaves_the_taker_no_redouble():
    """A double to the limit: the taker's cube is dead, so DT is twice the cubeless
    equity, and the doubler's own cube is live until then (ND above cubeless)."""
    probs = [0.7, 0, 0, 0, 0]
    d = decide(probs, money(value=1, max_cube=2))
    assert d.double_take == pytest.approx(2 * d.cubeless_equity)
    assert d.no_double > d.cubeless_equity
    live = decide(probs, money(value=1, max_cube=1024))
    assert live.double_take < d.double_take  # the taker's redoubles are worth something


def test_a_dead_match_cube_is_cubeless():
    """Match play: the roller's cube already wins him the match and it is his
    (nobody can double any more): cubeful equals cubeless, no double."""
    d = decide([0.7, 0.1, 0, 0.05, 0], match(2, 5, cube_value=2, cube_owner="mover"))
    assert d.cubeful_equity == pytest.approx(d.cubeless_equity)
    assert d.mwc["cubeful"] == pytest.approx(d.mwc["cubeless"])
    limit = decide([0.7, 0.1, 0, 0.05, 0], match(5, 5, max_cube=1))
    assert limit.cubeful_equity == pytest.approx(limit.cubeless_equity)
    assert limit.action == "No cube action" and "limit" in limit.reason


def test_doubles_left():
    assert cube.doubles_left(1, 1) == 0
    assert cube.doubles_left(1, 2) == 1
    assert cube.doubles_left(4, 4) == 0
    assert cube.doubles_left(2, 1024) == 9


def test_cube_command_at_the_cube_limit(capsys):
    """The review's case: XGID max-cube field 0 (limit 1), a bear-off at 75%."""
    import json

    from cli_runner import run

    xgid = "XGID=------A-----------------a-:0:0:1:00:0:0:0:0:0"
    status, out, _ = run(capsys, "cube", xgid, "--plies", "0", "--json")
    report = json.loads(out)
    assert status == 0 and report["action"] == "No cube action"
    assert report["cubeful_equity"] == pytest.approx(report["cubeless_equity"])
    assert any("cube limit (1)" in line for line in report["explanation"])
