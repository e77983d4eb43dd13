"""Build the full one-sided bear-off database, report time and size, check races by simulation.

Usage: python scripts/bench_bearoff.py [--games 20000] [--max-checkers 15] [--no-save]

Writes the database to the user cache (``tdgammon.engine.evaluation.bearoff.cache_path``) unless
--no-save. The simulation plays random-dice games with the database's own
policies (a side with no checker off plays for its first checker off) and
compares the outcome frequencies with ``race_probabilities``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tdgammon.engine.evaluation import bearoff
from tdgammon.engine.rules.board import board_from_points

SAMPLES = [
    ({6: 3, 5: 2, 1: 1}, {6: 2, 4: 2, 2: 2}),
    ({6: 4, 5: 4, 4: 4, 3: 3}, {6: 3, 5: 3, 4: 3, 3: 3, 2: 3}),
    ({1: 2, 2: 2, 3: 1}, {6: 8, 5: 7}),
    ({6: 15}, {1: 3, 2: 1}),
    ({5: 3, 4: 3, 3: 3, 2: 3, 1: 3}, {6: 5, 5: 5, 4: 5}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--max-checkers", type=int, default=15)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()

    start = time.perf_counter()
    db = bearoff.build_database(args.max_checkers)
    seconds = time.perf_counter() - start
    print(f"positions: {len(db.positions):,} (max {args.max_checkers} checkers)")
    print(f"generation: {seconds:.1f} s")
    print(f"in memory: {(db.bearoff.nbytes + db.gammon.nbytes) / 1e6:.1f} MB (float64)")
    if not args.no_save:
        path = bearoff.cache_path(args.max_checkers)
        bearoff.save_database(db, path)
        start = time.perf_counter()
        bearoff.load_database(path, args.max_checkers)
        load = time.perf_counter() - start
        print(f"cache file: {path} {path.stat().st_size / 1e6:.1f} MB, load {load:.2f} s")
    if args.max_checkers < 15:
        return
    print(f"\nrace check, {args.games} games each (z = (sim - exact) / standard error)")
    for mover, opponent in SAMPLES:
        board = board_from_points(mover, opponent)
        exact = bearoff.race_probabilities(board, db)
        sim = bearoff.simulate_race(board, args.games, seed=1, database=db, gammon_policy=True)
        se = np.sqrt(np.maximum(exact * (1 - exact), 1e-12) / args.games)
        z = np.where(exact * (1 - exact) > 0, (sim - exact) / se, 0.0)
        print(f"{mover} vs {opponent}")
        print(f"  exact {np.round(exact, 4)}  sim {np.round(sim, 4)}  z {np.round(z, 2)}")


if __name__ == "__main__":
    main()
