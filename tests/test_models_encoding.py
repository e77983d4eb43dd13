"""Encodings on hand-made positions: every unit and feature checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.flow.random_play import random_boards, random_game_positions
from tdgammon.engine.rules.board import board_from_points, flip, starting_board
from tdgammon.models.encoding import (
    ENCODINGS,
    EXTENDED_SIDE_FEATURES,
    EXTENDED_SIZE,
    RAW_SIDE_SIZE,
    RAW_SIZE,
    extended_encoding,
    raw_encoding,
    side_features,
)

FEATURE = {name: i for i, name in enumerate(EXTENDED_SIDE_FEATURES)}


def _units(encoded_side, point):
    return list(encoded_side[(point - 1) * 4 : point * 4])


def test_raw_units_of_the_starting_position():
    #  mover: 2 on 24, 5 on 13, 3 on 8, 5 on 6; the opponent the same in its numbering
    x = raw_encoding(starting_board()[None, :])[0]
    assert x.shape == (RAW_SIZE,) == (198,)
    mover, opponent, turn = x[:RAW_SIDE_SIZE], x[RAW_SIDE_SIZE : 2 * RAW_SIDE_SIZE], x[-2:]
    for side in (mover, opponent):
        assert _units(side, 24) == [1, 1, 0, 0]
        assert _units(side, 13) == [1, 1, 1, 1.0]  # (5 - 3) / 2
        assert _units(side, 8) == [1, 1, 1, 0]
        assert _units(side, 6) == [1, 1, 1, 1.0]
        assert _units(side, 1) == [0, 0, 0, 0]
        assert side[96] == 0 and side[97] == 0  # bar / 2, off / 15
    assert list(turn) == [1, 0]
    assert mover.sum() == opponent.sum()


def test_raw_bar_off_and_big_stacks():
    #  mover: 10 on 1, 1 on bar, 4 off; opponent: 1 on its 20 (mover's 5), 14 off
    board = board_from_points({1: 10, 25: 1}, {20: 1})
    x = raw_encoding(board[None, :])[0]
    mover, opponent = x[:RAW_SIDE_SIZE], x[RAW_SIDE_SIZE : 2 * RAW_SIDE_SIZE]
    assert _units(mover, 1) == [1, 1, 1, 3.5]  # (10 - 3) / 2
    assert mover[96] == 0.5 and mover[97] == pytest.approx(4 / 15)
    assert _units(opponent, 20) == [1, 0, 0, 0]
    assert opponent[96] == 0 and opponent[97] == pytest.approx(14 / 15)


def test_side_features_starting_position():
    f = side_features(starting_board()[None, :])[0]
    assert f[FEATURE["pips"]] == pytest.approx(1.67)
    assert f[FEATURE["blots"]] == 0
    assert f[FEATURE["hit_chance"]] == 0  # no blots
    assert f[FEATURE["home_points"]] == pytest.approx(1 / 6)  # the 6 point
    assert f[FEATURE["longest_prime"]] == pytest.approx(1 / 6)
    # back checkers on 24: the opponent holds 19 (its 6), 17 (its 8), 12 (its 13):
    # escaping means passing 12, which no roll can do with all landings open.
    assert f[FEATURE["escapes"]] == 0
    assert f[FEATURE["anchors"]] == pytest.approx(1 / 3)  # the 24 point
    assert f[FEATURE["checkers_back"]] == pytest.approx(2 / 15)


def test_hit_chance_direct_six_counts_17_of_36():
    #  mover blot on its 10; the opponent's checkers are on the mover's 4 (its 21),
    #  6 pips behind the blot in the opponent's direction of travel (towards the
    #  mover's 24). Rolls that move exactly 6: any roll with a 6 (11), 5-1 and 4-2
    #  (4), 3-3 and 2-2 (2): 17 of 36.
    board = board_from_points({10: 1, 1: 14}, {21: 15})
    f = side_features(board[None, :])[0]
    assert f[FEATURE["blots"]] == pytest.approx(1 / 5)
    assert f[FEATURE["hit_chance"]] == pytest.approx(17 / 36)


def test_hit_chance_far_blot_only_doubles():
    #  mover blot on its 21, opponent on the mover's 5 (its 20): distance 16,
    #  only 4-4 (four steps of 4) reaches it
    board = board_from_points({21: 1, 1: 14}, {20: 15})
    f = side_features(board[None, :])[0]
    assert f[FEATURE["hit_chance"]] == pytest.approx(1 / 36)


def test_prime_home_points_and_anchors():
    #  mover: points 4,5,6,7,8 made (a 5-prime), 3 on 20 (an anchor), 2 on 22
    board = board_from_points({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 20: 3, 22: 2}, {1: 15})
    f = side_features(board[None, :])[0]
    assert f[FEATURE["home_points"]] == pytest.approx(3 / 6)
    assert f[FEATURE["longest_prime"]] == pytest.approx(5 / 6)
    assert f[FEATURE["anchors"]] == pytest.approx(2 / 3)
    assert f[FEATURE["checkers_back"]] == pytest.approx(5 / 15)
    assert f[FEATURE["pips"]] == pytest.approx((8 + 10 + 12 + 14 + 16 + 60 + 44) / 100)


def test_escapes_behind_a_single_block():
    #  mover's rearmost checker on 24; the opponent holds only the mover's 18
    #  (6 pips in front). Escaping = ending more than 6 pips away with every
    #  landing open: non-doubles with no 6 whose sum > 6 (and neither die lands on 18):
    #  5-2, 5-3, 5-4, 4-3 both ways = 8, plus 6-x rolls: the 6 lands on 18 (blocked),
    #  the other die first then the 6 is open: 6-1..6-5 = 10 rolls;
    #  doubles: 2-2 (2,4,6 blocked at 6) no, 3-3 (3, 6 blocked) no, 4-4 (4, 8) yes,
    #  5-5 (5, 10) yes, 1-1 (max 4) no, 6-6 (6 blocked) no.
    board = board_from_points({24: 1}, {7: 2})  # opponent's 7 = mover's 18
    f = side_features(board[None, :])[0]
    assert f[FEATURE["escapes"]] == pytest.approx((8 + 10 + 2) / 36)


def test_escapes_nothing_in_front():
    board = board_from_points({24: 1, 2: 14}, {24: 15})  # opponent 24 = mover 1
    f = side_features(board[None, :])[0]
    assert f[FEATURE["escapes"]] == 1.0


def test_extended_shared_features():
    start = extended_encoding(starting_board()[None, :])[0]
    assert start.shape == (EXTENDED_SIZE,)
    np.testing.assert_array_equal(start[:RAW_SIZE], raw_encoding(starting_board()[None, :])[0])
    contact, race, lead = start[-3:]
    assert (contact, race, lead) == (1, 0, 0)
    race_board = board_from_points({1: 15}, {1: 10})  # far apart: a race
    contact, race, lead = extended_encoding(race_board[None, :])[0, -3:]
    assert (contact, race) == (0, 1)
    assert lead == pytest.approx((10 - 15) / 100)


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_encoding_is_independent_of_the_batch(name):
    encode = ENCODINGS[name].encode
    boards, _ = random_game_positions(300, np.random.default_rng(7))
    whole = encode(boards)
    assert whole.dtype == np.float32 and whole.shape == (300, ENCODINGS[name].size)
    one_by_one = np.concatenate([encode(boards[i : i + 1]) for i in range(0, 300, 37)])
    np.testing.assert_array_equal(one_by_one, whole[::37])
    shuffled = np.random.default_rng(1).permutation(300)
    np.testing.assert_array_equal(encode(boards[shuffled]), whole[shuffled])


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_encoding_halves_are_symmetric_under_flip(name):
    encode = ENCODINGS[name].encode
    boards, _ = random_game_positions(200, np.random.default_rng(8))
    x, y = encode(boards), encode(flip(boards))
    np.testing.assert_array_equal(x[:, :RAW_SIDE_SIZE], y[:, RAW_SIDE_SIZE : 2 * RAW_SIDE_SIZE])
    if name == "extended":
        n = len(EXTENDED_SIDE_FEATURES)
        np.testing.assert_array_equal(
            x[:, RAW_SIZE : RAW_SIZE + n], y[:, RAW_SIZE + n : RAW_SIZE + 2 * n]
        )


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_distinct_positions_encode_differently(name):
    # the encoding forgets nothing about the position: it is one-to-one
    boards, _ = random_game_positions(3000, np.random.default_rng(9))
    boards = np.concatenate([boards, flip(boards)])
    encoded = ENCODINGS[name].encode(boards)
    assert len(np.unique(boards, axis=0)) == len(np.unique(encoded, axis=0))


def _decode_raw_side(side):
    """Checkers on points 1..24 (own numbering), bar and off, read back from 98 units."""
    units = side[: 24 * 4].reshape(24, 4).astype(np.float64)
    counts = units[:, :3].sum(axis=1) + 2 * units[:, 3]
    return np.rint(counts).astype(int), int(np.rint(2 * side[96])), int(np.rint(15 * side[97]))


def _sample_boards():
    rng = np.random.default_rng(10)
    boards, _ = random_game_positions(400, rng, parallel_games=8)  # openings to bear-offs
    boards = np.concatenate([boards, random_boards(400, rng), starting_board()[None, :]])
    return np.concatenate([boards, flip(boards)])


def test_raw_inputs_give_back_the_board():
    # The raw units of a side are a lossless code of its checkers: n = u1 + u2 + u3
    # + 2 u4 on every point, bar = 2 x unit, off = 15 x unit; 15 checkers a side.
    boards = _sample_boards()
    x = raw_encoding(boards)
    for board, row in zip(boards, x, strict=True):
        mover = _decode_raw_side(row[:RAW_SIDE_SIZE])
        opponent = _decode_raw_side(row[RAW_SIDE_SIZE : 2 * RAW_SIDE_SIZE])
        rebuilt = np.zeros(30, dtype=int)
        rebuilt[1:25] = mover[0]
        rebuilt[25], rebuilt[0] = mover[1], mover[2]
        rebuilt[24:0:-1] -= opponent[0]  # the opponent's point k is the mover's 25 - k
        rebuilt[26], rebuilt[27] = -opponent[1], -opponent[2]
        np.testing.assert_array_equal(rebuilt, board)
        for counts, bar, off in (mover, opponent):
            assert counts.sum() + bar + off == 15


def test_raw_input_ranges():
    x = raw_encoding(_sample_boards())
    for side in (x[:, :RAW_SIDE_SIZE], x[:, RAW_SIDE_SIZE : 2 * RAW_SIDE_SIZE]):
        units = side[:, :96].reshape(len(x), 24, 4)
        assert np.isin(units[:, :, :3], [0, 1]).all()
        # thresholds: n >= 3 implies n >= 2 implies n >= 1; the 4th unit only past 3
        assert (units[:, :, 0] >= units[:, :, 1]).all()
        assert (units[:, :, 1] >= units[:, :, 2]).all()
        assert ((units[:, :, 3] == 0) | (units[:, :, 2] == 1)).all()
        assert ((units[:, :, 3] >= 0) & (units[:, :, 3] <= 6)).all()  # (15 - 3) / 2
        assert ((side[:, 96] >= 0) & (side[:, 96] <= 7.5)).all()
        assert ((side[:, 97] >= 0) & (side[:, 97] <= 1)).all()
    np.testing.assert_array_equal(x[:, -2:], [[1, 0]] * len(x))


# ----------------------------------------------------------------- hand inputs (variants)


def _hand_board(mover_points, opponent_points, mover_hand, opponent_hand, mover_bar=0):
    from tdgammon.engine.rules.board import MOVER_BAR, MOVER_HAND, OPPONENT_HAND

    board = np.zeros(30, dtype=np.int8)
    for point, count in mover_points.items():
        board[point] += count
    for point, count in opponent_points.items():  # opponent's own numbering
        board[25 - point] -= count
    board[MOVER_BAR] = mover_bar
    board[MOVER_HAND] = mover_hand
    board[OPPONENT_HAND] = -opponent_hand
    return board


def test_raw_hand_units_at_the_dutch_start():
    from tdgammon.engine.rules.variants import get_variant
    from tdgammon.models.encoding import RAW_HAND_SIZE, raw_hand_encoding

    x = raw_hand_encoding(get_variant("dutch").starting_board()[None, :])[0]
    assert x.shape == (RAW_HAND_SIZE,) == (200,)
    assert not x[: 2 * RAW_SIDE_SIZE].any()  # nothing on the points, bar or off
    assert list(x[RAW_SIZE - 2 : RAW_SIZE]) == [1, 0]  # turn units
    assert list(x[RAW_SIZE:]) == [1.0, 1.0]  # 15 / 15 in hand each


def test_raw_hand_units_on_a_hand_made_position():
    from tdgammon.models.encoding import raw_hand_encoding

    # mover: 3 in hand, 1 on the bar, 2 on its 24, 9 on its 6;
    # opponent: 5 in hand, 10 on its 13
    board = _hand_board({24: 2, 6: 9}, {13: 10}, mover_hand=3, opponent_hand=5, mover_bar=1)
    x = raw_hand_encoding(board[None, :])[0]
    mover, opponent = x[:RAW_SIDE_SIZE], x[RAW_SIDE_SIZE : 2 * RAW_SIDE_SIZE]
    assert _units(mover, 24) == [1, 1, 0, 0]
    assert _units(mover, 6) == [1, 1, 1, 3.0]  # (9 - 3) / 2
    assert mover[96] == 0.5 and mover[97] == 0  # bar / 2, off / 15
    assert _units(opponent, 13) == [1, 1, 1, 3.5]
    np.testing.assert_allclose(x[RAW_SIZE:], [3 / 15, 5 / 15])
    # the hand units swap sides with the view
    y = raw_hand_encoding(flip(board)[None, :])[0]
    np.testing.assert_allclose(y[RAW_SIZE:], [5 / 15, 3 / 15])


def test_raw_hand_extends_raw_and_is_zero_in_the_standard_game():
    from tdgammon.models.encoding import raw_hand_encoding

    boards, _ = random_game_positions(300, np.random.default_rng(11))
    x = raw_hand_encoding(boards)
    np.testing.assert_array_equal(x[:, :RAW_SIZE], raw_encoding(boards))
    assert not x[:, RAW_SIZE:].any()


def test_raw_hand_tells_hand_from_nothing():
    from tdgammon.models.encoding import raw_hand_encoding

    # Same points; one side has 2 checkers in hand instead of borne off.
    in_hand = _hand_board({6: 13}, {6: 15}, mover_hand=2, opponent_hand=0)
    borne = _hand_board({6: 13}, {6: 15}, mover_hand=0, opponent_hand=0)
    borne[0] = 2
    a, b = raw_hand_encoding(np.stack([in_hand, borne]))
    assert not np.array_equal(a, b)
    assert a[RAW_SIZE] == pytest.approx(2 / 15) and b[RAW_SIZE] == 0


def test_shipped_standard_model_evaluates_exactly_as_before():
    # Values recorded from the evaluator before variants were added (the model file
    # shipped then, tdgammon-tesauro80.pt, still shipped for --model):
    # the raw encoding and the standard evaluation path are unchanged.
    import torch

    from tdgammon.engine.evaluation.evaluator import NetworkAgent, load_evaluator
    from tdgammon.engine.movegen.vectorized import generate_moves
    from tdgammon.engine.rules.outputs import invert
    from tdgammon.models import shipped_model

    torch.set_num_threads(1)
    evaluator = load_evaluator(shipped_model().with_name("tdgammon-tesauro80.pt"))
    assert evaluator.variant.name == "standard" and evaluator.encoding.name == "raw"
    np.testing.assert_allclose(
        evaluator.evaluate(starting_board()),
        [
            0.5177627801895142,
            0.1365969181060791,
            0.005265206564217806,
            0.12169862538576126,
            0.004582612309604883,
        ],
        rtol=0,
        atol=1e-7,
    )
    # The standard path is exactly: flip each resulting board, raw-encode it, run the
    # network, invert; a play that bears off the last checker gets its exact result.
    # Opening 3-1 (a contact position) and a last-roll bear-off (2 checkers on the
    # 1 point; the opponent has none off and none in the mover's home board: 1-1 and
    # 6-5 both win a gammon, not a backgammon).
    bearoff = board_from_points({1: 2}, {6: 5, 13: 5, 18: 5})
    boards = np.stack([starting_board(), bearoff, bearoff])
    dice = np.array([[3, 1], [1, 1], [6, 5]])
    moves = generate_moves(boards, dice)
    probs = evaluator.play_probabilities(moves)
    done = moves.boards[:, 0] == 15
    assert done[moves.parents == 1].all() and done[moves.parents == 2].all()
    assert not done[moves.parents == 0].any()
    with torch.inference_mode():
        encoded = raw_encoding(flip(moves.boards[~done]))
        by_hand = invert(evaluator.network(torch.from_numpy(encoded)).numpy())
    np.testing.assert_allclose(probs[~done], by_hand, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(probs[done], [[1, 1, 0, 0, 0]] * int(done.sum()))
    # and the player ranks plays by that: the shipped model makes its 5 point with 3-1
    chosen = NetworkAgent(evaluator).choose_plays(boards, dice, moves)
    np.testing.assert_array_equal(
        moves.boards[chosen[0]],
        board_from_points({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5}),
    )
