"""Atomic file writes: a kill at any moment leaves the old file or the new one, never half."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_torch_save(obj, path: str | Path) -> None:
    """``torch.save(obj)`` to a temp file in the same folder, fsync, then ``os.replace``."""
    import torch

    _atomic_write(path, lambda out: torch.save(obj, out))


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` the same way (temp file, fsync, ``os.replace``)."""
    _atomic_write(path, lambda out: out.write(data))


def _atomic_write(path: str | Path, write) -> None:
    """Call ``write(binary file)`` on a temp file beside ``path``, then move it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, 0o644)  # mkstemp makes 0600; these files are meant to be shared
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise
