"""Match equity: the Kazaross-XG2 table, MWC, gammon values, take points, cube access.

Implements docs/cube.md section 2. Everything is for a player who needs ``away``
points against an opponent who needs ``opponent_away`` points; "MWC" is a
match winning chance in 0..1 for the player named first.

The table (``engine/cube/met_kazaross_xg2.json``; read its "meaning" fields):

- ``pre_crawford[i][j]``: MWC of a player who needs i+1 points against one who
  needs j+1, before or during the Crawford game (row 0: 1-away, the values
  for the Crawford game);
- ``post_crawford[j]``: MWC of the trailer who needs j+1 points against a
  leader at 1-away after the Crawford game.

Which table applies to the score *after* the game in progress depends only on
the current score: if nobody is 1-away now the next game is pre-Crawford (or
the Crawford game, also row 0 of ``pre_crawford``); if somebody is 1-away now
(this is the Crawford game or a post-Crawford game) every later game is
post-Crawford. A player who reaches the match length has MWC 1.0.

Take points (docs/cube.md): dead,
``TP = (MWC(pass) - MWC(take and lose)) / (MWC(take and win) - MWC(take and lose))``;
live, ``TP_live(cube) = TP_dead(cube) * (1 - TP_live'(2 cube))`` where the
primed take point is the original doubler's when the taker redoubles; the
taker's cube is dead (factor 1) when his redouble could not gain: the doubled
cube already wins him the match, or the cube limit is reached. Redoubles that
are "for the match" (the next cube covers both players' needs) end the
recursion there because their take point is dead. Check: 3-away/3-away
``30.17% x 75.08% = 22.65%``.

Like the rest of the cube code this module imports numpy only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from tdgammon.engine.rules.errors import RuleError

MET_PATH = Path(__file__).with_name("met_kazaross_xg2.json")

WIN_SINGLE, WIN_GAMMON, WIN_BACKGAMMON = 0, 1, 2
"""Indices of the (3,) conditional outcome rates (and of the points won: 1, 2, 3 x cube)."""


@dataclass(frozen=True, eq=False)
class MatchEquityTable:
    """pre_crawford: ``(N, N) float64``; post_crawford: ``(N,) float64`` (module docstring)."""

    name: str
    pre_crawford: np.ndarray
    post_crawford: np.ndarray

    @property
    def max_away(self) -> int:
        """Longest distance the table covers (25 for Kazaross-XG2)."""
        return len(self.pre_crawford)

    def mwc(self, away: int, opponent_away: int, post_crawford: bool = False) -> float:
        """MWC of the player needing ``away`` against one needing ``opponent_away``.

        ``away <= 0``: the player has won the match (1.0); ``opponent_away <= 0``: 0.0.
        post_crawford: the game to be played at this score is post-Crawford
        (only matters when somebody is 1-away).
        """
        if away <= 0:
            return 1.0
        if opponent_away <= 0:
            return 0.0
        if max(away, opponent_away) > self.max_away:
            raise RuleError(
                f"the match equity table covers scores up to {self.max_away}-away, "
                f"got {away}-away/{opponent_away}-away"
            )
        if post_crawford and (away == 1 or opponent_away == 1):
            if away == 1:
                return 1.0 - float(self.post_crawford[opponent_away - 1])
            return float(self.post_crawford[away - 1])
        return float(self.pre_crawford[away - 1][opponent_away - 1])


@lru_cache(maxsize=4)
def load_met(path: str | None = None) -> MatchEquityTable:
    """Read a MET in the JSON layout of ``engine/cube/met_kazaross_xg2.json``."""
    with open(path or MET_PATH, encoding="utf-8") as handle:
        data = json.load(handle)
    pre = np.array(data["pre_crawford"]["table"], dtype=np.float64)
    post = np.array(data["post_crawford"]["table"], dtype=np.float64)
    if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or post.shape != (pre.shape[0],):
        raise RuleError(f"match equity table {path}: bad shapes {pre.shape}, {post.shape}")
    return MatchEquityTable(str(data.get("name", "MET")), pre, post)


@dataclass(frozen=True)
class MatchState:
    """The score as the cube code sees it, from the mover's (player on roll) side.

    away / opponent_away: points each still needs (match_length - score), >= 1.
    crawford: the game in progress is the Crawford game (no cube, docs/rules.md 6).
    max_cube: highest cube value allowed.
    """

    away: int
    opponent_away: int
    crawford: bool = False
    max_cube: int = 1024

    @classmethod
    def from_position(cls, position) -> MatchState:
        """From an ``tdgammon.engine.rules.position.Position`` with ``match_length > 0``."""
        if position.match_length <= 0:
            raise RuleError("money play has no match score")
        return cls(
            position.match_length - position.mover_score,
            position.match_length - position.opponent_score,
            bool(position.crawford),
            int(position.max_cube),
        )

    @property
    def post_crawford(self) -> bool:
        """This game is after the Crawford game: somebody is 1-away and it is not Crawford."""
        return (self.away == 1 or self.opponent_away == 1) and not self.crawford

    @property
    def next_post_crawford(self) -> bool:
        """Games after this one are post-Crawford (somebody is 1-away now)."""
        return self.away == 1 or self.opponent_away == 1

    def swapped(self) -> MatchState:
        """The same score from the opponent's side."""
        return MatchState(self.opponent_away, self.away, self.crawford, self.max_cube)


def mwc(away: int, opponent_away: int, post_crawford: bool = False, met=None) -> float:
    """``MatchEquityTable.mwc`` of the default table (or ``met``)."""
    return (met or load_met()).mwc(away, opponent_away, post_crawford)


def outcome_mwcs(state: MatchState, cube: int, met=None) -> np.ndarray:
    """``(2, 3) float64``: the mover's MWC after the game ends at cube value ``cube``.

    Row 0: mover wins a single game, gammon, backgammon (1, 2, 3 x cube points);
    row 1: mover loses a single game, gammon, backgammon.
    """
    table = met or load_met()
    post = state.next_post_crawford
    points = cube * np.arange(1, 4)
    win = [table.mwc(state.away - p, state.opponent_away, post) for p in points]
    lose = [table.mwc(state.away, state.opponent_away - p, post) for p in points]
    return np.array([win, lose])


def outcome_rates(probabilities) -> tuple[np.ndarray, np.ndarray]:
    """Conditional outcome rates of the mover from ``(5,)`` cumulative probabilities.

    Returns (win_rates, lose_rates), each ``(3,)``: P(single, gammon,
    backgammon | mover wins) and the same given the mover loses. A side that
    never wins gets (1, 0, 0).
    """
    p = np.asarray(probabilities, dtype=np.float64)
    win, wg, wbg, lg, lbg = p
    lose = 1.0 - win
    win_rates = np.array([win - wg, wg - wbg, wbg]) / win if win > 0 else np.array([1.0, 0, 0])
    lose_rates = np.array([lose - lg, lg - lbg, lbg]) / lose if lose > 0 else np.array([1.0, 0, 0])
    return np.clip(win_rates, 0, 1), np.clip(lose_rates, 0, 1)


def cubeless_mwc(probabilities, state: MatchState, cube: int = 1, met=None):
    """The mover's MWC with a dead cube at ``cube``: outcome probabilities x outcome MWCs.

    probabilities: ``(5,)`` (a float back) or ``(B, 5)`` (a ``(B,) float64`` array back).
    """
    p = np.asarray(probabilities, dtype=np.float64)
    win, wg, wbg, lg, lbg = np.moveaxis(p, -1, 0)
    exact = np.stack([win - wg, wg - wbg, wbg, 1 - win - lg, lg - lbg, lbg], axis=-1)
    value = exact @ outcome_mwcs(state, cube, met).reshape(6)
    return float(value) if p.ndim == 1 else value


def mwc_to_equity(value: float, state: MatchState, cube: int = 1, met=None) -> float:
    """Normalised money-like equity (EMG) of an MWC at ``cube``: -1 at a single loss, +1 at a win.

    ``E = 2 (MWC - MWC(lose cube)) / (MWC(win cube) - MWC(lose cube)) - 1``.
    """
    out = outcome_mwcs(state, cube, met)
    win, lose = out[0, 0], out[1, 0]
    return float(2.0 * (value - lose) / (win - lose) - 1.0)


def equity_to_mwc(equity: float, state: MatchState, cube: int = 1, met=None) -> float:
    """Inverse of ``mwc_to_equity``."""
    out = outcome_mwcs(state, cube, met)
    win, lose = out[0, 0], out[1, 0]
    return float(lose + (equity + 1.0) / 2.0 * (win - lose))


def gammon_values(state: MatchState, cube: int = 1, met=None) -> tuple[float, float]:
    """(value of winning a gammon, cost of losing one) for the mover at ``cube``.

    docs/cube.md: ``GV = (MWC(win gammon) - MWC(win)) / (MWC(win) - MWC(lose))``;
    the loss side is ``(MWC(lose) - MWC(lose gammon)) / (MWC(win) - MWC(lose))``.
    0.5 and 0.5 in money play; 0 for a player whom a single win already gives
    the match.
    """
    out = outcome_mwcs(state, cube, met)
    spread = out[0, 0] - out[1, 0]
    return float((out[0, 1] - out[0, 0]) / spread), float((out[1, 0] - out[1, 1]) / spread)


def can_double(state: MatchState, cube: int, owns_or_centred: bool = True) -> tuple[bool, str]:
    """Whether the mover may usefully double a cube at ``cube`` now, and why not.

    Rules: no cube in the Crawford game (docs/rules.md 6); post-Crawford the leader
    (1-away) never doubles; nobody doubles past what wins the match (the cube
    already wins the mover the match when ``cube >= away``); the cube limit;
    the mover must hold the cube or it must be centred.
    """
    if state.crawford:
        return False, "Crawford game: the cube may not be used"
    if not owns_or_centred:
        return False, "the opponent owns the cube"
    if state.post_crawford and state.away == 1:
        return False, "post-Crawford: the leader cannot double (any win takes the match)"
    if cube >= state.away:
        return False, "the cube is dead: a win at the current cube already takes the match"
    if 2 * cube > state.max_cube:
        return False, f"the cube limit ({state.max_cube}) is reached"
    return True, ""


def dead_take_point(
    taker_away: int,
    doubler_away: int,
    cube: int,
    post_crawford: bool,
    met=None,
    win_rates=None,
    lose_rates=None,
) -> float:
    """The taker's dead-cube take point when doubled from ``cube`` to ``2 cube``.

    ``post_crawford``: the games after this one are post-Crawford
    (``MatchState.next_post_crawford``). ``win_rates``/``lose_rates``: the
    taker's ``(3,)`` conditional outcome rates (``outcome_rates``) to weigh
    gammons; None = gammonless, the published-table convention.
    """
    table = met or load_met()
    pass_mwc = table.mwc(taker_away, doubler_away - cube, post_crawford)
    doubled = 2 * cube * np.arange(1, 4)
    win = np.array([table.mwc(taker_away - p, doubler_away, post_crawford) for p in doubled])
    lose = np.array([table.mwc(taker_away, doubler_away - p, post_crawford) for p in doubled])
    wr = np.array([1.0, 0, 0]) if win_rates is None else np.asarray(win_rates)
    lr = np.array([1.0, 0, 0]) if lose_rates is None else np.asarray(lose_rates)
    take_win, take_lose = float(wr @ win), float(lr @ lose)
    if take_win <= take_lose:
        return 0.0
    return (pass_mwc - take_lose) / (take_win - take_lose)


def live_take_point(
    taker_away: int,
    doubler_away: int,
    cube: int,
    post_crawford: bool,
    max_cube: int = 1024,
    met=None,
    win_rates=None,
    lose_rates=None,
) -> float:
    """The taker's fully live take point when doubled from ``cube`` to ``2 cube``.

    ``TP_dead x (1 - TP_live of the doubler at 2 cube -> 4 cube)`` when the
    taker could usefully redouble (``2 cube < taker_away`` and ``4 cube <=
    max_cube``), else ``TP_dead``. Rates, if given, weigh gammons at the first
    level only; deeper levels are gammonless.
    """
    dead = dead_take_point(
        taker_away, doubler_away, cube, post_crawford, met, win_rates, lose_rates
    )
    if 2 * cube < taker_away and 4 * cube <= max_cube:
        doubler_live = _gammonless_live_take_point(
            doubler_away, taker_away, 2 * cube, post_crawford, max_cube, met or load_met()
        )
        return dead * (1.0 - doubler_live)
    return dead


@lru_cache(maxsize=4096)
def _gammonless_live_take_point(
    taker_away: int, doubler_away: int, cube: int, post_crawford: bool, max_cube: int, met
) -> float:
    """``live_take_point`` without gammon rates (the deeper cube levels), cached:
    it depends on the score, the cube and the table only."""
    return live_take_point(taker_away, doubler_away, cube, post_crawford, max_cube, met)


def take_points(state: MatchState, cube: int = 1, met=None) -> dict[str, float]:
    """Gammonless dead and live take points of both players at the score and ``cube``.

    Keys: ``opponent_dead``, ``opponent_live`` (the opponent taking the
    mover's double) and ``mover_dead``, ``mover_live`` (the mover taking).
    """
    post = state.next_post_crawford
    a, b = state.away, state.opponent_away
    return {
        "opponent_dead": dead_take_point(b, a, cube, post, met),
        "opponent_live": live_take_point(b, a, cube, post, state.max_cube, met),
        "mover_dead": dead_take_point(a, b, cube, post, met),
        "mover_live": live_take_point(a, b, cube, post, state.max_cube, met),
    }


def free_drop(state: MatchState, met=None) -> float | None:
    """Cost in MWC of the leader's free drop, or None where there is none.

    Post-Crawford, with the trailer an even number of points away and the cube
    still at 1, the leader who passes the trailer's first double leaves him an
    odd number away, which is worth barely more than the even one
    (``post[away - 2] - post[away - 1]``; 1.2% at 2-away). Seen from either
    side: the trailer is whichever player is not 1-away.
    """
    if not state.post_crawford:
        return None
    trailer = state.opponent_away if state.away == 1 else state.away
    if trailer < 2 or trailer % 2:
        return None
    table = met or load_met()
    return float(table.post_crawford[trailer - 2] - table.post_crawford[trailer - 1])
