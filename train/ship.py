"""Ship a trained network: write it as a small model file, measure THAT file, write its card.

    python -m tdgammon.train.ship runs/tesauro80   # standard: 10,000 games against pubeval
    python -m tdgammon.train.ship runs/dutch       # a variant: 2,000 vs random, 4,000 heuristic
    python -m tdgammon.train.ship runs/acey-deucey --against random:2000 --against heuristic:2000

Takes ``RUN/best.pt`` (``--source checkpoint`` for the latest weights, or
``--weights FILE``: a model file made from that run, e.g. by ``tdgammon
refine``) and writes ``models/tdgammon-<preset>.pt`` (standard) or
``models/tdgammon-<variant>.pt`` with its card ``.md`` next to it. ``--race
FILE`` ships a race net with it (phase networks: ``models/<name>-race.pt``,
named in the card as ``race_model``), and every figure is measured on the set.
Each figure is measured exactly as ``tdgammon bench strength`` measures it
(``tdgammon.train.evaluate.strength``: same agents, one torch thread), with a
dice seed that training evaluations never use, so picking the best checkpoint
on those evaluations does not bias the
figures; the card gives the command that reproduces each one.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path

from tdgammon.engine.evaluation.search import MAX_PLIES
from tdgammon.engine.players.duel import plus_minus
from tdgammon.models import shipped_model
from tdgammon.models.encoding import ENCODINGS
from tdgammon.models.network import ModelFileError, load_model, read_torch_file, save_model
from tdgammon.models.race_distributions import is_race_file, race_net_from_record, save_race_net
from tdgammon.train.checkpoint import load_checkpoint
from tdgammon.train.evaluate import strength

SHIP_SEED = 20261129
"""Dice seed of every shipped figure (training evaluations use eval.seed, 12345 by default)."""

DEFAULT_OPPONENTS = {"standard": (("pubeval", 10000, 0),)}
VARIANT_OPPONENTS = (("random", 2000, 0), ("heuristic", 4000, 0))
"""(opponent, games, the model's search depth) of each figure."""

OPPONENTS = {
    "pubeval": (
        "pubeval is Tesauro's public linear evaluator "
        "(`tdgammon.engine.players.agents.PubevalAgent`)."
    ),
    "heuristic": (
        "The heuristic player is `tdgammon.engine.players.heuristic.HeuristicAgent` "
        "(pips, hits, points made, blots exposed to the checkers behind them, "
        "including those in hand, borne-off checkers)."
    ),
    "random": "The random player picks a uniformly random legal play.",
    "gnubg": (
        "gnubg is GNU Backgammon's 0-ply network through its Python bindings "
        "(`tdgammon.engine.players.gnubg_agent`, `pip install -e '.[gnubg]'`), a benchmark "
        "opponent only."
    ),
}

SCORING = {
    "acey-deucey": (
        "Acey-Deucey scoring: the loser pays the stake times the checkers he has not borne "
        "off, so points per game range over -15..+15 and the 'won 2+ points' rate counts "
        "every win by 2 or more checkers left."
    ),
}
STANDARD_SCORING = "Points: 1 single game, 2 gammon, 3 backgammon."

OUTPUTS = {
    "acey-deucey": (
        "win = p(win); win gammon = E[win x opponent's checkers left] / 15; lose gammon = "
        "E[loss x own checkers left] / 15; backgammon outputs 0 (trained to 0). The player "
        "maximises 15 x (wg - lg), the expected stake multiple "
        "(`tdgammon.engine.rules.outcome.variant_equity`)"
    ),
}
STANDARD_OUTPUTS = "win, win gammon, win backgammon, lose gammon, lose backgammon (player on roll)"

WALL_NOTE = "2-core machine shared with other jobs, 1 thread, not counting evaluations"

CARD = """# Model card: {name}

{role}

| | |
|---|---|
| File | `models/{name}.pt` ({size_kb:.0f} KB) |
| Variant | `{variant}` |
| Preset | `{preset}`: {description} |
| Encoding | `{encoding}` (version {encoding_version}), {inputs} inputs |
| Outputs | {outputs} |
| Training | batched self-play, TD(lambda) as lambda-returns ({training_doc}) |
| Config | `{config_file}` (resolved config below) |
| Games played | {games:,} self-play games ({steps:,} gradient steps) |
| Wall time | {minutes:.1f} min self-play + updates ({wall_note}) |
| Weights | `{source}` ({weights_note}) |
{extra_rows}| Code | git commit `{commit}` |
| Shipped | {date} |

{history}## Strength

Cubeless games under {variant} rules, duplicate dice (games 2k and 2k+1 share
the dice with the seats swapped), dice seed {seed} (never used by training
evaluations). Plies is the model's search depth: 0, each play valued by the
network (the position it leaves); 1 or more, n-ply search with move filters
(`tdgammon.engine.evaluation.search`).
{scoring}

| Opponent | Plies | Games | Points per game | 95% CI | Wins | Won 2+ points | Lost 2+ points |
|---|---|---|---|---|---|---|---|
{rows}

{opponents}

Reproduce each figure (exactly: fixed seed, one torch thread):

{commands}

## Continue training

The full training state (optimizer, counters, in-flight games, random state)
is in `{run_dir}/checkpoint.pt` on the machine that trained it (`runs/` is not
in git). To continue:

    tdgammon train --resume {run_dir} --set run.max_minutes=60

Without that folder (another machine, a fresh checkout), start a new run from
the shipped weights (fresh optimizer and game counter):

    tdgammon train --config {config_file} \\
        --set model.init_from=models/{name}.pt{preset_set} --set run.run_dir={run_dir}-continued

## Resolved config

```json
{config_json}
```
"""


def parse_opponent(text: str) -> tuple[str, int, int]:
    """``"heuristic:4000"`` -> ``("heuristic", 4000, 0)``; ``"heuristic:4000:1"`` also
    sets the model's search depth (argparse type)."""
    parts = text.split(":")
    plies = parts.pop() if len(parts) == 3 else "0"
    if len(parts) != 2 or not parts[0] or not parts[1].isdigit() or int(parts[1]) < 2:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected OPPONENT:GAMES or OPPONENT:GAMES:PLIES, e.g. heuristic:4000"
        )
    if not plies.isdigit() or int(plies) > MAX_PLIES:
        raise argparse.ArgumentTypeError(f"{text!r}: plies must be 0-{MAX_PLIES}")
    return parts[0], int(parts[1]), int(plies)


def role_line(name: str, variant: str, path: Path) -> str:
    """The card's opening sentence: what the model is for."""
    load = f'`tdgammon.engine.evaluation.evaluator.load_evaluator("models/{name}.pt")`'
    if variant == "standard":
        if path.resolve() == shipped_model("standard").resolve():
            return (
                "The default evaluator of tdgammon "
                "(`tdgammon.engine.evaluation.evaluator.default_evaluator()`), "
                "the bot of `tdgammon play` and `tdgammon match`."
            )
        return f"A standard backgammon network trained by self-play: {load}."
    text = (
        f"A small network for **{variant}** (`tdgammon.engine.rules.variants`) "
        f"trained by self-play: {load} "
        f"plays {variant} (the variant is read from the card stored in the file)."
    )
    if path.resolve() == shipped_model(variant).resolve():
        text += f" It is the bot of `tdgammon play --variant {variant}`."
    return text


def command(name: str, opponent: str, games: int, plies: int) -> str:
    depth = f" --plies {plies}" if plies else ""
    return (
        f"    tdgammon bench strength --model models/{name}.pt --opponent {opponent} "
        f"--games {games} --seed {SHIP_SEED}{depth}"
    )


def ship(
    run: Path,
    source_kind: str = "best",
    opponents: list[tuple[str, int, int]] | None = None,
    out_dir: Path = Path("models"),
    note: str = "",
    echo=print,
    weights: Path | None = None,
    race: Path | None = None,
) -> Path:
    """Write ``out_dir/tdgammon-<name>.pt`` and its card from run folder ``run``;
    returns the model path. ``opponents``: (opponent, games, model plies), default
    by variant. weights: the model file to ship instead of the run's own (module
    docstring); race: a race net shipped beside it."""
    source = weights or run / ("best.pt" if source_kind == "best" else "checkpoint.pt")
    preset, network, card = load_model(source)
    checkpoint = load_checkpoint(run / "checkpoint.pt")
    config = card.get("config", checkpoint["config"])
    variant = card.get("variant") or config["model"].get("variant", "standard")
    name = f"tdgammon-{preset.name}" if variant == "standard" else f"tdgammon-{variant}"
    if opponents is None:
        opponents = list(DEFAULT_OPPONENTS.get(variant, VARIANT_OPPONENTS))
    path = out_dir / f"{name}.pt"
    ship_card = dict(card, variant=variant, source=source.as_posix(), eval_seed=SHIP_SEED)
    ship_card.pop("race_model", None)
    extra_rows = _refine_row(card)
    if race is not None:
        race_name = f"{name}-race.pt"
        race_data = read_torch_file(race)
        if is_race_file(race_data):
            race_network, race_card = race_net_from_record(race_data, str(race))
            save_race_net(out_dir / race_name, race_network, race_card)
            kind = f"one-sided race distributions, {race_network.hidden} hidden"
        else:
            race_preset, race_network, race_card = load_model(race)
            save_model(out_dir / race_name, race_preset, race_network, race_card)
            kind = race_preset.name
        ship_card["race_model"] = race_name
        extra_rows += (
            f"| Phase nets | races (no contact, `tdgammon.engine.rules.board.has_contact`): "
            f"`models/{race_name}` (`{kind}`, from `{race.as_posix()}`"
            f"{_refine_phrase(race_card)}) |\n"
        )
    save_model(path, preset, network, ship_card)

    results = {}
    for opponent, games, plies in opponents:
        start = time.perf_counter()
        summary, text = strength(str(path), opponent, games, SHIP_SEED, 1, plies=plies)
        echo(f"{text} ({time.perf_counter() - start:.0f} s)")
        results[opponent, plies] = summary
    ship_card["strength"] = [
        {"opponent": opp, "plies": plies, **{f: s[f] for f in ("games", "ppg", "ci95", "win_rate")}}
        for (opp, plies), s in results.items()
    ]
    for (opp, plies), s in results.items():  # replace best.pt's training-time figures
        if plies == 0 and f"ppg_vs_{opp}" in ship_card:
            ship_card[f"ppg_vs_{opp}"] = s["ppg"]
            ship_card[f"ci95_vs_{opp}"] = s["ci95"]
    save_model(path, preset, network, ship_card)
    # The weights did not change: the figures measured above still hold for this file.

    rows = "\n".join(
        f"| {opp} | {plies} | {s['games']:,} | **{s['ppg']:+.3f}** | "
        f"{plus_minus(s['ci95'], '.3f')} | "
        f"{s['win_rate']:.1%} | {s['gammon_rate']:.1%} | {s['lose_gammon_rate']:.1%} |"
        for (opp, plies), s in results.items()
    )
    named = dict.fromkeys(opp for opp, _ in results)
    opponent_notes = " ".join(
        OPPONENTS.get(opp, f"`{opp}` is the model file of that name.") for opp in named
    )
    eval_cfg = config["eval"]
    trained_against = "pubeval" if variant == "standard" else "the heuristic"
    weights_note = (
        f"best of the periodic evaluations against {trained_against}: "
        f"{eval_cfg['pubeval_games']:,} games every {eval_cfg['every_games']:,} training games, "
        f"seed {eval_cfg['seed']}"
        if source_kind == "best"
        else "the latest weights of the run"
    )
    encoding = ENCODINGS[preset.encoding]
    run_preset = config["model"].get("preset", preset.name)
    config_file = f"configs/{run_preset if variant == 'standard' else variant}.toml"
    text = CARD.format(
        name=name,
        role=role_line(name, variant, path),
        variant=variant,
        size_kb=path.stat().st_size / 1024,
        preset=preset.name,
        description=preset.description or "",
        encoding=encoding.name,
        encoding_version=encoding.version,
        inputs=encoding.size,
        outputs=OUTPUTS.get(variant, STANDARD_OUTPUTS),
        training_doc="`docs/training.md`" + ("" if variant == "standard" else ', "Variants"'),
        config_file=config_file,
        preset_set="" if run_preset == preset.name else f" --set model.preset={preset.name}",
        games=card.get("games", checkpoint["counters"]["games"]),
        steps=card.get("steps", 0),
        minutes=card.get("train_seconds", 0.0) / 60,
        wall_note=WALL_NOTE,
        source=source.as_posix(),
        weights_note=weights_note if weights is None else "a model file made from the run",
        extra_rows=extra_rows,
        commit=card.get("git_commit", "unknown"),
        date=datetime.date.today().isoformat(),
        history=f"## Training history\n\n{note}\n\n" if note else "",
        seed=SHIP_SEED,
        scoring=SCORING.get(variant, STANDARD_SCORING),
        rows=rows,
        opponents=opponent_notes,
        commands="\n".join(
            command(name, opp, s["games"], plies) for (opp, plies), s in results.items()
        ),
        run_dir=run.as_posix(),
        config_json=json.dumps(config, indent=2),
    )
    card_path = out_dir / f"{name}.md"
    card_path.write_text(text)
    echo(f"wrote {path} and {card_path}")
    return path


def _refine_phrase(card: dict) -> str:
    """``, refined: ...`` for a model made by ``tdgammon refine``, else empty."""
    report = card.get("refine")
    if not isinstance(report, dict):
        return ""
    settings = report.get("settings", {})
    label = (
        f"{settings.get('rollout_trials')}-trial rollouts"
        if settings.get("rollout_trials")
        else f"{settings.get('plies')}-ply values"
    )
    return (
        f"; refined by `tdgammon refine`: fitted to {label} of {report.get('positions', 0):,} "
        f"{'race ' if settings.get('phase') == 'race' else ''}positions"
    )


def _refine_row(card: dict) -> str:
    """The card's table row for a refined model (``tdgammon refine``), or empty."""
    phrase = _refine_phrase(card)
    if not phrase:
        return ""
    return f"| Refinement | from `{card.get('refined_from')}`{phrase} |\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="training run folder (tdgammon train's run_dir)")
    parser.add_argument("--source", choices=["best", "checkpoint"], default="best")
    parser.add_argument(
        "--against",
        action="append",
        type=parse_opponent,
        metavar="OPPONENT:GAMES[:PLIES]",
        help="measure against this opponent, the model searching PLIES deep (default 0) "
        "(repeatable; default: pubeval:10000 for standard, random:2000 and heuristic:4000 "
        "for variants)",
    )
    parser.add_argument(
        "--weights", type=Path, default=None, help="ship this model file made from the run"
    )
    parser.add_argument("--race", type=Path, default=None, help="a race net to ship beside it")
    parser.add_argument("--out-dir", type=Path, default=Path("models"))
    parser.add_argument("--note", default="", help="training history for the card")
    args = parser.parse_args(argv)
    try:
        ship(
            args.run,
            args.source,
            args.against,
            args.out_dir,
            args.note,
            weights=args.weights,
            race=args.race,
        )
    except (ModelFileError, FileNotFoundError) as error:
        print(f"tdgammon.train.ship: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
