"""tdgammon refine on a damaged --out folder (tdgammon.train.refine): a bad
positions.npz, a file where the labels folder goes, label chunks that are not
probabilities, a folder where a result file goes. Each is one line naming the
file, exit status 2, never an internal error or a silent fit; the files the
folder keeps are written atomically."""

from __future__ import annotations

import io
import json
import re
import shutil

import numpy as np
import pytest
from cli_runner import run

from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.variants import STANDARD
from tdgammon.models.network import build_network, get_preset, save_model
from tdgammon.train.refine import RefineSettings, labelled_so_far, load_positions

TINY = get_preset("tiny")
POSITIONS = 20
"""Positions of the base run: one label chunk, a fit of a moment."""


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """``(model, folder)``: a tiny model and a finished refine folder of it, made once."""
    root = tmp_path_factory.mktemp("refine_base")
    model = root / "tiny.pt"
    save_model(model, TINY, build_network(TINY, seed=3), {"variant": "standard"})
    out = root / "gen"
    assert main(_argv(model, out)) == 0
    return model, out


def _argv(model, out):
    return ["refine", "--model", str(model), "--out", str(out), "--positions", str(POSITIONS)]


def _copy(base, tmp_path):
    """A copy of the base folder to damage, and the command that resumes it."""
    model, folder = base
    out = tmp_path / "copy"
    shutil.copytree(folder, out)
    return out, [*_argv(model, out), "--epochs", "1"]


def _one_line_naming(code, err, path):
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert str(path) in err, err


def test_the_base_folder_resumes(base, tmp_path, capsys):
    """The undamaged copy runs again: what the writer made is never refused."""
    out, argv = _copy(base, tmp_path)
    code, stdout, err = run(capsys, *argv)
    assert code == 0, err
    assert json.loads(stdout.splitlines()[-1])["positions"] == POSITIONS


# ----------------------------------------------------------------------------- positions


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _boards():
    return np.repeat(STANDARD.starting_board()[None, :], POSITIONS, axis=0).astype(np.int8)


def _hundred_on_one_point():
    boards = _boards()
    boards[3, 6] = 100
    return boards


def _npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


DAMAGED_POSITIONS = {
    "truncated": (lambda good: good[: len(good) // 2], "not a positions file"),
    "random bytes": (
        lambda good: np.random.default_rng(0).bytes(len(good)),
        "not a positions file",
    ),
    "empty": (lambda good: b"", "not a positions file"),
    "no boards": (lambda good: _npz(board=_boards()), "not boards"),
    "other arrays too": (lambda good: _npz(boards=_boards(), extra=_boards()), "not boards"),
    "object array": (
        lambda good: _npz(boards=np.array([[1, "a"]] * POSITIONS, dtype=object)),
        "not a positions file",
    ),
    "29 columns": (lambda good: _npz(boards=_boards()[:, :29]), "shape (20, 29)"),
    "float boards": (lambda good: _npz(boards=_boards().astype(np.float32)), "float32"),
    "fewer positions": (lambda good: _npz(boards=_boards()[:-1]), "19 positions"),
    "100 checkers on a point": (
        lambda good: _npz(boards=_hundred_on_one_point()),
        "impossible board",
    ),
    "a single array": (lambda good: _npy(_boards()), "a single array"),
    "groups without candidates": (
        lambda good: _npz(boards=_boards(), groups=np.zeros((3, 2), np.int32)),
        "groups",
    ),
}


@pytest.mark.parametrize("damage", DAMAGED_POSITIONS)
def test_a_damaged_positions_file_is_one_line(base, tmp_path, capsys, damage):
    out, argv = _copy(base, tmp_path)
    path = out / "positions.npz"
    make, message = DAMAGED_POSITIONS[damage]
    path.write_bytes(make(path.read_bytes()))
    with pytest.raises(FormatError, match=re.escape(message)) as caught:
        load_positions(path, RefineSettings(positions=POSITIONS))
    assert str(path) in str(caught.value)
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, path)
    assert message in err


def test_a_folder_named_positions_npz_is_one_line(base, tmp_path, capsys):
    out, argv = _copy(base, tmp_path)
    path = out / "positions.npz"
    path.unlink()
    path.mkdir()
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, path)
    assert "not a positions file" in err


@pytest.mark.parametrize(
    "groups, message",
    [
        (np.zeros((3, 3), np.int32), "shape (3, 3)"),  # 3 plays a decision, not 2
        (np.full((3, 2), POSITIONS, np.int32), "outside the 20 boards"),
        (np.array([[0, 1], [-1, -1]], np.int32), "no play"),
        (np.zeros((3, 2), np.float32), "float32"),
    ],
)
def test_bad_decisions_are_one_line(groups, message, tmp_path):
    path = tmp_path / "positions.npz"
    path.write_bytes(_npz(boards=_boards(), groups=groups))
    settings = RefineSettings(positions=POSITIONS, candidates=2)
    with pytest.raises(FormatError, match=re.escape(message)) as caught:
        load_positions(path, settings)
    assert str(path) in str(caught.value)
    path.write_bytes(_npz(boards=_boards(), groups=np.array([[0, -1], [1, 2]], np.int64)))
    boards, kept = load_positions(path, settings)
    assert boards.dtype == np.int8 and kept.dtype == np.int32 and kept.shape == (2, 2)


# ----------------------------------------------------------------------------- labels


def test_a_file_where_the_labels_folder_goes_is_one_line(base, tmp_path, capsys):
    out, argv = _copy(base, tmp_path)
    labels = out / "labels"
    shutil.rmtree(labels)
    labels.write_text("not a folder\n")
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, labels)
    assert "folder of label chunks" in err
    code, _, err = run(capsys, *argv, "--labelled-only")
    _one_line_naming(code, err, labels)


def _chunk(base, tmp_path):
    out, argv = _copy(base, tmp_path)
    return out / "labels" / "chunk-00000.npy", argv


@pytest.mark.parametrize(
    "row, message",
    [
        ([7.0] * 5, "outside [0, 1]"),
        ([-0.1, 0.0, 0.0, 0.0, 0.0], "outside [0, 1]"),
        ([0.5, 0.6, 0.1, 0.2, 0.1], "win gammon above win"),
        ([0.5, 0.3, 0.4, 0.2, 0.1], "win backgammon above win gammon"),
        ([0.5, 0.3, 0.1, 0.6, 0.1], "lose gammon above 1 - win"),
        ([0.5, 0.3, 0.1, 0.2, 0.3], "lose backgammon above lose gammon"),
        ([np.nan, 0.0, 0.0, 0.0, 0.0], "not a finite number"),
    ],
)
def test_labels_that_are_not_probabilities_are_one_line(base, tmp_path, capsys, row, message):
    path, argv = _chunk(base, tmp_path)
    values = np.load(path)
    values[5] = row
    np.save(path, values)
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, path)
    assert message in err and "row 5" in err
    code, _, err = run(capsys, *argv, "--labelled-only")
    _one_line_naming(code, err, path)


def test_a_chunk_of_sevens_is_one_line(base, tmp_path, capsys):
    path, argv = _chunk(base, tmp_path)
    np.save(path, np.full((POSITIONS, 5), 7.0, np.float32))
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, path)
    assert "outside [0, 1]" in err


@pytest.mark.parametrize(
    "values, message",
    [
        (np.full((POSITIONS, 5), 0.0, np.int32), "int32"),
        (np.full((POSITIONS, 4), 0.0, np.float32), "shape (20, 4)"),
        (np.full((POSITIONS,), "a"), "<U1"),
    ],
)
def test_a_chunk_of_other_arrays_is_one_line(base, tmp_path, capsys, values, message):
    path, argv = _chunk(base, tmp_path)
    np.save(path, values)
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, path)
    assert message in err


@pytest.mark.parametrize(
    "content",
    [b"", b"\x93NUMPY garbage", _npz(labels=np.zeros((POSITIONS, 5), np.float32))],
    ids=["empty", "bad header", "an npz"],
)
def test_an_unreadable_chunk_is_one_line(base, tmp_path, capsys, content):
    path, argv = _chunk(base, tmp_path)
    path.write_bytes(content)
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, path)


def test_labels_as_the_writer_makes_them_are_kept(tmp_path):
    """Search labels within float32 rounding of [0, 1] and of the cumulative
    order pass; rollout labels (clipped means, ``consistent=False``) may have
    wg above win and pass, but not values outside [0, 1]."""
    folder = tmp_path / "labels"
    folder.mkdir()
    path = folder / "chunk-00000.npy"
    edge = np.array([[1 + 2.4e-7, 1.0, 1.0, 2.4e-7, 0.0], [0.5, 0.2, 0.1, 0.5 + 1e-6, 0.3]])
    np.save(path, edge.astype(np.float32))
    assert labelled_so_far(folder, 2)[1].shape == (2, 5)
    rollout = np.array([[0.5, 0.6, 0.0, 0.0, 0.0], [0.3, 0.0, 0.0, 0.1, 0.2]], np.float32)
    np.save(path, rollout)
    with pytest.raises(FormatError, match="above win"):
        labelled_so_far(folder, 2)
    np.testing.assert_array_equal(labelled_so_far(folder, 2, consistent=False)[1], rollout)
    np.save(path, rollout + 1.0)
    with pytest.raises(FormatError, match=r"outside \[0, 1\]"):
        labelled_so_far(folder, 2, consistent=False)


def test_rollout_labels_resume(base, tmp_path, capsys):
    """A rollout run's chunk (whose means need not keep the cumulative order) is
    read back by the same command."""
    model, _ = base
    out = tmp_path / "rollout"
    argv = [*_argv(model, out), "--epochs", "1", "--rollout-trials", "2"]
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    code, _, err = run(capsys, *argv, "--labelled-only")
    assert code == 0, err


# ----------------------------------------------------------------------------- results


@pytest.mark.parametrize("name", ["model.pt", "report.json", "history.jsonl"])
def test_a_folder_where_a_result_file_goes_is_refused_first(base, tmp_path, capsys, name):
    out, argv = _copy(base, tmp_path)
    target = out / name
    target.unlink()
    target.mkdir()
    code, stdout, err = run(capsys, *argv)
    _one_line_naming(code, err, target)
    assert "positions:" not in stdout  # refused before any work


def test_the_kept_files_are_written_atomically(base, tmp_path, capsys, monkeypatch):
    """refine.json, the positions, the labels, history.jsonl, report.json and the
    model all go through tdgammon.models.atomic (temp file, then os.replace)."""
    import tdgammon.models.atomic as atomic

    written = []
    real_bytes, real_torch = atomic.atomic_write_bytes, atomic.atomic_torch_save

    def record_bytes(path, data):
        written.append(path.name)
        real_bytes(path, data)

    def record_torch(obj, path):
        written.append(path.name)
        real_torch(obj, path)

    monkeypatch.setattr(atomic, "atomic_write_bytes", record_bytes)
    monkeypatch.setattr(atomic, "atomic_torch_save", record_torch)
    model, _ = base
    out = tmp_path / "fresh"
    code, _, err = run(capsys, *_argv(model, out), "--epochs", "1")
    assert code == 0, err
    kept = {"refine.json", "positions.npz", "chunk-00000.npy", "history.jsonl", "report.json"}
    assert kept | {"model.pt"} <= set(written)
    assert {p.name for p in out.iterdir()} == (kept - {"chunk-00000.npy"}) | {"labels", "model.pt"}
    assert json.loads((out / "refine.json").read_text())["positions"] == POSITIONS
    assert len((out / "history.jsonl").read_text().splitlines()) == 2


def test_a_cut_short_refine_json_is_one_line(base, tmp_path, capsys):
    out, argv = _copy(base, tmp_path)
    path = out / "refine.json"
    path.write_text(path.read_text()[:10])
    code, _, err = run(capsys, *argv)
    _one_line_naming(code, err, path)
    assert "unreadable" in err
