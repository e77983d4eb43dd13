"""One ``tdgammon refine`` folder holding the labelled positions of several.

Usage:
    python scripts/merge_labels.py OUT FOLDER [FOLDER ...]

Each FOLDER is a finished label run of ``tdgammon refine`` (``positions.npz``
and every chunk of ``labels/``, checked as refine checks them). OUT gets
their positions one after the other and their labels re-cut into refine's
chunks, so that

    tdgammon refine --model PARENT --out OUT --positions N --plies 2 --labelled-only ...

(N: the total printed) fits them all at once: labels of several generations
or seeds, each made by its own parent's search (docs/training.md, "Session
16"). OUT must not exist yet. Positions only: groups of ``--candidates``
folders are not kept, so ``--rank-weight`` cannot use the result.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.train import refine


def read_folder(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """``(boards (N, 30) int8, labels (N, 5) float32)`` of a finished label run."""
    path = folder / "positions.npz"
    try:
        with np.load(path, allow_pickle=False) as archive:
            boards = np.asarray(archive["boards"], dtype=np.int8)
    except (OSError, KeyError, ValueError) as error:
        raise TdgammonError(f"{path}: not a refine positions file ({error})") from None
    rows, labels = refine.labelled_so_far(folder / "labels", len(boards))
    if len(rows) != len(boards):
        raise TdgammonError(
            f"{folder}: {len(rows)} of {len(boards)} positions labelled; finish its run first"
        )
    return boards, labels


def merge(out: Path, folders: list[Path]) -> int:
    """Write the merged folder ``out``; returns the number of positions."""
    if out.exists():
        raise TdgammonError(f"{out} exists; merge into a new folder")
    parts = [read_folder(folder) for folder in folders]
    boards = np.concatenate([b for b, _ in parts])
    labels = np.concatenate([v for _, v in parts])
    size = refine.CHUNK_POSITIONS  # read here: the chunks refine expects now
    (out / "labels").mkdir(parents=True)
    refine._save_npz(out / "positions.npz", boards=boards)
    for index, start in enumerate(range(0, len(boards), size)):
        refine.write_label_chunk(out / "labels", index, labels[start : start + size])
    return len(boards)


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    try:
        count = merge(Path(sys.argv[1]), [Path(a) for a in sys.argv[2:]])
    except TdgammonError as error:
        raise SystemExit(f"merge_labels: {error}") from None
    print(f"{sys.argv[1]}: {count} labelled positions (refine --positions {count})")


if __name__ == "__main__":
    main()
