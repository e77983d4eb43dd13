"""TD-Gammon-style networks, named presets, and model files.

``TDNetwork`` maps encoded positions ``(B, N) float32`` (view of the player
about to roll) to the five cumulative probabilities of ``tdgammon.engine.rules.outputs``,
``(B, 5) float32``. Consistency is built into the output layer rather than
trained in: five logits give ``p(win)``, ``p(gammon | win)``,
``p(backgammon | gammon, win)`` and the same two for losses, and the
cumulative outputs are their products::

    win = s0,  wg = win * s1,  wbg = wg * s2,
    lg = (1 - win) * s3,  lbg = lg * s4          (s = sigmoid(logits))

so ``wg <= win``, ``wbg <= wg``, ``lg <= 1 - win``, ``lbg <= lg`` always hold.

A model file is a small ``torch.save`` dict (loaded with ``weights_only``):
``{"format": MODEL_FORMAT, "format_version", "preset", "encoding",
"encoding_version", "hidden", "state_dict", "card": {...}}``. Training
checkpoints embed the same dict under ``"model"``, so ``load_model`` reads
both. Loading checks what it reads: the hidden sizes against the weights'
shapes, finite weights, the card's variant, and the SHA-256 of the contents
under ``CHECKSUM_KEY`` (written into every model file and checkpoint; files
written before model files carried it load without the check).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch import nn

from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outputs import N_OUTPUTS
from tdgammon.engine.rules.variants import VARIANTS
from tdgammon.models.encoding import ENCODINGS
from tdgammon.models.files import (
    CHECKSUM_KEY,
    ModelFileError,
    check_weights,
    checked_hidden,
    payload_sha256,
    read_torch_file,
)

MODEL_FORMAT = "tdgammon-model"
MODEL_FORMAT_VERSION = 1


@dataclass(frozen=True)
class Preset:
    """A named network shape."""

    name: str
    """Key in ``PRESETS``; stored in every checkpoint."""
    encoding: str
    """Input encoding name (``tdgammon.models.encoding.ENCODINGS``)."""
    hidden: tuple[int, ...]
    """Sizes of the sigmoid hidden layers."""
    description: str
    """One line for humans."""


PRESETS = {
    "tesauro80": Preset("tesauro80", "raw", (80,), "Tesauro-size: 198 raw inputs, 80 hidden"),
    "extended128": Preset(
        "extended128", "extended", (128,), "extended inputs (raw + 19 features), 128 hidden"
    ),
    "expert128": Preset(
        "expert128", "expert", (128,), "expert inputs (raw + 56 features), 128 hidden"
    ),
    "expert256": Preset(
        "expert256", "expert", (256,), "expert inputs (raw + 56 features), 256 hidden"
    ),
    "tiny": Preset("tiny", "raw", (8,), "8 hidden units: for tests only"),
    "hand40": Preset("hand40", "raw_hand", (40,), "variants: 198 raw + 2 hand inputs, 40 hidden"),
    "hand80": Preset("hand80", "raw_hand", (80,), "variants: 198 raw + 2 hand inputs, 80 hidden"),
    "tiny_hand": Preset("tiny_hand", "raw_hand", (8,), "raw + hand inputs, 8 hidden: tests only"),
}


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise TdgammonError(
            f"unknown network preset {name!r}; known: {', '.join(sorted(PRESETS))}"
        ) from None


class TDNetwork(nn.Module):
    """Sigmoid MLP with five consistent cumulative outputs (module docstring)."""

    def __init__(self, n_inputs: int, hidden: tuple[int, ...]) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        width = n_inputs
        for size in hidden:
            layers += [nn.Linear(width, size), nn.Sigmoid()]
            width = size
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(width, N_OUTPUTS)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """inputs ``(B, N) float32`` -> ``(B, 5) float32`` probabilities (win, wg, wbg, lg, lbg)."""
        s = torch.sigmoid(self.head(self.body(inputs)))
        win = s[:, 0]
        wg = win * s[:, 1]
        wbg = wg * s[:, 2]
        lg = (1.0 - win) * s[:, 3]
        lbg = lg * s[:, 4]
        return torch.stack([win, wg, wbg, lg, lbg], dim=1)


def widen_network(network: TDNetwork, preset: Preset, seed: int = 0) -> TDNetwork:
    """A ``preset`` network computing exactly what one-hidden-layer ``network`` computes:
    its hidden units copied, the new ones with small random input weights and zero
    output weights (so they start silent and training grows them)."""
    old = [m for m in network.body if isinstance(m, nn.Linear)]
    if len(old) != 1 or len(preset.hidden) != 1 or preset.hidden[0] < old[0].out_features:
        raise TdgammonError(f"cannot widen this network to {preset.name}")
    wide = build_network(preset, seed=seed)
    first, head = wide.body[0], wide.head
    units = old[0].out_features
    with torch.no_grad():
        if first.in_features != old[0].in_features:
            raise TdgammonError(f"{preset.name} has other inputs than this network")
        first.weight[:units] = old[0].weight
        first.bias[:units] = old[0].bias
        first.weight[units:] *= 0.1
        head.weight.zero_()
        head.weight[:, :units] = network.head.weight
        head.bias.copy_(network.head.bias)
    return wide


def build_network(preset: Preset, seed: int | None = None) -> TDNetwork:
    """A freshly initialised network for ``preset`` (seeded when ``seed`` is given)."""
    encoding = ENCODINGS[preset.encoding]
    if seed is not None:
        generator_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
    network = TDNetwork(encoding.size, preset.hidden)
    if seed is not None:
        torch.random.set_rng_state(generator_state)
    return network


def model_record(preset: Preset, network: TDNetwork, card: dict | None = None) -> dict:
    """The dict stored in a model file (and under ``"model"`` in a checkpoint), with
    the checksum of its contents (``CHECKSUM_KEY``), so a damaged file is refused."""
    encoding = ENCODINGS[preset.encoding]
    record = {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "preset": preset.name,
        "preset_fields": {
            k: list(v) if isinstance(v, tuple) else v for k, v in asdict(preset).items()
        },
        "encoding": encoding.name,
        "encoding_version": encoding.version,
        "hidden": list(preset.hidden),
        "state_dict": {k: v.detach().clone() for k, v in network.state_dict().items()},
        "card": dict(card or {}),
    }
    record[CHECKSUM_KEY] = payload_sha256(record)
    return record


def network_from_record(record: dict, where: str) -> tuple[Preset, TDNetwork]:
    """Rebuild (preset, network) from a model record; ModelFileError names ``where``."""
    if not isinstance(record, dict) or record.get("format") != MODEL_FORMAT:
        raise ModelFileError(f"{where}: not a tdgammon model (format tag missing)")
    if record.get("format_version") != MODEL_FORMAT_VERSION:
        raise ModelFileError(
            f"{where}: model format version {record.get('format_version')} is not supported "
            f"(this tdgammon reads version {MODEL_FORMAT_VERSION})"
        )
    encoding = _record_encoding(record, where)
    fields = record.get("preset_fields")
    preset = Preset(
        str(record.get("preset")),
        encoding.name,
        checked_hidden(record.get("hidden"), where),
        str(fields.get("description", "")) if isinstance(fields, dict) else "",
    )
    state = record.get("state_dict")
    check_weights(
        state, _weight_shapes(encoding.size, preset.hidden), f"preset {preset.name!r}", where
    )
    network = TDNetwork(encoding.size, preset.hidden)
    network.load_state_dict(state)
    network.eval()
    return preset, network


def _record_encoding(record: dict, where: str):
    """The record's input encoding, which must be this tdgammon's version of it."""
    name = record.get("encoding")
    if not isinstance(name, str) or name not in ENCODINGS:
        raise ModelFileError(f"{where}: unknown input encoding {name!r}")
    encoding = ENCODINGS[name]
    if record.get("encoding_version") != encoding.version:
        raise ModelFileError(
            f"{where}: encoding {name!r} version {record.get('encoding_version')} does not match "
            f"this tdgammon's version {encoding.version}"
        )
    return encoding


def _weight_shapes(n_inputs: int, hidden: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor of ``TDNetwork(n_inputs, hidden).state_dict()``."""
    shapes, width = {}, n_inputs
    for layer, size in enumerate(hidden):
        shapes[f"body.{2 * layer}.weight"] = (size, width)
        shapes[f"body.{2 * layer}.bias"] = (size,)
        width = size
    shapes["head.weight"] = (N_OUTPUTS, width)
    shapes["head.bias"] = (N_OUTPUTS,)
    return shapes


def load_model(path: str | Path) -> tuple[Preset, TDNetwork, dict]:
    """Load a model file or a training checkpoint: (preset, network in eval mode, card)."""
    return model_from_data(read_torch_file(path), str(path))


def model_from_data(data: dict, where: str) -> tuple[Preset, TDNetwork, dict]:
    """``load_model`` of a file's contents already read (``read_torch_file``): a model
    file's dict or a checkpoint's (its ``"model"``). ModelFileError names ``where``."""
    record = data.get("model", data) if data.get("format") != MODEL_FORMAT else data
    preset, network = network_from_record(record, where)
    card = record.get("card", {})
    if not isinstance(card, dict):
        raise ModelFileError(f"{where}: the model card is not a table")
    variant = card.get("variant") or "standard"
    if not isinstance(variant, str) or variant not in VARIANTS:
        raise ModelFileError(f"{where}: the model card names an unknown variant")
    return preset, network, dict(card)


def save_model(path: str | Path, preset: Preset, network: TDNetwork, card: dict | None = None):
    """Write a model file atomically (temp file, then ``os.replace``)."""
    from tdgammon.models.atomic import atomic_torch_save

    atomic_torch_save(model_record(preset, network, card), path)
