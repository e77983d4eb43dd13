"""Networks: consistent outputs, batch independence, model files and their errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.rules.outputs import (
    LOSE_BACKGAMMON,
    LOSE_GAMMON,
    WIN,
    WIN_BACKGAMMON,
    WIN_GAMMON,
    equity,
    invert,
    outcome_probs,
)
from tdgammon.models.encoding import ENCODINGS
from tdgammon.models.network import (
    CHECKSUM_KEY,
    PRESETS,
    ModelFileError,
    build_network,
    load_model,
    model_record,
    payload_sha256,
    save_model,
)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_outputs_are_consistent_probabilities(name):
    preset = PRESETS[name]
    network = build_network(preset, seed=3)
    with torch.no_grad():
        # large random weights push the outputs to the extremes
        for p in network.parameters():
            p.mul_(20)
        x = torch.rand(500, ENCODINGS[preset.encoding].size) * 4
        out = network(x).numpy()
    assert out.shape == (500, 5) and out.dtype == np.float32
    assert (out >= 0).all() and (out <= 1).all()
    assert (out[:, WIN_GAMMON] <= out[:, WIN] + 1e-7).all()
    assert (out[:, WIN_BACKGAMMON] <= out[:, WIN_GAMMON] + 1e-7).all()
    assert (out[:, LOSE_GAMMON] <= 1 - out[:, WIN] + 1e-7).all()
    assert (out[:, LOSE_BACKGAMMON] <= out[:, LOSE_GAMMON] + 1e-7).all()


def test_network_output_does_not_depend_on_the_batch():
    preset = PRESETS["tesauro80"]
    network = build_network(preset, seed=1)
    boards, _ = random_game_positions(256, np.random.default_rng(2))
    x = torch.from_numpy(ENCODINGS[preset.encoding].encode(boards))
    with torch.no_grad():
        whole = network(x)
        parts = torch.cat([network(x[i : i + 1]) for i in range(0, 256, 51)])
    torch.testing.assert_close(parts, whole[::51], rtol=1e-5, atol=1e-6)


def test_seeded_build_is_reproducible_and_leaves_global_rng_alone():
    torch.manual_seed(0)
    before = torch.rand(1)
    torch.manual_seed(0)
    a = build_network(PRESETS["tiny"], seed=5)
    after = torch.rand(1)
    b = build_network(PRESETS["tiny"], seed=5)
    assert torch.equal(before, after)
    for p, q in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(p, q)


def test_invert_equity_and_outcomes():
    p = np.array([[0.6, 0.2, 0.05, 0.1, 0.01]], dtype=np.float32)
    q = invert(p)
    np.testing.assert_allclose(q, [[0.4, 0.1, 0.01, 0.2, 0.05]])
    np.testing.assert_allclose(invert(q), p)
    assert equity(q)[0] == pytest.approx(-equity(p)[0])
    assert equity(p)[0] == pytest.approx(2 * 0.6 - 1 + 0.2 - 0.1 + 0.05 - 0.01)
    np.testing.assert_array_equal(
        outcome_probs(np.array([1, 2, 3])),
        [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0]],
    )
    assert equity(outcome_probs(np.array([1, 2, 3]))).tolist() == [1, 2, 3]
    assert WIN == 0


def test_model_file_round_trip(tmp_path):
    preset = PRESETS["tesauro80"]
    network = build_network(preset, seed=9)
    path = tmp_path / "m.pt"
    save_model(path, preset, network, {"games": 12})
    loaded_preset, loaded, card = load_model(path)
    assert loaded_preset.name == "tesauro80" and loaded_preset.encoding == "raw"
    assert card == {"games": 12}
    for p, q in zip(network.parameters(), loaded.parameters(), strict=True):
        assert torch.equal(p, q)
    assert not list(tmp_path.glob(".*tmp"))  # no temp file left behind


def test_bad_model_files_name_the_file(tmp_path):
    missing = tmp_path / "missing.pt"
    with pytest.raises(ModelFileError, match="missing.pt"):
        load_model(missing)
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"\x00\x01 not torch")
    with pytest.raises(ModelFileError, match="garbage.pt"):
        load_model(garbage)
    truncated = tmp_path / "truncated.pt"
    save_model(truncated, PRESETS["tiny"], build_network(PRESETS["tiny"]))
    truncated.write_bytes(truncated.read_bytes()[:200])
    with pytest.raises(ModelFileError, match="truncated.pt"):
        load_model(truncated)
    record = model_record(PRESETS["tiny"], build_network(PRESETS["tiny"]))
    record["encoding_version"] = 99
    record[CHECKSUM_KEY] = payload_sha256(record)  # damaged by its writer, not on disk
    old = tmp_path / "old.pt"
    torch.save(record, old)
    with pytest.raises(ModelFileError, match="old.pt.*version"):
        load_model(old)
    record = model_record(PRESETS["tiny"], build_network(PRESETS["tiny"]))
    record["hidden"] = [9]
    record[CHECKSUM_KEY] = payload_sha256(record)
    wrong = tmp_path / "wrong.pt"
    torch.save(record, wrong)
    with pytest.raises(ModelFileError, match="wrong.pt.*do not fit"):
        load_model(wrong)


def _saved_record(tmp_path, name: str, change) -> str:
    """A tiny model record changed by ``change(record)``, saved as ``name`` with the
    checksum of the changed contents (as a faulty writer would save it)."""
    record = model_record(PRESETS["tiny"], build_network(PRESETS["tiny"], seed=1))
    change(record)
    record[CHECKSUM_KEY] = payload_sha256(record)
    path = tmp_path / name
    torch.save(record, path)
    return str(path)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_weights_that_are_not_finite_are_refused(tmp_path, value):
    def poison(record):
        record["state_dict"]["head.bias"][2] = value

    path = _saved_record(tmp_path, "poisoned.pt", poison)
    with pytest.raises(ModelFileError, match="poisoned.pt: head.bias holds NaN or infinite"):
        load_model(path)


@pytest.mark.parametrize(
    "hidden", [[0], [-8], [10**12], [8, 8], [], "8", [8.0], [True], None, list(range(1, 20))]
)
def test_crafted_hidden_sizes_are_refused_before_building(tmp_path, hidden):
    def craft(record):
        record["hidden"] = hidden

    path = _saved_record(tmp_path, "crafted.pt", craft)
    with pytest.raises(ModelFileError, match="crafted.pt: (hidden layer sizes|weights do not fit)"):
        load_model(path)


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["state_dict"].pop("head.bias"),
        lambda r: r["state_dict"].update({"extra": torch.zeros(1)}),
        lambda r: r["state_dict"].update({"head.bias": torch.zeros(5, dtype=torch.int64)}),
        lambda r: r["state_dict"].update({"head.bias": [0.0] * 5}),
        lambda r: r["state_dict"].update({"head.bias": torch.zeros(6)}),
        lambda r: r["state_dict"].update(
            {"head.weight": r["state_dict"]["head.weight"].to_sparse()}
        ),
        lambda r: r.update(state_dict=None),
    ],
    ids=["missing", "extra", "integers", "not-a-tensor", "wrong-shape", "sparse", "no-weights"],
)
def test_weights_that_do_not_fit_are_refused(tmp_path, change):
    with pytest.raises(ModelFileError, match="odd.pt: weights do not fit preset 'tiny'"):
        load_model(_saved_record(tmp_path, "odd.pt", change))


def test_a_description_that_is_not_text_is_ignored(tmp_path):
    def craft(record):
        record["preset_fields"] = 3

    preset, _, _ = load_model(_saved_record(tmp_path, "plain.pt", craft))
    assert preset.name == "tiny" and preset.description == ""


@pytest.mark.parametrize("card", [[1, 2], {"variant": "chess"}, {"variant": ["dutch"]}])
def test_a_card_that_is_not_a_table_or_names_no_known_variant_is_refused(tmp_path, card):
    def craft(record):
        record["card"] = card

    with pytest.raises(ModelFileError, match="odd-card.pt: the model card"):
        load_model(_saved_record(tmp_path, "odd-card.pt", craft))


def test_a_checksum_is_verified_and_independent_of_the_file_layout(tmp_path):
    record = model_record(PRESETS["tiny"], build_network(PRESETS["tiny"], seed=1))
    assert record[CHECKSUM_KEY] == payload_sha256(record)  # every model file carries one
    path = tmp_path / "summed.pt"
    torch.save(record, path)
    assert load_model(path)[0].name == "tiny"  # the sum of the loaded copy is the same
    record["state_dict"]["head.bias"][0] += 1.0
    torch.save(record, path)
    with pytest.raises(ModelFileError, match="summed.pt: checksum mismatch"):
        load_model(path)
    torch.save({"format": "x", "odd": torch.zeros(3, 3).to_sparse(), CHECKSUM_KEY: "0"}, path)
    with pytest.raises(ModelFileError, match="summed.pt: checksum mismatch"):
        load_model(path)
    del record[CHECKSUM_KEY]  # a file written before model files carried a checksum
    torch.save(record, path)
    assert load_model(path)[0].name == "tiny"


def test_a_saved_model_file_with_damaged_bytes_is_refused(tmp_path, capsys):
    """Bytes changed inside a weight tensor (torch does not check its zip's CRCs)."""
    from tdgammon.engine.interfaces.cli import main

    path = tmp_path / "damaged.pt"
    save_model(path, PRESETS["tiny"], build_network(PRESETS["tiny"], seed=1))
    data = bytearray(path.read_bytes())
    weights = load_model(path)[1].state_dict()["body.0.weight"].numpy().tobytes()
    at = bytes(data).index(weights[:64])
    data[at + 8 : at + 16] = bytes(8)
    path.write_bytes(bytes(data))
    assert main(["eval", "--plies", "0", "--model", str(path), "4HPwATDgc/ABMA"]) == 2
    err = capsys.readouterr().err
    assert "damaged.pt: checksum mismatch" in err and err.count("\n") == 1


def test_widening_keeps_the_function():
    from tdgammon.engine.rules.errors import TdgammonError
    from tdgammon.models.network import build_network, get_preset, widen_network

    tiny, wide = get_preset("tiny"), get_preset("tesauro80")
    network = build_network(tiny, seed=4)
    widened = widen_network(network, wide, seed=1)
    boards, _ = random_game_positions(200, np.random.default_rng(3))
    inputs = torch.from_numpy(ENCODINGS["raw"].encode(boards))
    with torch.no_grad():
        torch.testing.assert_close(widened(inputs), network(inputs), atol=1e-6, rtol=0)
    with pytest.raises(TdgammonError, match="other inputs"):
        widen_network(network, get_preset("expert256"))
