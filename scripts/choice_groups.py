"""Where one player's checker plays lose to another's: ``tdgammon bench choices``
split by kinds of position.

Usage:
    python scripts/choice_groups.py [--model M] [--plies P] [--opponent gnubg:0]
        [--opponent-plies Q] [--judge gnubg:2] [--sample 6000] [--seed 2]

The decisions, players and judge are those of ``tdgammon bench choices``
(``tdgammon.train.choices``: positions of the opponent's 0-ply self-play, one
roll each, forced decisions left out; GNU Backgammon's 2-ply judges unless
``--judge`` says, a benchmark only). Besides the three phases the benchmark
reports, the gain per decision is given for groups named by the position
before the play, from the mover's view (``tdgammon.train.choices.position_kinds``;
a decision may be in several), so that a weakness of a network shows as the kind of position it
plays worst (docs/training.md, "Session 18").
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.train.choices import DEFAULT_JUDGE


def grouped_gains(
    model, opponent, judge, decisions, seed, plies, opponent_plies, threads=1
) -> dict:
    """``{"model", "opponent", "judge", "seed", **overall stats, "groups": {name:
    stats}}`` (stats: ``tdgammon.train.choices.summary_stats`` of the unforced
    decisions; the arguments: ``tdgammon.train.choices.compare_choices``')."""
    from tdgammon.engine.cube.benchmark import phase
    from tdgammon.train.choices import class_summary, judged_sample, position_kinds, summary_stats

    sample = judged_sample(model, opponent, judge, decisions, seed, plies, threads, opponent_plies)
    gain, differ, unforced = sample.gain, sample.differ, sample.unforced
    classes = np.array([phase(board) for board in sample.boards])
    overall = class_summary(gain, differ, unforced, classes)
    groups = overall.pop("classes")
    for name, rows in position_kinds(sample.boards, sample.dice).items():
        groups[name] = summary_stats(gain[unforced & rows], differ[unforced & rows])
    return {
        "model": sample.model,
        "opponent": sample.opponent,
        "judge": sample.judge,
        "seed": seed,
        **overall,
        "groups": groups,
    }


def text(summary: dict) -> str:
    """The summary as lines: the whole sample, then one line per group."""

    def line(name: str, s: dict) -> str:
        if not s["decisions"]:
            return f"{name:62s} no decisions"
        return (
            f"{name:62s} {s['gain']:+.5f} +/- {s['ci95']:.5f}  "
            f"{s['decisions']:5d} decisions  {100 * s['differ']:4.1f}% differ"
        )

    head = f"{summary['model']} vs {summary['opponent']}, judged by {summary['judge']}"
    body = [line(name, stats) for name, stats in summary["groups"].items()]
    return "\n".join([head, line("all", summary), *body])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="choice_groups.py", description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="player A (default: the shipped network)")
    parser.add_argument("--plies", type=int, default=0, help="player A's search depth")
    parser.add_argument("--opponent", default="gnubg:0", help="player B (default gnubg:0)")
    parser.add_argument("--opponent-plies", type=int, default=0, help="a network B's depth")
    parser.add_argument("--judge", default=DEFAULT_JUDGE, help="gnubg[:PLIES] or NETWORK[:PLIES]")
    parser.add_argument("--sample", type=int, default=6000, help="decisions sampled")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    try:
        summary = grouped_gains(
            args.model,
            args.opponent,
            args.judge,
            args.sample,
            args.seed,
            args.plies,
            args.opponent_plies,
        )
    except TdgammonError as error:
        raise SystemExit(f"choice_groups: {error}") from None
    print(json.dumps(summary) if args.json else text(summary))


if __name__ == "__main__":
    main()
