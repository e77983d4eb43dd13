"""Cubeless money games between two agents, many at once, in duplicate pairs.

Games 2k and 2k+1 use the same dice, seat by seat, with the agents swapped
between the seats, so luck largely cancels within a pair. The opening roll
follows docs/rules.md 1: "Each player rolls one die. The higher number moves first
and plays the two numbers just rolled"; seat 0 rolls the first die.

Results are from agent A's side: points per game with a 95% confidence
interval computed over pair means (the pairs are independent; the two games
of a pair are not).

Variants (docs/rules.md 7, ``variant=``): the variant's start position, its move
generation, its number of checkers for the end of the game and its scoring
(``tdgammon.engine.rules.outcome.game_values``: Acey-Deucey pays the stake times the
loser's checkers left). After an Acey-Deucey 1-2 whose named double was
played in full the same player moves again with fresh dice. Each game reads
its own next roll of the pair's dice sequence, so duplicate games stay
paired roll by roll even when one of them has extra rolls.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.flow.batch import play_ply
from tdgammon.engine.players.agents import Agent
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.outcome import game_values
from tdgammon.engine.rules.variants import Variant, get_variant

MAX_PLIES = 2000
"""A cubeless game longer than this is a bug (or two agents that never move home)."""


@dataclass(frozen=True)
class DuelResult:
    """Outcome of ``play_duel`` from agent A's side."""

    name_a: str
    name_b: str
    points: np.ndarray  # (games,) int: +1/+2/+3 A won single/gammon/backgammon, negative lost
    plies: int
    seconds: float
    variant: str = "standard"

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def ppg(self) -> float:
        """Mean points per game for A."""
        return float(self.points.mean())

    @property
    def ci95(self) -> float:
        """Half-width of the 95% confidence interval of ppg, over duplicate pairs."""
        pairs = self.points[: self.games // 2 * 2].reshape(-1, 2).mean(axis=1)
        if len(pairs) < 2:
            return float("nan")
        return 1.96 * float(pairs.std(ddof=1)) / math.sqrt(len(pairs))

    def rate(self, condition: np.ndarray) -> float:
        return float(condition.mean())

    def summary(self) -> dict:
        p = self.points
        return {
            "a": self.name_a,
            "b": self.name_b,
            "variant": self.variant,
            "games": self.games,
            "ppg": self.ppg,
            "ci95": finite_or_none(self.ci95),
            "win_rate": self.rate(p > 0),
            "gammon_rate": self.rate(p >= 2),
            "backgammon_rate": self.rate(p >= 3),
            "lose_gammon_rate": self.rate(p <= -2),
            "lose_backgammon_rate": self.rate(p <= -3),
            "games_per_second": _rate(self.games, self.seconds),
        }

    def text(self) -> str:
        s = self.summary()
        if self.variant != "standard":
            return (
                f"{s['a']} vs {s['b']} ({self.variant}): {s['games']} games, "
                f"{s['ppg']:+.3f} ppg (95% CI {plus_minus(s['ci95'], '.3f')}); wins "
                f"{s['win_rate']:.1%}, won 2+ points {s['gammon_rate']:.1%}, lost 2+ points "
                f"{s['lose_gammon_rate']:.1%}; {_rate_text(s['games_per_second'])}"
            )
        return (
            f"{s['a']} vs {s['b']}: {s['games']} games, {s['ppg']:+.3f} ppg "
            f"(95% CI {plus_minus(s['ci95'], '.3f')}); wins {s['win_rate']:.1%}, gammons "
            f"{s['gammon_rate']:.1%}, backgammons {s['backgammon_rate']:.1%}; "
            f"lost gammons {s['lose_gammon_rate']:.1%}, lost backgammons "
            f"{s['lose_backgammon_rate']:.1%}; {_rate_text(s['games_per_second'])}"
        )


def rounding_note(asked: int, unit: str = "game") -> str | None:
    """The line telling that an odd ``asked`` count of ``unit`` ("game" or "match") was
    rounded up to whole duplicate pairs (``play_duel``, ``play_series``); None when it
    is even."""
    if asked % 2 == 0:
        return None
    plural = unit + ("es" if unit.endswith("ch") else "s")
    return (
        f"({asked} {unit if asked == 1 else plural} asked, {asked + 1} played: duplicate "
        "dice play them in pairs, the same dice with the seats swapped)"
    )


def finite_or_none(value: float) -> float | None:
    """``value``, or None where it is not finite (an interval of fewer than two pairs):
    JSON has no NaN or infinity, so a summary carries null there."""
    return value if math.isfinite(value) else None


def plus_minus(half_width: float | None, spec: str) -> str:
    """``"+/- <half_width>"`` in format ``spec``, or ``"n/a"`` (fewer than two pairs)."""
    return "n/a" if half_width is None else f"+/- {half_width:{spec}}"


def _rate(games: int, seconds: float) -> float | None:
    """Games a second; None when no time was measured."""
    return games / seconds if seconds > 0 else None


def _rate_text(rate: float | None) -> str:
    return "games/s not measured" if rate is None else f"{rate:.1f} games/s"


def _pair_dice(rng: np.random.Generator, pairs: int, plies: int) -> np.ndarray:
    """``(pairs, plies, 2) int8``: the dice of every ply of each pair's games.

    Ply 0 is the opening roll, never a double (``roll_dice(..., opening=)``,
    docs/rules.md 1); seat 0 rolls die 0, seat 1 die 1.
    """
    dice = roll_dice(rng, pairs * plies, opening=np.arange(pairs * plies) % plies == 0)
    return dice.reshape(pairs, plies, 2)


def play_duel(
    agent_a: Agent,
    agent_b: Agent,
    games: int,
    seed: int = 0,
    parallel_pairs: int = 256,
    progress: Callable[[int], None] | None = None,
    variant: str | Variant | None = None,
) -> DuelResult:
    """Play ``games`` (rounded up to even) cubeless money games between A and B.

    ``progress(n)`` is called with the number of games finished in each batch.
    ``variant``: a name or ``tdgammon.engine.rules.variants.Variant`` (default standard); the
    points are then ``tdgammon.engine.rules.outcome.game_values`` of that variant.
    """
    rules = get_variant(variant)
    import time

    rng = np.random.default_rng(seed)
    pairs_total = (games + 1) // 2
    points: list[np.ndarray] = []
    plies_total = 0
    start = time.perf_counter()
    for first in range(0, pairs_total, parallel_pairs):
        pairs = min(parallel_pairs, pairs_total - first)
        batch_points, plies = _play_pairs(agent_a, agent_b, pairs, rng, rules)
        points.append(batch_points)
        plies_total += plies
        if progress is not None:
            progress(2 * pairs)
    return DuelResult(
        agent_a.name,
        agent_b.name,
        np.concatenate(points),
        plies_total,
        time.perf_counter() - start,
        rules.name,
    )


def _play_pairs(
    agent_a: Agent,
    agent_b: Agent,
    pairs: int,
    rng: np.random.Generator,
    variant: Variant | None = None,
):
    """Play 2 * pairs games; returns (points for A per game (2*pairs,), plies played)."""
    variant = get_variant(variant)
    count = 2 * pairs
    dice_plies = 512
    dice = _pair_dice(rng, pairs, dice_plies)
    pair_of_game = np.arange(count) // 2
    seat_of_a = np.arange(count) % 2  # A sits in seat 0 in even games, seat 1 in odd
    # Opening: seat 0 rolls die 0, seat 1 die 1; the higher die moves first.
    opening = dice[pair_of_game, 0]
    seat_to_move = np.where(opening[:, 0] > opening[:, 1], 0, 1)
    boards = np.repeat(variant.starting_board()[None, :], count, axis=0)
    result = np.zeros(count, dtype=np.int64)
    active = np.ones(count, dtype=bool)
    game_ply = np.zeros(count, dtype=np.int64)  # rolls used by each game so far
    plies = 0
    while active.any():
        games = np.flatnonzero(active)
        ply = int(game_ply[games].max())
        if ply >= MAX_PLIES:
            raise RuntimeError(f"games still running after {MAX_PLIES} plies")
        if ply >= dice.shape[1]:
            dice = np.concatenate([dice, rng.integers(1, 7, size=(pairs, dice_plies, 2))], axis=1)
            dice = dice.astype(np.int8)
        roll = dice[pair_of_game[games], game_ply[games]]
        chosen_boards = np.empty((len(games), boards.shape[1]), dtype=boards.dtype)
        next_boards = np.empty_like(chosen_boards)
        over = np.zeros(len(games), dtype=bool)
        again = np.zeros(len(games), dtype=bool)
        a_moves = seat_to_move[games] == seat_of_a[games]
        for agent, mask in ((agent_a, a_moves), (agent_b, ~a_moves)):
            if not mask.any():
                continue
            ply_of = play_ply(boards[games[mask]], roll[mask], agent.choose_plays, variant)
            chosen_boards[mask] = ply_of.after
            next_boards[mask] = ply_of.next_boards
            over[mask] = ply_of.over
            again[mask] = ply_of.again
        plies += len(games)
        game_ply[games] += 1
        # The mover has just borne off its last checker: the mover won.
        value = game_values(chosen_boards[over], variant)
        result[games[over]] = np.where(a_moves[over], value, -value)
        active[games[over]] = False
        boards[games] = next_boards
        seat_to_move[games] = np.where(again, seat_to_move[games], 1 - seat_to_move[games])
    return result, plies


# ---------------------------------------------------------------- cube and match play


@dataclass(frozen=True)
class SeriesResult:
    """Games (money with the cube) or matches between A and B, from A's side.

    points: ``(games,)`` signed points of every game for A (cube included).
    match_wins: ``(matches,)`` +1 / -1 per match for A (empty for money play).
    Items 2k and 2k+1 (matches, or money games) are duplicate pairs.
    """

    name_a: str
    name_b: str
    length: int
    points: np.ndarray
    match_wins: np.ndarray
    seconds: float

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def ppg(self) -> float:
        return float(self.points.mean()) if len(self.points) else float("nan")

    def _pair_ci(self, values: np.ndarray) -> float:
        pairs = values[: len(values) // 2 * 2].reshape(-1, 2).mean(axis=1)
        if len(pairs) < 2:
            return float("nan")
        return 1.96 * float(pairs.std(ddof=1)) / math.sqrt(len(pairs))

    def summary(self) -> dict:
        p = self.points
        out = {
            "a": self.name_a,
            "b": self.name_b,
            "match_length": self.length,
            "games": self.games,
            "ppg": self.ppg,
            "win_rate": float((p > 0).mean()),
            "games_per_second": _rate(self.games, self.seconds),
        }
        if self.length:
            wins = self.match_wins
            out["matches"] = len(wins)
            out["match_win_rate"] = float((wins > 0).mean())
            out["match_win_ci95"] = finite_or_none(self._pair_ci((wins > 0).astype(float)))
        else:
            out["ci95"] = finite_or_none(self._pair_ci(p.astype(float)))
        return out

    def text(self) -> str:
        s = self.summary()
        head = f"{s['a']} vs {s['b']}: {s['games']} games, {s['ppg']:+.3f} ppg"
        if self.length:
            head += (
                f"; {s['matches']} matches to {self.length}, {s['a']} won "
                f"{s['match_win_rate']:.1%} (95% CI {plus_minus(s['match_win_ci95'], '.1%')})"
            )
        else:
            head += f" (95% CI {plus_minus(s['ci95'], '.3f')}, money with cube)"
        return head + f"; games won {s['win_rate']:.1%}; {_rate_text(s['games_per_second'])}"


def play_series(
    agent_a: Agent,
    agent_b: Agent,
    count: int,
    settings=None,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> SeriesResult:
    """Play ``count`` (rounded up to even) matches, or money games with the cube,
    through the game and match state machines (``tdgammon.engine.flow.match``).

    settings: ``tdgammon.engine.flow.match.MatchSettings``; length 0 means ``count`` single
    money games. Duplicate pairs: both items of a pair get dice from the same
    seed, seat by seat, with the agents swapped. ``progress(1)`` is called after
    each match (or money game): it counts what ``count`` counts.
    """
    import time

    from tdgammon.engine.flow.match import Match, MatchSettings
    from tdgammon.engine.players.cube_actions import play_match

    settings = settings or MatchSettings()
    if settings.length == 0:
        from dataclasses import replace

        settings = replace(settings, max_games=1)
    seeds = np.random.SeedSequence(seed).spawn((count + 1) // 2)
    points: list[int] = []
    match_wins: list[int] = []
    start = time.perf_counter()
    for pair_seed in seeds:
        for a_seat in (0, 1):
            agents = [agent_a, agent_b] if a_seat == 0 else [agent_b, agent_a]
            rng = np.random.default_rng(pair_seed)
            match = Match(settings, names=(agents[0].name, agents[1].name), rng=rng)
            play_match(match, agents)
            for game in match.games:
                sign = 1 if game.result.winner == a_seat else -1
                points.append(sign * game.result.points)
            if settings.length:
                match_wins.append(1 if match.winner == a_seat else -1)
            if progress is not None:
                progress(1)
    return SeriesResult(
        agent_a.name,
        agent_b.name,
        settings.length,
        np.array(points, dtype=np.int64),
        np.array(match_wins, dtype=np.int64),
        time.perf_counter() - start,
    )
