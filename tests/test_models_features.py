"""Expert features (tdgammon.models.features): hand-worked positions, brute force, symmetry.

Positions are written as ``board_from_points(mover, opponent)``, each side in its
own numbering (point p = pips it needs from there, 25 = bar, checkers not
placed are borne off). The mover moves 24 -> 1; the opponent's point k is the
mover's 25 - k, and its checkers move up the mover's numbering. In the
comments "m11" is the mover's 11-point and "o20" the opponent's 20-point.
"""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.movegen.reference import apply_move, legal_plays, single_die_moves
from tdgammon.engine.rules.board import (
    OPPONENT_BAR,
    board_from_points,
    flip,
    has_contact,
    starting_board,
)
from tdgammon.models import features
from tdgammon.models.encoding import (
    ENCODINGS,
    EXPERT_SIZE,
    RAW_SIZE,
    expert_encoding,
    raw_encoding,
)
from tdgammon.models.features import (
    FEATURE_NAMES,
    FEATURE_RANGES,
    FEATURE_SIZE,
    SIDE_FEATURES,
    SIDE_SIZE,
    expert_features,
)
from tdgammon.models.network import PRESETS, build_network

P1, P2, LOSS = (SIDE_FEATURES.index(n) for n in ("p1", "p2", "pip_loss"))


def feats(mover, opponent=None, who: str = "mover") -> dict[str, float]:
    """The features of one side (``mover`` or ``opponent``) of one position, by name:
    ``feats(mover_points, opponent_points)`` or ``feats(board)``."""
    board = mover if opponent is None else board_from_points(mover, opponent)
    row = expert_features(board[None, :])[0]
    named = dict(zip(FEATURE_NAMES, row.tolist(), strict=True))
    out = {name: named[f"{who}_{name}"] for name in SIDE_FEATURES}
    out.update(contact=named["contact"], race_lead=named["race_lead"])
    return out


def check(got: dict, **expected) -> None:
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, abs=1e-6), name


# ----------------------------------------------------------------- layout


def test_sizes_names_and_the_expert_encoding():
    assert SIDE_SIZE == 27 and FEATURE_SIZE == 56 == len(FEATURE_NAMES)
    assert EXPERT_SIZE == RAW_SIZE + FEATURE_SIZE == 254
    assert set(FEATURE_RANGES) == set(SIDE_FEATURES) | {"contact", "race_lead"}
    assert ENCODINGS["expert"].size == EXPERT_SIZE and ENCODINGS["expert"].version == 1
    boards, _ = random_game_positions(500, np.random.default_rng(1))
    x = ENCODINGS["expert"].encode(boards)
    assert x.shape == (500, EXPERT_SIZE) and x.dtype == np.float32
    np.testing.assert_array_equal(x[:, :RAW_SIZE], raw_encoding(boards))  # raw first
    np.testing.assert_array_equal(x[:, RAW_SIZE:], expert_features(boards))
    np.testing.assert_array_equal(expert_encoding(boards[3]), x[3:4])  # one board


def test_expert128_preset():
    preset = PRESETS["expert128"]
    assert (preset.encoding, preset.hidden) == ("expert", (128,))
    network = build_network(preset, seed=1)
    assert network.body[0].in_features == EXPERT_SIZE


def test_chunks_do_not_change_the_result(monkeypatch):
    boards, _ = random_game_positions(700, np.random.default_rng(2))
    whole = expert_features(boards)
    monkeypatch.setattr(features, "_CHUNK", 128)
    np.testing.assert_array_equal(expert_features(boards), whole)
    one_by_one = np.concatenate([expert_features(boards[i : i + 1]) for i in range(0, 700, 23)])
    np.testing.assert_array_equal(one_by_one, whole[::23])  # a row never depends on the others


# ----------------------------------------------------------------- hand-worked positions


def test_race_and_structure_features():
    #  mover: m24 x1, m14 x2, m5 x3, m2 x2 (7 off)     opponent: o18 x2 (= m7), o10 x3 (= m15)
    mover = feats({24: 1, 14: 2, 5: 3, 2: 2}, {18: 2, 10: 3})
    opp = feats({24: 1, 14: 2, 5: 3, 2: 2}, {18: 2, 10: 3}, "opponent")
    # pips 24 + 28 + 15 + 4 = 71; opponent 36 + 30 = 66
    check(mover, pips=71 / 200, race_lead=(66 - 71) / 100, contact=1)
    check(opp, pips=66 / 200)
    # opponent's rearmost checker is on m7 (q = 7): m24 needs 24-7+1 = 18, m14 x2 8 each
    check(mover, break_contact=34 / 167, free_pips=(15 + 4) / 167)
    # the mover's rearmost is on o1 (q = 1): o18 x2 18 each, o10 x3 10 each; none past it
    check(opp, break_contact=66 / 167, free_pips=0)
    check(mover, rear_checker=24 / 25, rear_anchor=14 / 24, longest_prime=1 / 6)
    check(opp, rear_checker=18 / 25, rear_anchor=18 / 24)
    # no anchor in the other home board: the most advanced outer one, m14 = o11 / o18 = m7
    check(mover, forward_anchor=11 / 12)
    check(opp, forward_anchor=7 / 12)
    check(mover, home_points=2 / 6, bar=0, off1=1, off2=2 / 5, off3=0)
    check(opp, off1=1, off2=1, off3=0)  # 10 off
    # timing: the m24 blot travels 23 pips, the spare on m5 4; made points keep two
    check(mover, timing=27 / 167, backgame=0, backgame1=0)
    # escapes of m24: the opponent holds m15 (9 pips ahead; m7 is 17 ahead, off the window).
    #   full roll: all but 6-3, 5-4 (sum 9) and 3-3 (lands on 9): 36 - 4 - 1 = 31
    #   past m15: 6-4, 6-5 (4 rolls), 4-4, 5-5, 6-6; not 3-3 (lands on 9), 2-2 (8 pips)
    check(mover, escapes=31 / 36, escapes_past=7 / 36)


def test_race_flags():
    race = feats({6: 5, 5: 5}, {6: 5, 1: 2})  # opponent's o1 is m24: nothing to pass
    check(race, contact=0, break_contact=0, free_pips=(30 + 25) / 167)


def test_the_starting_position():
    s = feats(starting_board())  # 2 on 24, 5 on 13, 3 on 8, 5 on 6 each
    check(s, pips=167 / 200, break_contact=1, free_pips=0, p1=0, p2=0, pip_loss=0)
    check(s, rear_checker=24 / 25, rear_anchor=1, forward_anchor=1 / 12, contact=1, race_lead=0)
    # m24 faces the opponent's points 5, 7 and 12 pips ahead. Full roll: 6-5 via 6,
    # 5-3 via 3, 5-1 via 1 ... = 10 non-doubles (20) + 1-1, 2-2: 22. Past m12: nothing.
    check(s, escapes=22 / 36, escapes_past=0)
    # mobility: 2 x 18 x 22/36 (m24) + 5 x 7 x 32/36 (m13: the opponent's points 1 and 12
    # ahead; all non-doubles and 2-2, 5-5 play) + 3 x 2 x 30/36 (m8: o24 7 ahead)
    check(s, mobility=(22 + 35 * 32 / 36 + 5) / 100)
    # timing: spares 3 on m13 (12 pips each), 1 on m8 (7), 3 on m6 (5)
    check(s, timing=(36 + 7 + 15) / 167, home_points=1 / 6, longest_prime=1 / 6)
    check(s, backgame=0, backgame1=2 / 8, enter=0, enter2=1 - (5 / 6) ** 2)


def test_escapes_against_one_point():
    # m24 alone; the opponent holds only o7 = m18, 6 pips ahead.
    #   full roll fails on 5-1, 4-2 (sum 6) and 2-2, 3-3, 6-6 (land on 6): 36 - 4 - 3 = 29
    #   past it: the 9 non-doubles summing 7+ (18 rolls), 4-4, 5-5: 20
    f = feats({24: 1, 6: 14}, {7: 2})
    check(f, escapes=29 / 36, escapes_past=20 / 36, mobility=18 * 29 / 36 / 100)


def test_containment():
    # mover holds only m7. An opponent checker placed on m0 (its bar) .. m9 faces it
    # k = 7 - s pips ahead (s = 0..6; none from m7 on); full-roll escapes, one point k ahead:
    #   k=1 35, k=2 34, k=3 32, k=4 31, k=5 31, k=6 29 (5-1, 4-2, 2-2, 3-3, 6-6), k=7 30.
    f = feats({7: 2}, {22: 1})  # opponent's rearmost on o22 = m3
    check(f, contain=7 / 36, contain2=(7 / 36) ** 2)
    check(f, acontain=5 / 36, acontain2=(5 / 36) ** 2)  # from m3 on: k = 4 at worst
    f = feats({7: 2}, {15: 1})  # rearmost on m10: nothing of it is behind m9
    check(f, contain=7 / 36, acontain=0, acontain2=0)
    check(feats({7: 2}, {15: 1}, "opponent"), contain=0)  # it holds no point
    # a full prime m4..m9 against a checker on m1: no roll plays
    check(feats({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2}, {24: 1}), contain=1, acontain=1)


def test_home_board_bar_and_entering():
    #  mover: m1, m2 x2, m3 x3, m5, m6 x2, 1 on the bar (3 off); opponent holds o1, o2, o10 x3
    f = feats({1: 2, 2: 2, 3: 3, 5: 2, 6: 2, 25: 1}, {1: 2, 2: 2, 10: 3})
    check(f, home_points=5 / 6, longest_prime=3 / 6, bar=1 / 4, off1=3 / 5, off2=0)
    # timing: the spare on m3 (2 pips) and the bar checker (24)
    check(f, timing=26 / 167)
    # entering: 1s and 2s are blocked: 1-1 (4 pips), 2-2 (8), 1-2 twice (3 each) fail
    check(f, enter=18 / (36 * 49 / 6), enter2=1 - (4 / 6) ** 2)
    o = feats({1: 2, 2: 2, 3: 3, 5: 2, 6: 2, 25: 1}, {1: 2, 2: 2, 10: 3}, "opponent")
    check(o, enter=0, enter2=1 - (1 / 6) ** 2, bar=0)


def test_back_games():
    # anchors on m24 and m22 (the opponent's 1 and 3 points), a blot on m20, one on the bar
    f = feats({24: 2, 22: 2, 20: 1, 25: 1, 6: 4}, {6: 5})
    check(f, backgame=(6 - 3) / 8, backgame1=0, forward_anchor=3 / 12)
    check(feats({24: 3, 6: 5}, {6: 5}), backgame=0, backgame1=3 / 8)


# ----------------------------------------------------------------- shots by hand


def test_direct_and_combination_shots():
    # mover's blot on m11, an opponent checker on m5 (o20): 6 pips.
    #   6s: 11 rolls; 5-1, 4-2 (2 each); 3-3 (via m8); 2-2 (m7, m9): 17 rolls.
    #   The hit costs the mover 25 - 11 = 14 pips.
    f = feats({11: 1, 1: 14}, {20: 1})
    check(f, p1=17 / 36, p2=0, pip_loss=17 * 14 / (24 * 36))
    # the other way round the mover's m11 hits o20 (6 pips) with the same 17 rolls;
    # the opponent's blot on o20 has travelled 5 pips
    check(feats({11: 1, 1: 14}, {20: 1}, "opponent"), p1=17 / 36, pip_loss=17 * 5 / (24 * 36))
    # the mover makes m8: 3-3 now lands on a made point: 16 rolls
    check(feats({11: 1, 8: 2, 1: 12}, {20: 1}), p1=16 / 36)
    # ... and its m8 hits o20 = m5 with 3s too: rolls with a 3 or a 6 (20), 1-2 (2),
    # 1-1 (1), 5-1 (2), 4-2 (2), 2-2 (1): 28
    check(feats({11: 1, 8: 2, 1: 12}, {20: 1}, "opponent"), p1=28 / 36)


def test_double_shots():
    # mover's blots on m11 and m13, the opponent's checker on m5 (6 and 8 pips).
    #   m11: 17 rolls; m13 adds 5-3 (2) and 4-4 (1; 6-2 and 2-2 already hit m11): 20.
    #   Both: 6-2 (m11 then m13) and 2-2 (m7, m9, m11, m13): 3.
    #   Loss: m11 costs 14 (17 rolls), m13 costs 12 (3 more rolls).
    f = feats({11: 1, 13: 1, 1: 13}, {20: 1})
    check(f, p1=20 / 36, p2=3 / 36, pip_loss=(17 * 14 + 3 * 12) / (24 * 36))


def test_shots_with_one_attacker_on_the_bar():
    # mover holds m1..m4 and has a blot on m11; the opponent has one checker on the bar
    # and one on m5. It must enter first (only on m5 or m6): 6-5 (enter with the 5,
    # m5 -> m11 with the 6) and 6-6 (enter, then m5 -> m11): 3 rolls; 6-4 enters with
    # the 6 and its 4 cannot reach m11.
    f = feats({1: 2, 2: 2, 3: 2, 4: 2, 11: 1}, {25: 1, 20: 1})
    check(f, p1=3 / 36, p2=0, pip_loss=3 * 14 / (24 * 36))


def test_shots_with_two_attackers_on_the_bar():
    # mover's blots on m3 and m5; the opponent has two on the bar: non-doubles only enter.
    #   a 3 or a 5: 20 rolls; 1-1 enters both on m1 and goes m1 -> m2 -> m3: 21.
    #   Both: 5-3 (2 rolls). Loss: m3 costs 22 (12 rolls), m5 20 (the other 9).
    f = feats({3: 1, 5: 1, 13: 13}, {25: 2})
    check(f, p1=21 / 36, p2=2 / 36, pip_loss=(12 * 22 + 9 * 20) / (24 * 36))
    check(feats({3: 1, 5: 1, 13: 13}, {25: 2}, "opponent"), p1=0, p2=0, pip_loss=0)


# ----------------------------------------------------------------- shots by brute force


def _legal_shots(board) -> tuple[float, float, float]:
    """Exact P1, P2, pip loss of the mover's blots: the opponent's legal plays of each roll."""
    attacker = flip(np.asarray(board))
    on_bar = -int(attacker[OPPONENT_BAR])
    totals = np.zeros(3)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            weight = 1 if d1 == d2 else 2
            hits = loss = 0
            for play in legal_plays(attacker, (d1, d2)):
                n = -play.board[OPPONENT_BAR] - on_bar
                hits = max(hits, n)
                if n:
                    hit = [t for t in range(1, 25) if attacker[t] == -1 and play.board[t] >= 0]
                    loss = max(loss, max(hit))
            totals += weight * np.array([hits >= 1, hits >= 2, loss])
    return tuple(totals / [36, 36, 24 * 36])


def _relaxed_shots(board) -> tuple[float, float, float]:
    """The same without the maximum-dice rule: every prefix of a sequence of legal
    single-die moves counts as a play (the rules ``expert_features`` implements)."""
    attacker = [int(x) for x in flip(np.asarray(board))]
    totals = np.zeros(3)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
            hits = loss = 0
            for order in orders:
                level = {(tuple(attacker), 0, 0)}  # (board, hits so far, worst hit)
                for die in order:
                    after = set()
                    for state, n, worst in level:
                        for move in single_die_moves(state, die):
                            new = apply_move(state, move)
                            hit = new[OPPONENT_BAR] < state[OPPONENT_BAR]
                            worst_now = max(worst, move[1]) if hit else worst
                            after.add((tuple(new), n + hit, worst_now))
                    level = after
                    for _, n, worst in after:
                        hits, loss = max(hits, n), max(loss, worst)
            weight = 1 if d1 == d2 else 2
            totals += weight * np.array([hits >= 1, hits >= 2, loss])
    return tuple(totals / [36, 36, 24 * 36])


@pytest.fixture(scope="module")
def shot_boards():
    rng = np.random.default_rng(2024)
    games, _ = random_game_positions(240, rng, parallel_games=4)  # openings to bear-offs
    return np.concatenate([games, random_boards(80, rng)])  # random boards: crowded bars


def test_shots_equal_the_brute_force_without_the_maximum_dice_rule(shot_boards):
    got = expert_features(shot_boards)[:, [P1, P2, LOSS]]
    want = np.array([_relaxed_shots(b) for b in shot_boards])
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert (want[:, 0] > 0).mean() > 0.5 and (want[:, 1] > 0).mean() > 0.2  # real cases


def test_shots_agree_with_the_legal_plays(shot_boards):
    # The maximum-dice rule is the one approximation: a hit that leaves the other die
    # unplayable is counted although a play using both dice exists. Counting it only
    # ever adds rolls; it changes about one position in 200 (one roll each).
    got = expert_features(shot_boards)[:, [P1, P2, LOSS]]
    want = np.array([_legal_shots(b) for b in shot_boards])
    differ = np.abs(got - want).max(axis=1) > 1e-6
    assert differ.mean() <= 0.03
    assert (got >= want - 1e-6).all()
    assert np.abs(got - want).mean(axis=0).max() < 0.002


# ----------------------------------------------------------------- symmetry and ranges


def test_the_halves_are_the_same_code():
    rng = np.random.default_rng(3)
    boards = np.concatenate([random_game_positions(3000, rng)[0], random_boards(500, rng)])
    x, y = expert_features(boards), expert_features(flip(boards))
    np.testing.assert_array_equal(x[:, :SIDE_SIZE], y[:, SIDE_SIZE : 2 * SIDE_SIZE])
    np.testing.assert_array_equal(x[:, SIDE_SIZE : 2 * SIDE_SIZE], y[:, :SIDE_SIZE])
    np.testing.assert_array_equal(x[:, -2], y[:, -2])  # contact
    np.testing.assert_allclose(x[:, -1], -y[:, -1], atol=1e-7)  # race lead
    np.testing.assert_array_equal(x[:, -2], has_contact(boards))


def test_no_nan_and_documented_ranges():
    rng = np.random.default_rng(4)
    boards = np.concatenate([random_game_positions(10_000, rng)[0], random_boards(2000, rng)])
    x = expert_features(boards)
    assert np.isfinite(x).all()
    for i, name in enumerate(FEATURE_NAMES):
        low, high = FEATURE_RANGES[name.removeprefix("mover_").removeprefix("opponent_")]
        assert low - 1e-6 <= x[:, i].min() and x[:, i].max() <= high + 1e-6, name
    # the features move: every one takes several values on these positions
    assert all(len(np.unique(x[:, i])) > 1 for i in range(FEATURE_SIZE))
