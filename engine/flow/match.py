"""A match to N points, or a money session, as a sequence of games (docs/rules.md 6).

``Match`` owns the games and the score. The game in progress is ``match.game``
(an ``tdgammon.engine.flow.game.Game``, whose own actions play it); when it is over,
``match.next_game()`` scores it and starts the next. Scores are always the sum
of the points of the finished games, so they cannot drift from the games.

docs/rules.md 6: "A match is played to N points; the first to reach N wins." and
"Crawford rule (on by default in matches): in the first game after either
player reaches N-1 points (the Crawford game) the cube may not be used. In
later games (post-Crawford) the cube is used normally."

Decisions:

- The game that makes a player reach N-1 for the first time is followed by
  the Crawford game; there is at most one Crawford game per match (a second
  player reaching N-1 later does not make another).
- Points are not capped: a gammon at 4-away scores 2 x cube; the score may
  pass N, and the match is over as soon as one score is N or more.
- Money sessions (``length = 0``) never end by themselves; ``max_games`` (0 =
  no limit) can end them.
- Jacoby, beavers, raccoons and automatic doubles are money-play options
  (docs/rules.md 5 and 1) and are refused in a match.
- A refused action of a game names the seats as ``seat_names`` says
  (``Game.seat_names``; default "player 0" and "player 1", whatever ``names``
  are, so that only a caller that asks gets other words): ``tdgammon play``'s
  session names them as its output does (``name_seats``).
- Variants (docs/rules.md 7): every game of a match or session is played under
  ``MatchSettings.variant``. Acey-Deucey has no cube, so no Crawford game
  either, and its games score the stake times the loser's checkers left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from tdgammon.engine.flow.game import SEAT_NAMES, Game, check_seat_names
from tdgammon.engine.flow.game_records import GameSettings
from tdgammon.engine.rules.errors import RuleError


@dataclass(frozen=True)
class MatchSettings:
    """Rules of a match or money session.

    length: points to win the match; 0 for a money session.
    crawford: use the Crawford rule (matches only; on by default).
    cube: use the doubling cube at all.
    jacoby, beavers, raccoons, auto_doubles: money options (docs/rules.md 1, 5).
    max_cube: cube limit, a power of two.
    max_games: a money session ends after this many games (0: never).
    variant: the variant played (``tdgammon.engine.rules.variants``), by name.
    acey_deucey_stakes: Acey-Deucey's optional rule (docs/rules.md 7): the stake
        doubles each time a 1-2 is thrown (``GameSettings.acey_deucey_stakes``).
    """

    length: int = 0
    crawford: bool = True
    cube: bool = True
    jacoby: bool = False
    beavers: bool = False
    raccoons: bool = False
    max_cube: int = 1024
    auto_doubles: int = 0
    max_games: int = 0
    variant: str = "standard"
    acey_deucey_stakes: bool = False

    @property
    def rules(self):
        """The ``tdgammon.engine.rules.variants.Variant`` played."""
        return self.game_settings(crawford=False, scores=(0, 0)).rules

    def check(self) -> None:
        if self.length < 0:
            raise RuleError(f"match length must be 0 (money) or more, got {self.length}")
        if self.max_games < 0:
            raise RuleError(f"max games must be 0 (no limit) or more, got {self.max_games}")
        self.game_settings(crawford=False, scores=(0, 0)).check()

    def game_settings(self, crawford: bool, scores: tuple[int, int]) -> GameSettings:
        return GameSettings(
            cube=self.cube,
            crawford=crawford,
            jacoby=self.jacoby,
            beavers=self.beavers,
            raccoons=self.raccoons,
            max_cube=self.max_cube,
            auto_doubles=self.auto_doubles,
            match_length=self.length,
            scores=scores,
            variant=self.variant,
            acey_deucey_stakes=self.acey_deucey_stakes,
        )


class Match:
    """A match or money session between seats 0 and 1; see the module docstring."""

    def __init__(
        self,
        settings: MatchSettings | None = None,
        names: Sequence[str] = ("player 0", "player 1"),
        rng: np.random.Generator | None = None,
        seed: int | None = None,
        seat_names: Sequence[str] = SEAT_NAMES,
    ) -> None:
        """names: the players (results, records); seat_names: what the games'
        refusals call the seats (module docstring)."""
        self.settings = settings or MatchSettings()
        self.settings.check()
        if len(names) != 2:
            raise RuleError(f"a match has two players, got {len(names)} names")
        self.names = (str(names[0]), str(names[1]))
        self.seat_names = check_seat_names(seat_names)
        self.rng = rng if rng is not None else np.random.default_rng(seed)
        self.games: list[Game] = []
        self._start_game()

    # ------------------------------------------------------------ queries

    @property
    def game(self) -> Game:
        """The game in progress (or the last game, when the match is over)."""
        return self.games[-1]

    @property
    def is_money(self) -> bool:
        return self.settings.length == 0

    @property
    def scores(self) -> tuple[int, int]:
        """Points of seat 0 and seat 1 from every finished game."""
        totals = [0, 0]
        for game in self.games:
            if game.result is not None:
                totals[game.result.winner] += game.result.points
        return totals[0], totals[1]

    @property
    def is_over(self) -> bool:
        """docs/rules.md 6: "the first to reach N wins"; a session ends after max_games."""
        if not self.game.is_over:
            return False
        if self.is_money:
            return bool(self.settings.max_games) and len(self.games) >= self.settings.max_games
        return max(self.scores) >= self.settings.length

    @property
    def winner(self) -> int | None:
        """Seat that won the match, None while it runs (or for a money session)."""
        if self.is_money or not self.is_over:
            return None
        return 0 if self.scores[0] >= self.settings.length else 1

    def crawford_next(self) -> bool:
        """The next game would be the Crawford game (docs/rules.md 6)."""
        s = self.settings
        # a cube limited to 1 can never be turned: no cube, so no Crawford game
        # (the .mat record writes CubeLimit 1 for both, and reads back no cube)
        if self.is_money or not s.crawford or not s.cube or not s.rules.cube or s.max_cube < 2:
            return False
        if any(g.settings.crawford for g in self.games):
            return False
        return max(self.scores) == s.length - 1

    @property
    def post_crawford(self) -> bool:
        """A Crawford game has been played: later games use the cube normally."""
        return any(g.settings.crawford and g.is_over for g in self.games) and not (
            self.game.settings.crawford
        )

    # ------------------------------------------------------------ actions

    def next_game(self) -> Game:
        """Score the finished game and start the next one; RuleError if not allowed."""
        if not self.game.is_over:
            raise RuleError("the game is not over yet: finish it (or resign) first")
        if self.is_over:
            if self.is_money:
                raise RuleError(f"the session is over: {self.settings.max_games} games played")
            raise RuleError(f"the match is over: {self.names[self.winner]} won it")
        return self._start_game()

    def name_seats(self, names: Sequence[str]) -> None:
        """Name the seats in the refusals of every game, those played and those to
        come (``seat_names``), e.g. as a session names them in its output."""
        self.seat_names = check_seat_names(names)
        for game in self.games:
            game.seat_names = self.seat_names

    def _start_game(self) -> Game:
        crawford = self.crawford_next() if self.games else False
        game = Game(
            self.settings.game_settings(crawford, self.scores),
            rng=self.rng,
            seat_names=self.seat_names,
        )
        self.games.append(game)
        return game

    def check_invariants(self) -> None:
        """Raise AssertionError on an impossible match state (used by the tests)."""
        self.game.check_invariants()
        scores = self.scores
        assert all(s >= 0 for s in scores)
        running = [0, 0]
        crawford_games = 0
        for index, game in enumerate(self.games):
            assert game.settings.variant == self.settings.variant
            assert game.settings.scores == tuple(running), (game.settings.scores, running)
            last = index == len(self.games) - 1
            assert last or game.is_over
            if game.settings.crawford:
                crawford_games += 1
                assert game.cube_value == 1 and game.cube_owner is None
                assert max(running) == self.settings.length - 1
            if not self.is_money and not last:
                assert max(running) < self.settings.length
            if game.result is not None:
                running[game.result.winner] += game.result.points
        assert crawford_games <= 1
        assert tuple(running) == scores


def with_settings(settings: MatchSettings, **changes) -> MatchSettings:
    """A copy of ``settings`` with some fields changed, checked."""
    new = replace(settings, **changes)
    new.check()
    return new
