"""The numbers behind the notebooks (``notebooks/``): curves, reviews, cube tables.

The notebooks only call functions; whatever they compute lives here (data)
and in ``tdgammon.engine.display.plots`` (pictures), so it is tested and linted like the rest
of the engine. Nothing here imports torch or matplotlib at import time.

- learning curves: ``shipped_curve`` (the shipped model's periodic evaluations,
  ``models/tdgammon-tesauro80.curve.json``), ``read_metrics`` (a run's
  ``metrics.jsonl``), ``tensorboard_scalars`` (a run's TensorBoard logs);
- positions: ``analyse_position`` (probabilities and ranked plays at several
  depths, through the same reports as ``tdgammon eval`` / ``hint``),
  ``plays_table``; ``review_match`` (every checker play and cube action of a
  .mat file against the engine's choice) and ``review_summary``;
- cube theory: ``take_point_vs_gammons``, ``janowski_points``,
  ``cubeful_lines``, ``match_take_point_table``, ``cube_verdicts``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tdgammon.engine.cube import match_equity as me
from tdgammon.engine.cube.theory import CONTACT, cube_decision, take_point_money
from tdgammon.engine.formats.parse import parse_position
from tdgammon.engine.rules.position import Position

SAMPLE_MATCH = Path(__file__).with_name("sample_real.mat")
"""A short real 3-point match (4 games) typed from a FIBS log."""


# ---------------------------------------------------------------- learning curves


def shipped_curve_path() -> Path:
    from tdgammon.models import shipped_model

    return shipped_model().with_suffix(".curve.json")


def shipped_curve() -> dict:
    """The shipped model's recorded learning curve: ``{"model", "source", "note",
    "evaluations": [{"games_trained", "ppg_vs_pubeval", "ci95_vs_pubeval", ...}]}``."""
    return json.loads(shipped_curve_path().read_text(encoding="utf-8"))


def read_metrics(run_dir: str | Path) -> list[dict]:
    """The periodic evaluations a training run wrote to ``run_dir/metrics.jsonl``."""
    path = Path(run_dir) / "metrics.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def tensorboard_scalars(log_dir: str | Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar of the TensorBoard event files under ``log_dir``: ``{tag: [(step, value)]}``.

    Steps are training games (``tdgammon.train.loop`` logs at the game counter).
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(log_dir), size_guidance={"scalars": 0})
    accumulator.Reload()
    return {
        tag: [(int(e.step), float(e.value)) for e in accumulator.Scalars(tag)]
        for tag in accumulator.Tags()["scalars"]
    }


# ---------------------------------------------------------------- positions


def _search(search=None):
    if search is not None:
        return search
    from tdgammon.engine.analysis.reports import load_search

    return load_search()


def analyse_position(position, plies=(0, 2), search=None) -> dict:
    """Probabilities and ranked plays of one position at each depth in ``plies``.

    position: a Position or any string ``parse_position`` reads. Returns
    ``{"position", "eval": {plies: eval report}, "hint": {plies: hint report}
    (only when the position has dice), "cube": cube report at the deepest
    level (only before rolling)}``; the reports are those of ``tdgammon eval``,
    ``hint`` and ``cube --json``.
    """
    from tdgammon.engine.analysis.reports import cube_report, eval_report, hint_report

    position = parse_position(position) if isinstance(position, str) else position
    search = _search(search)
    out = {"position": position, "eval": {}, "hint": {}}
    for depth in plies:
        out["eval"][depth] = eval_report(search, position, depth)
        if position.dice is not None:
            out["hint"][depth] = hint_report(search, position, position.dice, depth)
    if position.dice is None:
        out["cube"] = cube_report(search, position, max(plies))
    return out


def plays_table(hints: dict, top: int = 8) -> str:
    """The best ``top`` plays at each depth side by side, as text (rank, move, equity, loss)."""
    lines = []
    for depth, report in hints.items():
        lines.append(f"{depth}-ply ranking, roll {report['dice'][0]}{report['dice'][1]}:")
        for rank, play in enumerate(report["moves"][:top], 1):
            p = play["probabilities"]
            lines.append(
                f"  {rank:2d}. {play['move']:<24} {play['equity']:+.3f}  "
                f"({-play['loss']:+.3f})  win {100 * p['win']:5.1f}%  "
                f"gammon {100 * p['win_gammon']:4.1f}%  lose gammon {100 * p['lose_gammon']:4.1f}%"
                + ("" if play["plies"] == depth else f"  [{play['plies']}-ply]")
            )
        lines.append("")
    return "\n".join(lines).rstrip()


def review_match(path: str | Path = SAMPLE_MATCH, plies: int = 0, search=None) -> list[dict]:
    """Every decision of a .mat match against the engine's choice at ``plies``.

    One row per checker play and per cube action: ``{"game", "player", "kind"
    ("move" | "double" | "take" | "drop"), "dice", "played", "best",
    "rank", "loss"}``. loss: cubeless equity lost by the checker play (the
    mover's, >= 0), or cubeful equity (normalised, EMG in a match) lost by a
    cube action (the doubler's equity the taker gave away, for take and drop);
    for cube rows ``best`` is the engine's verdict ("Double, take", ...).
    Forced and single-play rolls, and cube actions at scores where the cube
    is dead, are skipped.
    """
    from tdgammon.engine.flow.checker_moves import apply_moves
    from tdgammon.engine.flow.game_records import ACT_DOUBLE, ACT_DROP, ACT_MOVE, ACT_TAKE
    from tdgammon.engine.flow.matfile import load_mat, position_ids
    from tdgammon.engine.formats.notation import format_move

    search = _search(search)
    loaded = load_mat(path)
    names = loaded.match.names
    actions = [a for game in loaded.match.games for a in game.history]
    rows = []
    for entry, action in zip(position_ids(loaded.match), actions, strict=True):
        position = parse_position(entry["xgid"])
        row = {"game": entry["game"], "player": names[action.seat], "kind": action.kind}
        if action.kind == ACT_MOVE:
            plays = search.analyse(position.board, action.dice, plies)
            if len(plays) < 2:
                continue
            after, _ = apply_moves(position.board, action.moves)
            rank = next(
                i for i, play in enumerate(plays) if np.array_equal(play.board_after, after)
            )
            row.update(
                dice=f"{action.dice[0]}{action.dice[1]}",
                played=format_move(position.board, action.moves),
                best=format_move(position.board, plays[0].moves),
                rank=rank + 1,
                loss=float(plays[0].equity - plays[rank].equity),
            )
        elif action.kind in (ACT_DOUBLE, ACT_TAKE, ACT_DROP):
            doubler_view = position.with_changes(double_offered=False, beaver_stage=0)
            probabilities = search.evaluate(doubler_view.board, plies)
            decision = cube_decision(probabilities, doubler_view)
            if not decision.cube_available:
                continue
            nd, dt, dp = decision.no_double, decision.double_take, decision.double_pass
            if action.kind == ACT_DOUBLE:
                loss = max(nd, min(dt, dp)) - min(dt, dp)
            elif action.kind == ACT_TAKE:
                loss = max(dt - dp, 0.0)  # doubler's equity gained by a wrong take
            else:
                loss = max(dp - dt, 0.0)  # ... by a wrong pass
            row.update(
                dice="", played=action.kind, best=decision.action, rank=None, loss=float(loss)
            )
        else:
            continue
        rows.append(row)
    return rows


def review_summary(rows: list[dict], blunder: float = 0.08) -> dict[str, dict]:
    """Per player: decisions reviewed, total and mean loss, errors (> 0.02) and blunders."""
    out: dict[str, dict] = {}
    for row in rows:
        s = out.setdefault(
            row["player"], {"decisions": 0, "total_loss": 0.0, "errors": 0, "blunders": 0}
        )
        s["decisions"] += 1
        s["total_loss"] += row["loss"]
        s["errors"] += row["loss"] > 0.02
        s["blunders"] += row["loss"] > blunder
    for s in out.values():
        s["mean_loss"] = s["total_loss"] / max(s["decisions"], 1)
    return out


def review_table(rows: list[dict]) -> str:
    """The review as text, one line per decision."""
    lines = [f"{'game':>4}  {'player':<8} {'roll':<4} {'played':<22} {'engine':<22} loss"]
    for r in rows:
        lines.append(
            f"{r['game']:>4}  {r['player']:<8} {r['dice']:<4} {r['played']:<22} "
            f"{r['best']:<22} {r['loss']:.3f}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- cube theory


def take_point_vs_gammons(gammon_rates=None, efficiencies=(0.0, 0.68, 1.0)) -> dict:
    """Money take point as the doubler's gammon rate grows (the taker wins no gammons).

    gammon_rates: the fraction of the doubler's wins that are gammons (default
    0..0.5). With it the taker's average loss is ``L = 1 + g`` and his average
    win ``W = 1``; each efficiency x gives Janowski's ``(L - 1/2)/(W + L + x/2)``.
    Returns ``{"gammon_rate": (N,), x: (N,) for each x}``.
    """
    g = np.linspace(0.0, 0.5, 51) if gammon_rates is None else np.asarray(gammon_rates, float)
    out = {"gammon_rate": g}
    for x in efficiencies:
        out[x] = np.array([take_point_money(1.0, 1.0 + rate, x) for rate in g])
    return out


def _probabilities(win: float, gammon_rate: float = 0.0, lose_gammon_rate: float = 0.0):
    """Cumulative (5,) probabilities from pW and the conditional gammon rates."""
    return np.array([win, win * gammon_rate, 0.0, (1 - win) * lose_gammon_rate, 0.0])


def janowski_points(efficiencies=None, gammon_rate: float = 0.0) -> dict:
    """Market window of a money position as the cube efficiency x goes from 0 (dead) to 1 (live).

    Returns ``{"x", "double", "take", "cash", "too_good"}`` arrays: the doubler's
    initial double point, the taker's take point (taker's chances), the cash
    point and the too-good point, all for a centred cube, both sides winning
    gammons at ``gammon_rate``.
    """
    xs = np.linspace(0.0, 1.0, 21) if efficiencies is None else np.asarray(efficiencies, float)
    probabilities = _probabilities(0.7, gammon_rate, gammon_rate)
    keys = ("double", "take", "cash", "too_good")
    out = {"x": xs, **{k: np.full(len(xs), np.nan) for k in keys}}
    for i, x in enumerate(xs):
        window = cube_decision(probabilities, kind=CONTACT, efficiency=float(x)).window
        for key in keys:
            value = window[key]["used"]
            out[key][i] = np.nan if value is None else value
    return out


def cubeful_lines(efficiency: float, gammon_rate: float = 0.0, points: int = 101) -> dict:
    """ND, DT and DP of a centred-cube money position as pW goes 0..1 (fixed gammon rates).

    Returns ``{"win", "no_double", "double_take", "double_pass"}`` arrays
    (doubler's equity, normalised to the cube before doubling).
    """
    wins = np.linspace(0.0, 1.0, points)
    nd, dt = np.empty(points), np.empty(points)
    for i, w in enumerate(wins):
        decision = cube_decision(
            _probabilities(w, gammon_rate, gammon_rate), kind=CONTACT, efficiency=efficiency
        )
        nd[i], dt[i] = decision.no_double, decision.double_take
    return {"win": wins, "no_double": nd, "double_take": dt, "double_pass": np.ones(points)}


def match_take_point_table(max_away: int = 9, live: bool = True, met=None) -> np.ndarray:
    """The taker's gammonless take point of the first double at each score (Kazaross-XG2).

    Returns ``(max_away, max_away)``: row i is the taker ``i + 1`` away, column
    j the doubler ``j + 1`` away; NaN where the doubler may not double (he is
    1-away: a post-Crawford leader, or the cube is dead). Post-Crawford scores
    are taken as post-Crawford games (the Crawford game has no cube).
    """
    table = np.full((max_away, max_away), np.nan)
    key = "opponent_live" if live else "opponent_dead"
    for taker in range(1, max_away + 1):
        for doubler in range(1, max_away + 1):
            state = me.MatchState(doubler, taker)
            if not me.can_double(state, 1)[0]:
                continue
            table[taker - 1, doubler - 1] = me.take_points(state, 1, met)[key]
    return table


def cube_verdicts(positions: dict[str, str], plies: int = 2, search=None) -> list[dict]:
    """The engine's cube decision for each named position (XGID or GNU ID, before rolling).

    Returns one row per position: ``{"name", "position", "action", "win",
    "gammon", "no_double", "double_take", "double_pass", "take_point",
    "explanation"}``.
    """
    from tdgammon.engine.analysis.reports import cube_report

    search = _search(search)
    rows = []
    for name, text in positions.items():
        position: Position = parse_position(text)
        report = cube_report(search, position, plies)
        p = report["probabilities"]
        rows.append(
            {
                "name": name,
                "position": position,
                "action": report["action"],
                "win": p["win"],
                "gammon": p["win_gammon"],
                "lose_gammon": p["lose_gammon"],
                "no_double": report["no_double"],
                "double_take": report["double_take"],
                "double_pass": report["double_pass"],
                "take_point": report["take_point"],
                "explanation": report["explanation"],
            }
        )
    return rows


def verdicts_table(rows: list[dict]) -> str:
    """Cube verdicts as text, one line per position."""
    lines = [
        f"{'position':<28} {'win':>6} {'gammon':>7} {'ND':>7} {'D/T':>7} {'D/P':>6}  "
        f"{'take pt':>7}  verdict"
    ]
    for r in rows:
        take = "" if r["take_point"] is None else f"{100 * r['take_point']:.1f}%"
        lines.append(
            f"{r['name']:<28} {100 * r['win']:5.1f}% {100 * r['gammon']:6.1f}% "
            f"{r['no_double']:+.3f} {r['double_take']:+.3f} {r['double_pass']:+.3f}  "
            f"{take:>7}  {r['action']}"
        )
    return "\n".join(lines)
