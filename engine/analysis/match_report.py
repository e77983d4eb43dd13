"""A match analysis as JSON and as text (``tdgammon analyse``, ``--json``).

``analysis_json`` builds the docs/formats.md object ("Match analysis"):
``{"match", "warnings", "players", "decisions"}``; ``analysis_text`` the
report people read: the summary table of both players, every marked
decision in match order, and each player's worst mistakes with their XGIDs.
Units as in ``tdgammon.engine.analysis.match_analysis``: errors and luck in
EMG (``error_rate`` in mEMG per decision), MWC figures as fractions in JSON
and as percentages in the text.
"""

from __future__ import annotations

from tdgammon.engine.analysis.match_analysis import LUCK_PLIES
from tdgammon.engine.analysis.match_decisions import (
    CHECKER,
    MARKS,
    MISSED_BEAVER,
    MISSED_DOUBLE,
    WRONG_BEAVER,
    WRONG_DOUBLE,
    WRONG_PASS,
    WRONG_TAKE,
    Decision,
    MatchAnalysis,
    Play,
    PlayerSummary,
)

_LABEL_KEYS = {
    MISSED_DOUBLE: "missed_doubles",
    WRONG_DOUBLE: "wrong_doubles",
    WRONG_TAKE: "wrong_takes",
    WRONG_PASS: "wrong_passes",
    MISSED_BEAVER: "missed_beavers",
    WRONG_BEAVER: "wrong_beavers",
}
"""Cube mistake labels and their count keys in a player's ``cube`` object."""


# ---------------------------------------------------------------- JSON


def analysis_json(analysis: MatchAnalysis) -> dict:
    """The docs/formats.md "Match analysis" object of ``analysis``."""
    return {
        "match": match_json(analysis),
        "warnings": list(analysis.warnings),
        "players": [player_json(player) for player in analysis.players],
        "decisions": [decision_json(d, analysis.names) for d in analysis.decisions],
    }


def match_json(analysis: MatchAnalysis) -> dict:
    winner = analysis.winner
    return {
        "players": list(analysis.names),
        "length": analysis.length,
        "score": list(analysis.scores),
        "games": analysis.games,
        "winner": None if winner is None else analysis.names[winner],
        "variant": analysis.variant,
        "plies": analysis.plies,
        "luck_plies": LUCK_PLIES,
        "thresholds": {name: threshold for name, threshold in MARKS},
    }


def player_json(player: PlayerSummary) -> dict:
    cube = {
        "decisions": player.cube_decisions,
        "error_total": player.cube_error,
        "error_rate": player.cube_rate,
        "error_total_mwc": player.cube_error_mwc,
    }
    cube.update({key: player.labels.get(label, 0) for label, key in _LABEL_KEYS.items()})
    return {
        "name": player.name,
        "seat": player.seat,
        "checker": {
            "decisions": player.checker_decisions,
            "unforced": player.checker_unforced,
            "error_total": player.checker_error,
            "error_rate": player.checker_rate,
            "error_total_mwc": player.checker_error_mwc,
        },
        "cube": cube,
        "marks": dict(player.marks),
        "pr": player.pr,
        "luck": player.luck,
        "luck_mwc": player.luck_mwc,
        "worst": [_worst_json(d) for d in player.worst],
    }


def _worst_json(decision: Decision) -> dict:
    return {
        "game": decision.game,
        "ply": decision.ply,
        "type": decision.kind,
        "action": decision.action,
        "error": decision.error,
        "mark": decision.mark or None,
        "label": decision.label or None,
        "xgid": decision.xgid,
    }


def _play_json(play: Play | None) -> dict | None:
    if play is None:
        return None
    return {"move": play.move, "equity": play.equity, "plies": play.plies}


def decision_json(decision: Decision, names) -> dict:
    """One entry of ``decisions`` (docs/formats.md): common keys, then the checker
    or the cube keys."""
    out = {
        "game": decision.game,
        "ply": decision.ply,
        "player": names[decision.seat],
        "seat": decision.seat,
        "type": decision.kind,
        "xgid": decision.xgid,
        "action": decision.action,
        "error": decision.error,
        "error_mwc": decision.error_mwc,
        "mark": decision.mark or None,
        "label": decision.label or None,
        "counted": decision.counted,
    }
    if decision.kind == CHECKER:
        out.update(
            {
                "dice": list(decision.dice),
                "legal_plays": decision.legal,
                "luck": decision.luck,
                "luck_mwc": decision.luck_mwc,
                "played": _play_json(decision.played),
                "best": [_play_json(play) for play in decision.plays],
            }
        )
        return out
    cube = decision.cube
    out["cube"] = {
        "proper": cube.proper,
        "no_double": cube.no_double,
        "double_take": cube.double_take,
        "double_pass": cube.double_pass,
        "mwc": cube.mwc,
    }
    return out


# ---------------------------------------------------------------- text


def match_title(analysis: MatchAnalysis) -> str:
    """``alice vs bob: 7-point match, 5 games, score 8-5, alice wins``."""
    a, b = analysis.names
    kind = "money session" if analysis.length == 0 else f"{analysis.length}-point match"
    games = f"{analysis.games} game{'s' if analysis.games != 1 else ''}"
    title = f"{a} vs {b}: {kind}, {games}, score {analysis.scores[0]}-{analysis.scores[1]}"
    if analysis.winner is not None:
        title += f", {analysis.names[analysis.winner]} wins"
    return title


def method_lines(analysis: MatchAnalysis) -> list[str]:
    """How the numbers were made, in two lines."""
    marks = ", ".join(f"{threshold:.3f} {name}" for name, threshold in reversed(MARKS))
    return [
        f"Checker plays and cube decisions at {analysis.plies}-ply, luck at {LUCK_PLIES}-ply. "
        "Errors and luck in EMG (equity normalised to the cube).",
        f"Marks from {marks}; PR = 500 x error per unforced decision.",
    ]


def summary_rows(analysis: MatchAnalysis) -> list[tuple[str, str, str]]:
    """``(label, seat 0's figure, seat 1's figure)`` rows of the summary table."""
    money = analysis.length == 0

    def row(label, figure):
        return (label, *(figure(p) for p in analysis.players))

    rows = [
        row("Checker decisions", lambda p: str(p.checker_decisions)),
        row("  unforced", lambda p: str(p.checker_unforced)),
        row("  error total (EMG)", lambda p: f"{p.checker_error:.3f}"),
        row("  error rate (mEMG per decision)", lambda p: f"{p.checker_rate:.1f}"),
        row("Cube decisions", lambda p: str(p.cube_decisions)),
        row("  error total (EMG)", lambda p: f"{p.cube_error:.3f}"),
        row("  error rate (mEMG per decision)", lambda p: f"{p.cube_rate:.1f}"),
        row("  missed / wrong doubles", lambda p: _pair(p, MISSED_DOUBLE, WRONG_DOUBLE)),
        row("  wrong takes / passes", lambda p: _pair(p, WRONG_TAKE, WRONG_PASS)),
        row("Doubtful / errors / blunders", _marks_text),
        row("PR", lambda p: f"{p.pr:.1f}"),
        row("Luck total (EMG)", lambda p: f"{p.luck:+.3f}"),
    ]
    if not money:
        rows.insert(-2, row("Error total (MWC)", _mwc_error_text))
        rows.append(row("Luck total (MWC)", lambda p: f"{100 * p.luck_mwc:+.1f}%"))
    return rows


def _pair(player: PlayerSummary, first: str, second: str) -> str:
    return f"{player.labels.get(first, 0)} / {player.labels.get(second, 0)}"


def _marks_text(player: PlayerSummary) -> str:
    return " / ".join(str(player.marks.get(name, 0)) for name, _ in reversed(MARKS))


def _mwc_error_text(player: PlayerSummary) -> str:
    return f"{100 * (player.checker_error_mwc + player.cube_error_mwc):.1f}%"


def decision_heading(decision: Decision, names) -> str:
    """``Game 1, ply 8, bob, 64: 13/5*`` or ``Game 1, ply 9, alice: no double``."""
    where = f"Game {decision.game}, ply {decision.ply}, {names[decision.seat]}"
    if decision.kind == CHECKER:
        d1, d2 = decision.dice
        return f"{where}, {d1}{d2}: {decision.action or '(no play)'}"
    return f"{where}: {decision.action}"


def verdict(decision: Decision) -> str:
    """``blunder, wrong pass: 0.174 EMG lost, 4.57% MWC``."""
    words = ", ".join(w for w in (decision.mark, decision.label) if w) or "no mark"
    mwc = "" if decision.error_mwc is None else f", {100 * decision.error_mwc:.2f}% MWC"
    return f"{words}: {decision.error:.3f} EMG lost{mwc}"


def _mistake_lines(decision: Decision, names) -> list[str]:
    lines = [f"  {decision_heading(decision, names)}  {verdict(decision)}"]
    if decision.kind == CHECKER:
        best = decision.plays[0]
        lines.append(
            f"      best {best.move or '(no play)'} {best.equity:+.3f}, played "
            f"{decision.played.equity:+.3f}"
        )
        return lines
    cube = decision.cube
    lines.append(
        f"      {cube.proper}: no double {cube.no_double:+.3f}, double/take "
        f"{cube.double_take:+.3f}, double/pass {cube.double_pass:+.3f}"
    )
    return lines


def analysis_text(analysis: MatchAnalysis) -> str:
    """The readable report of ``analysis`` (module docstring)."""
    lines = [match_title(analysis), *method_lines(analysis)]
    lines += [f"warning: {w}" for w in analysis.warnings]
    rows = summary_rows(analysis)
    width = max(len(label) for label, _, _ in rows) + 2
    lines += ["", " " * width + f"{analysis.names[0]:>12}  {analysis.names[1]:>12}"]
    lines += [f"{label:<{width}}{a:>12}  {b:>12}" for label, a, b in rows]
    lines += ["", "Mistakes (doubtful and worse):"]
    mistakes = analysis.mistakes
    for decision in mistakes:
        lines += _mistake_lines(decision, analysis.names)
    if not mistakes:
        lines.append("  none")
    for player in analysis.players:
        lines += ["", f"Worst mistakes of {player.name}:"]
        for rank, decision in enumerate(player.worst, 1):
            lines.append(
                f"  {rank}. {decision_heading(decision, analysis.names)}  {verdict(decision)}"
            )
            lines.append(f"     {decision.xgid}")
        if not player.worst:
            lines.append("  none")
    return "\n".join(lines)


__all__ = [
    "analysis_json",
    "analysis_text",
    "decision_heading",
    "decision_json",
    "match_json",
    "match_title",
    "method_lines",
    "player_json",
    "summary_rows",
    "verdict",
]
