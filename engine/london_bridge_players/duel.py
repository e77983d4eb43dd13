"""Matches between two London Bridge players, seats alternating, and their statistics.

``play_match(a, b, games, rules, seed)`` plays every game at once, one turn of
every unfinished game per step. Games 2k and 2k+1 are a pair: both start from
the same opening (``opening_turns`` uniformly random turns from the start
position, drawn from ``seed``), and A sits in seat 0 in game 2k, in seat 1 in
game 2k+1 (docs/london_bridge.md 2.3: the seat that moves first is a rule, so
each player moves first in half the games). London Bridge has no dice: without
the random opening, two players that break ties the same way would replay one
game. Players break ties between equal turns at random too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.london_bridge.game import game_over
from tdgammon.engine.london_bridge.movegen import MoveList, generate_turns
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import (
    MOVER_GOAL,
    OPPONENT_GOAL,
    SEAT,
    pass_turn,
    start_state,
)
from tdgammon.engine.london_bridge_players.choice import random_rows

Z95 = 1.959964


@dataclass(frozen=True)
class MatchResult:
    """Per game (``(G,)`` arrays): A's points, B's points, turns played, A's seat."""

    name_a: str
    name_b: str
    points_a: np.ndarray
    points_b: np.ndarray
    turns: np.ndarray
    seat_a: np.ndarray
    turn_limit: int

    def score_a(self) -> np.ndarray:
        """``(G,)``: 1 for a win of A, 0.5 a draw, 0 a loss (5.2)."""
        return 0.5 + 0.5 * np.sign(self.points_a - self.points_b)

    def summary(self) -> dict:
        """The match as a JSON-ready dict: wins, draws, losses; A's score rate and mean
        margin with 95% confidence half-widths, the Wilson interval of A's win rate, A's
        score in the games where A moved first (seat 0); game lengths in turns, and the
        games that reached the turn limit."""
        score = self.score_a()
        margins = (self.points_a - self.points_b).astype(np.float64)
        n = len(score)
        turns = self.turns
        return {
            "a": self.name_a,
            "b": self.name_b,
            "games": n,
            "a_wins": int((score == 1).sum()),
            "draws": int((score == 0.5).sum()),
            "b_wins": int((score == 0).sum()),
            "a_score": float(score.mean()),
            "a_score_ci95": _half_width(score),
            "a_win_rate_wilson95": _wilson(int((score == 1).sum()), n),
            "a_score_first_seat": float(score[self.seat_a == 0].mean()) if n else math.nan,
            "a_margin": float(margins.mean()),
            "a_margin_ci95": _half_width(margins),
            "turns_mean": float(turns.mean()),
            "turns_median": float(np.median(turns)),
            "turns_min": int(turns.min()),
            "turns_p90": float(np.percentile(turns, 90)),
            "turns_max": int(turns.max()),
            "at_turn_limit": int((turns >= self.turn_limit).sum()),
        }

    def text(self) -> str:
        s = self.summary()
        return (
            f"{s['a']} vs {s['b']}: {s['games']} games, seats alternating\n"
            f"  {s['a']} wins {s['a_wins']}, draws {s['draws']}, {s['b']} wins {s['b_wins']}\n"
            f"  score of {s['a']} (win 1, draw 1/2): {100 * s['a_score']:.1f}% "
            f"{_plus_minus(s['a_score_ci95'], 100, '.1f', '%')} (95% CI); games won "
            f"{100 * s['a_wins'] / s['games']:.1f}%, 95% CI "
            f"{100 * s['a_win_rate_wilson95'][0]:.1f}-{100 * s['a_win_rate_wilson95'][1]:.1f}% "
            "(Wilson)\n"
            f"  margin of {s['a']}: {s['a_margin']:+.2f} "
            f"{_plus_minus(s['a_margin_ci95'], 1, '.2f', '')} points\n"
            f"  turns per game: mean {s['turns_mean']:.1f}, median {s['turns_median']:.0f}, "
            f"90th percentile {s['turns_p90']:.0f}, min {s['turns_min']}, max {s['turns_max']}; "
            f"{s['at_turn_limit']} at the turn limit ({self.turn_limit})"
        )


def _wilson(successes: int, n: int) -> list[float]:
    """Wilson score 95% interval of a proportion (sound at 0% and 100%, unlike the normal one)."""
    if n == 0:
        return [math.nan, math.nan]
    p = successes / n
    centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def _plus_minus(half_width: float | None, scale: float, spec: str, unit: str) -> str:
    """``"+/- <scale * half_width><unit>"`` in format ``spec``, or ``"+/- n/a"``."""
    return "+/- n/a" if half_width is None else f"+/- {scale * half_width:{spec}}{unit}"


def _half_width(values: np.ndarray) -> float | None:
    """95% confidence half-width of the mean (normal approximation, sample deviation);
    None for fewer than two values (JSON has no NaN)."""
    if len(values) < 2:
        return None
    return float(Z95 * values.std(ddof=1) / math.sqrt(len(values)))


def play_match(
    a,
    b,
    games: int,
    rules: Rules,
    seed: int = 0,
    opening_turns: int = 2,
) -> MatchResult:
    """Play ``games`` games of player ``a`` against ``b`` (``agents`` players)."""
    rng = np.random.default_rng(seed)
    seat_a = np.arange(games) % 2
    states = np.repeat(start_state(rules)[None], games, axis=0)
    turns = np.zeros(games, dtype=np.int64)
    done = game_over(states, turns, rules)
    while not done.all():
        live = np.flatnonzero(~done)
        moves = generate_turns(states[live], rules)
        rows = np.empty(len(live), dtype=np.int64)
        opening = turns[live] < opening_turns
        if opening.any():
            rows[opening] = _pair_openings(moves, live, opening, rng)
        a_moves = (states[live, SEAT] == seat_a[live]) & ~opening
        for player, mask in ((a, a_moves), (b, ~a_moves & ~opening)):
            if mask.any():
                rows[mask] = _choose(player, states[live], turns[live], moves, mask)
        states[live] = pass_turn(moves.states[rows])
        turns[live] += 1
        done = game_over(states, turns, rules)
    first = states[:, SEAT] == 0
    points = np.where(
        first[:, None],
        states[:, [MOVER_GOAL, OPPONENT_GOAL]],
        states[:, [OPPONENT_GOAL, MOVER_GOAL]],
    ).astype(np.int64)
    points_a = np.where(seat_a == 0, points[:, 0], points[:, 1])
    points_b = np.where(seat_a == 0, points[:, 1], points[:, 0])
    return MatchResult(a.name, b.name, points_a, points_b, turns, seat_a, rules.turn_limit)


def _choose(player, states, turns, moves: MoveList, mask) -> np.ndarray:
    """Rows (into ``moves``) chosen by ``player`` for the positions of ``mask``."""
    which = np.flatnonzero(mask)
    sub, rows = moves.subset(which)
    return rows[player.choose(states[which], turns[which], sub)]


def _pair_openings(moves, live, opening, rng) -> np.ndarray:
    """Random rows for the opening positions, the same for both games of a pair.

    Both games of a pair are in the same position during the opening (the first
    turns are random for both), so the even game's draw is copied to the odd one.
    """
    batch = len(live)
    chosen = random_rows(moves.parents, batch, rng) - moves.starts(batch)
    by_game = dict(zip(live.tolist(), chosen.tolist(), strict=True))
    picks = [by_game.get(g - g % 2, by_game[g]) for g in live[opening]]
    return moves.starts(batch)[opening] + np.array(picks, dtype=np.int64)
