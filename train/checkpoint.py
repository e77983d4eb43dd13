"""Training checkpoints: one small torch file, written atomically, read with clear errors.

Layout (a dict, loadable with ``torch.load(weights_only=True)``)::

    format: "tdgammon-checkpoint", format_version: 2
    sha256:     checksum of every other entry (tdgammon.models.network.payload_sha256),
                verified on every read; version 1 files (no checksum) still load
    model:      the model record of tdgammon.models.network (so load_model reads checkpoints)
    optimizer:  optimizer state dict
    config:     the resolved config ({section: {field: value}})
    git_commit: commit of the code that wrote it ("unknown" outside a git checkout)
    counters:   games, steps, positions, seconds, ...
    random:     numpy generator state (JSON text) and torch RNG state
    selfplay:   in-flight games (numpy arrays stored as tensors)
    best:       {"ppg_vs_pubeval": float or None, "model": model record of best.pt or None}
                (version 1 files have no "model": best.pt itself is then the record)

Files are written to a temp file in the same folder and moved into place
with ``os.replace``, so a kill at any moment leaves the previous checkpoint
or the new one, never a broken file.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import torch

from tdgammon.models.atomic import atomic_torch_save
from tdgammon.models.network import CHECKSUM_KEY, ModelFileError, payload_sha256, read_torch_file

CHECKPOINT_FORMAT = "tdgammon-checkpoint"
CHECKPOINT_FORMAT_VERSION = 2
READABLE_VERSIONS = (1, CHECKPOINT_FORMAT_VERSION)
"""Version 1: written before checkpoints carried a checksum."""
SECTIONS = ("model", "optimizer", "config", "counters", "random", "selfplay")
"""The tables every checkpoint holds."""


def git_commit() -> str:
    """HEAD of the checkout this code runs from, ``+dirty`` if files differ; or "unknown"."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def to_tensors(obj):
    """numpy arrays -> torch tensors, recursively through dicts and lists."""
    if isinstance(obj, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(obj))
    if isinstance(obj, dict):
        return {k: to_tensors(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [to_tensors(v) for v in obj]
    return obj


def to_arrays(obj):
    """torch tensors -> numpy arrays, recursively (inverse of ``to_tensors``)."""
    if isinstance(obj, torch.Tensor):
        return obj.numpy()
    if isinstance(obj, dict):
        return {k: to_arrays(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [to_arrays(v) for v in obj]
    return obj


def save_checkpoint(path: str | Path, data: dict) -> None:
    """Write ``data`` (module docstring) atomically, with its format tags and checksum."""
    data = to_tensors(
        dict(data, format=CHECKPOINT_FORMAT, format_version=CHECKPOINT_FORMAT_VERSION)
    )
    data[CHECKSUM_KEY] = payload_sha256(data)
    atomic_torch_save(data, path)


def load_checkpoint(path: str | Path) -> dict:
    """Read a training checkpoint; ModelFileError naming the file if it is unusable."""
    data = read_torch_file(path)  # verifies the checksum
    if data.get("format") != CHECKPOINT_FORMAT:
        raise ModelFileError(f"{path}: not a tdgammon training checkpoint (a model file?)")
    version = data.get("format_version")
    if version not in READABLE_VERSIONS:
        raise ModelFileError(
            f"{path}: checkpoint format version {version} is not supported "
            f"(this tdgammon reads versions {', '.join(map(str, READABLE_VERSIONS))})"
        )
    if version != 1 and CHECKSUM_KEY not in data:
        raise ModelFileError(f"{path}: checkpoint has lost its checksum")
    for key in SECTIONS:
        if not isinstance(data.get(key), dict):
            raise ModelFileError(f"{path}: checkpoint is missing its {key!r} section")
    return data
