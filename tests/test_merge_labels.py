"""``scripts/merge_labels.py``: several finished label runs as one refine folder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cli_runner import run
from script_loader import load_script

import tdgammon.train.refine as refine_module
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.models.network import PRESETS, build_network, save_model


@pytest.fixture(scope="module")
def merge_labels():
    return load_script("merge_labels")


@pytest.fixture
def tiny_model(tmp_path, monkeypatch) -> Path:
    """A tiny network's file, with refine's label chunks cut to 20 positions."""
    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    model = tmp_path / "tiny.pt"
    save_model(model, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=3))
    return model


def label_run(capsys, model: Path, out: Path, positions: int, seed: int, *how: str) -> None:
    """A finished refine run of ``positions`` (1-ply labels unless ``how`` says)."""
    argv = ["refine", "--model", str(model), "--out", str(out), "--positions", str(positions)]
    code, _, err = run(
        capsys, *argv, *(how or ("--plies", "1")), "--epochs", "1", "--seed", str(seed)
    )
    assert code == 0, err


def test_merged_folder_holds_both_runs_and_refine_fits_it(
    merge_labels, tiny_model, tmp_path, capsys
):
    model = tiny_model
    label_run(capsys, model, tmp_path / "a", 30, 1)  # chunks of 20 and 10
    label_run(capsys, model, tmp_path / "b", 50, 2)
    merged = tmp_path / "ab"
    assert merge_labels.merge(merged, [tmp_path / "a", tmp_path / "b"]) == (80, 0)

    boards = np.load(merged / "positions.npz")["boards"]
    parts = [np.load(tmp_path / name / "positions.npz")["boards"] for name in "ab"]
    np.testing.assert_array_equal(boards, np.concatenate(parts))
    rows, labels = refine_module.labelled_so_far(merged / "labels", 80)
    expected = [
        refine_module.labelled_so_far(tmp_path / n / "labels", 30 + 20 * (n == "b"))[1]
        for n in "ab"
    ]
    np.testing.assert_array_equal(rows, np.arange(80))
    np.testing.assert_array_equal(labels, np.concatenate(expected))
    assert len(list((merged / "labels").iterdir())) == 4  # re-cut into chunks of 20

    argv = ["refine", "--model", str(model), "--out", str(merged), "--positions", "80"]
    code, stdout, err = run(capsys, *argv, "--plies", "1", "--epochs", "1", "--labelled-only")
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["positions"] == 80


def test_an_unfinished_run_or_an_existing_out_is_refused(
    merge_labels, tiny_model, tmp_path, capsys
):
    model = tiny_model
    label_run(capsys, model, tmp_path / "a", 40, 1)
    (tmp_path / "a" / "labels" / "chunk-00001.npy").unlink()
    with pytest.raises(TdgammonError, match="20 of 40 positions labelled; finish its run first"):
        merge_labels.merge(tmp_path / "out", [tmp_path / "a"])
    assert not (tmp_path / "out").exists()
    with pytest.raises(TdgammonError, match="exists; merge into a new folder"):
        merge_labels.merge(tmp_path / "a", [tmp_path / "a"])
    with pytest.raises(TdgammonError, match="not a refine positions file"):
        merge_labels.merge(tmp_path / "out", [tmp_path / "missing"])


def test_rollout_labels_are_put_in_the_cumulative_order(merge_labels):
    labels = np.array(
        [
            [0.6, 0.2, 0.01, 0.1, 0.02],  # in order: unchanged
            [0.5, 0.50003, 0.6, 0.0, 0.00012],  # wg > win, wbg > wg, lbg > lg
            [0.9, 0.1, 0.0, 0.2, 0.1],  # lg > 1 - win
            [1.00002, 0.0, 0.0, 0.0, -0.00001],  # outside [0, 1]
        ],
        dtype=np.float32,
    )
    out = merge_labels.in_cumulative_order(labels)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out[0], labels[0])
    np.testing.assert_allclose(out[1], [0.5, 0.5, 0.5, 0.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(out[2], [0.9, 0.1, 0.0, 0.1, 0.1], atol=1e-7)
    np.testing.assert_allclose(out[3], [1.0, 0.0, 0.0, 0.0, 0.0], atol=1e-7)


def test_replace_with_takes_an_unfinished_rollout_runs_labels_of_the_same_positions(
    merge_labels, tiny_model, tmp_path, capsys
):
    model = tiny_model
    label_run(capsys, model, tmp_path / "a", 40, 1)
    label_run(capsys, model, tmp_path / "b", 20, 2)
    rollout = ("--rollout-trials", "2", "--rollout-truncate", "1")
    label_run(capsys, model, tmp_path / "r", 40, 1, *rollout)  # the same seed: a's positions
    (tmp_path / "r" / "labels" / "chunk-00001.npy").unlink()  # unfinished: rows 0..19 only
    r_boards = np.load(tmp_path / "r" / "positions.npz")["boards"]
    np.testing.assert_array_equal(r_boards, np.load(tmp_path / "a" / "positions.npz")["boards"])
    r_labels = refine_module.labelled_so_far(tmp_path / "r" / "labels", 40, False)[1]
    before = {
        name: refine_module.labelled_so_far(tmp_path / name / "labels", count)[1]
        for name, count in (("a", 40), ("b", 20))
    }

    merged = tmp_path / "ab"
    count, replaced = merge_labels.merge(merged, [tmp_path / "a", tmp_path / "b"], [tmp_path / "r"])
    boards = np.load(merged / "positions.npz")["boards"]
    labels = refine_module.labelled_so_far(merged / "labels", 60)[1]  # search-label checks pass
    taken = {board.tobytes(): label for board, label in zip(r_boards[:20], r_labels, strict=True)}
    expected = np.concatenate([before["a"], before["b"]])
    hits = [row for row, board in enumerate(boards) if board.tobytes() in taken]
    for row in hits:
        expected[row] = merge_labels.in_cumulative_order(taken[boards[row].tobytes()][None])[0]
    assert count == 60 and replaced == len(hits) >= 20
    np.testing.assert_array_equal(labels, expected)
    assert not np.array_equal(labels[:20], before["a"][:20])  # rollouts, not 1-ply values
    np.testing.assert_array_equal(labels[20:40], before["a"][20:40])

    # a second run of b's positions: its labels too, the later run first where both have one
    label_run(capsys, model, tmp_path / "r2", 20, 2, *rollout)
    r2_labels = refine_module.labelled_so_far(tmp_path / "r2" / "labels", 20, False)[1]
    runs = [tmp_path / "r", tmp_path / "r2"]
    count, replaced = merge_labels.merge(tmp_path / "ab2", [tmp_path / "a", tmp_path / "b"], runs)
    labels = refine_module.labelled_so_far(tmp_path / "ab2" / "labels", 60)[1]
    expected[40:] = merge_labels.in_cumulative_order(r2_labels)
    assert replaced == len(set(hits) | set(range(40, 60)))
    np.testing.assert_array_equal(labels, expected)


def test_the_command_line_reports_the_labels_it_replaced(
    merge_labels, tiny_model, tmp_path, monkeypatch, capsys
):
    model = tiny_model
    label_run(capsys, model, tmp_path / "a", 20, 1)
    out = tmp_path / "out"
    monkeypatch.setattr(
        "sys.argv",
        ["merge_labels.py", str(out), str(tmp_path / "a"), "--replace-with", str(tmp_path / "a")],
    )
    merge_labels.main()
    assert (
        f"{out}: 20 labelled positions (refine --positions 20), 20 labels from"
        in capsys.readouterr().out
    )
    monkeypatch.setattr("sys.argv", ["merge_labels.py", str(out), str(tmp_path / "a")])
    with pytest.raises(SystemExit, match="exists; merge into a new folder"):
        merge_labels.main()
