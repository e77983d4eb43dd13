"""``scripts/fit_probe.py``: the exact next-roll inputs and the held-out fit."""

from __future__ import annotations

import numpy as np
import pytest
from script_loader import load_script
from test_merge_labels import label_run

import tdgammon.train.refine as refine_module
from tdgammon.engine.flow.random_play import random_boards
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.models.features import SIDE_FEATURES, SIDE_SIZE, expert_features
from tdgammon.models.network import PRESETS, build_network, save_model


@pytest.fixture(scope="module")
def fit_probe():
    return load_script("fit_probe")


def brute_force(probe, board: np.ndarray) -> np.ndarray:
    """The same inputs from the slow reference generator, one roll at a time."""
    out = np.zeros(len(probe.LOOKAHEAD_NAMES))
    for (d1, d2), weight in zip(probe.ROLLS, probe.ROLL_WEIGHTS, strict=True):
        plays = legal_plays(board, (d1, d2))
        after = np.array([p.board for p in plays] if plays else [board], dtype=np.int8)
        features = expert_features(after)
        best = []
        for _, side, name, reduce in probe.LOOKAHEAD:
            column = features[:, SIDE_FEATURES.index(name) + side * SIDE_SIZE]
            best.append(reduce.reduce(column))
        best.append(float(best[0] == 0))
        out += weight * np.array(best)
    return out


def test_lookahead_features_match_the_reference_generator(fit_probe):
    boards = random_boards(40, np.random.default_rng(5))
    fast = fit_probe.lookahead_features(boards)
    slow = np.stack([brute_force(fit_probe, b) for b in boards])
    np.testing.assert_allclose(fast, slow, atol=1e-6)
    assert fast[:, fit_probe.LOOKAHEAD_NAMES.index("safe_share")].max() > 0


def test_probe_fits_with_and_without_extra_inputs(fit_probe, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(refine_module, "CHUNK_POSITIONS", 20)
    model = tmp_path / "tiny.pt"
    save_model(model, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=3))
    label_run(capsys, model, tmp_path / "a", 40, 1)
    label_run(capsys, model, tmp_path / "b", 20, 2)
    capsys.readouterr()
    argv = ["--model", str(model), "--train", str(tmp_path / "a"), "--test", str(tmp_path / "b")]
    for extra in ("none", "min_p1,safe_share"):
        assert fit_probe.main([*argv, "--lookahead", extra, "--epochs", "2"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].startswith("50 training positions, 10 held out")
        errors = [float(line.split("error ")[1].split()[0]) for line in lines[1:]]
        assert len(errors) == 3 and all(0 <= e < 4 for e in errors)
    assert "min_p1" in lines[0] and "safe_share" in lines[0]


def test_probe_names_bad_input(fit_probe, tmp_path, capsys):
    missing = ["--model", str(tmp_path / "none.pt"), "--train", str(tmp_path / "a")]
    with pytest.raises(SystemExit) as exit_info:
        fit_probe.main([*missing, "--test", str(tmp_path / "b"), "--lookahead", "min_p9"])
    assert exit_info.value.code == 2
    assert "--lookahead: all, none or some of min_p1" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        fit_probe.main([*missing, "--test", str(tmp_path / "b")])
    assert str(exit_info.value).startswith("fit_probe: ") and "none.pt" in str(exit_info.value)
