"""Reading and checking torch files of either game: model files and checkpoints.

Game-neutral (it knows no board, encoding or network), so both backgammon
(``tdgammon.models.network``) and London Bridge
(``tdgammon.engine.london_bridge_players.network``) read their files through it
(``pyproject.toml`` lets London Bridge import this module and ``models/atomic.py``
only). Every failure is a ``ModelFileError``: one line naming the file.

- ``read_torch_file``: ``torch.load`` with ``weights_only`` of a whole torch file
  (a zip archive) holding a dict, whose checksum under ``CHECKSUM_KEY``, where it
  has one, matches its contents (``payload_sha256``).
- ``checked_hidden``: hidden layer sizes a file declares, bounded before anything
  is allocated.
- ``check_weights``: a ``state_dict`` that holds exactly the expected tensors, as
  finite dense float tensors.
"""

from __future__ import annotations

import hashlib
import pickle
import reprlib
import warnings
import zipfile
from pathlib import Path

import torch

from tdgammon.engine.rules.errors import TdgammonError

MAX_HIDDEN_LAYERS = 8
"""Most hidden layers a model file may declare."""
MAX_HIDDEN_UNITS = 65536
"""Most units per hidden layer a model file may declare."""
CHECKSUM_KEY = "sha256"
"""Key of the checksum of a file's other entries (``payload_sha256``)."""


class ModelFileError(TdgammonError):
    """A model or checkpoint file that cannot be used; the message names the file."""


def read_torch_file(path: str | Path, kind: str = "tdgammon model or checkpoint") -> dict:
    """``torch.load`` with ``weights_only``; any failure becomes ModelFileError naming the
    file (``kind`` says what it should have been). A file with a checksum
    (``CHECKSUM_KEY``) must match it."""
    path = Path(path)
    if path.is_dir():
        raise ModelFileError(f"{path}: a folder, not a {kind} file")
    if not path.is_file():
        raise ModelFileError(f"{path}: no such {kind} file")
    if not zipfile.is_zipfile(path):  # what torch.save writes
        raise ModelFileError(
            f"{path}: not a {kind} (not a whole torch file: another kind of file, or "
            "damaged or cut short)"
        )
    try:
        with warnings.catch_warnings():  # torch warns about plain pickles before failing
            warnings.simplefilter("ignore")
            data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # weights_only refused what the file holds
        raise ModelFileError(
            f"{path}: not a {kind} (it holds objects other than tensors and plain values)"
        ) from None
    except Exception as error:  # noqa: BLE001 - every reason is reported the same way
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        detail = lines[0] if lines else "no detail"
        detail = detail if len(detail) <= 200 else detail[:197] + "..."
        raise ModelFileError(
            f"{path}: not a readable {kind} ({type(error).__name__}: {detail})"
        ) from None
    if not isinstance(data, dict):
        raise ModelFileError(f"{path}: not a {kind} (no metadata dict)")
    try:
        damaged = CHECKSUM_KEY in data and data[CHECKSUM_KEY] != payload_sha256(data)
    except RecursionError:
        raise ModelFileError(f"{path}: not a {kind} (nested too deeply)") from None
    if damaged:
        raise ModelFileError(
            f"{path}: checksum mismatch: the file was damaged or changed after it was written"
        )
    return data


def payload_sha256(data: dict) -> str:
    """SHA-256 (hex) of every entry of ``data`` but ``CHECKSUM_KEY``, over a canonical
    walk (dict keys sorted; tensors by dtype, shape and bytes), so that it does not
    depend on how torch lays out the file."""
    digest = hashlib.sha256()
    _digest(digest, {key: value for key, value in data.items() if key != CHECKSUM_KEY})
    return digest.hexdigest()


def _digest(digest, obj) -> None:
    """Feed ``obj`` (tensors, dicts, lists, tuples, plain values) to ``digest``."""
    if isinstance(obj, torch.Tensor):
        tensor = obj.detach().cpu()
        tensor = (tensor if tensor.layout == torch.strided else tensor.to_dense()).contiguous()
        digest.update(f"tensor {tensor.dtype} {tuple(tensor.shape)};".encode())
        digest.update(tensor.reshape(-1).view(torch.uint8).numpy().tobytes())
    elif isinstance(obj, dict):
        digest.update(f"dict {len(obj)};".encode())
        for key in sorted(obj, key=repr):
            _digest(digest, key)
            _digest(digest, obj[key])
    elif isinstance(obj, list | tuple):
        digest.update(f"list {len(obj)};".encode())
        for item in obj:
            _digest(digest, item)
    else:
        digest.update(f"{type(obj).__name__} {obj!r};".encode())


def checked_hidden(hidden, where: str) -> tuple[int, ...]:
    """``hidden`` (a file's hidden layer sizes) as a tuple: 1 to MAX_HIDDEN_LAYERS
    layers of 1 to MAX_HIDDEN_UNITS units; ModelFileError naming ``where`` otherwise."""
    if (
        not isinstance(hidden, list | tuple)
        or not 1 <= len(hidden) <= MAX_HIDDEN_LAYERS
        or not all(type(size) is int and 1 <= size <= MAX_HIDDEN_UNITS for size in hidden)
    ):
        raise ModelFileError(
            f"{where}: hidden layer sizes {reprlib.repr(hidden)} are not valid (1 to "
            f"{MAX_HIDDEN_LAYERS} layers of 1 to {MAX_HIDDEN_UNITS} units)"
        )
    return tuple(hidden)


def check_weights(state, shapes: dict[str, tuple[int, ...]], fits: str, where: str) -> None:
    """ModelFileError naming ``where`` unless ``state`` holds exactly ``shapes`` (name ->
    shape), as finite dense float tensors. ``fits``: what they should fit, for the
    message (``"preset 'expert256'"``, ``"the network"``)."""
    if not isinstance(state, dict) or set(state) != set(shapes):
        raise ModelFileError(f"{where}: weights do not fit {fits} (other layers)")
    for name, shape in shapes.items():
        tensor = state[name]
        if (
            not isinstance(tensor, torch.Tensor)
            or tensor.layout != torch.strided
            or not tensor.is_floating_point()
        ):
            raise ModelFileError(f"{where}: weights do not fit {fits} ({name})")
        if tuple(tensor.shape) != shape:
            raise ModelFileError(
                f"{where}: weights do not fit {fits} ({name} is {tuple(tensor.shape)}, "
                f"the hidden sizes need {shape})"
            )
        if not torch.isfinite(tensor).all():
            raise ModelFileError(
                f"{where}: {name} holds NaN or infinite weights (a diverged training run?)"
            )
