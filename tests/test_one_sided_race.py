"""One-sided race distributions: the network and its model file
(tdgammon.models.race_distributions), the race evaluator built on them
(tdgammon.engine.evaluation.one_sided_race), its place in load_evaluator and the
rollouts, and its training (tdgammon.train.race_distributions, ``tdgammon train-race``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from cli_runner import run

from tdgammon.engine.evaluation.bearoff import (
    MAX_ROLLS,
    evaluate_bearoff,
    get_database,
    is_bearoff_position,
    position_index,
)
from tdgammon.engine.evaluation.evaluator import NetworkEvaluator, load_evaluator
from tdgammon.engine.evaluation.one_sided_race import (
    OneSidedRaceEvaluator,
    at_least,
    load_race_evaluator,
    one_step_targets,
    race_outcome,
    side_boards,
    side_counts,
    side_distributions,
)
from tdgammon.engine.evaluation.rollout import BatchInvariantNetwork
from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.rules.board import (
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    MOVER_OFF,
    OPPONENT_OFF,
    board_from_points,
    flip,
    has_contact,
)
from tdgammon.engine.rules.outcome import is_game_over
from tdgammon.engine.rules.outputs import (
    LOSE_BACKGAMMON,
    LOSE_GAMMON,
    WIN,
    WIN_BACKGAMMON,
    WIN_GAMMON,
)
from tdgammon.models.network import (
    ModelFileError,
    build_network,
    get_preset,
    payload_sha256,
    save_model,
)
from tdgammon.models.race_distributions import (
    ALL_OFF,
    ESCAPE,
    FIRST_OFF,
    HEADS,
    INPUTS,
    RACE_ROLLS,
    build_race_net,
    encode_side,
    load_race_net,
    save_race_net,
)
from tdgammon.train.race_distributions import (
    RaceTrainSettings,
    head_masks,
    random_walks,
    start_targets,
    train_race,
)

MODELS = Path(__file__).resolve().parents[1] / "models"
TINY = get_preset("tiny")
ROLLS = np.arange(RACE_ROLLS)


# --------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def db():
    return get_database()


@pytest.fixture(scope="module")
def race_eval():
    return OneSidedRaceEvaluator(build_race_net(16, seed=3))


def random_split(total: int, slots: int, rng) -> np.ndarray:
    """``total`` checkers dropped uniformly at random on ``slots`` points."""
    return np.bincount(rng.integers(0, slots, size=total), minlength=slots)


def race_boards(n: int, rng: np.random.Generator) -> np.ndarray:
    """``(n, 30) int8`` random races (no contact, game not over), mover's view:
    the mover's checkers on his points 1..s, the opponent's on his points 1..24-s."""
    boards = np.zeros((n, BOARD_SIZE), dtype=np.int64)
    for row in range(n):
        split = int(rng.integers(1, 24))
        mover_n = int(rng.integers(1, CHECKERS_PER_SIDE + 1))
        opp_n = int(rng.integers(1, CHECKERS_PER_SIDE + 1))
        if rng.random() < 0.4:
            mover_n = CHECKERS_PER_SIDE
        if rng.random() < 0.4:
            opp_n = CHECKERS_PER_SIDE
        mover = random_split(mover_n, split, rng)
        opponent = random_split(opp_n, 24 - split, rng)  # its points 1..24-s
        boards[row, 1 : split + 1] = mover
        # opponent's point p is index 25 - p
        for p, count in enumerate(opponent, start=1):
            boards[row, 25 - p] = -count
        boards[row, MOVER_OFF] = CHECKERS_PER_SIDE - mover_n
        boards[row, OPPONENT_OFF] = -(CHECKERS_PER_SIDE - opp_n)
    boards = boards.astype(np.int8)
    assert not has_contact(boards).any() and not is_game_over(boards).any()
    return boards


def bearoff_boards(n: int, rng: np.random.Generator, db) -> np.ndarray:
    """Random pure bear-offs: both sides all home (<= 15 each, some none off)."""
    full = np.flatnonzero(db.positions.sum(axis=1) == CHECKERS_PER_SIDE)
    boards = np.zeros((n, BOARD_SIZE), dtype=np.int64)
    for row in range(n):
        picks = []
        for _side in range(2):
            pool = full if rng.random() < 0.4 else np.arange(1, len(db.positions))
            picks.append(db.positions[rng.choice(pool)].astype(np.int64))
        mover, opponent = picks
        boards[row, 1:7] = mover
        boards[row, 19:25] = -opponent[::-1]  # opponent's point p at index 25 - p
        boards[row, MOVER_OFF] = CHECKERS_PER_SIDE - mover.sum()
        boards[row, OPPONENT_OFF] = -(CHECKERS_PER_SIDE - opponent.sum())
    return boards.astype(np.int8)


def _record(path: Path) -> dict:
    return torch.load(path, map_location="cpu", weights_only=True)


def _rewrite(path: Path, data: dict, *, checksum: bool) -> None:
    if checksum:
        data["sha256"] = payload_sha256(data)
    torch.save(data, path)


# ----------------------------------------------------------- network and inputs


def test_network_outputs_three_log_distributions_per_side():
    net = build_race_net(8, seed=0)
    counts = np.zeros((3, 24), dtype=np.int64)
    counts[0, [0, 5, 12, 23]] = [3, 4, 5, 3]
    counts[1, 7] = 1
    counts[2, 23] = 15
    inputs = encode_side(counts)
    assert inputs.shape == (3, INPUTS) and inputs.dtype == np.float32
    # Tesauro units of point 1 (3 checkers) and point 24 of the last side (15 checkers)
    assert inputs[0, :4].tolist() == [1.0, 1.0, 1.0, 0.0]
    assert inputs[2, 4 * 23 : 4 * 24].tolist() == [1.0, 1.0, 1.0, 6.0]
    assert inputs[2, 4 * 24 + 1] == pytest.approx(15 * 24 / 100.0)  # pips / 100
    with torch.no_grad():
        logp = net(torch.from_numpy(inputs))
    assert logp.shape == (3, HEADS, RACE_ROLLS)
    np.testing.assert_allclose(logp.exp().sum(dim=-1).numpy(), 1.0, atol=1e-5)
    # seeded builds are reproducible and leave torch's global generator alone
    state = torch.random.get_rng_state()
    again = build_race_net(8, seed=0)
    assert torch.equal(torch.random.get_rng_state(), state)
    for a, b in zip(net.state_dict().values(), again.state_dict().values(), strict=True):
        assert torch.equal(a, b)


# -------------------------------------------------------------------- evaluator


def test_pure_bearoffs_are_the_database_exactly(db):
    boards = bearoff_boards(200, np.random.default_rng(11), db)
    assert is_bearoff_position(boards).all()
    evaluator = OneSidedRaceEvaluator(build_race_net(8, seed=0))
    got = evaluator.raw_probabilities(boards)
    assert got.dtype == np.float32 and got.shape == (200, 5)
    np.testing.assert_allclose(got, evaluate_bearoff(boards), atol=1e-6, rtol=0)
    assert (got[:, WIN_BACKGAMMON] == 0).all() and (got[:, LOSE_BACKGAMMON] == 0).all()
    # the network is not used at all there
    other = OneSidedRaceEvaluator(build_race_net(32, seed=5))
    np.testing.assert_array_equal(other.raw_probabilities(boards), got)


def test_side_distributions_overrides(db):
    calls = []

    def uniform(inputs):
        calls.append(len(inputs))
        return np.full((len(inputs), HEADS, RACE_ROLLS), 1.0 / RACE_ROLLS)

    counts = np.zeros((5, 24), dtype=np.int64)
    counts[0, :6] = [2, 3, 0, 4, 3, 3]  # all home, 15: database rows
    counts[1, :6] = [1, 0, 2, 0, 0, 1]  # all home, some off
    counts[2, [3, 10]] = [10, 5]  # 15, outside home, none on 19..24
    counts[3, [2, 20]] = [4, 3]  # outside, checkers off, 3 on point 21
    counts[4, [5, 23]] = [14, 1]  # 15 with one on point 24: all from the network
    out = side_distributions(counts, uniform)
    assert out.shape == (5, HEADS, RACE_ROLLS) and out.dtype == np.float64
    assert calls == [3]  # only the three sides not all home
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, atol=1e-12)
    for row in (0, 1):
        rank = position_index(counts[row : row + 1, :6])[0]
        np.testing.assert_array_equal(out[row, ALL_OFF, :MAX_ROLLS], db.bearoff[rank])
        assert (out[row, :, MAX_ROLLS:] == 0).all()
        np.testing.assert_array_equal(out[row, ESCAPE], np.eye(1, RACE_ROLLS)[0])
    rank0 = position_index(counts[:1, :6])[0]
    np.testing.assert_array_equal(out[0, FIRST_OFF, :MAX_ROLLS], db.gammon[rank0])
    delta = np.eye(1, RACE_ROLLS)[0]
    for row in (1, 3):  # a checker already off: first off takes no roll
        np.testing.assert_array_equal(out[row, FIRST_OFF], delta)
    for row in (1, 2):  # nothing on 19..24: escape takes no roll
        np.testing.assert_array_equal(out[row, ESCAPE], delta)
    uniform_row = np.full(RACE_ROLLS, 1.0 / RACE_ROLLS)
    np.testing.assert_allclose(out[2, [ALL_OFF, FIRST_OFF]], [uniform_row] * 2)
    np.testing.assert_allclose(out[3, [ALL_OFF, ESCAPE]], [uniform_row] * 2)
    np.testing.assert_allclose(out[4], [uniform_row] * 3)


def test_at_least_is_the_tail():
    dist = np.array([[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 0.0, 0.0]])
    np.testing.assert_allclose(at_least(dist), [[1.0, 0.9, 0.7, 0.4], [1.0, 0.0, 0.0, 0.0]])


def test_side_counts_reads_each_side_in_its_own_numbering():
    board = board_from_points({1: 2, 7: 3, 20: 1}, {2: 4, 16: 1})
    mover, opponent = side_counts(board[None])
    assert mover[0].tolist() == [2, 0, 0, 0, 0, 0, 3] + [0] * 12 + [1, 0, 0, 0, 0]
    expected = [0] * 24
    expected[1], expected[15] = 4, 1
    assert opponent[0].tolist() == expected


def test_race_outcome_is_consistent_on_random_races(race_eval):
    boards = race_boards(300, np.random.default_rng(7))
    mover, opponent = side_counts(boards)
    out = race_outcome(
        race_eval.distributions(mover), race_eval.distributions(opponent), mover, opponent
    )
    assert out.dtype == np.float64 and out.shape == (300, 5)
    assert ((out >= 0) & (out <= 1)).all()
    assert (out[:, WIN_BACKGAMMON] <= out[:, WIN_GAMMON]).all()
    assert (out[:, WIN_GAMMON] <= out[:, WIN]).all()
    assert (out[:, LOSE_BACKGAMMON] <= out[:, LOSE_GAMMON]).all()
    assert (out[:, LOSE_GAMMON] <= 1 - out[:, WIN] + 1e-12).all()
    # gammons only against a side with none off; backgammons only with a checker in
    # the winner's home board (the loser's own points 19..24)
    assert (out[opponent.sum(axis=1) < 15, WIN_GAMMON] == 0).all()
    assert (out[mover.sum(axis=1) < 15, LOSE_GAMMON] == 0).all()
    assert (out[opponent[:, 18:].sum(axis=1) == 0, WIN_BACKGAMMON] == 0).all()
    assert (out[mover[:, 18:].sum(axis=1) == 0, LOSE_BACKGAMMON] == 0).all()
    # the sample does exercise every output
    assert (out[:, WIN_BACKGAMMON] > 0).any() and (out[:, LOSE_BACKGAMMON] > 0).any()
    assert (out[:, WIN_GAMMON] > 0).any() and (out[:, LOSE_GAMMON] > 0).any()
    np.testing.assert_array_equal(race_eval.raw_probabilities(boards), out.astype(np.float32))


def test_race_outcome_by_hand():
    """Mover needs exactly 2 rolls, opponent 2 or 3 (equally): the mover, rolling
    first, wins in every case; gammon if the opponent has not got one off after 1 roll."""
    mover = np.zeros((1, HEADS, RACE_ROLLS))
    opponent = np.zeros((1, HEADS, RACE_ROLLS))
    mover[0, :, 2] = 1.0
    opponent[0, ALL_OFF, [2, 3]] = 0.5
    opponent[0, FIRST_OFF, [1, 2]] = 0.5  # first checker off after 1 or 2 rolls
    opponent[0, ESCAPE, 0] = 1.0
    mc = np.zeros((1, 24), dtype=np.int64)
    mc[0, 0] = 15
    oc = np.zeros((1, 24), dtype=np.int64)
    oc[0, 7] = 15
    out = race_outcome(mover, opponent, mc, oc)
    np.testing.assert_allclose(out[0], [1.0, 0.5, 0.0, 0.0, 0.0], atol=1e-12)


def test_batch_invariance(race_eval, db):
    rng = np.random.default_rng(21)
    boards = np.concatenate([race_boards(60, rng), bearoff_boards(20, rng, db)])
    boards = boards[rng.permutation(len(boards))]
    whole = race_eval.raw_probabilities(boards)
    alone = np.concatenate([race_eval.raw_probabilities(b[None]) for b in boards])
    assert np.array_equal(whole, alone)
    halves = np.concatenate(
        [race_eval.raw_probabilities(boards[:37]), race_eval.raw_probabilities(boards[37:])]
    )
    assert np.array_equal(whole, halves)
    assert race_eval.evaluate(boards[:0]).shape == (0, 5)


# ---------------------------------------------------------------- one-step targets


def test_one_step_target_of_a_lone_checker_on_seven():
    """One checker on point 7, 14 off. 23 of 36 rolls bear it off at once (two dice
    summing >= 7, or a double 2-2..6-6). The other 13 leave it on 7 - sum: 2-1 on
    point 4, from which only 2-1 again fails to bear it off; 4-1, 3-1, 1-1, 5-1, 3-2,
    4-2 leave it on 2, 3, 3, 1, 2, 1: off next roll whatever the dice."""
    counts = np.zeros((1, 24), dtype=np.int64)
    counts[0, 6] = 1
    net = build_race_net(8, seed=0)
    evaluator = OneSidedRaceEvaluator(net)
    target = one_step_targets(counts, evaluator.distributions)
    expected = np.zeros(RACE_ROLLS)
    expected[1] = 23 / 36
    expected[3] = (2 / 36) * (2 / 36)
    expected[2] = 13 / 36 - expected[3]
    np.testing.assert_allclose(target[0, ALL_OFF], expected, atol=1e-12, rtol=0)
    # 14 checkers are already off: the first-off head is done, its target one roll on
    np.testing.assert_allclose(target[0, FIRST_OFF], np.eye(1, RACE_ROLLS, 1)[0], atol=1e-12)
    np.testing.assert_allclose(target[0, ESCAPE], np.eye(1, RACE_ROLLS, 1)[0], atol=1e-12)


def test_one_step_targets_of_home_sides_follow_the_database(db):
    rng = np.random.default_rng(5)
    full = np.flatnonzero(db.positions.sum(axis=1) == CHECKERS_PER_SIDE)
    ranks = np.unique(
        np.concatenate([rng.choice(full, 40), rng.integers(1, len(db.positions), 40)])
    )
    counts = np.zeros((len(ranks), 24), dtype=np.int64)
    counts[:, :6] = db.positions[ranks]
    evaluator = OneSidedRaceEvaluator(build_race_net(8, seed=2))
    target = one_step_targets(counts, evaluator.distributions)
    np.testing.assert_allclose(target.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(target[:, ALL_OFF] @ ROLLS, db.mean_rolls[ranks], atol=1e-9, rtol=0)
    np.testing.assert_allclose(target[:, ALL_OFF, :MAX_ROLLS], db.bearoff[ranks], atol=1e-9, rtol=0)
    none_off = counts.sum(axis=1) == CHECKERS_PER_SIDE
    assert none_off.sum() >= 20 and (~none_off).sum() >= 20
    np.testing.assert_allclose(
        target[none_off, FIRST_OFF] @ ROLLS, db.mean_gammon_rolls[ranks[none_off]], atol=1e-9
    )


def test_one_step_targets_do_not_depend_on_the_chunk(race_eval, monkeypatch):
    from tdgammon.engine.evaluation import one_sided_race

    sides = random_walks(
        side_counts(race_boards(10, np.random.default_rng(3)))[0], np.random.default_rng(4)
    )
    sides = sides[:40]
    whole = one_step_targets(sides, race_eval.distributions)
    monkeypatch.setattr(one_sided_race, "TARGET_CHUNK", 7)
    np.testing.assert_allclose(one_step_targets(sides, race_eval.distributions), whole, atol=1e-12)
    np.testing.assert_allclose(whole.sum(axis=-1), 1.0, atol=1e-9)
    assert (whole[:, :, 0] == 0).all()  # every target is at least one roll


def test_side_boards_put_one_side_on_the_mover_points():
    counts = np.zeros((2, 24), dtype=np.int64)
    counts[0, [0, 12]] = [3, 2]
    counts[1, 23] = 15
    boards = side_boards(counts)
    assert boards.dtype == np.int8 and boards.shape == (2, BOARD_SIZE)
    np.testing.assert_array_equal(boards[:, 1:25], counts)
    assert boards[:, MOVER_OFF].tolist() == [10, 0]
    assert boards[:, OPPONENT_OFF].tolist() == [-15, -15]


# ------------------------------------------------------------------ model files


def test_model_file_round_trip(tmp_path, race_eval):
    path = tmp_path / "race.pt"
    save_race_net(path, race_eval.network, {"kind": "test"})
    network, card = load_race_net(path)
    assert card == {"kind": "test"} and not network.training
    loaded = load_race_evaluator(path)
    assert loaded.name == "race"
    boards = race_boards(40, np.random.default_rng(9))
    np.testing.assert_array_equal(
        loaded.raw_probabilities(boards), race_eval.raw_probabilities(boards)
    )


def test_bad_model_files_are_refused_naming_the_file(tmp_path, race_eval):
    good = tmp_path / "good.pt"
    save_race_net(good, race_eval.network)
    raw = good.read_bytes()

    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(raw[: len(raw) // 2])
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a model at all" * 20)
    for path in (truncated, garbage):
        with pytest.raises(ModelFileError, match=path.name):
            load_race_net(path)
        with pytest.raises(ModelFileError, match=path.name):
            load_race_evaluator(path)

    tampered = tmp_path / "tampered.pt"
    data = _record(good)
    data["state_dict"]["head.bias"][0] += 1.0
    _rewrite(tampered, data, checksum=False)
    with pytest.raises(ModelFileError, match="tampered.pt.*checksum"):
        load_race_net(tampered)

    cases = {
        "version.pt": (lambda d: d.update(format_version=99), "format version 99"),
        "nan.pt": (
            lambda d: d["state_dict"]["body.0.weight"].__setitem__((0, 0), float("nan")),
            "NaN",
        ),
        "hidden.pt": (lambda d: d.update(hidden=[0]), "hidden size"),
        "shape.pt": (lambda d: d.update(hidden=[9]), "do not fit"),
        "rolls.pt": (lambda d: d.update(race_rolls=32), "do not match"),
        "card.pt": (lambda d: d.update(card=[1, 2]), "card"),
        "nosum.pt": (lambda d: d.pop("sha256"), "checksum"),
    }
    for name, (change, message) in cases.items():
        data = _record(good)
        change(data)
        _rewrite(tmp_path / name, data, checksum=name != "nosum.pt")
        with pytest.raises(ModelFileError, match=message) as caught:
            load_race_net(tmp_path / name)
        assert name in str(caught.value)

    missing = tmp_path / "missing.pt"
    with pytest.raises(ModelFileError, match="missing.pt"):
        load_race_net(missing)


def test_an_ordinary_model_is_not_a_race_file(tmp_path):
    path = tmp_path / "main.pt"
    save_model(path, TINY, build_network(TINY, seed=1), {"variant": "standard"})
    with pytest.raises(ModelFileError, match="main.pt: not a race-distribution model"):
        load_race_net(path)
    with pytest.raises(ModelFileError, match="not a race-distribution model"):
        load_race_evaluator(path)


# ---------------------------------------------------------- evaluator integration


@pytest.fixture(scope="module")
def mixed_boards():
    rng = np.random.default_rng(4)
    boards, _ = random_game_positions(600, rng)
    boards = boards[~is_game_over(boards)]
    boards = np.concatenate([boards, race_boards(80, rng)])
    racing = ~has_contact(boards)
    assert racing.sum() >= 80 and (~racing).sum() > 100
    return boards[rng.permutation(len(boards))]


@pytest.fixture
def phased_model(tmp_path, race_eval):
    save_race_net(tmp_path / "r.pt", race_eval.network, {"variant": "standard"})
    save_model(tmp_path / "main.pt", TINY, build_network(TINY, seed=1), {"race_model": "r.pt"})
    return tmp_path / "main.pt"


def test_a_card_naming_a_race_file_loads_the_one_sided_evaluator(
    phased_model, race_eval, mixed_boards
):
    loaded = load_evaluator(phased_model)
    assert isinstance(loaded.race, OneSidedRaceEvaluator)
    assert loaded.race.name == "main-race"
    racing = ~has_contact(mixed_boards)
    out = loaded.raw_probabilities(mixed_boards)
    np.testing.assert_array_equal(out[racing], race_eval.raw_probabilities(mixed_boards[racing]))
    plain = NetworkEvaluator(loaded.network, TINY, "plain")
    np.testing.assert_array_equal(out[~racing], plain.raw_probabilities(mixed_boards[~racing]))
    # evaluate() agrees too (no finished games here)
    np.testing.assert_array_equal(loaded.evaluate(mixed_boards), out)


def test_a_variant_model_cannot_take_a_one_sided_race_file(tmp_path, race_eval):
    save_race_net(tmp_path / "r.pt", race_eval.network)
    hand = get_preset("tiny_hand")
    card = {"variant": "nackgammon", "race_model": "r.pt"}
    save_model(tmp_path / "nack.pt", hand, build_network(hand, seed=1), card)
    with pytest.raises(ModelFileError, match="r.pt.*standard races only"):
        load_evaluator(tmp_path / "nack.pt")


def test_a_damaged_race_file_beside_a_model_is_refused(tmp_path, phased_model):
    (tmp_path / "r.pt").write_bytes(b"\x00" * 64)
    with pytest.raises(ModelFileError, match="r.pt"):
        load_evaluator(phased_model)


def test_rollout_evaluation_uses_the_one_sided_values(phased_model, race_eval, mixed_boards):
    loaded = load_evaluator(phased_model)
    invariant = BatchInvariantNetwork(loaded)
    racing = ~has_contact(mixed_boards)
    races = mixed_boards[racing]
    np.testing.assert_array_equal(invariant.evaluate(races), race_eval.raw_probabilities(races))
    np.testing.assert_allclose(
        invariant.evaluate(mixed_boards), loaded.evaluate(mixed_boards), atol=2e-6
    )
    # the quick flipped estimate of races is the race evaluator's too
    quick = invariant.estimate_flipped(races)
    assert quick is not None
    np.testing.assert_array_equal(quick, race_eval.raw_probabilities(flip(races)))


# --------------------------------------------------------------------- training


def test_random_walks_start_targets_and_masks():
    rng = np.random.default_rng(2)
    sides = side_counts(race_boards(20, rng))[0]
    walked = random_walks(sides, rng)
    assert len(walked) >= (sides[:, 6:].sum(axis=1) > 0).sum()
    assert (walked >= 0).all() and (walked.sum(axis=1) <= 15).all()
    assert (walked[:, 6:].sum(axis=1) > 0).all()  # each one with a checker outside home
    targets = start_targets(walked)
    assert targets.shape == (len(walked), HEADS, RACE_ROLLS)
    np.testing.assert_allclose(targets.sum(axis=-1), 1.0, atol=1e-12)
    assert (targets >= 0).all()
    pips = walked @ np.arange(1, 25)
    more = np.argsort(pips)
    means = targets[:, ALL_OFF] @ ROLLS
    assert means[more[-1]] > means[more[0]]
    mask = head_masks(walked)
    np.testing.assert_array_equal(mask[:, ALL_OFF], 1.0)
    np.testing.assert_array_equal(mask[:, FIRST_OFF], walked.sum(axis=1) == 15)
    np.testing.assert_array_equal(mask[:, ESCAPE], walked[:, 18:].sum(axis=1) > 0)
    assert len(random_walks(np.zeros((0, 24), dtype=np.int64), rng)) == 0


def test_train_race_smoke(tmp_path):
    out = tmp_path / "race.pt"
    settings = RaceTrainSettings(positions=40, max_sides=300, generations=1, epochs=1, hidden=8)
    lines = []
    report = train_race(str(MODELS / "tdgammon-tesauro80.pt"), out, settings, lines.append)
    evaluator = load_race_evaluator(out)
    assert evaluator.network.hidden == 8
    _network, card = load_race_net(out)
    assert card["variant"] == "standard" and card["sides"] == report["sides"] > 0
    history = (tmp_path / "race.pt.history.jsonl").read_text().splitlines()
    assert len(history) == 2
    records = [json.loads(line) for line in history]
    assert [r["generation"] for r in records] == [0, 1]
    assert records[0]["target_change_rolls"] is None
    assert len(records[1]["target_change_rolls"]) == HEADS
    boards = race_boards(10, np.random.default_rng(0))
    values = evaluator.raw_probabilities(boards)
    assert np.isfinite(values).all() and ((values >= 0) & (values <= 1)).all()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--generations", "-1"], "--generations must be at least 0"),
        (["--epochs", "0"], "--epochs must be at least 1"),
        (["--learning-rate", "0"], "--learning-rate must be positive"),
        (["--model", "nowhere.pt"], "--model nowhere.pt: no such file"),
    ],
)
def test_train_race_cli_refuses_bad_arguments(capsys, tmp_path, extra, message):
    status, out, err = run(capsys, "train-race", "--out", str(tmp_path / "r.pt"), *extra)
    assert status == 2
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "r.pt").exists()


def test_train_race_cli_refuses_a_folder_or_missing_folder_as_out(capsys, tmp_path):
    status, _out, err = run(capsys, "train-race", "--out", str(tmp_path))
    assert status == 2 and "is a folder" in err
    status, _out, err = run(capsys, "train-race", "--out", str(tmp_path / "no" / "r.pt"))
    assert status == 2 and "does not exist" in err


def test_simulated_mean_rolls_of_a_lone_checker_match_the_exact_mean():
    """One checker on point 7 (14 off): 1 roll with 23/36, 3 rolls with 2-1 twice
    (4/1296), else 2. Played out with its policy, the mean agrees with that."""
    from tdgammon.train.race_distributions import simulated_mean_rolls

    evaluator = OneSidedRaceEvaluator(build_race_net(8, seed=0))
    side = np.zeros((1, 24), dtype=np.int64)
    side[0, 6] = 1
    exact = 23 / 36 + 2 * (13 / 36 - 4 / 1296) + 3 * 4 / 1296
    simulated = simulated_mean_rolls(evaluator.distributions, side, 4000, np.random.default_rng(3))
    assert abs(simulated[0, 0] - exact) < 0.04
    assert np.isnan(simulated[0, 1]) and np.isnan(simulated[0, 2])  # heads already done
