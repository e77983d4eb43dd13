"""Ship a variant model: write ``models/tdgammon-<variant>.pt`` and measure it for its card.

    .venv/bin/python -m train.ship_variant runs/dutch --games 4000 --random-games 2000

Takes ``RUN/best.pt`` (``--source checkpoint`` for the latest weights),
writes it as a small model file whose card names the variant, then measures
THAT file exactly as ``tdgammon bench strength`` does (``train.evaluate.
strength``: same agents, same seed, one torch thread), against the random
player and the heuristic player, with a dice seed that training evaluations
never use, and writes the model card ``models/tdgammon-<variant>.md`` with
the commands that reproduce each figure.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

import torch

from models.encoding import ENCODINGS
from models.network import load_model, save_model
from train.checkpoint import load_checkpoint
from train.evaluate import strength

SHIP_SEED = 20261129

SCORING = {
    "acey-deucey": (
        "Acey-Deucey scoring: the loser pays the stake times the checkers he has not borne "
        "off, so points per game range over -15..+15 and the 'won 2+ points' rate counts "
        "every win by 2 or more checkers left."
    ),
}

OUTPUTS = {
    "acey-deucey": (
        "win = p(win); win gammon = E[win x opponent's checkers left] / 15; lose gammon = "
        "E[loss x own checkers left] / 15; backgammon outputs 0 (trained to 0). The player "
        "maximises 15 x (wg - lg), the expected stake multiple (`engine.evaluator.variant_equity`)"
    ),
}
STANDARD_OUTPUTS = (
    "win, win gammon, win backgammon, lose gammon, lose backgammon (player on roll), "
    "the variant's standard single / gammon / backgammon scoring"
)

CARD = """# Model card: {name}

A small network for **{variant}** (`engine.variants`), trained briefly by self-play:
`engine.evaluator.load_evaluator("models/{name}.pt")` plays {variant} (the variant is
read from the card stored in the file).

| | |
|---|---|
| File | `models/{name}.pt` ({size_kb:.0f} KB) |
| Variant | `{variant}` |
| Preset | `{preset}`: {description} |
| Encoding | `{encoding}` (version {encoding_version}), {inputs} inputs (raw + checkers in hand) |
| Outputs | {outputs} |
| Training | batched self-play, TD(lambda) as lambda-returns (`docs/training.md`, "Variants") |
| Config | `{config_file}` (resolved config below) |
| Games played | {games:,} self-play games ({steps:,} gradient steps) |
| Wall time | {minutes:.1f} min self-play + updates, {wall_note} |
| Weights | `{source}` ({weights_note}) |
| Code | git commit `{commit}` |
| Shipped | {date} |

{note}## Strength

Cubeless games under {variant} rules, duplicate dice (games 2k and 2k+1 share
the dice with the seats swapped), 1-ply greedy play, dice seed {seed} (never
used by training evaluations). {scoring}

| Opponent | Games | Points per game | 95% CI | Wins | Won 2+ points | Lost 2+ points |
|---|---|---|---|---|---|---|
{rows}

The heuristic player is `engine.heuristic_agent.HeuristicAgent` (pips, hits,
points made, blots exposed to the checkers behind them, including those in
hand, borne-off checkers); the random player picks a uniformly random legal play.

Reproduce each figure (exactly: fixed seed, one torch thread):

{commands}

## Continue training

The full training state (optimizer, counters, in-flight games, random state)
is in `{run_dir}/checkpoint.pt` on the machine that trained it (`runs/` is not
in git). To continue:

    tdgammon train --resume {run_dir} --set run.max_minutes=60

Without that folder, start a new run from the shipped weights (fresh optimizer
and game counter):

    tdgammon train --config {config_file} \\
        --set model.init_from=models/{name}.pt --set run.run_dir={run_dir}-continued

## Resolved config

```json
{config_json}
```
"""


def command(name: str, opponent: str, games: int) -> str:
    return (
        f"    tdgammon bench strength --model models/{name}.pt --opponent {opponent} "
        f"--games {games} --seed {SHIP_SEED}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--source", choices=["best", "checkpoint"], default="best")
    parser.add_argument("--games", type=int, default=4000, help="games against the heuristic")
    parser.add_argument("--random-games", type=int, default=2000, help="games against random")
    parser.add_argument("--out-dir", type=Path, default=Path("models"))
    parser.add_argument("--note", default="", help="training history for the card")
    args = parser.parse_args()
    torch.set_num_threads(1)
    source = args.run / ("best.pt" if args.source == "best" else "checkpoint.pt")
    preset, network, card = load_model(source)
    checkpoint = load_checkpoint(args.run / "checkpoint.pt")
    variant = card.get("variant") or checkpoint["config"]["model"]["variant"]
    name = f"tdgammon-{variant}"
    path = args.out_dir / f"{name}.pt"
    ship_card = dict(card, variant=variant, source=str(source), eval_seed=SHIP_SEED)
    save_model(path, preset, network, ship_card)

    results = {}
    for opponent, games in (("random", args.random_games), ("heuristic", args.games)):
        start = time.perf_counter()
        summary, text = strength(str(path), opponent, games, SHIP_SEED, 1)
        print(text, f"({time.perf_counter() - start:.0f} s)", flush=True)
        results[opponent] = summary
    ship_card["strength"] = {
        k: {f: v[f] for f in ("games", "ppg", "ci95", "win_rate")} for k, v in results.items()
    }
    save_model(path, preset, network, ship_card)
    # The weights did not change: the figures measured above still hold for this file.

    rows = "\n".join(
        f"| {opp} | {s['games']:,} | **{s['ppg']:+.3f}** | +/- {s['ci95']:.3f} | "
        f"{s['win_rate']:.1%} | {s['gammon_rate']:.1%} | {s['lose_gammon_rate']:.1%} |"
        for opp, s in results.items()
    )
    commands = "\n".join(command(name, opp, s["games"]) for opp, s in results.items())
    encoding = ENCODINGS[preset.encoding]
    eval_cfg = card.get("config", checkpoint["config"])["eval"]
    weights_note = (
        f"best of the periodic evaluations against the heuristic: "
        f"{eval_cfg['pubeval_games']} games every {eval_cfg['every_games']:,} training games, "
        f"seed {eval_cfg['seed']}"
        if args.source == "best"
        else "the latest weights of the run"
    )
    config_file = f"configs/{variant}.toml"
    text = CARD.format(
        name=name,
        variant=variant,
        size_kb=path.stat().st_size / 1024,
        preset=preset.name,
        description=preset.description or "",
        encoding=encoding.name,
        encoding_version=encoding.version,
        inputs=encoding.size,
        outputs=OUTPUTS.get(variant, STANDARD_OUTPUTS),
        config_file=config_file,
        games=card.get("games", 0),
        steps=card.get("steps", 0),
        minutes=card.get("train_seconds", 0.0) / 60,
        wall_note="2-core machine shared with other jobs, 1 thread, not counting evaluations",
        source=source.as_posix(),
        weights_note=weights_note,
        commit=card.get("git_commit", "unknown"),
        date=datetime.date.today().isoformat(),
        seed=SHIP_SEED,
        scoring=SCORING.get(variant, "Points: 1 single game, 2 gammon, 3 backgammon."),
        rows=rows,
        note=f"## Training history\n\n{args.note}\n\n" if args.note else "",
        commands=commands,
        run_dir=args.run.as_posix(),
        config_json=json.dumps(card.get("config", checkpoint["config"]), indent=2),
    )
    (args.out_dir / f"{name}.md").write_text(text)
    print(f"wrote {path} and {args.out_dir / (name + '.md')}")


if __name__ == "__main__":
    main()
