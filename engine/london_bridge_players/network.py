"""The London Bridge value network: its inputs, its target, its file.

``ValueNetwork`` maps encoded positions ``(N, N_INPUTS) float32`` (view of the
player to move) to one value in (-1, 1): the expected ``outcome_value`` of the
final margin for that player. ``encode`` builds the inputs from states, turns
and the rules; ``NetworkEvaluator`` is the ``evaluate`` and ``terminal`` pair of
``tdgammon.engine.london_bridge_players.search``.

The target of an ended game counts the win first and the margin second
(``outcome_value``): 0.7 for any win, plus 0.3 times the margin over 12
(capped), so a win by one is worth 0.725, a draw 0 and a loss by 12 or more -1.
The benchmarks count wins; the margin term breaks ties between wins.

A model file is a small ``torch.save`` dict read with ``weights_only``:
``{"format": MODEL_FORMAT, "format_version", "hidden", "rules", "state_dict",
"card", "sha256"}``; ``rules`` is ``Rules.describe()`` of the rules it was
trained under, and loading refuses a file trained under other rules.
``save_model`` writes it atomically (``tdgammon.models.atomic``) with the
SHA-256 of its other entries under ``CHECKSUM_KEY``. ``load_model`` checks
everything before it builds anything, through the game-neutral
``tdgammon.models.files``: the file, the hidden sizes (bounded), the weights'
names, shapes and finiteness, the checksum where there is one (the shipped
``models/london-bridge.pt`` predates it), the rules and the card; a file that
fails raises ``ModelFileError``, one line naming the file (exit status 2).
"""

from __future__ import annotations

import reprlib
from pathlib import Path

import numpy as np
import torch
from torch import nn

from tdgammon.engine.london_bridge.rules import COLOUR_CYCLE, NUMBER_CYCLE, Rules
from tdgammon.engine.london_bridge.state import (
    BEADS_PER_PLAYER,
    COLOUR_PIN,
    MOVER_GOAL,
    N_POTS,
    NUMBER_PIN,
    OPPONENT,
    OPPONENT_GOAL,
    OWN,
    ROW,
    SEAT,
    pot_colours,
)
from tdgammon.models.atomic import atomic_torch_save
from tdgammon.models.files import (
    CHECKSUM_KEY,
    ModelFileError,
    check_weights,
    checked_hidden,
    payload_sha256,
    read_torch_file,
)

MODEL_FORMAT = "tdgammon-london-bridge"
MODEL_FORMAT_VERSION = 1
WIN_WEIGHT = 0.7
MARGIN_SCALE = 12.0
TOTAL_ONE_HOT = 11
"""Beads in a pot, one-hot 0..9 and 10 or more."""
PER_POT = TOTAL_ONE_HOT + 2 + 3 + 3
N_INPUTS = N_POTS * PER_POT + 5 + len(NUMBER_CYCLE) + len(COLOUR_CYCLE) + 2
TURNS_SCALE = 100.0

_GOAL_DISTANCE = np.array([(ROW - (p if p < ROW else p + 1)) % (N_POTS + 1) for p in range(12)])
"""Beads a sowing from pot p needs for its last bead to reach the mover's goal (3.6)."""
_NUMBERS = np.array(NUMBER_CYCLE)
_COLOURS = np.array(COLOUR_CYCLE)


def outcome_value(margins: np.ndarray) -> np.ndarray:
    """``(N,) float64``: the value of ended games with these final margins (mover's view)."""
    m = np.asarray(margins, dtype=np.float64)
    return WIN_WEIGHT * np.sign(m) + (1 - WIN_WEIGHT) * np.clip(m / MARGIN_SCALE, -1, 1)


def encode(states: np.ndarray, turns: np.ndarray, rules: Rules) -> np.ndarray:
    """``(N, N_INPUTS) float32`` inputs of states ``(N, STATE_SIZE) int8`` (mover to move)
    after ``turns`` ``(N,)`` turns played.

    Per pot (1..12, mover's ring order): the bead total one-hot, own and opponent
    beads / 6, the pot's colour one-hot, and three flags: emptied (4.2) if the
    mover turns the number dial, emptied if they turn the colour dial, and a
    sowing from it ends in the mover's goal (3.6). Then the goals and the beads in
    the pots / 18 and the goal margin / 18, both pins one-hot, the turns left
    before the limit (5.3) / 100 capped at 1, and whether the mover has no bead
    to sow (3.7).
    """
    states = np.asarray(states)
    n = len(states)
    own = states[:, OWN].astype(np.float32)
    opponent = states[:, OPPONENT].astype(np.float32)
    total = (own + opponent).astype(np.int64)
    colours = pot_colours(rules)[states[:, SEAT]]
    number_pin = states[:, NUMBER_PIN].astype(np.int64)
    colour_pin = states[:, COLOUR_PIN].astype(np.int64)
    next_number = _NUMBERS[(number_pin + 1) % len(NUMBER_CYCLE)][:, None]
    next_colour = _COLOURS[(colour_pin + 1) % len(COLOUR_CYCLE)][:, None]
    pots = np.concatenate(
        [
            np.eye(TOTAL_ONE_HOT, dtype=np.float32)[np.minimum(total, TOTAL_ONE_HOT - 1)],
            (own / 6)[..., None],
            (opponent / 6)[..., None],
            np.eye(3, dtype=np.float32)[colours],
            ((colours == _COLOURS[colour_pin][:, None]) & (total == next_number))[..., None],
            ((colours == next_colour) & (total == _NUMBERS[number_pin][:, None]))[..., None],
            ((own > 0) & (total == _GOAL_DISTANCE))[..., None],
        ],
        axis=2,
    ).reshape(n, -1)
    goals = states[:, [MOVER_GOAL, OPPONENT_GOAL]].astype(np.float32)
    left = np.asarray(rules.turn_limit - np.asarray(turns), dtype=np.float32)
    rest = np.concatenate(
        [
            goals / BEADS_PER_PLAYER,
            np.stack([own.sum(1), opponent.sum(1), goals[:, 0] - goals[:, 1]], 1)
            / BEADS_PER_PLAYER,
            np.eye(len(NUMBER_CYCLE), dtype=np.float32)[number_pin],
            np.eye(len(COLOUR_CYCLE), dtype=np.float32)[colour_pin],
            np.minimum(left / TURNS_SCALE, 1)[:, None],
            (own.sum(1) == 0)[:, None],
        ],
        axis=1,
    )
    return np.concatenate([pots, rest], axis=1).astype(np.float32)


class ValueNetwork(nn.Module):
    """``(N, N_INPUTS)`` -> ``(N,)`` values in (-1, 1): ReLU hidden layers, a tanh output."""

    def __init__(self, hidden: tuple[int, ...] = (64, 32)) -> None:
        super().__init__()
        self.hidden = tuple(hidden)
        layers: list[nn.Module] = []
        width = N_INPUTS
        for size in self.hidden:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        layers += [nn.Linear(width, 1), nn.Tanh()]
        self.layers = nn.Sequential(*layers)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.layers(inputs).squeeze(-1)


class NetworkEvaluator:
    """The network as a search evaluation: ``evaluate(states, turns)`` and ``terminal(margins)``."""

    def __init__(self, network: ValueNetwork, rules: Rules) -> None:
        self.network = network.eval()
        self.rules = rules

    def evaluate(self, states: np.ndarray, turns: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            inputs = torch.from_numpy(encode(states, turns, self.rules))
            return self.network(inputs).numpy().astype(np.float64)

    @staticmethod
    def terminal(margins: np.ndarray) -> np.ndarray:
        return outcome_value(margins)


def save_model(path: str | Path | None, network: ValueNetwork, rules: Rules, card: dict) -> dict:
    """The model dict of ``network``, with its checksum (returned; written to ``path``
    atomically unless it is None)."""
    model = {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "hidden": list(network.hidden),
        "rules": rules.describe(),
        "state_dict": {k: v.detach().clone() for k, v in network.state_dict().items()},
        "card": dict(card),
    }
    model[CHECKSUM_KEY] = payload_sha256(model)
    if path is not None:
        atomic_torch_save(model, path)
    return model


def load_model(path: str | Path, rules: Rules) -> tuple[ValueNetwork, dict]:
    """``(network, card)`` from a model file (or a training checkpoint holding one under
    ``"model"``); ``ModelFileError`` naming the file if it is not a usable one, or was
    trained under other rules."""
    path = Path(path)
    data = read_torch_file(path, "London Bridge model")
    model = data.get("model", data)
    if not isinstance(model, dict) or model.get("format") != MODEL_FORMAT:
        raise ModelFileError(f"{path} is not a London Bridge model file")
    version = model.get("format_version")
    if type(version) is not int or version != MODEL_FORMAT_VERSION:
        raise ModelFileError(
            f"{path}: model format version {reprlib.repr(version)} is not supported "
            f"(this tdgammon reads version {MODEL_FORMAT_VERSION})"
        )
    hidden = checked_hidden(model.get("hidden"), str(path))
    check_weights(model.get("state_dict"), _weight_shapes(hidden), "the network", str(path))
    if model is not data and CHECKSUM_KEY in model and model[CHECKSUM_KEY] != payload_sha256(model):
        raise ModelFileError(f"{path}: checksum mismatch of the model inside the checkpoint")
    trained = model.get("rules")
    if not isinstance(trained, str):
        raise ModelFileError(f"{path}: the rules it was trained under are not recorded")
    if trained != rules.describe():
        raise ModelFileError(
            f"{path} was trained under rules {trained or 'default'!r}, "
            f"not {rules.describe() or 'default'!r}"
        )
    card = model.get("card", {})
    if not isinstance(card, dict):
        raise ModelFileError(f"{path}: the model card is not a table")
    network = ValueNetwork(hidden)
    network.load_state_dict(model["state_dict"])
    return network.eval(), dict(card)


def _weight_shapes(hidden: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor of ``ValueNetwork(hidden).state_dict()``."""
    shapes, width = {}, N_INPUTS
    for layer, size in enumerate((*hidden, 1)):
        shapes[f"layers.{2 * layer}.weight"] = (size, width)
        shapes[f"layers.{2 * layer}.bias"] = (size,)
        width = size
    return shapes
