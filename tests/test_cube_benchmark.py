"""The cube benchmark (engine/cube/benchmark.py, ``tdgammon bench cube``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tdgammon.engine.cube import benchmark as bm
from tdgammon.engine.cube.theory import cube_available
from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.rules.board import board_from_points, starting_board
from tdgammon.engine.rules.errors import TdgammonError


def test_phases():
    assert bm.phase(starting_board()) == bm.CONTACT
    assert bm.phase(board_from_points({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})) == bm.BEAROFF
    assert bm.phase(board_from_points({13: 5, 6: 10}, {24: 0, 8: 15})) == bm.RACE
    # the mover has 9 checkers on his 1- and 2-points and still an opponent to pass
    crashed = board_from_points({24: 2, 2: 4, 1: 5, 6: 4}, {13: 5, 6: 10})
    assert bm.phase(crashed) == bm.CRASHED


@pytest.mark.parametrize(
    ("nd", "dt", "dp", "double", "take", "error"),
    [
        (0.5, 0.8, 1.0, True, True, 0.0),  # double, take: right
        (0.5, 0.8, 1.0, False, True, 0.3),  # missed double
        (0.5, 1.2, 1.0, True, True, 0.2),  # wrong take
        (1.1, 1.2, 1.0, True, False, 0.1),  # too good: doubling cashes 1.0
        (0.6, 0.4, 1.0, True, True, 0.2),  # wrong double
    ],
)
def test_decision_error(nd, dt, dp, double, take, error):
    assert bm.decision_error(nd, dt, dp, double, take) == pytest.approx(error)


def test_contexts_leave_the_cube_available():
    rng = np.random.default_rng(0)
    positions = [bm.cube_contexts(starting_board(), i, rng) for i in range(20)]
    assert all(cube_available(p)[0] for p in positions)
    assert {p.is_money for p in positions} == {True, False}


def test_tiny_build_round_trip_and_benchmark(tmp_path):
    search = Search(PipCountEvaluator())
    reference = bm.build_reference(search, 4, 3, 2, seed=1)
    path = tmp_path / "cube.json"
    reference.save(path)
    loaded = bm.load_reference(path)
    assert loaded.decisions == json.loads(path.read_text())["decisions"]
    assert len(loaded.decisions) == 4 and loaded.trials == 3 and loaded.truncate == 2
    report = bm.cube_benchmark(search, loaded, 0)
    assert report["overall"]["decisions"] == 4
    assert report["money"]["decisions"] + report["match"]["decisions"] == 4
    assert 0.0 <= report["overall"]["double_agreement"] <= 1.0
    assert report["overall"]["mean_error_memg"] >= 0.0


def test_bad_reference_is_refused(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{}")
    with pytest.raises(TdgammonError, match="not a cube reference file"):
        bm.load_reference(path)


def test_shipped_reference_covers_money_match_and_every_phase():
    reference = bm.load_reference()
    assert len(reference.decisions) >= 100
    assert {d["phase"] for d in reference.decisions} == set(bm.PHASE_SHARES)
    ids = [d["position"] for d in reference.decisions]
    money = [bm.position_from_gnubg(i).is_money for i in ids]
    assert 0 < sum(money) < len(money)
    assert all(d["double_pass"] == 1.0 for d in reference.decisions)


def test_no_double_rollout_holds_the_first_double_back():
    """The reference's ND: with ``root_doubles=False`` the root player, who would
    double out his opponent at once, plays his first roll instead."""
    from tdgammon.engine.cube.rollout import cubeful_rollout_trials
    from tdgammon.engine.evaluation.rollout import RolloutSettings
    from tdgammon.engine.rules.position import Position

    search = Search(PipCountEvaluator())
    board = board_from_points({6: 4, 5: 4, 4: 4}, {24: 2, 13: 2, 8: 2})
    root = Position(board=board)
    settings = RolloutSettings(truncate=2)
    doubled = cubeful_rollout_trials(search, root, range(4), settings)
    held = cubeful_rollout_trials(search, root, range(4), settings, root_doubles=False)
    assert np.all(doubled.raw_values == 1.0) and np.all(doubled.cubeless.plies == 0)
    assert np.all(held.cubeless.plies > 0)  # the first roll was played


def test_threads_and_reroll_give_the_same_references(tmp_path):
    """A build on 3 threads equals the one-thread build; re-rolling a reference's
    positions with the same search, trials and seed gives it back."""
    search = Search(PipCountEvaluator())
    one = bm.build_reference(search, 6, 5, 4, seed=2)
    assert bm.build_reference(search, 6, 5, 4, seed=2, threads=3) == one
    again = bm.reroll_reference(search, one, 5, 4, seed=2, threads=2)
    assert again == one
    other_seed = bm.reroll_reference(search, one, 5, 4, seed=3)
    assert [d["position"] for d in other_seed.decisions] == [d["position"] for d in one.decisions]
    assert other_seed.decisions != one.decisions


def test_bench_cube_reroll_writes_the_reference(tmp_path, capsys, monkeypatch):
    from cli_runner import run

    from tdgammon.engine.interfaces import bench_cube

    search = Search(PipCountEvaluator())
    monkeypatch.setattr(bench_cube, "load_search", lambda model=None: search)
    old = tmp_path / "old.json"
    bm.build_reference(search, 4, 3, 2, seed=1).save(old)
    new = tmp_path / "new.json"
    argv = ["bench", "cube", "--reroll", str(old), "--reference", str(new), "--trials", "3"]
    code, out, _ = run(capsys, *argv, "--truncate", "2", "--threads", "2")
    assert code == 0 and "wrote 4 cube decisions" in out
    assert bm.load_reference(new).trials == 3
    code, _, err = run(capsys, "bench", "cube", "--reroll", str(old))
    assert code == 2 and "--reference FILE" in err
    # an unwritable --reference is refused before any rollout, the old file untouched
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    before = old.read_bytes()
    for target, message in ((blocker / "new.json", "cannot create"), (tmp_path, "a folder")):
        code, out, err = run(
            capsys, "bench", "cube", "--reroll", str(old), "--reference", str(target)
        )
        assert code == 2 and out == "" and message in err and err.count("\n") == 1
    assert old.read_bytes() == before
