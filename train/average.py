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
keeps the first one's card otherwise. A phase set's race evaluator (the
``race_model`` file its card names, beside it) is not averaged: when every
file names one and those files hold the same bytes (the snapshots of one
set), the result keeps it and ``tdgammon average`` copies it beside the
output; otherwise the result has none (``race_model`` dropped, and the
command says so), so races go to the averaged net itself.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from tdgammon.engine.rules.errors import FormatError
from tdgammon.train.cli import output_file


def average_models(paths: list[Path], weights: list[float] | None = None):
    """(preset, network, card) of the weighted mean of ``paths``' weights.

    Raises ModelFileError for an unreadable file (or a bad ``race_model`` name) and
    FormatError when the files do not share one preset (shapes and encoding) and
    variant, or the weights are bad."""
    import torch

    from tdgammon.models.network import load_model

    if len(paths) < 2:
        raise FormatError("give at least two model files or checkpoints to average")
    if weights is None:
        weights = [1.0] * len(paths)
    if (
        len(weights) != len(paths)
        or not all(math.isfinite(w) and w >= 0 for w in weights)
        or max(weights) <= 0
    ):
        raise FormatError("--weights: one finite, non-negative weight per file, not all zero")
    loaded = [load_model(path) for path in paths]
    preset, network, card = loaded[0]
    variant = card.get("variant") or "standard"
    for path, (other, _, other_card) in zip(paths[1:], loaded[1:], strict=True):
        if (other.encoding, other.hidden) != (preset.encoding, preset.hidden):
            raise FormatError(
                f"{path}: preset {other.name} ({other.encoding}, hidden {other.hidden}) does "
                f"not match {paths[0]} ({preset.encoding}, hidden {preset.hidden})"
            )
        if (other_card.get("variant") or "standard") != variant:
            raise FormatError(
                f"{path}: trained for {other_card.get('variant') or 'standard'}, "
                f"not {variant} as {paths[0]}"
            )
    top = max(weights)
    shares = [w / top for w in weights]  # scaled first: a sum of huge weights overflows
    total = sum(shares)
    states = [net.state_dict() for _, net, _ in loaded]
    mean = {
        key: sum(
            share / total * state[key].to(torch.float64)
            for share, state in zip(shares, states, strict=True)
        ).to(states[0][key].dtype)
        for key in states[0]
    }
    network.load_state_dict(mean)
    network.eval()
    card = dict(card)
    if shared_race_file(paths, [c for _, _, c in loaded]) is None:
        card.pop("race_model", None)
    card["averaged_from"] = [
        {
            "file": Path(path).as_posix(),
            "weight": w,
            "games": c.get("games"),
            "race_model": c.get("race_model"),
        }
        for path, w, (_, _, c) in zip(paths, weights, loaded, strict=True)
    ]
    return preset, network, card


def shared_race_file(paths: list[Path], cards: list[dict]) -> Path | None:
    """The race evaluator file (first path's folder) that every card names as
    ``race_model``, when the named files all exist and hold the same bytes;
    None otherwise. ModelFileError when a name is not a plain file name beside its
    model (``race_model_path``)."""
    from tdgammon.engine.evaluation.evaluator import race_model_path

    names = [card.get("race_model") for card in cards]
    if any(not name for name in names):
        return None
    files = [race_model_path(path, name) for path, name in zip(paths, names, strict=True)]
    if not all(file.is_file() for file in files):
        return None
    first = files[0].read_bytes()
    return files[0] if all(file.read_bytes() == first for file in files[1:]) else None


def cmd_average(args: argparse.Namespace) -> int:
    """``tdgammon average``."""
    import sys

    from tdgammon.models.atomic import atomic_write_bytes
    from tdgammon.models.network import MODEL_FORMAT, save_model

    paths = [Path(p) for p in args.models]
    for path in paths:
        if not path.is_file():
            raise FormatError(f"{path}: no such model file or checkpoint")
    out = output_file(args.out, "model.pt", MODEL_FORMAT)
    preset, network, card = average_models(paths, args.weights)
    race_name = card.get("race_model")
    if race_name:  # written before the model, so the model never names a missing file
        race = (paths[0].parent / race_name).read_bytes()
        beside = out.parent / race_name
        if not beside.exists():
            atomic_write_bytes(beside, race)
        elif beside.read_bytes() != race:
            raise FormatError(
                f"{beside} exists and is another race evaluator than the one the models "
                "name; write the average to another folder"
            )
    elif any(source["race_model"] for source in card["averaged_from"]):
        print(
            "note: the models do not share one race evaluator (race_model), so the "
            "average has none: its races go to the averaged network",
            file=sys.stderr,
        )
    save_model(out, preset, network, card)
    print(
        json.dumps(
            {
                "out": out.as_posix(),
                "preset": preset.name,
                "averaged": len(paths),
                "race_model": race_name or None,
            }
        )
    )
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
