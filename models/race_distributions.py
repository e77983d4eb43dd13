"""One-sided race network: one side's checkers -> three distributions of rolls.

In a race (no contact) the two sides never meet again: how many rolls each
side needs depends on its own checkers only, and the cubeless outcome of the
race follows from the two sides' distributions (the classical one-sided
approximation, exact for the policies below; combined in
``tdgammon.engine.evaluation.one_sided_race``). The one-sided bear-off
database holds these distributions exactly for checkers all in the home
board; this network learns them for every other race position of one side.

A side is ``counts (B, 24)``: its checkers on its points 1..24, its own
numbering (point 1 = its ace point, it moves towards 0), at most 15 in all,
the rest borne off. In a race nobody is on the bar.

Outputs, ``(B, HEADS, RACE_ROLLS)``, row k = P(exactly k more rolls):

- ``ALL_OFF``: rolls to bear off every checker (policy: each roll, the play
  whose result has the fewest expected rolls);
- ``FIRST_OFF``: rolls to bear off a first checker (what saves a gammon,
  docs/rules.md 4; policy: fewest expected rolls to it);
- ``ESCAPE``: rolls until no checker is left on points 19..24, the opponent's
  home board (what saves a backgammon; policy: fewest expected rolls to it).

Training (``tdgammon.train.race_distributions``) fits the network to its own
one-roll look-ahead, anchored on the exact database: no other engine's values.

Inputs (``encode_side``, ``INPUTS`` wide, float32): Tesauro's four units per
point (c >= 1, c >= 2, c >= 3, (c - 3) / 2) for the 24 points, then checkers
on the board / 15, pips / 100, pips still to bring home (sum of p - 6 over
checkers outside) / 100, checkers outside the home board / 15, checkers on
points 19..24 / 15, pips to leave points 19..24 (sum of p - 18 there) / 50,
checkers on points 1..3 / 15 (where rolls are wasted).

Model file: a ``torch.save`` dict read with ``weights_only``:
``{"format": RACE_FORMAT, "format_version", "hidden", "race_rolls",
"encoding_version", "state_dict", "card", "sha256"}`` (checksum over the rest).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from tdgammon.models.files import (
    CHECKSUM_KEY,
    MAX_HIDDEN_UNITS,
    ModelFileError,
    payload_sha256,
    read_torch_file,
)

RACE_FORMAT = "tdgammon-race-distributions"
RACE_FORMAT_VERSION = 1
ENCODING_VERSION = 1
RACE_ROLLS = 64
"""Length of every distribution: 15 checkers on the 24 point need about 50 rolls."""
HEADS = 3
ALL_OFF, FIRST_OFF, ESCAPE = range(HEADS)
HEAD_NAMES = ("all off", "first off", "escape")
POINTS = 24
HOME = 6
ZONE_START = 19
"""Points 19..24 of a side are the opponent's home board (backgammon zone)."""
INPUTS = 4 * POINTS + 7

_PIPS = np.arange(1, POINTS + 1, dtype=np.float32)
_OUTSIDE = np.clip(_PIPS - HOME, 0, None)
_ZONE_PIPS = np.clip(_PIPS - (ZONE_START - 1), 0, None)


def encode_side(counts: np.ndarray) -> np.ndarray:
    """``(B, 24)`` non-negative checker counts -> ``(B, INPUTS) float32`` (module docstring)."""
    c = np.asarray(counts, dtype=np.float32)
    out = np.empty((len(c), INPUTS), dtype=np.float32)
    units = out[:, : 4 * POINTS].reshape(len(c), POINTS, 4)
    units[:, :, 0] = c >= 1
    units[:, :, 1] = c >= 2
    units[:, :, 2] = c >= 3
    units[:, :, 3] = np.clip(c - 3.0, 0, None) / 2.0
    rest = out[:, 4 * POINTS :]
    rest[:, 0] = c.sum(axis=1) / 15.0
    rest[:, 1] = c @ _PIPS / 100.0
    rest[:, 2] = c @ _OUTSIDE / 100.0
    rest[:, 3] = c[:, HOME:].sum(axis=1) / 15.0
    rest[:, 4] = c[:, ZONE_START - 1 :].sum(axis=1) / 15.0
    rest[:, 5] = c @ _ZONE_PIPS / 50.0
    rest[:, 6] = c[:, :3].sum(axis=1) / 15.0
    return out


class RaceDistributionNet(nn.Module):
    """Sigmoid hidden layer, then ``HEADS`` softmaxes over ``RACE_ROLLS`` bins."""

    def __init__(self, hidden: int = 128) -> None:
        super().__init__()
        self.hidden = hidden
        self.body = nn.Sequential(nn.Linear(INPUTS, hidden), nn.Sigmoid())
        self.head = nn.Linear(hidden, HEADS * RACE_ROLLS)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """``(B, INPUTS)`` -> ``(B, HEADS, RACE_ROLLS)`` log-probabilities."""
        logits = self.head(self.body(inputs)).reshape(len(inputs), HEADS, RACE_ROLLS)
        return torch.log_softmax(logits, dim=-1)


def build_race_net(hidden: int = 128, seed: int | None = None) -> RaceDistributionNet:
    """A fresh network (seeded when ``seed`` is given, without touching torch's global state)."""
    if seed is None:
        return RaceDistributionNet(hidden)
    state = torch.random.get_rng_state()
    torch.manual_seed(seed)
    try:
        return RaceDistributionNet(hidden)
    finally:
        torch.random.set_rng_state(state)


def race_record(network: RaceDistributionNet, card: dict | None = None) -> dict:
    """The dict written to a race-distribution model file, checksum included."""
    record = {
        "format": RACE_FORMAT,
        "format_version": RACE_FORMAT_VERSION,
        "hidden": [network.hidden],
        "race_rolls": RACE_ROLLS,
        "encoding_version": ENCODING_VERSION,
        "state_dict": {k: v.detach().clone() for k, v in network.state_dict().items()},
        "card": dict(card or {}),
    }
    record[CHECKSUM_KEY] = payload_sha256(record)
    return record


def save_race_net(path: str | Path, network: RaceDistributionNet, card: dict | None = None):
    """Write a race-distribution model file atomically."""
    from tdgammon.models.atomic import atomic_torch_save

    atomic_torch_save(race_record(network, card), path)


def is_race_file(data: dict) -> bool:
    """Whether a loaded model-file dict is a race-distribution file."""
    return isinstance(data, dict) and data.get("format") == RACE_FORMAT


def race_net_from_record(data: dict, where: str) -> tuple[RaceDistributionNet, dict]:
    """(network in eval mode, card) from a loaded file dict; ModelFileError names ``where``."""
    if not is_race_file(data):
        raise ModelFileError(f"{where}: not a race-distribution model (format tag missing)")
    if CHECKSUM_KEY not in data:  # read_torch_file checked it where there is one
        raise ModelFileError(f"{where}: race model without its checksum")
    if data.get("format_version") != RACE_FORMAT_VERSION:
        raise ModelFileError(
            f"{where}: race model format version {data.get('format_version')} is not "
            f"supported (this tdgammon reads version {RACE_FORMAT_VERSION})"
        )
    if data.get("encoding_version") != ENCODING_VERSION or data.get("race_rolls") != RACE_ROLLS:
        raise ModelFileError(f"{where}: race model inputs or outputs do not match this tdgammon")
    hidden = data.get("hidden")
    if (
        not isinstance(hidden, list)
        or len(hidden) != 1
        or type(hidden[0]) is not int
        or not 1 <= hidden[0] <= MAX_HIDDEN_UNITS
    ):
        raise ModelFileError(f"{where}: race model hidden size {hidden!r} is not valid")
    network = RaceDistributionNet(hidden[0])
    state = data.get("state_dict")
    expected = {k: tuple(v.shape) for k, v in network.state_dict().items()}
    if not isinstance(state, dict) or set(state) != set(expected):
        raise ModelFileError(f"{where}: race model weights do not fit its hidden size")
    for name, shape in expected.items():
        tensor = state[name]
        if not isinstance(tensor, torch.Tensor) or tuple(tensor.shape) != shape:
            raise ModelFileError(f"{where}: race model weights do not fit ({name})")
        if not tensor.is_floating_point() or not torch.isfinite(tensor).all():
            raise ModelFileError(f"{where}: {name} holds NaN, infinite or non-float weights")
    network.load_state_dict(state)
    network.eval()
    card = data.get("card", {})
    if not isinstance(card, dict):
        raise ModelFileError(f"{where}: the race model card is not a table")
    return network, dict(card)


def load_race_net(path: str | Path) -> tuple[RaceDistributionNet, dict]:
    """Read a race-distribution model file: (network in eval mode, card)."""
    return race_net_from_record(read_torch_file(path), str(path))
