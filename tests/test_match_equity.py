"""Match equity table, MWC conversions, take points and cube access (docs/cube.md section 2)."""

from __future__ import annotations

import pytest

from tdgammon.engine.cube import match_equity as me


def test_table_shapes_and_symmetry():
    met = me.load_met()
    assert met.max_away == 25 and met.post_crawford.shape == (25,)
    for a in range(1, 10):
        for b in range(1, 10):
            assert me.mwc(a, b) + me.mwc(b, a) == pytest.approx(1.0, abs=1e-9)


def test_reaching_the_match_length_is_certain():
    assert me.mwc(0, 3) == 1.0 and me.mwc(-2, 3) == 1.0 and me.mwc(3, 0) == 0.0


def test_crawford_and_post_crawford_rows():
    assert me.mwc(1, 2) == pytest.approx(0.67736)  # Crawford game, pre-Crawford row 0
    assert me.mwc(2, 1, post_crawford=True) == pytest.approx(0.48803)  # trailer 2-away
    assert me.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)


def test_outcomes_use_post_crawford_after_a_crawford_game():
    state = me.MatchState(1, 3, crawford=True)
    out = me.outcome_mwcs(state, 1)
    assert out[0].tolist() == [1.0, 1.0, 1.0]
    assert out[1, 0] == pytest.approx(1 - me.load_met().post_crawford[1])


def test_equity_mwc_round_trip_and_cubeless_mwc():
    state = me.MatchState(5, 3)
    for equity in (-1.0, -0.3, 0.0, 0.7, 1.0):
        value = me.equity_to_mwc(equity, state, 2)
        assert me.mwc_to_equity(value, state, 2) == pytest.approx(equity)
    assert me.equity_to_mwc(1.0, state, 1) == pytest.approx(me.mwc(4, 3))
    assert me.cubeless_mwc([0.5, 0, 0, 0, 0], me.MatchState(3, 3)) == pytest.approx(0.5)


def test_gammon_values():
    gv_win, gv_lose = me.gammon_values(me.MatchState(3, 3))
    assert gv_win == pytest.approx(gv_lose) and 0.5 < gv_win < 1.0
    # Post-Crawford leader: a single win already takes the match.
    assert me.gammon_values(me.MatchState(1, 4))[0] == 0.0


def test_take_point_2_away_2_away_is_dead():
    """2-away/2-away: the taker's win with the 2-cube wins the match: 32.3% dead = live."""
    tp = me.take_points(me.MatchState(2, 2))
    assert tp["opponent_dead"] == pytest.approx(0.32264)
    assert tp["opponent_live"] == pytest.approx(0.32264)


def test_take_point_3_away_3_away():
    """docs/cube.md: 3-away/3-away dead 30.17% x 75.08% = 22.65% live."""
    tp = me.take_points(me.MatchState(3, 3))
    assert tp["opponent_dead"] == pytest.approx(0.3017, abs=5e-5)
    assert tp["opponent_live"] == pytest.approx(0.3017 * 0.7508, abs=5e-5)
    assert tp["opponent_live"] == pytest.approx(0.2265, abs=5e-5)


def test_take_point_4_away_4_away():
    """Published: dead (43 - 33)/(67 - 33) = 29%, fully live 29% x 67% = 19% (an
    article by MCG quoted by Bill Calton on bgonline.org, "Will the real takepoint
    please stand up?", https://www.bgonline.org/forums/webbbs_config.pl?noframes;read=167622).
    From the Kazaross-XG2 table: (42.85 - 33.13)/(66.87 - 33.13) = 28.81% and
    28.81% x 66.87% = 19.26%."""
    tp = me.take_points(me.MatchState(4, 4))
    assert tp["opponent_dead"] == pytest.approx(0.2881, abs=1e-4)
    assert tp["opponent_live"] == pytest.approx(0.1926, abs=1e-4)
    assert round(tp["opponent_dead"], 2) == 0.29 and round(tp["opponent_live"], 2) == 0.19


def test_gammons_raise_the_take_point():
    base = me.dead_take_point(5, 5, 1, False)
    with_gammons = me.dead_take_point(5, 5, 1, False, None, [1, 0, 0], [0.7, 0.3, 0])
    assert with_gammons > base


def test_cube_availability():
    assert not me.can_double(me.MatchState(3, 1, crawford=True), 1)[0]
    leader, trailer = me.MatchState(1, 4), me.MatchState(4, 1)
    assert not me.can_double(leader, 1)[0]
    assert "leader" in me.can_double(leader, 1)[1]
    assert me.can_double(trailer, 1)[0]
    assert not me.can_double(me.MatchState(2, 5), 2)[0]  # the 2-cube already wins the match
    assert not me.can_double(me.MatchState(5, 5), 1, owns_or_centred=False)[0]
    assert not me.can_double(me.MatchState(9, 9, max_cube=4), 4)[0]


def test_free_drop():
    assert me.free_drop(me.MatchState(2, 1)) == pytest.approx(0.5 - 0.48803)
    assert me.free_drop(me.MatchState(1, 4)) == pytest.approx(0.32264 - 0.31002)
    assert me.free_drop(me.MatchState(3, 1)) is None  # odd: no free drop
    assert me.free_drop(me.MatchState(4, 4)) is None  # not post-Crawford


def test_scores_beyond_the_table_are_rejected():
    with pytest.raises(me.RuleError):
        me.mwc(26, 3)
