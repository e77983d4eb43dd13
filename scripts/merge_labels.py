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

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.train import refine


def read_folder(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """``(boards (N, 30) int8, labels (N, 5) float32)`` of a finished label run,
    read and checked as ``refine`` reads its own folder (its ``refine.json`` gives
    the count, the decisions and whether the labels are rollouts)."""
    record_path = folder / "refine.json"
    try:
        record = json.loads(record_path.read_text())
        settings = refine.RefineSettings(
            positions=record["positions"],
            candidates=record.get("candidates", 0),
            rollout_trials=record.get("rollout_trials", 0),
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise TdgammonError(
            f"{folder}: not a refine positions file (its refine.json: {error})"
        ) from None
    boards, _ = refine.load_positions(folder / "positions.npz", settings)
    rows, labels = refine.labelled_so_far(
        folder / "labels", len(boards), not settings.rollout_trials
    )
    if len(rows) != len(boards):
        raise TdgammonError(
            f"{folder}: {len(rows)} of {len(boards)} positions labelled; finish its run first"
        )
    return boards, labels


def merge(out: Path, folders: list[Path]) -> int:
    """Write the merged folder ``out`` whole or not at all (built beside it, then
    renamed); returns the number of positions."""
    if out.exists():
        raise TdgammonError(f"{out} exists; merge into a new folder")
    parts = [read_folder(folder) for folder in folders]
    boards = np.concatenate([b for b, _ in parts])
    labels = np.concatenate([v for _, v in parts])
    size = refine.CHUNK_POSITIONS  # read here: the chunks refine expects now
    out.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        (building / "labels").mkdir()
        refine._save_npz(building / "positions.npz", boards=boards)
        for index, start in enumerate(range(0, len(boards), size)):
            refine.write_label_chunk(building / "labels", index, labels[start : start + size])
        os.rename(building, out)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
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
