"""``scripts/select_positions.py``: positions of some kinds for a label run."""

from __future__ import annotations

import numpy as np
import pytest
from cli_runner import run
from script_loader import load_script

import tdgammon.train.refine as refine_module
from tdgammon.engine.rules.board import board_from_points, starting_board
from tdgammon.models.network import PRESETS, build_network, save_model
from tdgammon.train.choices import position_kinds
from tdgammon.train.refine import save_npz

BACK = "mover 3+ checkers back"
HOLDING = "mover holds an anchor, opponent bearing in (under 100 pips)"


@pytest.fixture(scope="module")
def select_positions():
    return load_script("select_positions")


def test_it_keeps_the_kinds_named(select_positions, tmp_path, capsys):
    holding = board_from_points({20: 2, 21: 1, 6: 4, 5: 3, 4: 3}, {1: 5, 2: 4, 3: 3, 6: 2, 9: 1})
    back = board_from_points({25: 1, 24: 2, 6: 5, 8: 3, 13: 4}, {24: 2, 6: 5, 8: 3, 13: 5})
    boards = np.stack([starting_board(), holding, back, starting_board()])
    (tmp_path / "src").mkdir()
    save_npz(tmp_path / "src" / "positions.npz", boards=boards)

    kept = select_positions.select(tmp_path / "src", [HOLDING])
    np.testing.assert_array_equal(kept, boards[[1]])
    kept = select_positions.select(tmp_path / "src", [HOLDING, BACK])
    np.testing.assert_array_equal(kept, boards[[1, 2]])

    out = tmp_path / "out"
    select_positions.main([str(out), str(tmp_path / "src"), "--kind", BACK])
    assert (
        capsys.readouterr().out.strip() == f"{out}: 2 positions (refine --out {out} --positions 2)"
    )
    np.testing.assert_array_equal(np.load(out / "positions.npz")["boards"], boards[[1, 2]])
    with pytest.raises(SystemExit, match="positions.npz exists; select into a new folder"):
        select_positions.main([str(out), str(tmp_path / "src"), "--kind", BACK])
    with pytest.raises(SystemExit, match="unknown kind 'crashed'; the kinds: opening"):
        select_positions.main([str(tmp_path / "o2"), str(tmp_path / "src"), "--kind", "crashed"])
    with pytest.raises(SystemExit, match="not a positions file"):
        select_positions.main([str(tmp_path / "o2"), str(tmp_path / "missing"), "--kind", BACK])
    (tmp_path / "npy").mkdir()
    with open(tmp_path / "npy" / "positions.npz", "wb") as single:  # one array, not an archive
        np.save(single, boards)
    with pytest.raises(SystemExit, match="a single array, not a positions file"):
        select_positions.main([str(tmp_path / "o2"), str(tmp_path / "npy"), "--kind", BACK])
    assert not (tmp_path / "o2").exists()

    select_positions.main(["x", "y", "--kind", "list"])
    assert capsys.readouterr().out.splitlines() == list(position_kinds(boards))


def test_skip_leaves_out_what_a_run_has_labelled(select_positions, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    model = tmp_path / "tiny.pt"
    save_model(model, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=3))
    argv = ["refine", "--model", str(model), "--out", str(tmp_path / "a"), "--positions", "40"]
    code, _, err = run(capsys, *argv, "--plies", "1", "--epochs", "1", "--seed", "1")
    assert code == 0, err
    (tmp_path / "a" / "labels" / "chunk-00000.npy").unlink()  # rows 0..19 unlabelled again
    boards = np.load(tmp_path / "a" / "positions.npz")["boards"]
    kinds = ["mover 20+ pips ahead", "mover 20+ pips behind", "opening (both sides 140+ pips)"]
    table = position_kinds(boards)
    wanted = table[kinds[0]] | table[kinds[1]] | table[kinds[2]]
    labelled = {b.tobytes() for b in boards[20:]}
    expected = [b for b, w in zip(boards, wanted, strict=True) if w and b.tobytes() not in labelled]
    kept = select_positions.select(tmp_path / "a", kinds, skip=tmp_path / "a")
    assert len(expected) > 0
    np.testing.assert_array_equal(kept, np.array(expected))
