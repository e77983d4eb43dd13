"""Weight averaging of snapshots of one training run (``tdgammon average``).

TD(lambda) with a constant learning rate does not settle on one set of
weights: it wanders around a good region, and any one snapshot carries the
noise of its last updates. The mean of several snapshots of the same run
(Polyak averaging; "stochastic weight averaging" in the deep-learning
literature) sits nearer the middle of that region and usually plays better
than the snapshots it averages (docs/training.md, "Averaging TD snapshots").
Only snapshots that share one parent make sense: the snapshots of one run,
or a network and its continuation.

``average_models(paths)``: the element-wise mean (optionally weighted) of the
weights of model files or training checkpoints of one preset and encoding;
the result is written as a model file whose card names its sources and
keeps the first one's card otherwise (``race_model`` dropped: a race file
is named again by whoever ships the result).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tdgammon.engine.rules.errors import FormatError
from tdgammon.train.cli import output_file


def average_models(paths: list[Path], weights: list[float] | None = None):
    """(preset, network, card) of the weighted mean of ``paths``' weights.

    Raises ModelFileError for an unreadable file and FormatError when the
    files do not share one preset (shapes and encoding) or the weights are bad."""
    import torch

    from tdgammon.models.network import load_model

    if len(paths) < 2:
        raise FormatError("give at least two model files or checkpoints to average")
    if weights is None:
        weights = [1.0] * len(paths)
    if len(weights) != len(paths) or min(weights) < 0 or sum(weights) <= 0:
        raise FormatError("--weights: one non-negative weight per file, not all zero")
    loaded = [load_model(path) for path in paths]
    preset, network, card = loaded[0]
    for path, (other, _, _) in zip(paths[1:], loaded[1:], strict=True):
        if (other.encoding, other.hidden) != (preset.encoding, preset.hidden):
            raise FormatError(
                f"{path}: preset {other.name} ({other.encoding}, hidden {other.hidden}) does "
                f"not match {paths[0]} ({preset.encoding}, hidden {preset.hidden})"
            )
    total = float(sum(weights))
    states = [net.state_dict() for _, net, _ in loaded]
    mean = {
        key: sum(
            w / total * state[key].to(torch.float64)
            for w, state in zip(weights, states, strict=True)
        ).to(states[0][key].dtype)
        for key in states[0]
    }
    network.load_state_dict(mean)
    network.eval()
    card = dict(card)
    card.pop("race_model", None)
    card["averaged_from"] = [
        {"file": Path(path).as_posix(), "weight": w, "games": c.get("games")}
        for path, w, (_, _, c) in zip(paths, weights, loaded, strict=True)
    ]
    return preset, network, card


def cmd_average(args: argparse.Namespace) -> int:
    """``tdgammon average``."""
    from tdgammon.models.network import save_model

    paths = [Path(p) for p in args.models]
    for path in paths:
        if not path.is_file():
            raise FormatError(f"{path}: no such model file or checkpoint")
    out = output_file(args.out, "model.pt")
    preset, network, card = average_models(paths, args.weights)
    save_model(out, preset, network, card)
    print(json.dumps({"out": out.as_posix(), "preset": preset.name, "averaged": len(paths)}))
    return 0


def register(commands, bench_targets: dict) -> None:
    """Add ``tdgammon average``."""
    cmd = commands.add_parser(
        "average", help="average the weights of snapshots of one training run (one model file)"
    )
    cmd.add_argument("models", nargs="+", help="model files or checkpoints of one preset")
    cmd.add_argument("--out", required=True, help="the model file to write")
    cmd.add_argument(
        "--weights", type=float, nargs="+", default=None, help="one weight per file (default equal)"
    )
    cmd.set_defaults(run=cmd_average)
