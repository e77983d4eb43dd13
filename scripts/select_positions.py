"""Positions of some kinds, taken from a positions file, for a label run of them.

Usage:
    python scripts/select_positions.py OUT SOURCE --kind NAME [--kind NAME ...] [--skip RUN]

SOURCE is a folder with ``positions.npz`` (a ``tdgammon refine`` folder, or
one of ``scripts/leaf_positions.py``). Kept: the positions (player on roll's
view) of any of the kinds named (``tdgammon.train.choices.position_kinds``, the
kinds that do not depend on the roll; ``--kind list`` prints them), except
those the label run RUN has labelled already (``--skip``, finished or not:
e.g. a rollout run over the same positions stopped part way). Writes
``OUT/positions.npz``, which ``tdgammon refine --out OUT --positions N`` (N:
the count printed) labels instead of sampling its own, so that a costly label
(rollouts) goes to the kinds of position the network plays worst
(``scripts/choice_groups.py``; docs/training.md, "Session 18").
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from tdgammon.engine.rules.errors import TdgammonError


def select(source: Path, kinds: list[str], skip: Path | None = None) -> np.ndarray:
    """``(n, 30) int8``: the boards of ``source/positions.npz`` of any of ``kinds``,
    without those the label run ``skip`` has labelled (module docstring)."""
    from tdgammon.train import refine
    from tdgammon.train.choices import position_kinds

    boards, _ = refine.read_positions_file(
        source / "positions.npz", "give a folder of refine or scripts/leaf_positions.py"
    )
    table = position_kinds(boards)
    unknown = [kind for kind in kinds if kind not in table]
    if unknown:
        raise TdgammonError(f"unknown kind {unknown[0]!r}; the kinds: {', '.join(table)}")
    keep = np.zeros(len(boards), dtype=bool)
    for kind in kinds:
        keep |= table[kind]
    if skip is not None:
        done = {board.tobytes() for board in refine.read_label_run(skip, finished=False)[0]}
        keep &= np.array([board.tobytes() not in done for board in boards], dtype=bool)
    return boards[keep].astype(np.int8)


def write(out: Path, boards: np.ndarray) -> None:
    """``out/positions.npz`` holding ``boards`` (refused when ``out`` has one)."""
    from tdgammon.train.refine import save_npz

    if not len(boards):
        raise TdgammonError("no position of those kinds is left; nothing written")
    if (out / "positions.npz").exists():
        raise TdgammonError(f"{out / 'positions.npz'} exists; select into a new folder")
    out.mkdir(parents=True, exist_ok=True)
    save_npz(out / "positions.npz", boards=boards)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="select_positions.py", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="the new folder")
    parser.add_argument("source", type=Path, help="a folder with positions.npz")
    parser.add_argument("--kind", action="append", required=True, help="a kind (list: print them)")
    parser.add_argument("--skip", type=Path, metavar="RUN", help="leave out what RUN labelled")
    args = parser.parse_args(argv)
    if args.kind == ["list"]:
        from tdgammon.train.choices import position_kinds

        print("\n".join(position_kinds(np.zeros((0, 30), dtype=np.int8))))
        return
    try:
        boards = select(args.source, args.kind, args.skip)
        write(args.out, boards)
    except TdgammonError as error:
        raise SystemExit(f"select_positions: {error}") from None
    print(
        f"{args.out}: {len(boards)} positions (refine --out {args.out} --positions {len(boards)})"
    )


if __name__ == "__main__":
    main()
