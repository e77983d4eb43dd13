"""A damaged London Bridge model file: one line naming the file, exit status 2.

Each case is a copy of the shipped ``models/london-bridge.pt`` changed with
``torch.load``/``torch.save`` (or a file that is not torch's at all):
``load_model`` raises ``ModelFileError`` whose one-line message names the file,
and ``tdgammon match --game london-bridge`` exits 2 with that line, never an
internal error (exit 3) and never a game played with NaN weights. Writes are
atomic and carry a checksum (``tdgammon.models.files``, shared with backgammon).
"""

from __future__ import annotations

import datetime
import math
import zipfile

import pytest
import torch
from cli_runner import run

from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge_players import network as lb_network
from tdgammon.engine.london_bridge_players.factory import SHIPPED_MODEL
from tdgammon.engine.london_bridge_players.network import ValueNetwork, load_model, save_model
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.models import network as bg_network
from tdgammon.models.files import CHECKSUM_KEY, ModelFileError, payload_sha256

RULES = Rules()


def damaged_copy(tmp_path, change, name="damaged.pt"):
    """A copy of the shipped model with ``change(model dict)`` applied."""
    model = torch.load(SHIPPED_MODEL, map_location="cpu", weights_only=True)
    change(model)
    path = tmp_path / name
    torch.save(model, path)
    return path


def set_weight(name, value):
    def change(model):
        model["state_dict"][name].view(-1)[0] = value

    return change


DAMAGES = {
    "hidden-text": (lambda m: m.update(hidden="abc"), "hidden layer sizes 'abc' are not valid"),
    "hidden-none": (lambda m: m.update(hidden=None), "hidden layer sizes None are not valid"),
    "hidden-huge": (lambda m: m.update(hidden=[10**6, 10**6]), "hidden layer sizes"),
    "hidden-empty": (lambda m: m.update(hidden=[]), "hidden layer sizes"),
    "hidden-zero": (lambda m: m.update(hidden=[64, 0]), "hidden layer sizes"),
    "hidden-float": (lambda m: m.update(hidden=[64.0, 32]), "hidden layer sizes"),
    "hidden-other": (lambda m: m.update(hidden=[64]), "weights do not fit the network"),
    "hidden-big-fits-nothing": (
        lambda m: m.update(hidden=[65536, 65536]),
        "weights do not fit the network (layers.0.weight is (64, 245)",
    ),
    "card-list": (lambda m: m.update(card=[1, 2]), "the model card is not a table"),
    "nan-weight": (set_weight("layers.0.weight", math.nan), "layers.0.weight holds NaN"),
    "inf-bias": (set_weight("layers.4.bias", math.inf), "layers.4.bias holds NaN or infinite"),
    "missing-layer": (lambda m: m["state_dict"].pop("layers.2.bias"), "(other layers)"),
    "state-not-dict": (lambda m: m.update(state_dict=[1]), "(other layers)"),
    "int-weights": (
        lambda m: m["state_dict"].update({"layers.0.bias": torch.zeros(64, dtype=torch.int64)}),
        "weights do not fit the network (layers.0.bias)",
    ),
    "not-a-tensor": (
        lambda m: m["state_dict"].update({"layers.0.bias": [0.0] * 64}),
        "weights do not fit the network (layers.0.bias)",
    ),
    "version-text": (lambda m: m.update(format_version="1"), "model format version '1'"),
    "version-tensor": (
        lambda m: m.update(format_version=torch.tensor([1, 1])),
        "model format version",
    ),
    "rules-missing": (lambda m: m.pop("rules"), "rules it was trained under are not recorded"),
    "rules-tensor": (
        lambda m: m.update(rules=torch.tensor([1, 2])),
        "rules it was trained under are not recorded",
    ),
    "format-missing": (lambda m: m.pop("format"), "is not a London Bridge model file"),
}


@pytest.mark.parametrize("case", sorted(DAMAGES))
def test_damaged_model_raises_one_line_naming_the_file(tmp_path, case):
    change, message = DAMAGES[case]
    path = damaged_copy(tmp_path, change, f"{case}.pt")
    with pytest.raises(ModelFileError) as caught:
        load_model(path, RULES)
    text = str(caught.value)
    assert str(path) in text and message in text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"garbage, not a model at all\n" * 20, "not a London Bridge model (not a whole"),
        (None, "not a London Bridge model (not a whole"),  # the shipped file cut in half
        (b"", "not a London Bridge model (not a whole"),
        ("pickle", "not a London Bridge model (it holds objects other than tensors"),
        ("bad-record", "not a readable London Bridge model ("),
    ],
)
def test_unreadable_file_is_one_line_without_torch_advice(tmp_path, content, message):
    path = tmp_path / "garbage.pt"
    shipped = SHIPPED_MODEL.read_bytes()
    if content is None:
        path.write_bytes(shipped[: len(shipped) // 2])
    elif content == "pickle":  # a torch file holding an object weights_only refuses
        torch.save({"format": lb_network.MODEL_FORMAT, "x": datetime.date(2020, 1, 1)}, path)
    elif content == "bad-record":  # a whole zip whose pickle record is damaged
        with zipfile.ZipFile(SHIPPED_MODEL) as source, zipfile.ZipFile(path, "w") as out:
            for info in source.infolist():
                data = source.read(info)
                out.writestr(info, data[:10] if info.filename.endswith("data.pkl") else data)
    else:
        path.write_bytes(content)
    with pytest.raises(ModelFileError) as caught:
        load_model(path, RULES)
    text = str(caught.value)
    assert str(path) in text and message in text
    assert "\n" not in text and "issue" not in text and "weights_only" not in text


def test_not_a_dict_and_missing_file(tmp_path):
    path = tmp_path / "list.pt"
    torch.save([1, 2, 3], path)
    with pytest.raises(ModelFileError, match="no metadata dict") as caught:
        load_model(path, RULES)
    assert str(path) in str(caught.value)
    with pytest.raises(ModelFileError, match="missing.pt: no such London Bridge model file"):
        load_model(tmp_path / "missing.pt", RULES)
    with pytest.raises(ModelFileError, match="a folder, not a London Bridge model file"):
        load_model(tmp_path, RULES)


def test_model_file_error_is_a_tdgammon_error():
    assert issubclass(ModelFileError, TdgammonError)


def match(capsys, path):
    return run(
        capsys, "match", "--game", "london-bridge", "--a", str(path), "--b", "random",
        "--games", "2", "--no-progress",
    )  # fmt: skip


@pytest.mark.parametrize("case", ["hidden-text", "hidden-none", "hidden-huge", "card-list"])
def test_match_with_a_damaged_model_exits_2(tmp_path, capsys, case):
    change, message = DAMAGES[case]
    path = damaged_copy(tmp_path, change, f"{case}.pt")
    status, out, err = match(capsys, path)
    assert status == 2, err
    assert err.startswith("tdgammon: error: ") and err.count("\n") == 1
    assert str(path) in err and message in err


def test_match_with_nan_weights_exits_2_before_playing(tmp_path, capsys):
    path = damaged_copy(tmp_path, set_weight("layers.2.weight", math.nan))
    status, out, err = match(capsys, path)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and str(path) in err and "NaN" in err


def test_match_with_a_garbage_file_exits_2_on_one_line(tmp_path, capsys):
    path = tmp_path / "garbage.pt"
    path.write_bytes(b"\x00\x01 definitely not torch " * 50)
    status, _, err = match(capsys, path)
    assert status == 2
    assert err.count("\n") == 1 and str(path) in err and "not a London Bridge model" in err


def test_the_shipped_model_without_a_checksum_still_loads():
    data = torch.load(SHIPPED_MODEL, map_location="cpu", weights_only=True)
    assert CHECKSUM_KEY not in data
    network, card = load_model(SHIPPED_MODEL, RULES)
    assert network.hidden == tuple(data["hidden"]) and card == data["card"]


def test_save_writes_a_checksum_that_load_verifies(tmp_path):
    torch.manual_seed(0)
    path = tmp_path / "lb.pt"
    model = save_model(path, ValueNetwork((8,)), RULES, {"games": 3})
    data = torch.load(path, map_location="cpu", weights_only=True)
    assert data[CHECKSUM_KEY] == model[CHECKSUM_KEY] == payload_sha256(data)
    assert load_model(path, RULES)[1] == {"games": 3}
    data["card"]["games"] = 4  # changed after it was written, by a plain torch.save
    torch.save(data, path)
    with pytest.raises(ModelFileError, match="checksum mismatch") as caught:
        load_model(path, RULES)
    assert str(path) in str(caught.value)


def test_the_backgammon_reader_verifies_a_london_bridge_file(tmp_path):
    """Both games read through ``tdgammon.models.files``: one digest, one reader."""
    path = tmp_path / "lb.pt"
    model = save_model(path, ValueNetwork((8, 4)), RULES, {"history": [{"a": 1.5}], "b": None})
    assert bg_network.read_torch_file(path)[CHECKSUM_KEY] == model[CHECKSUM_KEY]


def test_save_is_atomic(tmp_path, monkeypatch):
    torch.manual_seed(0)
    path = tmp_path / "best.pt"
    save_model(path, ValueNetwork((8,)), RULES, {"games": 1})
    before = path.read_bytes()
    assert path.stat().st_mode & 0o777 == 0o644
    real_save = torch.save

    def save_then_die(obj, out):
        real_save(obj, out)
        out.truncate(100)
        raise KeyboardInterrupt  # a kill halfway through the write

    monkeypatch.setattr(torch, "save", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        save_model(path, ValueNetwork((8,)), RULES, {"games": 2})
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["best.pt"]  # no temp file left
    assert load_model(path, RULES)[1] == {"games": 1}
