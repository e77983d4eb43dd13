"""Plot ppg against pubeval vs games trained from runs' metrics.jsonl files.

    .venv/bin/python scripts/plot_learning_curve.py runs/tesauro80 [runs/extended128 ...] \
        --out docs/learning_curve.png

Uses matplotlib when it is installed, else draws a plain PNG with Pillow.
Each point is one periodic evaluation (duplicate dice, fixed seed) with its
95% confidence interval; dashed lines mark +0.35 (the acceptance bar) and
+0.63 (the goal beyond it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

COLOURS = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189)]


def read_metrics(run_dir: Path) -> list[dict]:
    path = run_dir / "metrics.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def plot_matplotlib(series, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    for name, rows in series:
        x = [r["games_trained"] / 1000 for r in rows]
        y = [r["ppg_vs_pubeval"] for r in rows]
        e = [r["ci95_vs_pubeval"] for r in rows]
        ax.errorbar(x, y, yerr=e, marker="o", ms=3, capsize=2, label=name)
    for level in (0.35, 0.63):
        ax.axhline(level, ls="--", lw=0.8, color="grey")
    ax.axhline(0, lw=0.8, color="black")
    ax.set_xlabel("training games (thousands)")
    ax.set_ylabel("ppg vs pubeval")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)


def plot_pillow(series, out: Path) -> None:
    from PIL import Image, ImageDraw

    width, height, left, right, top, bottom = 800, 450, 70, 20, 30, 50
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    xs = [r["games_trained"] for _, rows in series for r in rows] or [1]
    lows = [r["ppg_vs_pubeval"] - r["ci95_vs_pubeval"] for _, rows in series for r in rows]
    highs = [r["ppg_vs_pubeval"] + r["ci95_vs_pubeval"] for _, rows in series for r in rows]
    y_min = min([-0.2] + lows)
    y_max = max([0.7] + highs)
    x_max = max(xs) * 1.05

    def px(x: float) -> float:
        return left + (width - left - right) * x / x_max

    def py(y: float) -> float:
        return top + (height - top - bottom) * (y_max - y) / (y_max - y_min)

    draw.rectangle([left, top, width - right, height - bottom], outline="black")
    step = 0.1
    y = round(y_min / step) * step
    while y <= y_max + 1e-9:
        draw.line([left - 4, py(y), left, py(y)], fill="black")
        draw.text((8, py(y) - 6), f"{y:+.1f}", fill="black")
        draw.line([left, py(y), width - right, py(y)], fill=(235, 235, 235))
        y += step
    x_step = 10 ** max(3, len(str(int(x_max))) - 1)
    x = 0
    while x <= x_max:
        draw.line([px(x), height - bottom, px(x), height - bottom + 4], fill="black")
        draw.text((px(x) - 12, height - bottom + 8), f"{x // 1000}k", fill="black")
        x += x_step
    for level in (0.0, 0.35, 0.63):
        colour = "black" if level == 0 else (150, 150, 150)
        for x0 in range(left, width - right, 12):
            draw.line([x0, py(level), min(x0 + 6, width - right), py(level)], fill=colour)
        draw.text((width - right - 40, py(level) - 14), f"{level:+.2f}", fill=colour)
    draw.text((left, 8), "ppg vs pubeval (95% CI) by training games", fill="black")
    draw.text((width // 2 - 60, height - 18), "training games", fill="black")
    for index, (name, rows) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        points = [(px(r["games_trained"]), py(r["ppg_vs_pubeval"])) for r in rows]
        if len(points) > 1:
            draw.line(points, fill=colour, width=2)
        for r, (x, y) in zip(rows, points, strict=True):
            e = r["ci95_vs_pubeval"]
            draw.line([x, py(r["ppg_vs_pubeval"] - e), x, py(r["ppg_vs_pubeval"] + e)], fill=colour)
            draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=colour)
        draw.text((width - right - 160, height - bottom - 20 - 14 * index), name, fill=colour)
    image.save(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="run folders with metrics.jsonl")
    parser.add_argument("--out", type=Path, default=Path("docs/learning_curve.png"))
    args = parser.parse_args()
    series = [(run.name, read_metrics(run)) for run in args.runs]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    try:
        plot_matplotlib(series, args.out)
    except ImportError:
        plot_pillow(series, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
