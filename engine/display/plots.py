"""Figures for the notebooks and docs: learning curves, probabilities, cube theory.

Each function returns a ``matplotlib.figure.Figure`` (made without pyplot, so
a notebook shows it once, as the cell's value, and a script can
``fig.savefig``). matplotlib is imported inside the functions only. The
numbers come from ``tdgammon.engine.display.study``.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.display import study
from tdgammon.engine.rules.outputs import N_OUTPUTS

PROBABILITY_LABELS = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")


def _figure(width: float, height: float, columns: int = 1, sharey: bool = False):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    axes = fig.subplots(1, columns, sharey=sharey)
    return fig, axes


def _curve(ax, rows: list[dict], label: str, scale: float) -> None:
    x = [r["games_trained"] / scale for r in rows]
    y = [r["ppg_vs_pubeval"] for r in rows]
    e = [r["ci95_vs_pubeval"] for r in rows]
    ax.errorbar(x, y, yerr=e, marker="o", ms=3, capsize=2, label=label)
    ax.axhline(0, lw=0.8, color="black")
    ax.grid(alpha=0.3)


def learning_curves(run_rows: list[dict], run_label: str = "this run", shipped=None):
    """Two panels: a run's ppg against pubeval by games played, and the shipped model's.

    run_rows: a run's ``metrics.jsonl`` rows (``study.read_metrics``);
    shipped: ``study.shipped_curve()`` (default). Error bars are 95% intervals.
    """
    shipped = study.shipped_curve() if shipped is None else shipped
    fig, (left, right) = _figure(11, 4, 2, sharey=True)
    _curve(left, run_rows, run_label, 1.0)
    left.set_xlabel("training games")
    left.set_ylabel("points per game vs pubeval")
    left.set_title(f"{run_label}: {run_rows[-1]['games_trained'] if run_rows else 0} games")
    _curve(right, shipped["evaluations"], shipped["model"], 1000.0)
    right.axhline(0.35, ls="--", lw=0.8, color="grey")
    right.set_xlabel("training games (thousands)")
    right.set_title(f"shipped model {shipped['model']}")
    for ax in (left, right):
        ax.legend(loc="lower right")
    return fig


def scalars_figure(scalars: dict[str, list[tuple[int, float]]], tags=None):
    """One panel per TensorBoard scalar tag (``study.tensorboard_scalars``), by training games."""
    tags = sorted(scalars) if tags is None else [t for t in tags if t in scalars]
    fig, axes = _figure(4 * max(len(tags), 1), 3.2, max(len(tags), 1))
    axes = np.atleast_1d(axes)
    for ax, tag in zip(axes, tags, strict=False):
        steps, values = zip(*scalars[tag], strict=True) if scalars[tag] else ((), ())
        ax.plot(steps, values, marker=".", lw=1)
        ax.set_title(tag)
        ax.set_xlabel("training games")
        ax.grid(alpha=0.3)
    return fig


def probabilities_figure(reports: dict, title: str = "Outcome probabilities of the player on roll"):
    """Grouped bars of the five probabilities, one group per label.

    reports: ``{label: probabilities}`` where probabilities is a dict with the
    ``tdgammon.engine.rules.outputs.OUTPUT_NAMES`` keys (an eval or play report) or a (5,)
    array.
    Cumulative, as everywhere: "win gammon" includes backgammons.
    """
    fig, ax = _figure(8, 3.6)
    width = 0.8 / max(len(reports), 1)
    xs = np.arange(N_OUTPUTS)
    for i, (label, p) in enumerate(reports.items()):
        values = np.asarray(list(p.values()) if isinstance(p, dict) else p, dtype=float)
        bars = ax.bar(xs + (i - (len(reports) - 1) / 2) * width, 100 * values, width, label=label)
        ax.bar_label(bars, fmt="%.1f", fontsize=8)
    ax.set_xticks(xs, PROBABILITY_LABELS)
    ax.set_ylabel("%")
    ax.set_ylim(0, 105)
    ax.set_title(title)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return fig


def plays_figure(hints: dict, top: int = 6):
    """Equity of the best ``top`` plays at each depth (``study.analyse_position(...)["hint"]``)."""
    fig, ax = _figure(8, 0.45 * top + 1.4)
    depths = list(hints)
    moves = [m["move"] for m in hints[depths[-1]]["moves"][:top]]
    height = 0.8 / max(len(depths), 1)
    ys = np.arange(len(moves))
    for i, depth in enumerate(depths):
        equity = {m["move"]: m["equity"] for m in hints[depth]["moves"]}
        values = [equity.get(move, np.nan) for move in moves]
        ax.barh(ys + (i - (len(depths) - 1) / 2) * height, values, height, label=f"{depth}-ply")
    ax.set_yticks(ys, moves)
    ax.invert_yaxis()
    ax.axvline(0, lw=0.8, color="black")
    ax.set_xlabel("cubeless equity after the play")
    ax.legend()
    ax.grid(axis="x", alpha=0.3)
    return fig


def review_figure(rows: list[dict]):
    """Equity lost at each reviewed decision of a match (``study.review_match``), by player."""
    fig, ax = _figure(10, 3.4)
    players = sorted({r["player"] for r in rows})
    for player in players:
        idx = [i for i, r in enumerate(rows) if r["player"] == player]
        ax.bar(idx, [rows[i]["loss"] for i in idx], label=player)
    ax.set_xticks(
        range(len(rows)), [f"g{r['game']} {r['dice'] or r['played']}" for r in rows], rotation=70
    )
    ax.set_ylabel("equity lost")
    ax.axhline(0.08, ls="--", lw=0.8, color="grey")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return fig


def take_point_figure(data: dict | None = None):
    """Money take point against the doubler's gammon rate: dead, Janowski x = 0.68, live."""
    data = study.take_point_vs_gammons() if data is None else data
    fig, ax = _figure(7, 4.2)
    names = {0.0: "dead cube (x = 0)", 1.0: "fully live cube (x = 1)"}
    for x, values in data.items():
        if x == "gammon_rate":
            continue
        label = names.get(x, f"Janowski, x = {x:g}")
        ax.plot(100 * data["gammon_rate"], 100 * values, label=label)
    ax.axhline(25, ls=":", lw=0.8, color="grey")
    ax.annotate("25%: no gammons, dead cube", (1, 25.4), fontsize=8, color="grey")
    ax.set_xlabel("doubler's wins that are gammons (%)")
    ax.set_ylabel("taker's take point (% wins needed)")
    ax.set_title("Money take point: (L - 1/2) / (W + L + x/2)")
    ax.legend()
    ax.grid(alpha=0.3)
    return fig


def janowski_figure(gammon_rate: float = 0.0, efficiencies=(0.0, 0.68, 1.0)):
    """Left: ND and DT against pW for dead, real and live cubes; right: the market window by x."""
    fig, (left, right) = _figure(12, 4.3, 2)
    for x in efficiencies:
        lines = study.cubeful_lines(x, gammon_rate)
        (nd,) = left.plot(100 * lines["win"], lines["no_double"], label=f"no double, x = {x:g}")
        left.plot(
            100 * lines["win"],
            lines["double_take"],
            ls="--",
            color=nd.get_color(),
            label=f"double/take, x = {x:g}",
        )
    left.axhline(1, color="black", lw=1, label="double/pass = +1")
    left.set_ylim(-2.2, 2.2)
    left.set_xlabel("doubler's winning chances (%)")
    left.set_ylabel("cubeful equity (doubler)")
    left.set_title("Cubeful equity, centred cube")
    left.legend(fontsize=7, ncol=2)
    left.grid(alpha=0.3)
    points = study.janowski_points(gammon_rate=gammon_rate)
    labels = {
        "take": "take point (taker's chances)",
        "cash": "cash point",
        "double": "initial double point",
        "too_good": "too-good point",
    }
    for key, label in labels.items():
        if not np.all(np.isnan(points[key])):
            right.plot(points["x"], 100 * points[key], marker=".", label=label)
    right.set_xlabel("cube efficiency x (0 dead, 1 live)")
    right.set_ylabel("winning chances (%)")
    right.set_title("Market window as the cube comes alive")
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    return fig


def met_heatmap(table: np.ndarray, title: str = "Take point of the first double (%)"):
    """A heat map of ``study.match_take_point_table``: rows taker away, columns doubler away."""
    fig, ax = _figure(7, 6)
    image = ax.imshow(100 * table, cmap="viridis", origin="upper")
    n = len(table)
    ax.set_xticks(range(n), [f"{j + 1}" for j in range(n)])
    ax.set_yticks(range(n), [f"{i + 1}" for i in range(n)])
    ax.set_xlabel("doubler needs (points)")
    ax.set_ylabel("taker needs (points)")
    for i in range(n):
        for j in range(n):
            if not np.isnan(table[i, j]):
                value = 100 * table[i, j]
                colour = "white" if value < 22 else "black"
                ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=8, color=colour)
    ax.set_title(title)
    fig.colorbar(image, ax=ax, shrink=0.8, label="%")
    return fig
