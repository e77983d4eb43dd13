"""Ship a trained network: measure it against pubeval and write it with its model card.

    .venv/bin/python scripts/ship_model.py runs/tesauro80 --games 10000

Takes ``RUN/best.pt`` (``--source checkpoint`` for the latest weights),
plays ``--games`` duplicate-dice cubeless money games against pubeval with a
seed that training evaluations never use (so picking the best checkpoint on
those evaluations does not bias this measurement), and writes
``models/tdgammon-<preset>.pt`` (a small model file) and the model card
``models/tdgammon-<preset>.md``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

import torch

from engine.agents import PubevalAgent
from engine.duel import play_duel
from engine.evaluator import NetworkAgent, NetworkEvaluator
from models.network import load_model, save_model
from train.checkpoint import load_checkpoint

SHIP_SEED = 20261129

CARD = """# Model card: {name}

The default evaluator of tdgammon (`engine.evaluator.default_evaluator()`).

| | |
|---|---|
| File | `models/{name}.pt` ({size_kb:.0f} KB) |
| Preset | `{preset}`: {description} |
| Encoding | `{encoding}` (version {encoding_version}), {inputs} inputs |
| Outputs | win, win gammon, win backgammon, lose gammon, lose backgammon (player on roll) |
| Training | batched self-play, TD(lambda) as lambda-returns (`docs/training.md`) |
| Config | `{config_file}` (resolved config below) |
| Games played | {games:,} self-play games ({steps:,} gradient steps) |
| Wall time | {hours:.2f} h self-play + updates, 2-core machine, 1 thread ({wall_note}) |
| Code | git commit `{commit}` |
| Shipped | {date} |

{note}## Strength

Against pubeval (Tesauro's public linear evaluator), cubeless money games,
duplicate dice (games 2k and 2k+1 share the dice with the seats swapped), 1-ply
greedy play, dice seed {seed} (never used by training evaluations):

**{ppg:+.3f} points per game, 95% CI +/- {ci95:.3f}, over {eval_games:,} games.**

Wins {win_rate:.1%}, gammons {gammon_rate:.1%}, backgammons {backgammon_rate:.1%};
lost gammons {lose_gammon_rate:.1%}, lost backgammons {lose_backgammon_rate:.1%}.

Reproduce:

    tdgammon bench strength --model models/{name}.pt --opponent pubeval \\
        --games {eval_games} --seed {seed}

Learning curve (periodic evaluations during training, fixed dice):
`docs/learning_curve.png`, made by `scripts/plot_learning_curve.py runs/tesauro80 runs/extended128`.

## Continue training

The full training state (optimizer, counters, in-flight games, random
state) is in `{run_dir}/checkpoint.pt` on the machine that trained it
(`runs/` is not in git). To continue for more games:

    tdgammon train --resume {run_dir} --set run.max_games=2000000

Without that folder (another machine, a fresh checkout), start a new run
from the shipped weights (fresh optimizer and game counter):

    tdgammon train --config {config_file} \\
        --set model.init_from=models/{name}.pt --set run.run_dir=runs/{preset}-continued

## Resolved config

```json
{config_json}
```
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--source", choices=["best", "checkpoint"], default="best")
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--config-file", default="configs/tesauro80.toml")
    parser.add_argument("--out-dir", type=Path, default=Path("models"))
    parser.add_argument(
        "--note", default="", help="training history for the card (e.g. config changes on resume)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    source = args.run / ("best.pt" if args.source == "best" else "checkpoint.pt")
    preset, network, card = load_model(source)
    checkpoint = load_checkpoint(args.run / "checkpoint.pt")
    agent = NetworkAgent(NetworkEvaluator(network, preset, preset.name))
    start = time.perf_counter()
    result = play_duel(agent, PubevalAgent(), args.games, SHIP_SEED)
    print(result.text(), f"({time.perf_counter() - start:.0f} s)")
    summary = result.summary()
    name = f"tdgammon-{preset.name}"
    games = card.get("games", checkpoint["counters"]["games"])
    ship_card = dict(
        card,
        ppg_vs_pubeval=summary["ppg"],
        ci95_vs_pubeval=summary["ci95"],
        eval_games=summary["games"],
        eval_seed=SHIP_SEED,
        source=str(source),
    )
    path = args.out_dir / f"{name}.pt"
    save_model(path, preset, network, ship_card)
    from models.encoding import ENCODINGS

    encoding = ENCODINGS[preset.encoding]
    text = CARD.format(
        name=name,
        size_kb=path.stat().st_size / 1024,
        preset=preset.name,
        description=preset.description or "",
        encoding=encoding.name,
        encoding_version=encoding.version,
        inputs=encoding.size,
        config_file=args.config_file,
        games=games,
        steps=card.get("steps", 0),
        hours=card.get("train_seconds", 0.0) / 3600,
        wall_note="not counting periodic evaluations; other jobs shared the machine",
        note=f"## Training history\n\n{args.note}\n\n" if args.note else "",
        commit=card.get("git_commit", "unknown"),
        date=datetime.date.today().isoformat(),
        seed=SHIP_SEED,
        ppg=summary["ppg"],
        ci95=summary["ci95"],
        eval_games=summary["games"],
        win_rate=summary["win_rate"],
        gammon_rate=summary["gammon_rate"],
        backgammon_rate=summary["backgammon_rate"],
        lose_gammon_rate=summary["lose_gammon_rate"],
        lose_backgammon_rate=summary["lose_backgammon_rate"],
        run_dir=args.run.as_posix(),
        config_json=json.dumps(card.get("config", checkpoint["config"]), indent=2),
    )
    (args.out_dir / f"{name}.md").write_text(text)
    print(f"wrote {path} and {args.out_dir / (name + '.md')}")


if __name__ == "__main__":
    main()
