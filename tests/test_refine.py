"""tdgammon refine: one generation of fitting a network to its own 1-ply values
(tdgammon.train.refine), on the 8-hidden-unit test preset."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from cli_runner import run

from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.evaluation.evaluator import NetworkEvaluator
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.rules.outcome import is_game_over
from tdgammon.engine.rules.outputs import equity
from tdgammon.models.network import build_network, get_preset, load_model, save_model
from tdgammon.train.refine import RefineSettings, label_positions, sample_positions

TINY = get_preset("tiny")


@pytest.fixture
def tiny_model(tmp_path):
    path = tmp_path / "tiny.pt"
    save_model(path, TINY, build_network(TINY, seed=3), {"variant": "standard"})
    return path


def _evaluator(path):
    preset, network, _ = load_model(path)
    return NetworkEvaluator(network, preset, "tiny")


def test_positions_are_distinct_and_judged_by_the_network(tiny_model):
    boards = sample_positions(_evaluator(tiny_model), 300, np.random.default_rng(1), 0.1)
    assert boards.shape == (300, 30) and boards.dtype == np.int8
    assert len(np.unique(boards, axis=0)) == 300
    assert not is_game_over(boards).any() and not is_bearoff_position(boards).any()


def test_candidates_are_the_positions_the_best_plays_leave(tiny_model, monkeypatch):
    """candidates=K: for a self-play position and a random roll, the K plays with
    the highest 0-ply equity, each result seen by the opponent (who rolls next)."""
    import tdgammon.train.refine as refine_module
    from tdgammon.engine.movegen.vectorized import generate_moves
    from tdgammon.engine.rules.board import flip
    from tdgammon.engine.rules.dice import roll_dice
    from tdgammon.engine.rules.outcome import variant_equity
    from tdgammon.engine.rules.variants import STANDARD

    start = STANDARD.starting_board()[None, :]
    monkeypatch.setattr(refine_module, "sample_positions", lambda *args: start.copy())
    evaluator = _evaluator(tiny_model)
    found, groups = refine_module.candidate_positions(
        evaluator, 3, np.random.default_rng(5), 0.0, 3
    )
    dice = roll_dice(np.random.default_rng(5), 1)
    moves = generate_moves(start, dice)
    equities = variant_equity(evaluator.play_probabilities(moves), STANDARD)
    best = flip(moves.boards[np.argsort(-equities, kind="stable")[:3]])
    assert len(moves.boards) > 3
    assert sorted(map(bytes, found)) == sorted(map(bytes, best))
    # one decision (the opening position repeated): its plays best first
    assert (found[groups[0]] == best).all()


def test_candidate_decisions_hold_every_position_best_play_first(tiny_model):
    """groups: every sampled board in some decision, each decision's boards
    distinct and ordered by the mover's 0-ply equity (the opponent's rises)."""
    from tdgammon.train.refine import candidate_positions

    evaluator = _evaluator(tiny_model)
    boards, groups = candidate_positions(evaluator, 200, np.random.default_rng(2), 0.1, 4)
    assert boards.shape == (200, 30) and len(np.unique(boards, axis=0)) == 200
    assert groups.shape[1] == 4 and groups.dtype == np.int32
    assert set(groups[groups >= 0].tolist()) == set(range(200))
    opponent = equity(evaluator.evaluate(boards))
    for row in groups:
        members = row[row >= 0]
        assert len(set(members.tolist())) == len(members) >= 1
        assert (np.diff(opponent[members]) >= -1e-6).all()


class _Table(torch.nn.Module):
    """A 'network' whose output for row i (encoded as the number i) is a free table row."""

    def __init__(self, values):
        super().__init__()
        self.table = torch.nn.Parameter(torch.tensor(values, dtype=torch.float32))

    def forward(self, x):
        return self.table[x[:, 0].long()]


class _RowNumber:
    @staticmethod
    def encode(boards):
        return boards[:, :1].astype(np.float32)


@pytest.mark.parametrize("weight", [0.5, 2.0])
def test_the_ranking_error_is_the_spread_of_a_decisions_equity_errors(weight):
    """Ten decisions of three plays, each off its target by the same shifts s = (0,
    0.01, 0.03) on all five probabilities (an equity error of 2 s): the loss is
    mean(s^2) + w * mean((2 s - mean(2 s))^2), a shift common to a decision's
    plays costs no ranking error."""
    from tdgammon.train.refine import fit

    rng = np.random.default_rng(0)
    targets = rng.uniform(0.2, 0.8, (30, 5)).astype(np.float32)
    shifts = np.tile([0.0, 0.01, 0.03], 10)
    network = _Table(targets + shifts[:, None])
    boards = np.arange(30, dtype=np.int8)[:, None].repeat(30, axis=1)
    groups = np.arange(30, dtype=np.int32).reshape(10, 3)
    settings = RefineSettings(candidates=3, rank_weight=weight, epochs=1, validation=0.3)
    history = fit(network, _RowNumber, boards, targets, settings, groups, echo=lambda _: None)
    s = np.array([0.0, 0.01, 0.03])
    expected = (s**2).mean() + weight * ((2 * s - (2 * s).mean()) ** 2).mean()
    assert history[0]["validation_loss"] == pytest.approx(expected, rel=1e-4)


def test_keep_values_fits_the_values_to_the_network_itself():
    """With keep_values the squared error is against the network's own outputs:
    at the start it is zero, so the loss is the ranking error alone, and the
    fit lowers the ranking error while each decision's mean equity (which the
    ranking error cannot see) stays where it was."""
    from tdgammon.train.refine import fit

    rng = np.random.default_rng(1)
    targets = rng.uniform(0.2, 0.8, (30, 5)).astype(np.float32)
    shifts = np.tile([0.0, 0.01, 0.03], 10) + np.repeat(rng.uniform(-0.05, 0.05, 10), 3)
    start = targets + shifts[:, None].astype(np.float32)
    network = _Table(start)
    boards = np.arange(30, dtype=np.int8)[:, None].repeat(30, axis=1)
    groups = np.arange(30, dtype=np.int32).reshape(10, 3)
    settings = RefineSettings(
        candidates=3, rank_weight=2.0, keep_values=True, epochs=200, validation=0.0
    )
    fit(network, _RowNumber, boards, targets, settings, groups, echo=lambda _: None)
    s = np.array([0.0, 0.01, 0.03])
    loss = fit(
        _Table(start),
        _RowNumber,
        boards,
        targets,
        RefineSettings(candidates=3, rank_weight=2.0, keep_values=True, epochs=1, validation=0.3),
        groups,
        echo=lambda _: None,
    )[0]["validation_loss"]
    assert loss == pytest.approx(2.0 * ((2 * s - (2 * s).mean()) ** 2).mean(), rel=1e-4)

    def spread_and_level(values):
        e = equity(values).reshape(10, 3) - equity(targets).reshape(10, 3)
        return ((e - e.mean(1, keepdims=True)) ** 2).mean(), e.mean(1)

    fitted = network.table.detach().numpy()
    spread_before, level_before = spread_and_level(start)
    spread_after, level_after = spread_and_level(fitted)
    assert spread_after < spread_before / 100
    np.testing.assert_allclose(level_after, level_before, atol=0.005)


def test_refine_command_with_candidates(tiny_model, tmp_path, capsys):
    out = tmp_path / "cand"
    argv = ["refine", "--model", str(tiny_model), "--out", str(out), "--positions", "40"]
    code, stdout, err = run(capsys, *argv, "--candidates", "2", "--epochs", "1")
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["settings"]["candidates"] == 2
    assert json.loads((out / "refine.json").read_text())["candidates"] == 2
    saved = np.load(out / "positions.npz")
    boards = saved["boards"]
    assert len(np.unique(boards, axis=0)) == 40
    assert set(saved["groups"][saved["groups"] >= 0].tolist()) == set(range(40))
    labels = np.load(out / "labels" / "chunk-00000.npy")
    one_ply = Search(_evaluator(tiny_model)).evaluate(boards, 1)
    np.testing.assert_allclose(labels, one_ply, atol=1e-6)
    # the same data refitted with the ranking error
    code, stdout, err = run(capsys, *argv, "--candidates", "2", "--rank-weight", "3")
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["settings"]["rank_weight"] == 3.0
    keep = ("--candidates", "2", "--rank-weight", "3", "--keep-values")
    code, stdout, err = run(capsys, *argv, *keep)
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["settings"]["keep_values"] is True
    # data made before the decisions were kept cannot be ranked
    np.savez(out / "positions.npz", boards=boards)
    code, _, err = run(capsys, *argv, "--candidates", "2", "--rank-weight", "3")
    assert code == 2 and "--rank-weight needs a new" in err and err.count("\n") == 1


def test_labels_are_the_1_ply_values_and_resume_by_chunk(tiny_model, tmp_path, monkeypatch):
    import tdgammon.train.refine as refine_module

    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    search = Search(_evaluator(tiny_model))
    boards = sample_positions(search.evaluator, 50, np.random.default_rng(2), 0.0)
    folder = tmp_path / "labels"
    options = {"plies": 1}
    labels = label_positions(search, boards, options, folder, echo=lambda text: None)
    np.testing.assert_allclose(labels, search.evaluate(boards, 1), atol=1e-6)
    assert sorted(p.name for p in folder.iterdir()) == [f"chunk-0000{i}.npy" for i in range(3)]
    (folder / "chunk-00001.npy").unlink()
    calls = []
    real = refine_module.label_chunk

    def counted(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(refine_module, "label_chunk", counted)
    again = label_positions(search, boards, options, folder, echo=lambda text: None)
    assert calls == [range(20, 40)]
    np.testing.assert_array_equal(again, labels)


def test_refine_command_end_to_end(tiny_model, tmp_path, capsys):
    out = tmp_path / "gen1"
    argv = ["refine", "--model", str(tiny_model), "--out", str(out), "--positions", "120"]
    code, stdout, err = run(capsys, *argv, "--epochs", "3", "--eval-games", "4")
    assert code == 0, err
    report = json.loads(stdout.splitlines()[-1])
    assert report["positions"] == 120 and report["preset"] == "tiny"
    assert set(report["strength"]) == {"vs_pubeval", "vs_parent"}
    history = [json.loads(line) for line in (out / "history.jsonl").read_text().splitlines()]
    assert [row["epoch"] for row in history] == [0, 1, 2, 3]
    assert report["best_validation_loss"] == min(row["validation_loss"] for row in history)
    preset, network, card = load_model(out / "model.pt")
    assert preset.name == "tiny" and card["refined_from"] == str(tiny_model)
    # the same folder with other data settings is refused, not mixed
    code, _, err = run(capsys, *argv[:-1], "121")
    assert code == 2 and "other data" in err


def test_fit_seed_refits_the_same_data(tiny_model, tmp_path, capsys):
    """--fit-seed changes only the fit: a folder refitted with it keeps its data;
    --fit-seed equal to --seed is the default fit."""
    out = tmp_path / "gen"
    argv = ["refine", "--model", str(tiny_model), "--out", str(out), "--positions", "80"]
    weights = {}
    for extra in ([], ["--fit-seed", "1"], ["--fit-seed", "5"]):
        code, _, err = run(capsys, *argv, "--epochs", "2", "--seed", "1", *extra)
        assert code == 0, err
        weights[" ".join(extra)] = load_model(out / "model.pt")[1].state_dict()
    first = weights[""]
    assert all(first[k].equal(weights["--fit-seed 1"][k]) for k in first)
    assert not all(first[k].equal(weights["--fit-seed 5"][k]) for k in first)


def test_race_phase_with_rollout_labels(tiny_model, tmp_path, capsys):
    from tdgammon.engine.rules.board import has_contact

    out = tmp_path / "race"
    argv = ["refine", "--model", str(tiny_model), "--out", str(out), "--positions", "30"]
    options = ["--phase", "race", "--rollout-trials", "6", "--epochs", "1"]
    code, _, err = run(capsys, *argv, *options)
    assert code == 0, err
    boards = np.load(out / "positions.npz")["boards"]
    assert len(boards) == 30 and not has_contact(boards).any()
    labels = np.load(out / "labels" / "chunk-00000.npy")
    assert labels.shape == (30, 5) and (labels[:, 0] >= 0).all() and (labels[:, 0] <= 1).all()
    assert not np.allclose(labels, Search(_evaluator(tiny_model)).evaluate(boards, 1))


def test_rollout_labels_truncated_after_one_ply_are_the_1_ply_values(tiny_model, tmp_path, capsys):
    """A variance-reduced trial stopped after one ply is worth the mean over the
    21 rolls of the best play (the luck of the roll is taken out): the 1-ply
    value, whatever the dice; longer trials differ from it."""
    argv = ["refine", "--model", str(tiny_model), "--positions", "40", "--epochs", "1"]
    labels = {}
    for truncate in ("1", "3"):
        out = tmp_path / f"t{truncate}"
        options = ["--rollout-trials", "4", "--rollout-truncate", truncate]
        code, _, err = run(capsys, *argv, "--out", str(out), *options)
        assert code == 0, err
        assert json.loads((out / "refine.json").read_text())["rollout_truncate"] == int(truncate)
        labels[truncate] = np.load(out / "labels" / "chunk-00000.npy")
    boards = np.load(tmp_path / "t1" / "positions.npz")["boards"]
    one_ply = Search(_evaluator(tiny_model)).evaluate(boards, 1)
    np.testing.assert_allclose(labels["1"], one_ply, atol=1e-5)
    assert np.abs(labels["3"] - one_ply).max() > 0.01


def test_a_phase_set_is_refined_as_it_plays(tmp_path, capsys):
    """A model naming a race_model: contact positions from the set's play, labels
    from the set's search (races by its race net), the race file copied beside
    the result; a race phase is refused."""
    from tdgammon.engine.evaluation.evaluator import load_evaluator
    from tdgammon.engine.rules.board import has_contact

    save_model(tmp_path / "race.pt", TINY, build_network(TINY, seed=5), {"variant": "standard"})
    main = tmp_path / "set.pt"
    save_model(main, TINY, build_network(TINY, seed=3), {"race_model": "race.pt"})
    out = tmp_path / "gen1"
    argv = ["refine", "--model", str(main), "--out", str(out), "--positions", "60"]
    code, _, err = run(capsys, *argv, "--epochs", "1")
    assert code == 0, err
    boards = np.load(out / "positions.npz")["boards"]
    assert len(boards) == 60 and has_contact(boards).all()
    labels = np.load(out / "labels" / "chunk-00000.npy")
    np.testing.assert_allclose(labels, Search(load_evaluator(main)).evaluate(boards, 1), atol=1e-6)
    assert not np.allclose(labels, Search(_evaluator(main)).evaluate(boards, 1), atol=1e-4)
    refined = load_evaluator(out / "model.pt")
    assert refined.race is not None and (out / "race.pt").is_file()
    code, _, err = run(capsys, *argv[:-1], "30", "--phase", "race", "--epochs", "1")
    assert code == 2 and "race evaluator" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "change, message",
    [
        ({"positions": 0}, "positions"),
        ({"plies": 3}, "plies"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"exploration": 1.5}, "exploration"),
        ({"eval_games": 3}, "even"),
        ({"phase": "crashed"}, "phase"),
        ({"rollout_trials": -1}, "rollout_trials"),
        ({"rollout_truncate": -1}, "rollout_truncate"),
        ({"rollout_truncate": 5}, "needs rollout_trials"),
        ({"candidates": -1}, "candidates"),
        ({"fit_seed": 1.5}, "fit_seed"),
        ({"candidates": 2, "phase": "race"}, "phase all"),
        ({"candidates": 2, "rank_weight": -1.0}, "rank_weight"),
        ({"candidates": 2, "rank_weight": float("inf")}, "rank_weight"),
        ({"rank_weight": 1.0}, "needs candidates"),
        ({"candidates": 2, "keep_values": True}, "keep_values needs rank_weight"),
        ({"candidates": 2, "rank_weight": 1.0, "keep_values": "yes"}, "keep_values"),
        ({"labelled_only": 1}, "labelled_only"),
    ],
)
def test_bad_settings_name_the_field(change, message):
    from tdgammon.engine.rules.errors import FormatError

    with pytest.raises(FormatError, match=message):
        RefineSettings(**change)


def test_missing_model_is_one_line(tmp_path, capsys):
    code, _, err = run(capsys, "refine", "--model", str(tmp_path / "nope.pt"), "--out", "x")
    assert code == 2 and "no such file" in err and err.count("\n") == 1


def test_labelled_only_fits_the_chunks_written_so_far(tiny_model, tmp_path, capsys, monkeypatch):
    """--labelled-only labels nothing and fits the positions whose chunks exist,
    with each decision renumbered to them; without it the run resumes."""
    import tdgammon.train.refine as refine_module

    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    out = tmp_path / "part"
    argv = ["refine", "--model", str(tiny_model), "--out", str(out), "--positions", "60"]
    argv += ["--candidates", "2", "--rank-weight", "1", "--epochs", "1"]
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    saved = np.load(out / "positions.npz")
    boards, groups = saved["boards"], saved["groups"]
    (out / "labels" / "chunk-00001.npy").unlink()
    code, stdout, err = run(capsys, *argv, "--labelled-only")
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["positions"] == 40
    assert "40 of 60 positions labelled so far" in stdout
    assert not (out / "labels" / "chunk-00001.npy").exists()
    rows, labels = refine_module.labelled_so_far(out / "labels", 60)
    np.testing.assert_array_equal(rows, np.r_[0:20, 40:60])
    assert labels.shape == (40, 5)
    kept_boards, kept = refine_module.restrict(boards, groups, rows)
    np.testing.assert_array_equal(kept_boards, boards[rows])
    # every kept decision is the original one with the dropped plays emptied
    expected = [
        [-1 if r < 0 or 20 <= r < 40 else (r if r < 20 else r - 20) for r in decision]
        for decision in groups.tolist()
    ]
    expected = [d for d in expected if max(d) >= 0]
    assert kept.tolist() == expected
    # the same command without it labels the missing chunk again
    code, stdout, err = run(capsys, *argv)
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["positions"] == 60
    assert (out / "labels" / "chunk-00001.npy").exists()


def test_labelled_only_without_labels_or_with_a_short_chunk_is_one_line(
    tiny_model, tmp_path, capsys, monkeypatch
):
    import tdgammon.train.refine as refine_module

    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    out = tmp_path / "none"
    argv = ["refine", "--model", str(tiny_model), "--out", str(out), "--positions", "40"]
    code, _, err = run(capsys, *argv, "--labelled-only", "--epochs", "1")
    assert code == 2 and "no labels written yet" in err and err.count("\n") == 1
    assert (out / "positions.npz").exists()  # the positions stay for the labelling run
    (out / "labels").mkdir()
    np.save(out / "labels" / "chunk-00000.npy", np.zeros((7, 5), dtype=np.float32))
    code, _, err = run(capsys, *argv, "--labelled-only", "--epochs", "1")
    assert code == 2 and "7 labels for 20 positions" in err and err.count("\n") == 1
