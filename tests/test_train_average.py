"""Weight averaging of training snapshots (train/average.py, `tdgammon average`)."""

from __future__ import annotations

import pytest
import torch

from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.rules.errors import FormatError
from tdgammon.models.network import build_network, get_preset, load_model, save_model
from tdgammon.train.average import average_models


def _model(path, preset="tiny", seed=0, card=None):
    spec = get_preset(preset)
    save_model(path, spec, build_network(spec, seed=seed), card or {"games": seed})
    return path


def test_the_average_is_the_weighted_mean_of_the_weights(tmp_path):
    a = _model(tmp_path / "a.pt", seed=1, card={"games": 10, "race_model": "r.pt"})
    b = _model(tmp_path / "b.pt", seed=2, card={"games": 20})
    preset, network, card = average_models([a, b], [3.0, 1.0])
    first, second = load_model(a)[1].state_dict(), load_model(b)[1].state_dict()
    for key, value in network.state_dict().items():
        assert torch.allclose(value, 0.75 * first[key] + 0.25 * second[key], atol=1e-7)
    assert preset.name == "tiny"
    assert "race_model" not in card
    assert [s["games"] for s in card["averaged_from"]] == [10, 20]
    _, huge, _ = average_models([a, b], [1.5e308, 0.5e308])  # their sum overflows a float
    for key, value in huge.state_dict().items():
        assert torch.allclose(value, 0.75 * first[key] + 0.25 * second[key], atol=1e-7)
    _, equal, _ = average_models([a, b])
    for key, value in equal.state_dict().items():
        assert torch.allclose(value, (first[key] + second[key]) / 2, atol=1e-7)


def test_averaging_refuses_other_shapes_and_bad_weights(tmp_path):
    a = _model(tmp_path / "a.pt", seed=1)
    wide = _model(tmp_path / "wide.pt", preset="tesauro80", seed=2)
    with pytest.raises(FormatError, match="does not match"):
        average_models([a, wide])
    with pytest.raises(FormatError, match="at least two"):
        average_models([a])
    for weights in ([1.0], [0.0, 0.0], [float("nan"), 1.0], [float("inf"), 1.0], [-1.0, 2.0]):
        with pytest.raises(FormatError, match="one finite, non-negative weight"):
            average_models([a, a], weights)


def test_averaging_refuses_models_of_another_variant(tmp_path):
    a = _model(tmp_path / "a.pt", seed=1)
    dutch = _model(tmp_path / "d.pt", seed=2, card={"variant": "dutch"})
    with pytest.raises(FormatError, match="d.pt: trained for dutch, not standard"):
        average_models([a, dutch])


def test_a_race_model_outside_the_folder_is_refused_before_anything_is_written(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    a = _model(tmp_path / "sub" / "a.pt", seed=1, card={"race_model": "../r.pt"})
    b = _model(tmp_path / "sub" / "b.pt", seed=2, card={"race_model": "../r.pt"})
    _model(tmp_path / "r.pt", seed=3)
    (tmp_path / "out").mkdir()
    assert main(["average", str(a), str(b), "--out", str(tmp_path / "out" / "o.pt")]) == 2
    assert "race_model must name a file beside the model" in capsys.readouterr().err
    assert list((tmp_path / "out").iterdir()) == []


def test_out_never_overwrites_another_kind_of_file(tmp_path, capsys):
    from tdgammon.train.checkpoint import CHECKPOINT_FORMAT

    a = _model(tmp_path / "a.pt", seed=1)
    b = _model(tmp_path / "b.pt", seed=2)
    record = tmp_path / "keep.mat"
    record.write_text('; [Site "here"]\n 5 point match\n')
    checkpoint = tmp_path / "checkpoint.pt"
    torch.save({"format": CHECKPOINT_FORMAT}, checkpoint)
    for target in (record, checkpoint):
        before = target.read_bytes()
        assert main(["average", str(a), str(b), "--out", str(target)]) == 2
        err = capsys.readouterr().err
        assert "exists and is not a tdgammon-model file" in err and err.count("\n") == 1
        assert target.read_bytes() == before
    assert main(["average", str(a), str(b), "--out", str(a)]) == 0  # a model may be replaced
    assert load_model(a)[2]["averaged_from"][1]["file"] == b.as_posix()


def test_cli_writes_a_loadable_model_and_refuses_bad_arguments(tmp_path, capsys):
    a = _model(tmp_path / "a.pt", seed=1)
    b = _model(tmp_path / "b.pt", seed=2)
    out = tmp_path / "avg.pt"
    assert main(["average", str(a), str(b), "--out", str(out)]) == 0
    assert load_model(out)[0].name == "tiny"
    capsys.readouterr()
    assert main(["average", str(a), str(tmp_path / "missing.pt"), "--out", str(out)]) == 2
    assert "missing.pt: no such model file" in capsys.readouterr().err
    assert main(["average", str(a), str(b), "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    assert main(["average", str(a), str(tmp_path / "junk.pt"), "--out", str(out)]) == 2
    assert "junk.pt" in capsys.readouterr().err


def test_a_shared_race_evaluator_is_kept_and_copied_beside_the_average(tmp_path, capsys):
    """Snapshots of one phase set name the same race file: the average keeps it."""
    for folder in ("one", "two", "out"):
        (tmp_path / folder).mkdir()
    for folder in ("one", "two"):
        (tmp_path / folder / "race.pt").write_bytes(b"the race evaluator")
    a = _model(tmp_path / "one" / "a.pt", seed=1, card={"games": 1, "race_model": "race.pt"})
    b = _model(tmp_path / "two" / "b.pt", seed=2, card={"games": 2, "race_model": "race.pt"})
    assert average_models([a, b])[2]["race_model"] == "race.pt"
    out = tmp_path / "out" / "avg.pt"
    assert main(["average", str(a), str(b), "--out", str(out)]) == 0
    assert '"race_model": "race.pt"' in capsys.readouterr().out
    assert load_model(out)[2]["race_model"] == "race.pt"
    assert (tmp_path / "out" / "race.pt").read_bytes() == b"the race evaluator"


def test_different_race_evaluators_are_dropped_with_a_note(tmp_path, capsys):
    (tmp_path / "race_a.pt").write_bytes(b"one race evaluator")
    (tmp_path / "race_b.pt").write_bytes(b"another race evaluator")
    a = _model(tmp_path / "a.pt", seed=1, card={"race_model": "race_a.pt"})
    b = _model(tmp_path / "b.pt", seed=2, card={"race_model": "race_b.pt"})
    out = tmp_path / "avg.pt"
    assert main(["average", str(a), str(b), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "do not share one race evaluator" in captured.err
    assert '"race_model": null' in captured.out
    card = load_model(out)[2]
    assert "race_model" not in card
    assert [s["race_model"] for s in card["averaged_from"]] == ["race_a.pt", "race_b.pt"]


def test_another_race_file_at_the_output_is_never_overwritten(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "src" / "race.pt").write_bytes(b"the race evaluator")
    (tmp_path / "out" / "race.pt").write_bytes(b"a user's other race evaluator")
    a = _model(tmp_path / "src" / "a.pt", seed=1, card={"race_model": "race.pt"})
    b = _model(tmp_path / "src" / "b.pt", seed=2, card={"race_model": "race.pt"})
    out = tmp_path / "out" / "avg.pt"
    assert main(["average", str(a), str(b), "--out", str(out)]) == 2
    assert "is another race evaluator" in capsys.readouterr().err
    assert not out.exists()
    assert (tmp_path / "out" / "race.pt").read_bytes() == b"a user's other race evaluator"
