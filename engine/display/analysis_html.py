"""A match analysis as one self-contained HTML page (``tdgammon analyse --html OUT.html``).

The page needs nothing outside itself: the CSS is inline, every board is an
inline SVG of ``tdgammon.engine.display.svg`` (no script, no font, no image
file, no network). It holds the summary table of both players and, for each
marked decision (doubtful and worse, ``MatchAnalysis.mistakes``) in match
order, the board as the decider saw it (a take or pass from the doubler's
side, with the double offered), the roll and the play made with the best
plays and their equities, or the cube figures. Numbers and words come from
``tdgammon.engine.analysis.match_report``, so page and text report agree.
"""

from __future__ import annotations

from html import escape

from tdgammon.engine.analysis.match_decisions import (
    CHECKER,
    DOUBLE,
    NO_DOUBLE,
    PASS,
    Decision,
    MatchAnalysis,
)
from tdgammon.engine.analysis.match_report import (
    decision_heading,
    match_title,
    method_lines,
    summary_rows,
    verdict,
)
from tdgammon.engine.display.svg import board_svg

BOARD_WIDTH = 440
"""Display width of each board picture, in CSS pixels."""

STYLE = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px; color: #222;
       background: #fafaf7; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; margin: 0 0 8px 0; }
p.method { color: #555; font-size: 13px; margin: 2px 0; }
p.warning { color: #8a4b00; background: #fff3dd; padding: 6px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e2e2e2; text-align: right; }
th:first-child, td:first-child { text-align: left; }
table.summary td:first-child { white-space: pre; }
section.mistake { background: #fff; border: 1px solid #ddd; border-left: 6px solid #bbb;
                  padding: 12px; margin: 14px 0; }
section.doubtful { border-left-color: #d8c23a; }
section.error { border-left-color: #e08a1e; }
section.blunder { border-left-color: #c8322b; }
div.row { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
tr.chosen td { font-weight: bold; background: #fbeaea; }
tr.best td { background: #eaf5ea; }
p.xgid { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; color: #444; }
"""


def _summary_table(analysis: MatchAnalysis) -> str:
    head = "".join(f"<th>{escape(name)}</th>" for name in analysis.names)
    rows = [f"<tr><th></th>{head}</tr>"]
    for label, first, second in summary_rows(analysis):
        cells = "".join(f"<td>{escape(value)}</td>" for value in (label, first, second))
        rows.append(f"<tr>{cells}</tr>")
    return '<table class="summary">' + "".join(rows) + "</table>"


def _plays_table(decision: Decision) -> str:
    """The best plays (and the play made, marked) with equities and losses."""
    plays = list(decision.plays)
    if all(play.move != decision.played.move for play in plays):
        plays.append(decision.played)
    best = decision.plays[0].equity
    rows = ["<tr><th>play</th><th>equity</th><th>loss</th><th>plies</th></tr>"]
    for rank, play in enumerate(plays):
        kind = "chosen" if play.move == decision.played.move else ("best" if rank == 0 else "")
        rows.append(
            f'<tr class="{kind}"><td>{escape(play.move or "(no play)")}</td>'
            f"<td>{play.equity:+.3f}</td><td>{best - play.equity:.3f}</td>"
            f"<td>{play.plies}</td></tr>"
        )
    d1, d2 = decision.dice
    played = escape(decision.action or "(no play)")
    return f"<p>Rolled {d1}-{d2}, played <b>{played}</b>.</p><table>" + "".join(rows) + "</table>"


def _cube_row_chosen(decision: Decision) -> str:
    """The row of the cube table that the decision took."""
    if decision.action == NO_DOUBLE:
        return "no_double"
    if decision.action == DOUBLE:
        cube = decision.cube
        return "double_take" if cube.double_take < cube.double_pass else "double_pass"
    return "double_pass" if decision.action == PASS else "double_take"


def _cube_table(decision: Decision) -> str:
    """ND, DT, DP of the doubler in EMG (and MWC), the proper action, the choice."""
    cube = decision.cube
    chosen = _cube_row_chosen(decision)
    mwc_head = "" if cube.mwc is None else "<th>MWC</th>"
    rows = [f"<tr><th>doubler's view</th><th>EMG</th>{mwc_head}</tr>"]
    for key, label in (
        ("no_double", "No double"),
        ("double_take", "Double, take"),
        ("double_pass", "Double, pass"),
    ):
        mwc = "" if cube.mwc is None else f"<td>{100 * cube.mwc[key]:.1f}%</td>"
        kind = ' class="chosen"' if key == chosen else ""
        value = getattr(cube, key)
        rows.append(f"<tr{kind}><td>{label}</td><td>{value:+.3f}</td>{mwc}</tr>")
    return (
        f"<p>Proper action: <b>{escape(cube.proper)}</b>; chosen: "
        f"<b>{escape(decision.action)}</b>.</p>"
        "<table>" + "".join(rows) + "</table>"
    )


def _mistake_section(decision: Decision, names) -> str:
    figures = _plays_table(decision) if decision.kind == CHECKER else _cube_table(decision)
    anchor = f"g{decision.game}p{decision.ply}{decision.kind[0]}"
    return (
        f'<section class="mistake {decision.mark}" id="{anchor}">'
        f"<h3>{escape(decision_heading(decision, names))} &mdash; {escape(verdict(decision))}"
        "</h3>"
        f'<div class="row"><div class="board">{board_svg(decision.position, BOARD_WIDTH)}</div>'
        f'<div class="figures">{figures}<p class="xgid">{escape(decision.xgid)}</p></div></div>'
        "</section>"
    )


def analysis_html(analysis: MatchAnalysis) -> str:
    """The whole page (module docstring) as text."""
    title = escape(match_title(analysis))
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}</title><style>{STYLE}</style></head><body>",
        f"<h1>{title}</h1>",
        *(f'<p class="method">{escape(line)}</p>' for line in method_lines(analysis)),
        *(f'<p class="warning">{escape(w)}</p>' for w in analysis.warnings),
        _summary_table(analysis),
        f"<h2>Mistakes ({len(analysis.mistakes)})</h2>",
        *(_mistake_section(d, analysis.names) for d in analysis.mistakes),
        "</body></html>\n",
    ]
    return "\n".join(parts)


__all__ = ["analysis_html"]
