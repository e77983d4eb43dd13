"""What a refinement label costs, and how noisy it is, for each kind of label.

Usage:
    python scripts/label_costs.py [--positions 64] [--seed 5] [KIND ...]

KIND is ``0ply``, ``1ply``, ``2ply`` (our search at that depth) or
``TRIALS:TRUNCATE:vr|plain`` (a 0-ply rollout of TRIALS
trials, each stopped after TRUNCATE plies, 0: played out, with or without
variance reduction; ``tdgammon refine --rollout-trials T --rollout-truncate N``
makes the ``vr`` kind). Default: every kind of docs/training.md "Session 15".

The positions are those ``tdgammon refine --candidates 8`` labels (the plays the
shipped network must rank, opponent on roll, contact only), sampled with
``--seed``, or with ``--positions-file`` a random sample of the boards of a
refine ``positions.npz`` (``scripts/leaf_positions.py`` makes leaves);
``--model`` labels with another set than the shipped one. Every kind labels
the same positions on one thread, as one refine worker does. Prints one JSON
line per kind: positions a second, the mean standard error of a label's
equity (trial spread over the square root of the trials; 0 for a search),
and the mean absolute difference of its equity from the 2-ply label (noise
and bias together). ``--judge gnubg[:PLIES]`` (the gnubg extra; a
benchmark, never a label) adds each kind's mean absolute difference from GNU
Backgammon's equity at PLIES (default 2), and a line for GNU Backgammon's
own 0-ply: how close each kind comes to a stronger engine's values
(docs/training.md, "Session 16").
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from tdgammon.engine.evaluation.evaluator import default_evaluator, load_evaluator
from tdgammon.engine.evaluation.rollout import RolloutSettings, rollout_search, rollout_trials
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.rules.outcome import variant_equity
from tdgammon.train.refine import candidate_positions

DEFAULT_KINDS = ("2ply", "36:0:plain", "36:10:plain", "144:10:plain", "36:4:vr", "36:10:vr")


def label(search: Search, boards: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``(equity (P,), standard error (P,))`` of the labels of ``boards (P, 30)``
    (player on roll's view) by ``kind`` (module docstring)."""
    if kind in ("0ply", "1ply", "2ply"):
        return variant_equity(search.evaluate(boards, int(kind[0]))), np.zeros(len(boards))
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
    parser.add_argument("--positions-file", help="sample the boards of this positions.npz")
    parser.add_argument("--model", help="the network that labels (default: the shipped set)")
    parser.add_argument("--judge", help="gnubg[:PLIES]: also compare with GNU Backgammon")
    args = parser.parse_args()
    torch.set_num_threads(1)
    evaluator = load_evaluator(args.model) if args.model else default_evaluator()
    rng = np.random.default_rng(args.seed)
    if args.positions_file:
        with np.load(args.positions_file) as saved:
            every = saved["boards"]
        boards = every[rng.choice(len(every), min(args.positions, len(every)), replace=False)]
    else:
        boards, _ = candidate_positions(evaluator, args.positions, rng, 0.0, 8, True)
    search = Search(evaluator)
    judged = judge_equities(args.judge, boards) if args.judge else None
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
                    **_from_judge(equity, judged),
                }
            ),
            flush=True,
        )


def judge_equities(spec: str, boards: np.ndarray) -> np.ndarray:
    """``(P,)``: GNU Backgammon's cubeless equities of ``boards`` at the judge's
    depth; prints the line of its own 0-ply's distance from them first."""
    from tdgammon.engine.players.gnubg_agent import GnubgAgent
    from tdgammon.train.choices import parse_judge

    name, plies = parse_judge(spec if ":" in spec else f"{spec}:2")
    if name != "gnubg":
        raise SystemExit(f"--judge {spec}: only gnubg[:PLIES] judges here")
    agent = GnubgAgent(plies)
    judged = variant_equity(agent.evaluate(boards, plies))
    own = variant_equity(agent.evaluate(boards, 0))
    print(json.dumps({"kind": "gnubg:0 (the judge's own net)", **_from_judge(own, judged)}))
    return judged


def _from_judge(equity: np.ndarray, judged: np.ndarray | None) -> dict:
    """The mean absolute difference from the judge's equities, with its 95% interval."""
    if judged is None:
        return {}
    gap = np.abs(equity - judged)
    return {
        "mean_abs_from_judge": round(float(gap.mean()), 4),
        "ci95": round(float(1.96 * gap.std(ddof=1) / np.sqrt(len(gap))), 4),
    }


if __name__ == "__main__":
    main()
