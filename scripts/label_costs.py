"""What a refinement label costs, and how noisy it is, for each kind of label.

Usage:
    python scripts/label_costs.py [--positions 64] [--seed 5] [KIND ...]

KIND is ``2ply`` or ``TRIALS:TRUNCATE:vr|plain`` (a 0-ply rollout of TRIALS
trials, each stopped after TRUNCATE plies, 0: played out, with or without
variance reduction; ``tdgammon refine --rollout-trials T --rollout-truncate N``
makes the ``vr`` kind). Default: every kind of docs/training.md "Session 15".

The positions are those ``tdgammon refine --candidates 8`` labels (the plays the
shipped network must rank, opponent on roll, contact only), sampled with
``--seed``. Every kind labels the same positions on one thread, as one refine
worker does. Prints one JSON line per kind: positions a second, the mean
standard error of a label's equity (trial spread over the square root of the
trials; 0 for a search), and the mean absolute difference of its equity from
the 2-ply label (noise and bias together).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from tdgammon.engine.evaluation.evaluator import default_evaluator
from tdgammon.engine.evaluation.rollout import RolloutSettings, rollout_search, rollout_trials
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.rules.outcome import variant_equity
from tdgammon.train.refine import candidate_positions

DEFAULT_KINDS = ("2ply", "36:0:plain", "36:10:plain", "144:10:plain", "36:4:vr", "36:10:vr")


def label(search: Search, boards: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``(equity (P,), standard error (P,))`` of the labels of ``boards (P, 30)``
    (player on roll's view) by ``kind`` (module docstring)."""
    if kind == "2ply":
        return variant_equity(search.evaluate(boards, 2)), np.zeros(len(boards))
    trials, truncate, reduction = kind.split(":")
    if reduction not in ("vr", "plain"):
        raise SystemExit(f"{kind}: the third part must be vr or plain")
    settings = RolloutSettings(
        seed=1,
        truncate=int(truncate),
        variance_reduction=reduction == "vr",
        bearoff_truncate=True,
    )
    results = rollout_trials(rollout_search(search), boards, range(int(trials)), settings)
    per_trial = variant_equity(results.probabilities)  # (P, T)
    return per_trial.mean(axis=1), per_trial.std(axis=1, ddof=1) / np.sqrt(per_trial.shape[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kinds", nargs="*", default=list(DEFAULT_KINDS))
    parser.add_argument("--positions", type=int, default=64)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    evaluator = default_evaluator()
    boards, _ = candidate_positions(
        evaluator, args.positions, np.random.default_rng(args.seed), 0.0, 8, True
    )
    search = Search(evaluator)
    reference = None
    for kind in ["2ply", *[k for k in args.kinds if k != "2ply"]]:
        started = time.perf_counter()
        equity, error = label(search, boards, kind)
        seconds = time.perf_counter() - started
        if reference is None:
            reference = equity
        if kind == "2ply" and kind not in args.kinds:
            continue
        print(
            json.dumps(
                {
                    "kind": kind,
                    "positions": len(boards),
                    "positions_per_second": round(len(boards) / seconds, 2),
                    "label_standard_error": round(float(error.mean()), 4),
                    "mean_abs_from_2ply": round(float(np.abs(equity - reference).mean()), 4),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
