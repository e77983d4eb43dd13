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

    python scripts/merge_labels.py OUT FOLDER [FOLDER ...] --replace-with RUN [...]

also gives every position of OUT that a RUN has labelled (the same board) that
RUN's label in place of its own (the last RUN named that has it): rollout
labels beside 2-ply ones of the same positions, with the set's size
unchanged (docs/training.md, "Session 18"). A RUN may be unfinished (its
chunks written so far are used).

Rollout labels (a FOLDER or RUN of ``--rollout-trials``) are variance-reduced
means, which may break the cumulative order the network's outputs keep
(gammons within wins, backgammons within gammons) by a little (at most
0.00012 in session 18's 40,000); they are put back in that order (each
gammon and backgammon rate lowered to the rate that holds it), so OUT is
fitted like any folder of search labels.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outputs import (
    LOSE_BACKGAMMON,
    LOSE_GAMMON,
    WIN,
    WIN_BACKGAMMON,
    WIN_GAMMON,
)
from tdgammon.train import refine


def read_folder(folder: Path, finished: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(boards (N, 30) int8, labels (N, 5) float32)``: the labelled positions of a
    label run (``refine.read_label_run``), rollout labels put back in the
    cumulative order (``in_cumulative_order``)."""
    boards, labels, rollout = refine.read_label_run(folder, finished)
    return boards, in_cumulative_order(labels) if rollout else labels


def in_cumulative_order(labels: np.ndarray) -> np.ndarray:
    """``labels (N, 5)`` (rollout means) with each gammon rate at most its side's
    winning chance and each backgammon rate at most its gammon rate (lowered to
    it where above; ``tdgammon.engine.rules.outputs`` gives the order), every
    value in [0, 1]: a copy, float32."""
    out = np.clip(np.asarray(labels, dtype=np.float64), 0.0, 1.0)
    out[:, WIN_GAMMON] = np.minimum(out[:, WIN_GAMMON], out[:, WIN])
    out[:, WIN_BACKGAMMON] = np.minimum(out[:, WIN_BACKGAMMON], out[:, WIN_GAMMON])
    out[:, LOSE_GAMMON] = np.minimum(out[:, LOSE_GAMMON], 1.0 - out[:, WIN])
    out[:, LOSE_BACKGAMMON] = np.minimum(out[:, LOSE_BACKGAMMON], out[:, LOSE_GAMMON])
    return out.astype(np.float32)


def replace_labels(
    boards: np.ndarray, labels: np.ndarray, run: Path
) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, rows)``: a copy of ``labels (N, 5)`` in which every position of
    ``boards (N, 30)`` that the label run ``run`` has labelled (finished or not)
    has ``run``'s label, and the rows that got one (``(n,) int64``)."""
    their_boards, their_labels = read_folder(run, finished=False)
    index = {board.tobytes(): row for row, board in enumerate(their_boards)}
    found = [(row, index.get(board.tobytes())) for row, board in enumerate(boards)]
    pairs = np.array(
        [(mine, theirs) for mine, theirs in found if theirs is not None], dtype=np.int64
    )
    out = labels.copy()
    if len(pairs):
        out[pairs[:, 0]] = their_labels[pairs[:, 1]]
    return out, pairs[:, 0] if len(pairs) else np.zeros(0, dtype=np.int64)


def merge(out: Path, folders: list[Path], replace_with: Sequence[Path] = ()) -> tuple[int, int]:
    """Write the merged folder ``out`` whole or not at all (built beside it, then
    renamed); returns ``(positions, positions given a label of replace_with)``."""
    if out.exists():
        raise TdgammonError(f"{out} exists; merge into a new folder")
    parts = [read_folder(folder) for folder in folders]
    boards = np.concatenate([b for b, _ in parts])
    labels = np.concatenate([v for _, v in parts])
    replaced = np.zeros(len(boards), dtype=bool)
    for run in replace_with:
        labels, rows = replace_labels(boards, labels, run)
        replaced[rows] = True
    size = refine.CHUNK_POSITIONS  # read here: the chunks refine expects now
    out.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        (building / "labels").mkdir()
        refine.save_npz(building / "positions.npz", boards=boards)
        for index, start in enumerate(range(0, len(boards), size)):
            refine.write_label_chunk(building / "labels", index, labels[start : start + size])
        os.rename(building, out)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return len(boards), int(replaced.sum())


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="merge_labels.py",
        description="One refine folder holding the labelled positions of several.",
    )
    parser.add_argument("out", type=Path, help="the new folder")
    parser.add_argument("folders", type=Path, nargs="+", help="finished label runs")
    parser.add_argument(
        "--replace-with",
        type=Path,
        action="append",
        default=[],
        metavar="RUN",
        help="a label run (finished or not) whose labels replace those of the same positions",
    )
    args = parser.parse_args()
    try:
        count, replaced = merge(args.out, args.folders, args.replace_with)
    except TdgammonError as error:
        raise SystemExit(f"merge_labels: {error}") from None
    named = ", ".join(str(run) for run in args.replace_with)
    taken = f", {replaced} labels from {named}" if args.replace_with else ""
    print(f"{args.out}: {count} labelled positions (refine --positions {count}){taken}")


if __name__ == "__main__":
    main()
