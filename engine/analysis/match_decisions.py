"""The results of a match analysis: decisions, players' totals, the whole analysis.

``tdgammon.engine.analysis.match_analysis`` fills them (its docstring says how
each figure is made and counted); ``tdgammon.engine.analysis.match_report``
prints them and ``tdgammon.engine.display.analysis_html`` draws them. Units:
errors and luck in EMG (equity normalised to the cube in play), ``*_mwc`` in
match winning chance (fractions; None in money play).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tdgammon.engine.formats.xgid import position_to_xgid
from tdgammon.engine.rules.position import Position

MARKS = (("blunder", 0.08), ("error", 0.04), ("doubtful", 0.02))
"""A decision's mark: the first whose threshold (EMG) its error reaches."""
PR_SCALE = 500.0
"""PR = PR_SCALE x mean error (EMG) per counted decision."""
WORST = 5
"""Worst mistakes listed per player."""

CHECKER, CUBE = "checker", "cube"
NO_DOUBLE, DOUBLE, PASS = "no double", "double", "pass"
MISSED_DOUBLE, WRONG_DOUBLE = "missed double", "wrong double"
WRONG_TAKE, WRONG_PASS = "wrong take", "wrong pass"
MISSED_BEAVER, WRONG_BEAVER = "missed beaver", "wrong beaver"
CUBE_LABELS = (MISSED_DOUBLE, WRONG_DOUBLE, WRONG_TAKE, WRONG_PASS, MISSED_BEAVER, WRONG_BEAVER)
CUBE_KEYS = ("no_double", "double_take", "double_pass")
"""The doubler's three cubeful values, as ``CubeDecision`` and ``CubeFigures`` name them."""


@dataclass(frozen=True)
class Play:
    """One play of a checker decision: ``move`` in GNU Backgammon notation (``""``:
    no play), ``equity`` the mover's EMG after it (None when not valued: a forced
    play), ``plies`` the depth it was valued at."""

    move: str
    equity: float | None
    plies: int


@dataclass(frozen=True)
class CubeFigures:
    """The numbers of a cube decision, the doubler's view (``CubeDecision``).

    proper: the proper action (``CubeDecision.action``, e.g. ``Double, take``).
    no_double / double_take / double_pass: cubeful EMG at the cube before the double.
    mwc: the same three in match winning chance (match play; None for money).
    """

    proper: str
    no_double: float
    double_take: float
    double_pass: float
    mwc: dict | None = None


@dataclass
class Decision:
    """One decision of the match, judged (``match_analysis`` docstring).

    game: 1-based game number; ply: 1-based index of the action in the game's
    record (the implicit no-double before a roll shares its roll's ply).
    seat: who decided. kind: CHECKER or CUBE. action: the play made (GNU
    notation, ``""`` for a roll that could not be played) or ``no double``,
    ``double``, ``take``, ``pass``, ``beaver``.
    position: what the decider saw, the mover's view: checker plays with the
    dice; a double or no double before rolling; an answer with the double
    offered (the doubler on roll, as XGID ``D`` writes it).
    error: EMG lost (>= 0); error_mwc: the same in match winning chance
    (match play; None for money). counted: counts in PR (an unforced checker
    play, a cube decision). label: the cube mistake's kind (CUBE_LABELS) or "".
    dice, legal, plays, played, luck, luck_mwc: checker plays (legal: the number of
    distinct legal plays; plays: the first ``SHOWN_PLAYS`` in GNU Backgammon's
    order, deeper first, then higher equity; played: the play made, at full depth).
    cube: cube decisions.
    """

    game: int
    ply: int
    seat: int
    kind: str
    action: str
    position: Position
    error: float = 0.0
    error_mwc: float | None = None
    counted: bool = True
    label: str = ""
    dice: tuple[int, int] | None = None
    legal: int = 0
    plays: list[Play] = field(default_factory=list)
    played: Play | None = None
    luck: float | None = None
    luck_mwc: float | None = None
    cube: CubeFigures | None = None

    @property
    def mark(self) -> str:
        """``blunder``, ``error``, ``doubtful`` (``MARKS``) or "" for a good decision."""
        for name, threshold in MARKS:
            if self.error >= threshold:
                return name
        return ""

    @property
    def xgid(self) -> str:
        return position_to_xgid(self.position)


@dataclass
class PlayerSummary:
    """One player's totals over the decisions of the analysis (``match_analysis`` docstring).

    checker_error, cube_error: EMG lost in total; ``*_mwc``: the same in match
    winning chance (None in money play). marks: decisions per mark; labels:
    cube mistakes per label. luck: the sum of the luck of the player's rolls
    (EMG). worst: the decisions with the largest errors, largest first.
    """

    name: str
    seat: int
    checker_decisions: int = 0
    checker_unforced: int = 0
    checker_error: float = 0.0
    checker_error_mwc: float | None = None
    cube_decisions: int = 0
    cube_error: float = 0.0
    cube_error_mwc: float | None = None
    marks: dict[str, int] = field(default_factory=dict)
    labels: dict[str, int] = field(default_factory=dict)
    luck: float = 0.0
    luck_mwc: float | None = None
    worst: list[Decision] = field(default_factory=list)

    @property
    def checker_rate(self) -> float:
        """Mean checker error per unforced decision, in mEMG."""
        return 1000.0 * self.checker_error / max(self.checker_unforced, 1)

    @property
    def cube_rate(self) -> float:
        """Mean cube error per cube decision, in mEMG."""
        return 1000.0 * self.cube_error / max(self.cube_decisions, 1)

    @property
    def pr(self) -> float:
        """500 x total error (EMG) / counted decisions (``match_analysis`` docstring)."""
        counted = self.checker_unforced + self.cube_decisions
        return PR_SCALE * (self.checker_error + self.cube_error) / max(counted, 1)


@dataclass
class MatchAnalysis:
    """The analysis of a match: its decisions in order and each player's summary.

    names: the players (seat 0, seat 1). length: match length (0: money).
    scores: the final score of the games analysed. games: games analysed.
    winner: seat that won the match, or None. plies: depth of the analysis.
    warnings: what the reader skipped (a broken file's tail).
    """

    names: tuple[str, str]
    length: int
    scores: tuple[int, int]
    games: int
    winner: int | None
    variant: str
    plies: int
    decisions: list[Decision]
    players: tuple[PlayerSummary, PlayerSummary]
    warnings: list[str] = field(default_factory=list)

    @property
    def mistakes(self) -> list[Decision]:
        """The decisions with a mark, in match order."""
        return [d for d in self.decisions if d.mark]


# ---------------------------------------------------------------- summaries


def summarise(decisions: Sequence[Decision], seat: int, name: str, money: bool) -> PlayerSummary:
    """The totals of one player over ``decisions`` (every decision, counted or not)."""
    summary = PlayerSummary(name, seat)
    mine = [d for d in decisions if d.seat == seat]
    if not money:
        summary.checker_error_mwc = summary.cube_error_mwc = summary.luck_mwc = 0.0
    for decision in mine:
        _add(summary, decision)
    summary.marks = {name: sum(d.mark == name for d in mine) for name, _ in MARKS}
    summary.labels = {label: sum(d.label == label for d in mine) for label in CUBE_LABELS}
    wrong = sorted((d for d in mine if d.error > 0), key=lambda d: -d.error)
    summary.worst = wrong[:WORST]
    return summary


def _add(summary: PlayerSummary, decision: Decision) -> None:
    if decision.kind == CHECKER:
        summary.checker_decisions += 1
        summary.checker_unforced += int(decision.counted)
        summary.checker_error += decision.error
        summary.luck += decision.luck or 0.0
        if summary.checker_error_mwc is not None:
            summary.checker_error_mwc += decision.error_mwc or 0.0
            summary.luck_mwc += decision.luck_mwc or 0.0
        return
    summary.cube_decisions += 1
    summary.cube_error += decision.error
    if summary.cube_error_mwc is not None:
        summary.cube_error_mwc += decision.error_mwc or 0.0


__all__ = [
    "CHECKER",
    "CUBE",
    "CUBE_KEYS",
    "CUBE_LABELS",
    "DOUBLE",
    "MARKS",
    "MISSED_BEAVER",
    "MISSED_DOUBLE",
    "NO_DOUBLE",
    "PASS",
    "PR_SCALE",
    "WORST",
    "WRONG_BEAVER",
    "WRONG_DOUBLE",
    "WRONG_PASS",
    "WRONG_TAKE",
    "CubeFigures",
    "Decision",
    "MatchAnalysis",
    "Play",
    "PlayerSummary",
    "summarise",
]
