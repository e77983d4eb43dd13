"""The games a ``tdgammon serve`` process keeps in memory, bounded.

At most ``capacity`` games: adding one more drops the game used least recently,
and a game nobody has asked about for ``idle_seconds`` expires. Games live in
this process only (a restart forgets them), keyed by the random ``WebGame.id``.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from tdgammon.engine.rules.errors import FormatError

MAX_GAMES = 256
IDLE_SECONDS = 3600.0


class UnknownGame(FormatError):
    """No game has that ID (never created, or expired): the API answers 404."""


class GameStore:
    """Games by ID, least recently used first (module docstring). Thread-safe."""

    def __init__(
        self,
        capacity: int = MAX_GAMES,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = capacity
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._games: OrderedDict[str, tuple[object, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._games)

    def _expire(self) -> None:
        """Drop the games idle too long (the oldest come first)."""
        limit = self._clock() - self.idle_seconds
        while self._games and next(iter(self._games.values()))[1] < limit:
            self._games.popitem(last=False)

    def add(self, game) -> None:
        """Keep ``game`` (it has an ``id``), dropping the least recently used when full."""
        with self._lock:
            self._expire()
            while len(self._games) >= self.capacity:
                self._games.popitem(last=False)
            self._games[game.id] = (game, self._clock())

    def get(self, game_id: str):
        """The game ``game_id``, now the most recently used; UnknownGame if there is none."""
        with self._lock:
            self._expire()
            entry = self._games.pop(game_id, None)
            if entry is None:
                raise UnknownGame(
                    f"no game {game_id[:40]!r}: it never existed or has expired (a game "
                    f"idle for {self.idle_seconds / 60:.0f} minutes is dropped, and the "
                    f"oldest when more than {self.capacity} are kept)"
                )
            self._games[game_id] = (entry[0], self._clock())
            return entry[0]
