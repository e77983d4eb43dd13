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


def label_run(capsys, model: Path, out: Path, positions: int, seed: int) -> None:
    argv = ["refine", "--model", str(model), "--out", str(out), "--positions", str(positions)]
    code, _, err = run(capsys, *argv, "--plies", "1", "--epochs", "1", "--seed", str(seed))
    assert code == 0, err


def test_merged_folder_holds_both_runs_and_refine_fits_it(
    merge_labels, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    model = tmp_path / "tiny.pt"
    save_model(model, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=3))
    label_run(capsys, model, tmp_path / "a", 30, 1)  # chunks of 20 and 10
    label_run(capsys, model, tmp_path / "b", 50, 2)
    merged = tmp_path / "ab"
    assert merge_labels.merge(merged, [tmp_path / "a", tmp_path / "b"]) == 80

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
    merge_labels, tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    model = tmp_path / "tiny.pt"
    save_model(model, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=3))
    label_run(capsys, model, tmp_path / "a", 40, 1)
    (tmp_path / "a" / "labels" / "chunk-00001.npy").unlink()
    with pytest.raises(TdgammonError, match="20 of 40 positions labelled; finish its run first"):
        merge_labels.merge(tmp_path / "out", [tmp_path / "a"])
    assert not (tmp_path / "out").exists()
    with pytest.raises(TdgammonError, match="exists; merge into a new folder"):
        merge_labels.merge(tmp_path / "a", [tmp_path / "a"])
    with pytest.raises(TdgammonError, match="not a refine positions file"):
        merge_labels.merge(tmp_path / "out", [tmp_path / "missing"])
