"""Cube decisions from cubeless probabilities (docs/cube.md sections 1 and 3).

Cubeless evaluation (network, bear-off database) knows nothing of the cube;
this module turns the five cubeless probabilities of the player on roll into
cubeful numbers and the proper action, for money play (Janowski's model) and
for match play (the same interpolation in match winning chance, through
``tdgammon.engine.cube.match_equity``).

Perspective: ``probabilities`` is ``(5,)`` float, cumulative, GNU Backgammon
order ``pW, pWG, pWBG, pLG, pLBG`` for the player on roll (the mover, who is
the one who may double), before rolling, cubeless. All equities are the
mover's, normalised to the current stake (cube value); the take point is the
taker's (opponent's) minimum winning chance; every other point of the market
window is the mover's winning chance ``pW``.

Money play, formulas quoted from docs/cube.md (W, L: the mover's average win and
loss, ``W = 1 + (pWG + pWBG) / pW``, ``L = 1 + (pLG + pLBG) / (1 - pW)``;
x: cube efficiency):

- dead-cube equity ``E = 2 pW - 1 + (pWG - pLG) + (pWBG - pLBG)`` (gammons
  count zero under Jacoby with a centred cube);
- live take point ``TPl = (L - 1/2) / (W + L + 1/2)`` and live cash point
  ``CPl = (L + 1) / (W + L + 1/2)`` are the knees of ``E_live``, piecewise
  linear in pW: centred (0, -L), (TPl, -1), (CPl, +1), (1, W) (flat at -1 and
  +1 outside the knees under Jacoby); owned by the mover (0, -L), (CPl, +1),
  (1, W); owned by the opponent (0, -L), (TPl, -1), (1, W);
- cubeful ``E = (1 - x) E_dead + x E_live``;
- ``ND`` = cubeful equity with the cube where it is, ``DT`` = 2 x cubeful
  equity with the opponent owning the doubled cube, ``DP`` = +1;
- beavers and raccoons (docs/rules.md 5; derived here from the same curves, not
  quoted from docs/cube.md): ``KEEP`` = 2 x cubeful equity with
  the mover owning the doubled cube (what a redoubler who keeps the cube, as
  after an accepted beaver or raccoon, has). After a beaver, in units of the
  beaverer's stake (twice the first one), the doubler has: refuse -1, accept
  ``DT``, raccoon min(+2, 2 ``KEEP``) (the beaverer refuses, or accepts and the
  raccooner owns the cube at four times that stake); he takes the best
  (``beaver_reply``). The taker beavers when that is worth less to the doubler
  than his take: 2 x the reply < ``DT``; without raccoons -2 < ``DT`` < 0 (a
  worse double, ``DT`` <= -2, is better taken: the doubler would refuse the
  beaver at -2). After a raccoon the beaverer refuses (+1 to the doubler, in
  units of the raccooned stake) or accepts (``KEEP``), whichever is less.
- take point with the taker's W, L: dead ``(L - 1/2) / (W + L)``, live
  ``(L - 1/2) / (W + L + 1/2)``, Janowski ``(L - 1/2) / (W + L + x/2)``;
  cash point (doubler's W, L) ``(L + 1/2 + x/2) / (W + L + x/2)``; redouble
  point ``(L + x) / (W + L + x/2)``.

Match play: the same three numbers in MWC. Dead part: outcome probabilities x
outcome MWCs at the cube. Live part: piecewise linear in pW from (0, average
MWC of the mover's losses) to (1, average MWC of his wins), with knees at the
mover's live take point (value: MWC after passing) and at his live cash point
``1 - opponent's live take point`` (value: MWC after a cash), each present
only where that side may double; the take points weigh the gammons of the
first cube level and recurse over cube levels (``match_equity``). ND, DT, DP
are also reported as EMG (normalised equity at the current cube).

The decision (docs/cube.md): value = max(ND, min(DT, DP)); double when
min(DT, DP) >= ND ("take" if DT < DP, "pass" otherwise); too good when ND >
DP (take if DT < DP); otherwise no double. Points of the market window that
docs/cube.md gives no formula for (initial double point, too-good point, and all
the match points) are found numerically from the same curves, holding the
conditional gammon rates fixed while pW varies.

Cube efficiency (GNU Backgammon): 0.68 in contact positions; races
``clamp(0.55 + 0.00125 * pips, 0.60, 0.70)`` with the pips of the player on
roll; 0.6 in one-sided bear-offs. Imports numpy only (and the engine core).

``janowski_numbers`` gives ND, DT, DP alone (``CubeNumbers``; the leaves of
the cubeful search, ``tdgammon.engine.cube.cubeful_search``);
``cube_decision(..., numbers=...)`` builds the full report on numbers found
otherwise (docs/cube.md section 4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tdgammon.engine.cube import match_equity as me
from tdgammon.engine.rules.board import has_contact, mover_pips
from tdgammon.engine.rules.outputs import N_OUTPUTS, OUTPUT_NAMES
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_MOVER, CUBE_OPPONENT, Position

CONTACT, RACE, BEAROFF = "contact", "race", "bearoff"
CONTACT_EFFICIENCY = 0.68
BEAROFF_EFFICIENCY = 0.6
_GRID = np.linspace(0.0, 1.0, 4001)


def race_efficiency(pips: float) -> float:
    """docs/cube.md: ``clamp(0.55 + 0.00125 * pips, 0.60, 0.70)``, pips of the player on roll."""
    return float(np.clip(0.55 + 0.00125 * pips, 0.60, 0.70))


def position_kinds(boards: np.ndarray) -> np.ndarray:
    """``(B,)`` str: CONTACT, RACE or BEAROFF for boards ``(B, 30)`` in the mover's view."""
    from tdgammon.engine.evaluation.bearoff import (
        is_bearoff_position,
    )  # imported lazily: a heavy module

    boards = np.asarray(boards)
    kinds = np.where(has_contact(boards), CONTACT, RACE)
    return np.where(is_bearoff_position(boards), BEAROFF, kinds)


def position_kind(board: np.ndarray) -> str:
    """CONTACT, RACE or BEAROFF for one board ``(30,)`` in the mover's view."""
    return str(position_kinds(np.asarray(board)[None, :])[0])


def cube_efficiency(kind: str, pips: float | None = None) -> float:
    """GNU Backgammon's cube efficiency x for a position kind (module docstring)."""
    if kind == CONTACT:
        return CONTACT_EFFICIENCY
    if kind == BEAROFF:
        return BEAROFF_EFFICIENCY
    if kind == RACE:
        if pips is None:
            raise ValueError("a race needs the pip count of the player on roll")
        return race_efficiency(pips)
    raise ValueError(f"position kind must be contact, race or bearoff, got {kind!r}")


def average_win_loss(probabilities) -> tuple[float, float]:
    """The mover's W and L (docs/cube.md).

    ``W = 1 + (pWG + pWBG) / pW``, ``L = 1 + (pLG + pLBG) / (1 - pW)``.
    A side that never wins (or loses) gets 1.
    """
    win, wg, wbg, lg, lbg = np.asarray(probabilities, dtype=np.float64)
    big_w = 1.0 + (wg + wbg) / win if win > 0 else 1.0
    big_l = 1.0 + (lg + lbg) / (1.0 - win) if win < 1 else 1.0
    return float(big_w), float(big_l)


def dead_equity(probabilities, jacoby_centred: bool = False) -> float:
    """Cubeless equity ``2 pW - 1 + (pWG - pLG) + (pWBG - pLBG)`` (gammons 0 under Jacoby)."""
    win, wg, wbg, lg, lbg = np.asarray(probabilities, dtype=np.float64)
    if jacoby_centred:
        return float(2 * win - 1)
    return float(2 * win - 1 + (wg - lg) + (wbg - lbg))


def take_point_money(taker_w: float, taker_l: float, x: float) -> float:
    """Janowski take point ``(L - 1/2) / (W + L + x/2)`` with the taker's W, L; x=0 dead, 1 live."""
    return (taker_l - 0.5) / (taker_w + taker_l + x / 2)


def cash_point_money(w: float, big_l: float, x: float) -> float:
    """Doubler's cash point ``(L + 1/2 + x/2) / (W + L + x/2)`` with the doubler's W, L."""
    return (big_l + 0.5 + x / 2) / (w + big_l + x / 2)


def redouble_point_money(w: float, big_l: float, x: float) -> float:
    """Doubler's redouble point ``(L + x) / (W + L + x/2)`` (docs/cube.md, doubler's W, L)."""
    return (big_l + x) / (w + big_l + x / 2)


# --------------------------------------------------------------------------- the model


@dataclass
class _Curves:
    """ND, DT, DP as functions of the mover's pW (conditional gammon rates fixed).

    Each curve: (dead_lose, dead_win) endpoints for the dead line and the live
    polyline (xs, ys); values in "units" (money: stakes; match: MWC).
    """

    x: float
    nd_dead: tuple[float, float]
    nd_live: tuple[list[float], list[float]]
    dt_dead: tuple[float, float]
    dt_live: tuple[list[float], list[float]]
    dp: float

    def _value(self, p, dead, live, x):
        p = np.asarray(p, dtype=np.float64)
        dead_line = (1 - p) * dead[0] + p * dead[1]
        live_line = np.interp(p, live[0], live[1])
        return (1 - x) * dead_line + x * live_line

    def nd(self, p, x=None):
        return self._value(p, self.nd_dead, self.nd_live, self.x if x is None else x)

    def dt(self, p, x=None):
        return self._value(p, self.dt_dead, self.dt_live, self.x if x is None else x)


def _polyline(lose_end, knees, win_end):
    knees = sorted(k for k in knees if 0.0 < k[0] < 1.0)
    xs = [0.0] + [k[0] for k in knees] + [1.0]
    ys = [lose_end] + [k[1] for k in knees] + [win_end]
    return xs, ys


def _first_crossing(values: np.ndarray, lo: float = 0.0, hi: float = 1.0) -> float | None:
    """Smallest pW in [lo, hi] of _GRID where ``values`` (on _GRID) turns >= 0; linear refine."""
    mask = (_GRID >= lo - 1e-12) & (_GRID <= hi + 1e-12)
    idx = np.flatnonzero(mask & (values >= -1e-12))
    if len(idx) == 0:
        return None
    i = idx[0]
    if i == 0 or not mask[i - 1] or values[i - 1] >= 0:
        return float(_GRID[i])
    a, b = values[i - 1], values[i]
    return float(_GRID[i - 1] + (_GRID[i] - _GRID[i - 1]) * (-a) / (b - a))


def doubles_left(cube_value: int, max_cube: int) -> int:
    """How many more doublings the cube limit allows from ``cube_value`` (docs/rules.md 5,
    "Cube limit: a maximum cube value"): 0 when the cube is dead at the limit."""
    return max(0, (int(max_cube) // int(cube_value)).bit_length() - 1)


def _money_curves(
    probabilities, owner: str, x: float, jacoby: bool, room: int
) -> tuple[_Curves, dict]:
    """ND and DT curves; ``room``: ``doubles_left`` at the current cube. A side's
    knee exists only where it may double: none at the limit (a dead cube, where
    the live line is the cubeless one), and the taker's redouble after a
    double only with room for two more doublings."""
    w, big_l = average_win_loss(probabilities)
    tpl = (big_l - 0.5) / (w + big_l + 0.5)  # the mover's own live take point
    cpl = (big_l + 1.0) / (w + big_l + 0.5)  # the mover's live cash point
    jacoby_centred = jacoby and owner == CUBE_CENTRED
    lose_end, win_end = (-1.0, 1.0) if jacoby_centred else (-big_l, w)
    knees = []
    if room >= 1 and owner in (CUBE_CENTRED, CUBE_OPPONENT):
        knees.append((tpl, -1.0))
    if room >= 1 and owner in (CUBE_CENTRED, CUBE_MOVER):
        knees.append((cpl, 1.0))
    redouble = [(tpl, -2.0)] if room >= 2 else []
    curves = _Curves(
        x,
        (lose_end, win_end),
        _polyline(lose_end, knees, win_end),
        (-2 * big_l, 2 * w),
        _polyline(-2 * big_l, redouble, 2 * w),
        1.0,
    )
    return curves, {"W": w, "L": big_l}


def _match_take_point(state, cube, win_rates, lose_rates, met):
    """The mover's (as taker) gammon-weighted (dead, live) take point at ``cube -> 2 cube``."""
    post = state.next_post_crawford
    args = (state.away, state.opponent_away, cube, post)
    dead = me.dead_take_point(*args, met, win_rates, lose_rates)
    live = me.live_take_point(*args, state.max_cube, met, win_rates, lose_rates)
    return dead, live


def _match_curves(probabilities, position: Position, x: float, met) -> tuple[_Curves, dict]:
    state = me.MatchState.from_position(position)
    cube = position.cube_value
    win_rates, lose_rates = me.outcome_rates(probabilities)
    out1 = me.outcome_mwcs(state, cube, met)
    out2 = me.outcome_mwcs(state, 2 * cube, met)
    ends1 = (float(lose_rates @ out1[1]), float(win_rates @ out1[0]))
    ends2 = (float(lose_rates @ out2[1]), float(win_rates @ out2[0]))
    owner = position.cube_owner
    # The mover as taker (opponent doubles cube -> 2 cube); the opponent as taker.
    mover_tp = _match_take_point(state, cube, win_rates, lose_rates, met)
    opp_tp = _match_take_point(state.swapped(), cube, lose_rates, win_rates, met)
    mover_tp2 = _match_take_point(state, 2 * cube, win_rates, lose_rates, met)
    opp_may, _ = me.can_double(state.swapped(), cube, owner in (CUBE_CENTRED, CUBE_OPPONENT))
    mover_may, _ = me.can_double(state, cube, owner in (CUBE_CENTRED, CUBE_MOVER))
    opp_may2, _ = me.can_double(state.swapped(), 2 * cube, True)
    knees = []
    if opp_may:
        knees.append((mover_tp[1], float(out1[1, 0])))
    if mover_may:
        knees.append((1.0 - opp_tp[1], float(out1[0, 0])))
    knees2 = [(mover_tp2[1], float(out2[1, 0]))] if opp_may2 else []
    curves = _Curves(
        x,
        ends1,
        _polyline(ends1[0], knees, ends1[1]),
        ends2,
        _polyline(ends2[0], knees2, ends2[1]),
        float(out1[0, 0]),
    )
    info = {
        "state": state,
        "opponent_take_dead": opp_tp[0],
        "opponent_take_live": opp_tp[1],
        "mover_take_live": mover_tp[1],
    }
    return curves, info


# --------------------------------------------------------------------------- numbers


def cube_available(position: Position) -> tuple[bool, str]:
    """Whether the mover of ``position`` may double now, and why not (docs/rules.md 5-6).

    Money: "only the owner may redouble" (a centred cube is anybody's) and the
    cube limit. Match: ``match_equity.can_double`` (Crawford game, the
    post-Crawford leader, a cube that already wins the match, the limit).
    """
    holds = position.cube_owner in (CUBE_CENTRED, CUBE_MOVER)
    if not position.is_money:
        return me.can_double(me.MatchState.from_position(position), position.cube_value, holds)
    if not holds:
        return False, "the opponent owns the cube"
    if doubles_left(position.cube_value, position.max_cube) < 1:
        return False, f"the cube limit ({position.max_cube}) is reached"
    return True, ""


def with_jacoby(position: Position, jacoby: bool | None) -> Position:
    """``position`` with the Jacoby rule set to ``jacoby`` (``tdgammon cube --jacoby``
    / ``--no-jacoby``, a batch line's ``"jacoby"``).

    None keeps what the position says: a GNU Backgammon Match ID's bit 66 read
    as GNU Backgammon reads it (0, which older programs always write, means
    Jacoby on: GNU Backgammon's own default, ``set jacoby on``), an XGID's
    rules field, off for a bare Position ID or a FIBS board. Match play is
    returned unchanged: the rule never applies in a match.
    """
    if jacoby is None or not position.is_money or bool(position.jacoby) == bool(jacoby):
        return position
    return position.with_changes(jacoby=bool(jacoby))


@dataclass(frozen=True)
class CubeNumbers:
    """The mover's ND, DT and DP (money: normalised to the current stake; match: MWC).

    available: the mover may double now (``cube_available``). keep: money only,
    ``KEEP`` (twice the cubeful equity owning the doubled cube), None otherwise.
    """

    no_double: float
    double_take: float
    double_pass: float
    available: bool
    keep: float | None = None

    @property
    def value(self) -> float:
        """The mover's cubeful value: max(ND, min(DT, DP)) where he may double, else ND."""
        if self.available:
            return max(self.no_double, min(self.double_take, self.double_pass))
        return self.no_double


def janowski_numbers(
    probabilities, position: Position, kind: str, x: float, met=None
) -> CubeNumbers:
    """ND, DT, DP of the mover from cubeless ``(5,)`` probabilities by Janowski's
    interpolation (module docstring); ``kind`` and cube efficiency ``x`` given."""
    p = np.asarray(probabilities, dtype=np.float64)
    available = cube_available(position)[0]
    if position.is_money:
        jacoby = bool(position.jacoby)
        room = doubles_left(position.cube_value, position.max_cube)
        curves, _ = _money_curves(p, position.cube_owner, x, jacoby, room)
        keep_curves, _ = _money_curves(p, CUBE_MOVER, x, jacoby, room - 1)
        keep = 2.0 * float(keep_curves.nd(p[0]))
    else:
        curves, _ = _match_curves(p, position, x, met or me.load_met())
        keep = None
    return CubeNumbers(float(curves.nd(p[0])), float(curves.dt(p[0])), curves.dp, available, keep)


# --------------------------------------------------------------------------- decision


@dataclass
class CubeDecision:
    """Everything ``tdgammon cube`` reports (docs/formats.md), mover's view.

    no_double / double_take / double_pass: cubeful equities, normalised to the
    current stake (EMG in a match). mwc: the same in match winning chance
    (match play only; keys no_double, double_take, double_pass, cubeless,
    cubeful). take_point: the taker's minimum winning chance used;
    cash_point: the doubler's pW beyond which the taker passes (both None
    when the mover has no cube action). window: the
    market window as {"take"|"cash"|"double"|"too_good"|"redouble":
    {"dead", "live", "used"}} (take in the taker's chances, the others in the
    mover's pW; None where the point does not exist). explanation: lines in
    plain words, from the 25% theory through gammons and cube life to the score.
    double: the mover should double (or redouble) now: the cube is available and
    min(DT, DP) >= ND. ``action`` is the phrase derived from these numbers.
    double_keep: money play (None in a match): ``KEEP``, twice the cubeful equity
    with the mover owning the cube, normalised to the current stake: the mover's
    value when a beaver or raccoon of his is accepted (he keeps the cube at
    twice the stake). With ``double_take`` it prices the answers to a beaver
    (``beaver_reply``) and to a raccoon (``raccoon_answer``); computed whether
    or not the cube is available (a position at a beaver stage has the
    beaverer's cube).
    """

    action: str
    cube_available: bool
    double: bool
    no_double: float
    double_take: float
    double_pass: float
    cubeless_equity: float
    cubeful_equity: float
    take_point: float | None
    cash_point: float | None
    cube_efficiency: float
    kind: str
    probabilities: np.ndarray
    window: dict = field(default_factory=dict)
    explanation: list[str] = field(default_factory=list)
    mwc: dict | None = None
    reason: str = ""
    double_keep: float | None = None

    @property
    def differences(self) -> dict[str, float]:
        """Each option's value minus the cubeful equity: max(ND, min(DT, DP)) where
        the mover may double, ND where he may not (the cube is not his, or dead).

        0 for the proper action; DP (or DT) may be positive when the taker's
        right answer denies the doubler that value, or the double is not allowed."""
        return {
            "no_double": self.no_double - self.cubeful_equity,
            "double_take": self.double_take - self.cubeful_equity,
            "double_pass": self.double_pass - self.cubeful_equity,
        }

    def to_json(self) -> dict:
        """The docs/formats.md ``tdgammon cube --json`` object (plus extra keys)."""
        out = {
            "action": self.action,
            "no_double": self.no_double,
            "double_take": self.double_take,
            "double_pass": self.double_pass,
            "take_point": self.take_point,
            "cash_point": self.cash_point,
            "probabilities": dict(zip(OUTPUT_NAMES, map(float, self.probabilities), strict=True)),
            "cubeless_equity": self.cubeless_equity,
            "cubeful_equity": self.cubeful_equity,
            "cube_efficiency": self.cube_efficiency,
            "position_kind": self.kind,
            "differences": self.differences,
            "window": self.window,
            "explanation": self.explanation,
        }
        if self.mwc is not None:
            out["mwc"] = self.mwc
        return out


TAKE, DROP, BEAVER, RACCOON = "take", "drop", "beaver", "raccoon"
"""The answers to a double (the words ``decide_take`` and ``decide_beaver`` return)."""
TAKE_ANSWERS = (TAKE, DROP, BEAVER)
"""The taker's answers to a double."""
BEAVER_ANSWERS = (TAKE, DROP, RACCOON)
"""The doubler's answers to a beaver (docs/rules.md 5: accept, refuse, re-redouble)."""


def proper_double(nd: float, dt: float, dp: float) -> bool:
    """Should the doubler double (docs/cube.md decision rules)? Yes when min(DT, DP) >= ND."""
    return min(dt, dp) >= nd


def beaver_reply(dt: float, keep: float | None = None, raccoon: bool = False) -> tuple[str, float]:
    """The beavered doubler's proper answer and its value (module docstring).

    Values are the doubler's, in units of the stake after the beaver (twice the
    stake of the first double): refuse (DROP) -1; accept (TAKE) ``dt``, the
    beaverer owning the cube at twice that stake; raccoon (RACCOON, only when
    ``raccoon`` and ``keep`` is given) min(+2, 2 ``keep``): the beaverer
    refuses or accepts, whichever is worse for the doubler, who then owns the
    cube at four times that stake. The doubler accepts unless refusing is
    better (a tie is a refusal, as a taker passes a tie) and raccoons only when
    that is strictly best.
    """
    answer, value = (DROP, -1.0) if dt <= -1.0 else (TAKE, float(dt))
    if raccoon and keep is not None:
        racc = min(2.0, 2.0 * float(keep))
        if racc > value:
            answer, value = RACCOON, racc
    return answer, value


def raccoon_answer(keep: float) -> str:
    """The beaverer's proper answer to a raccoon from the doubler's ``keep``
    (units of the raccooned stake): refuse (+1 to the doubler) when accepting is
    no better for him, i.e. ``keep`` >= 1, else accept."""
    return DROP if keep >= 1.0 else TAKE


def proper_answer(
    dt: float, dp: float, beaver: bool, keep: float | None = None, raccoon: bool = False
) -> str:
    """The taker's proper answer: DROP when DT >= DP (the doubler's view), else TAKE,
    or BEAVER when beavers are allowed and the beaver is worth less to the
    doubler than the take: 2 x ``beaver_reply`` < DT (without raccoons: -2 < DT
    < 0). ``keep`` and ``raccoon``: the doubler's KEEP and whether he may raccoon."""
    if dt >= dp:
        return DROP
    if beaver and 2.0 * beaver_reply(dt, keep, raccoon)[1] < dt:
        return BEAVER
    return TAKE


def action_phrase(
    nd: float,
    dt: float,
    dp: float,
    redouble: bool,
    beaver: bool,
    keep: float | None = None,
    raccoon: bool = False,
) -> str:
    """The standard phrase from ND, DT, DP (docs/cube.md decision rules), doubler's view.

    Derived from the decision data (``proper_double``, ``proper_answer``), never
    the other way round. beaver: beavers are allowed (money); keep, raccoon:
    as ``proper_answer``.
    """
    word = "redouble" if redouble else "double"
    answer = proper_answer(dt, dp, beaver, keep, raccoon)
    response = {DROP: "pass", TAKE: "take", BEAVER: "beaver"}[answer]
    if proper_double(nd, dt, dp):
        return f"{word.capitalize()}, {response}"
    if nd > dp:
        return f"Too good to {word}, {response}"
    return f"No {word}, {response}"


def _kind_and_efficiency(position, kind, board, efficiency):
    board = position.board if board is None and position is not None else board
    if kind is None:
        if board is None:
            raise ValueError("give the position kind or a board to derive it from")
        kind = position_kind(board)
    if efficiency is None:
        pips = float(mover_pips(np.asarray(board))) if board is not None else None
        efficiency = cube_efficiency(kind, pips)
    return kind, efficiency


def _pct(value) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def cube_decision(
    probabilities,
    position: Position | None = None,
    *,
    kind: str | None = None,
    board: np.ndarray | None = None,
    efficiency: float | None = None,
    met=None,
    numbers: CubeNumbers | None = None,
) -> CubeDecision:
    """The cube decision of the mover (player on roll, before rolling).

    probabilities: ``(5,)`` cubeless, cumulative, GNU order, the mover's.
    position: cube value/owner, money options (jacoby, beavers), match score,
    Crawford, max cube; default money play, centred cube. kind: CONTACT, RACE
    or BEAROFF; derived from ``board`` (default ``position.board``) when None.
    efficiency: override the cube efficiency x. numbers: ND, DT, DP found
    otherwise (the cubeful search, ``tdgammon.engine.cube.cubeful_search``);
    default Janowski's from ``probabilities`` (``janowski_numbers``). The
    market window and the explanation always come from ``probabilities``.
    """
    p = np.asarray(probabilities, dtype=np.float64)
    if p.shape != (N_OUTPUTS,):
        raise ValueError(f"probabilities must have shape ({N_OUTPUTS},), got {p.shape}")
    position = position if position is not None else Position()
    kind, x = _kind_and_efficiency(position, kind, board, efficiency)
    met = met or me.load_met()
    numbers = numbers or janowski_numbers(p, position, kind, x, met)
    if position.is_money:
        return _money_decision(p, position, kind, x, numbers)
    return _match_decision(p, position, kind, x, met, numbers)


def _window(curves: _Curves, x: float) -> dict:
    """Numeric market window points in the mover's pW for x = 0, 1 and x."""
    out = {"double": {}, "cash": {}, "too_good": {}, "take": {}}
    for label, eff in (("dead", 0.0), ("live", 1.0), ("used", x)):
        nd, dt = curves.nd(_GRID, eff), curves.dt(_GRID, eff)
        cash = _first_crossing(dt - curves.dp)
        out["cash"][label] = cash
        out["take"][label] = None if cash is None else 1.0 - cash
        out["double"][label] = _first_crossing(np.minimum(dt, curves.dp) - nd, 0.0, cash or 1.0)
        too_good = _first_crossing(nd - curves.dp - 1e-9, cash or 0.0)
        out["too_good"][label] = too_good
    return out


def _money_decision(
    p, position: Position, kind: str, x: float, numbers: CubeNumbers
) -> CubeDecision:
    owner = position.cube_owner
    jacoby = bool(position.jacoby)
    room = doubles_left(position.cube_value, position.max_cube)
    curves, info = _money_curves(p, owner, x, jacoby, room)
    w, big_l = info["W"], info["L"]
    nd, dt, dp, keep = numbers.no_double, numbers.double_take, numbers.double_pass, numbers.keep
    available, reason = cube_available(position)
    # docs/rules.md 5: a beaver needs four times the stake within the limit, a raccoon eight.
    beaver = bool(position.beavers) and 4 * position.cube_value <= position.max_cube
    raccoon = beaver and bool(position.raccoons) and 8 * position.cube_value <= position.max_cube
    redouble = owner == CUBE_MOVER
    if available:
        action = action_phrase(nd, dt, dp, redouble, beaver, keep, raccoon)
    else:
        action = "No cube action"
    cubeful = numbers.value
    # The taker's W and L are the doubler's L and W.
    take = {
        "dead": take_point_money(big_l, w, 0.0),
        "live": take_point_money(big_l, w, 1.0),
        "used": take_point_money(big_l, w, x),
    }
    window = _window(curves, x)
    window["take"] = take
    window["cash"] = {k: 1.0 - v for k, v in take.items()}
    window["redouble"] = {
        "dead": redouble_point_money(w, big_l, 0.0),
        "live": redouble_point_money(w, big_l, 1.0),
        "used": redouble_point_money(w, big_l, x),
    }
    gammonless = p[1] == 0 and p[3] == 0
    explanation = [
        "25% theory: with no gammons and a dead cube the taker needs 25% "
        "(take: win 2 once in four, lose 2 three times = -4; pass: lose 1 four times = -4).",
        f"Gammons: the taker's average win W = {big_l:.3f}, loss L = {w:.3f}; dead-cube "
        f"take point (L - 1/2)/(W + L) = {_pct(take['dead'])}"
        + (" (no gammons: still 25%)." if gammonless else "."),
        f"Cube life: the taker owns the doubled cube; fully live (L - 1/2)/(W + L + 1/2) = "
        f"{_pct(take['live'])}; with cube efficiency x = {x:.3f} ({kind}) Janowski's "
        f"(L - 1/2)/(W + L + x/2) = {_pct(take['used'])}. Cash point "
        f"{_pct(window['cash']['used'])}.",
        "Score: money play"
        + (", Jacoby rule (gammons count once the cube is turned)" if jacoby else "")
        + (", beavers allowed." if position.beavers else "."),
    ]
    if reason:
        explanation.append(f"No cube action: {reason}.")
    return CubeDecision(
        action=action,
        cube_available=available,
        double=available and proper_double(nd, dt, dp),
        no_double=nd,
        double_take=dt,
        double_pass=dp,
        cubeless_equity=dead_equity(p, jacoby and owner == CUBE_CENTRED),
        cubeful_equity=cubeful,
        take_point=take["used"] if available else None,
        cash_point=1.0 - take["used"] if available else None,
        cube_efficiency=x,
        kind=kind,
        probabilities=p,
        window=window,
        explanation=explanation,
        reason=reason,
        double_keep=keep,
    )


def _match_decision(
    p, position: Position, kind: str, x: float, met, numbers: CubeNumbers
) -> CubeDecision:
    curves, info = _match_curves(p, position, x, met)
    state: me.MatchState = info["state"]
    cube = position.cube_value
    owner = position.cube_owner
    available, reason = cube_available(position)
    nd_m, dt_m, dp_m = numbers.no_double, numbers.double_take, numbers.double_pass
    if available:
        action = action_phrase(nd_m, dt_m, dp_m, owner == CUBE_MOVER, beaver=False)
    else:
        action = "No cube action"
    cubeful_m = numbers.value

    def emg(value):
        return me.mwc_to_equity(value, state, cube, met)

    cubeless_m = me.cubeless_mwc(p, state, cube, met)
    window = _window(curves, x)
    take_used = window["take"]["used"]
    window["take"]["dead"] = info["opponent_take_dead"]
    window["take"]["live"] = info["opponent_take_live"]
    cash_used = window["cash"]["used"]
    met_tp = me.take_points(state, cube, met)
    gv_win, gv_lose = me.gammon_values(state, cube, met)
    score = (
        f"Score: {state.away}-away/{state.opponent_away}-away"
        + (" (Crawford game)" if state.crawford else "")
        + (" (post-Crawford)" if state.post_crawford else "")
        + f", cube {cube}. From the match equity table the taker's gammonless take point is "
        f"{_pct(met_tp['opponent_dead'])} dead and {_pct(met_tp['opponent_live'])} live "
        f"(the recursion over cube levels); weighted by this position's gammons "
        f"{_pct(info['opponent_take_dead'])} dead, {_pct(info['opponent_take_live'])} live, "
        f"{_pct(take_used)} with x = {x:.3f}. Gammon values: winning {gv_win:.2f}, "
        f"losing {gv_lose:.2f} (0.5 for money)."
    )
    explanation = [
        "25% theory: with no gammons, a dead cube and money stakes the taker needs 25%.",
        "Gammons: at this score gammons are worth what the match equity table says "
        "(gammon values below), so the taker's risk is weighed in match winning chances.",
        f"Cube life: the taker's ownership of the doubled cube is worth what his redoubles "
        f"gain; cube efficiency x = {x:.3f} ({kind}) interpolates between dead and live.",
        score,
    ]
    if state.post_crawford and state.away > 1:
        explanation.append("Post-Crawford: the trailer should double at once.")
    drop_cost = me.free_drop(state, met)
    if drop_cost is not None:
        explanation.append(
            f"Free drop: the leader may pass the first double at a cost of only "
            f"{_pct(drop_cost)} in match winning chance."
        )
    if reason:
        explanation.append(f"No cube action: {reason}.")
    return CubeDecision(
        action=action,
        cube_available=available,
        double=available and proper_double(nd_m, dt_m, dp_m),
        no_double=emg(nd_m),
        double_take=emg(dt_m),
        double_pass=emg(dp_m),
        cubeless_equity=emg(cubeless_m),
        cubeful_equity=emg(cubeful_m),
        take_point=take_used if available else None,
        cash_point=cash_used if available else None,
        cube_efficiency=x,
        kind=kind,
        probabilities=p,
        window=window,
        explanation=explanation,
        mwc={
            "no_double": nd_m,
            "double_take": dt_m,
            "double_pass": dp_m,
            "cubeless": cubeless_m,
            "cubeful": cubeful_m,
        },
        reason=reason,
    )
