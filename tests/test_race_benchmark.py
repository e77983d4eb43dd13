"""tdgammon bench race: race positions, their rollout reference, the 0-ply error
(tdgammon.engine.analysis.race_benchmark), with the torch-free pip-count evaluator."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_runner import run

from tdgammon.engine.analysis.race_benchmark import (
    RaceReference,
    build_reference,
    load_reference,
    race_error,
    race_positions,
)
from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.interfaces import bench_race
from tdgammon.engine.rules.board import has_contact


@pytest.fixture
def search():
    return Search(PipCountEvaluator())


def test_race_positions_are_races_the_network_judges(search):
    boards = race_positions(search, 12, np.random.default_rng(5))
    assert boards.shape == (12, 30) and len(np.unique(boards, axis=0)) == 12
    assert not has_contact(boards).any() and not is_bearoff_position(boards).any()


def test_reference_round_trip_and_error(search, tmp_path):
    reference = build_reference(search, 6, 36, seed=3)
    assert reference.equity.shape == (6,) and (reference.se > 0).all()
    path = tmp_path / "race.npz"
    reference.save(path)
    loaded = load_reference(path)
    np.testing.assert_array_equal(loaded.boards, reference.boards)
    np.testing.assert_array_equal(loaded.equity, reference.equity)
    assert loaded.trials == 36 and loaded.evaluator == reference.evaluator
    row = race_error(search, loaded)
    own = search.score(search.evaluate(reference.boards, 0))
    assert row["mean_abs_error"] == pytest.approx(np.abs(own - reference.equity).mean())
    assert row["positions"] == 6 and row["max_error"] >= row["mean_abs_error"]


def test_the_error_against_its_own_values_is_zero(search):
    boards = race_positions(search, 5, np.random.default_rng(1))
    equity = search.score(search.evaluate(boards, 0)).astype(np.float64)
    reference = RaceReference(boards, equity, np.zeros(5), 1, "self")
    assert race_error(search, reference)["mean_abs_error"] == pytest.approx(0.0, abs=1e-6)


def test_the_shipped_reference_loads():
    reference = load_reference()
    assert len(reference.boards) >= 300 and reference.trials >= 300
    assert not has_contact(reference.boards).any()
    assert np.isfinite(reference.equity).all() and (np.abs(reference.equity) <= 3).all()


def test_bench_race_command(search, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench_race, "load_search", lambda model=None: search)
    path = tmp_path / "r.npz"
    code, out, err = run(
        capsys, "bench", "race", "--build", "4", "--trials", "12", "--reference", str(path)
    )
    assert code == 0, err
    assert "wrote 4 race positions" in out
    code, out, _ = run(capsys, "bench", "race", "--reference", str(path), "--json")
    assert code == 0 and json.loads(out)["positions"] == 4
    code, out, _ = run(capsys, "bench", "race", "--reference", str(path))
    assert code == 0 and "mean absolute equity error" in out
    (tmp_path / "bad.npz").write_bytes(b"not a file")
    code, _, err = run(capsys, "bench", "race", "--reference", str(tmp_path / "bad.npz"))
    assert code == 2 and "not a race reference file" in err
    code, _, err = run(capsys, "bench", "race", "--build", "3")
    assert code == 2 and "--reference FILE" in err
