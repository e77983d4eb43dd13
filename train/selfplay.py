"""Batched self-play and TD(lambda) targets.

Hundreds of games advance together. Each ply, for all games at once
(``tdgammon.engine.flow.batch.play_ply``, the rules of a turn): one
call of the vectorized move generator, one batched network pass over every
resulting position (``NetworkEvaluator.play_probabilities``: flip, evaluate
for the opponent, invert; terminal plays get the exact outcome), a greedy
choice per game (optionally epsilon-random), and the move. A finished game is
replaced at once by a fresh one, so the batch stays full.

Which TD(lambda): lambda-returns over finished games (the forward view)
-----------------------------------------------------------------------
Each ply ``t`` of a game stores the position ``x_t`` (view of the player about
to roll) and ``v_t``: the network's probabilities of the chosen successor
``x_{t+1}``, already inverted to the view of the player of ``x_t`` (computed
anyway to choose the play, so it costs nothing). When the game ends, its
targets are the lambda-returns, computed backwards::

    G_{T-1} = v_{T-1}  (the true outcome: the last play bore off the last checker)
    G_t     = (1 - lambda) * v_t + lambda * invert(G_{t+1})

(``invert`` because consecutive plies belong to alternating players.) The
network is then trained to ``x_t -> G_t`` with binary cross-entropy in
minibatches (Adam by default). Why this form and not per-game eligibility
traces: traces need one gradient per game per ply (per-sample gradients,
O(games x parameters) memory and work) and tie every update to one position,
which wastes the batched network pass; lambda-returns turn training into
ordinary minibatch regression over many games at once, which is what a CPU
does well. The cost is that ``v_t`` comes from the weights of the moment of
play (at most one update cycle old), a standard approximation of the offline
lambda-return algorithm. Game-end targets are the true outcome (except where
``stop_at_race`` ends a game at a race, below).

Races stopped at the race evaluator (``stop_at_race``, config
``selfplay.race_model``): when the evaluator carries a one-sided race
evaluator (``NetworkEvaluator.race``), every successor without contact is
valued by it, and a game ends on the play that breaks contact: its last
``v_t`` is that race value (a bootstrap, like every other ``v_t``, not an
outcome), so the network is trained on contact positions only, with the
race evaluator's values where contact ends, and no ply is spent on races.

Variants (``tdgammon.engine.rules.variants``, config ``model.variant``): games start from the
variant's position, plays come from ``generate_moves(..., variant)``, a game
ends when the mover has borne off ``variant.checkers``, and the final target
is the variant's exact outcome (``tdgammon.engine.rules.outcome.terminal_probs``: for
Acey-Deucey win / win gammon / lose gammon carry the checkers-left stake).
An Acey-Deucey 1-2 that earns the extra roll leaves the same player to roll:
the board is not flipped and that ply's target is NOT inverted, so
``lambda_returns`` takes a per-ply ``same_player`` flag.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.evaluation.evaluator import NetworkEvaluator
from tdgammon.engine.flow.batch import play_ply
from tdgammon.engine.flow.random_play import pick_random_children
from tdgammon.engine.movegen.vectorized import best_rows
from tdgammon.engine.rules.board import (
    BOARD_SIZE,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OFF,
    has_contact,
)
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.outcome import variant_equity
from tdgammon.engine.rules.outputs import N_OUTPUTS, invert
from tdgammon.engine.rules.variants import Variant, get_variant
from tdgammon.train.config import shown

MAX_PLIES = 10000
"""A self-play game longer than this is a bug."""


def lambda_returns(
    values: np.ndarray,
    lengths: np.ndarray,
    td_lambda: float,
    same_player: np.ndarray | None = None,
) -> np.ndarray:
    """Lambda-returns of finished games (see the module docstring).

    values: ``(G, L, 5) float32``: ``v_t`` of each game (mover-of-ply-t view),
    padded after ``lengths[g]`` plies; the last real ply holds the true outcome
    (or, for a game ``stop_at_race`` ended, the race evaluator's value).
    same_player: ``(G, L) bool`` or None: ply t+1 is played by the mover of
    ply t (Acey-Deucey extra roll), so ``G_{t+1}`` is used without ``invert``.
    Returns ``(G, L, 5) float32`` targets (padding rows are zero).
    """
    games, longest, _ = values.shape
    out = np.zeros_like(values)
    carry = np.zeros((games, N_OUTPUTS), dtype=values.dtype)
    for t in range(longest - 1, -1, -1):
        last = lengths - 1 == t
        inside = t < lengths - 1
        following = invert(carry)
        if same_player is not None:
            following = np.where(same_player[:, t, None], carry, following)
        step = (1.0 - td_lambda) * values[:, t] + td_lambda * following
        carry = np.where(last[:, None], values[:, t], np.where(inside[:, None], step, 0.0))
        out[:, t] = carry
    return out.astype(np.float32)


def race_evaluator(config):
    """The one-sided race evaluator of ``config.selfplay.race_model`` (None when
    empty); ``ModelFileError`` naming the file when it is missing or bad."""
    if not config.selfplay.race_model:
        return None
    from tdgammon.engine.evaluation.one_sided_race import load_race_evaluator

    return load_race_evaluator(config.selfplay.race_model)


class SelfPlay:
    """The state of ``games`` self-play games in flight, plus finished games not yet
    used for training. ``state()`` / ``load_state()`` make a resume exact."""

    def __init__(
        self,
        games: int,
        rng: np.random.Generator,
        exploration: float = 0.0,
        variant: str | Variant | None = None,
        stop_at_race: bool = False,
    ) -> None:
        self.games = games
        self.stop_at_race = stop_at_race
        self.rng = rng
        self.exploration = exploration
        self.variant = get_variant(variant)
        self.start = self.variant.starting_board()
        self.boards = np.repeat(self.start[None, :], games, axis=0)
        self.plies = np.zeros(games, dtype=np.int64)
        self.history_boards = np.zeros((games, 128, 30), dtype=np.int8)
        self.history_values = np.zeros((games, 128, N_OUTPUTS), dtype=np.float32)
        self.history_same = np.zeros((games, 128), dtype=bool)
        self.finished_boards: list[np.ndarray] = []
        self.finished_values: list[np.ndarray] = []
        self.finished_same: list[np.ndarray] = []
        self.finished_positions = 0
        self.games_finished = 0
        self.plies_played = 0

    def _roll(self) -> np.ndarray:
        """``(games, 2) int8``; a game's first roll is never a double (docs/rules.md 1)."""
        return roll_dice(self.rng, self.games, opening=self.plies == 0)

    def step(self, evaluator: NetworkEvaluator) -> int:
        """Play one ply in every game. Returns the number of games that ended."""
        dice = self._roll()
        chosen_probs = {}

        def choose(boards, dice, moves):
            probs = evaluator.play_probabilities(moves)
            chosen = best_rows(variant_equity(probs, self.variant), moves.parents, self.games)
            if self.exploration > 0.0:
                explore = self.rng.random(self.games) < self.exploration
                if explore.any():
                    random_rows = pick_random_children(moves.counts(self.games), self.rng)
                    chosen = np.where(explore, random_rows, chosen)
            chosen_probs["values"] = probs[chosen]
            return chosen

        ply = play_ply(self.boards, dice, choose, self.variant)
        if self.plies.max() >= self.history_boards.shape[1]:
            self._grow()
        rows = np.arange(self.games)
        self.history_boards[rows, self.plies] = self.boards
        self.history_values[rows, self.plies] = chosen_probs["values"]
        self.history_same[rows, self.plies] = ply.again
        self.plies += 1
        self.plies_played += self.games
        self.boards = ply.next_boards
        done = ply.over
        if self.stop_at_race:
            done = done | ~has_contact(ply.next_boards)
        if done.any():
            for g in np.flatnonzero(done):
                n = int(self.plies[g])
                self.finished_boards.append(self.history_boards[g, :n].copy())
                self.finished_values.append(self.history_values[g, :n].copy())
                self.finished_same.append(self.history_same[g, :n].copy())
                self.finished_positions += n
            self.boards[done] = self.start
            self.plies[done] = 0
            self.games_finished += int(done.sum())
        if self.plies.max() > MAX_PLIES:
            raise RuntimeError(f"a self-play game ran past {MAX_PLIES} plies")
        return int(done.sum())

    def _grow(self) -> None:
        size = self.history_boards.shape[1]
        self.history_boards = np.concatenate(
            [self.history_boards, np.zeros_like(self.history_boards)], axis=1
        )
        self.history_values = np.concatenate(
            [self.history_values, np.zeros_like(self.history_values)], axis=1
        )
        self.history_same = np.concatenate(
            [self.history_same, np.zeros_like(self.history_same)], axis=1
        )
        assert self.history_boards.shape[1] == 2 * size

    def take_finished(self, td_lambda: float) -> tuple[np.ndarray, np.ndarray, int]:
        """Boards ``(N, 30) int8`` and lambda-return targets ``(N, 5) float32`` of every
        finished game not yet taken, and the number of those games."""
        count = len(self.finished_boards)
        if count == 0:
            return np.zeros((0, 30), np.int8), np.zeros((0, N_OUTPUTS), np.float32), 0
        lengths = np.array([len(b) for b in self.finished_boards])
        longest = int(lengths.max())
        values = np.zeros((count, longest, N_OUTPUTS), dtype=np.float32)
        same = np.zeros((count, longest), dtype=bool)
        for g, v in enumerate(self.finished_values):
            values[g, : len(v)] = v
            same[g, : len(v)] = self.finished_same[g]
        targets = lambda_returns(values, lengths, td_lambda, same if same.any() else None)
        mask = np.arange(longest)[None, :] < lengths[:, None]
        boards = np.concatenate(self.finished_boards)
        self.finished_boards, self.finished_values, self.finished_positions = [], [], 0
        self.finished_same = []
        return boards, targets[mask], count

    def state(self) -> dict:
        """Everything needed to continue exactly (numpy arrays and ints)."""
        longest = int(self.plies.max()) if self.games else 0
        return {
            "boards": self.boards.copy(),
            "plies": self.plies.copy(),
            "history_boards": self.history_boards[:, :longest].copy(),
            "history_values": self.history_values[:, :longest].copy(),
            "history_same": self.history_same[:, :longest].copy(),
            "finished_boards": [b.copy() for b in self.finished_boards],
            "finished_values": [v.copy() for v in self.finished_values],
            "finished_same": [s.copy() for s in self.finished_same],
            "games_finished": self.games_finished,
            "plies_played": self.plies_played,
        }

    def load_state(self, state: dict) -> None:
        """Continue the games of a ``state()``; SelfPlayStateError naming the entry when
        it is not the state of ``self.games`` games of this variant (shapes, dtypes,
        positions, probabilities, counts). Nothing changes when it is refused.
        ``history_same`` / ``finished_same`` are absent from states written before
        variants: no extra rolls then."""
        if not isinstance(state, dict):
            raise SelfPlayStateError("selfplay must be a table of arrays")
        checkers = self.variant.checkers
        name = "selfplay.boards"
        boards = _array(_entry(state, "boards"), name, INTEGERS, (self.games, BOARD_SIZE))
        _check_positions(name, boards, checkers)
        plies = _array(_entry(state, "plies"), "selfplay.plies", INTEGERS, (self.games,))
        _check_plies(plies)
        history_boards, history_values, history_same = _history(state, plies, checkers)
        finished_boards, finished_values, finished_same = _finished_games(state, checkers)
        games_finished = _count(state, "games_finished")
        plies_played = _count(state, "plies_played")

        self.boards = boards.astype(np.int8)
        self.plies = plies.astype(np.int64)
        size = max(128, int(2 ** np.ceil(np.log2(int(self.plies.max()) + 1))))
        self.history_boards = np.zeros((self.games, size, BOARD_SIZE), dtype=np.int8)
        self.history_values = np.zeros((self.games, size, N_OUTPUTS), dtype=np.float32)
        self.history_same = np.zeros((self.games, size), dtype=bool)
        longest = history_boards.shape[1]
        self.history_boards[:, :longest] = history_boards
        self.history_values[:, :longest] = history_values
        self.history_same[:, :longest] = history_same
        self.finished_boards = [b.astype(np.int8) for b in finished_boards]
        self.finished_values = [v.astype(np.float32) for v in finished_values]
        self.finished_same = [f.astype(bool) for f in finished_same]
        self.finished_positions = sum(len(b) for b in self.finished_boards)
        self.games_finished = games_finished
        self.plies_played = plies_played


# ------------------------------------------------------------ checking a saved state


class SelfPlayStateError(TdgammonError):
    """A saved self-play state (``SelfPlay.state``) that cannot be continued; the
    message names the entry (``selfplay.history_boards``) and what is wrong with it."""


INTEGERS = "iu"
FLOATS = "f"
FLAGS = "b"
"""numpy ``dtype.kind`` letters of the saved arrays: boards and plies, probabilities,
the extra-roll flags."""
KIND_NAMES = {INTEGERS: "integers", FLOATS: "floats", FLAGS: "booleans"}
MOVER_SLOTS = [MOVER_OFF, MOVER_BAR, MOVER_HAND]
OPPONENT_SLOTS = [OPPONENT_OFF, OPPONENT_BAR, OPPONENT_HAND]


def _entry(state: dict, key: str):
    """``state[key]``; SelfPlayStateError naming ``selfplay.<key>`` when it is missing."""
    if key not in state:
        raise SelfPlayStateError(f"selfplay.{key} is missing")
    return state[key]


def _array(value, name: str, kind: str, shape: tuple) -> np.ndarray:
    """``value`` as an array of dtype kind ``kind`` and shape ``shape`` (None: any
    length); SelfPlayStateError naming ``name`` otherwise."""
    try:
        array = np.asarray(value)
    except ValueError:  # a ragged list
        raise SelfPlayStateError(f"{name} is not an array") from None
    if array.dtype.kind not in kind:
        raise SelfPlayStateError(f"{name} must hold {KIND_NAMES[kind]}, got {array.dtype}")
    fits = array.ndim == len(shape) and all(
        want is None or got == want for got, want in zip(array.shape, shape, strict=False)
    )
    if not fits:
        wanted = ", ".join("n" if want is None else str(want) for want in shape)
        raise SelfPlayStateError(f"{name} must have shape ({wanted}), got {array.shape}")
    return array


def _at(bad: np.ndarray) -> tuple[int, ...]:
    """The index of the first True of ``bad``."""
    return tuple(int(i) for i in np.argwhere(bad)[0])


def _check_positions(
    name: str, boards: np.ndarray, checkers: int, played: np.ndarray | None = None
) -> None:
    """SelfPlayStateError unless every board of ``boards`` ``(..., 30)`` ints (mover's
    view) where ``played`` ``(...) bool`` (default: all) is a position of a game in
    progress: mover slots >= 0, opponent slots <= 0, ``checkers`` a side, neither side
    with all of them borne off. The message names the first bad board, ``name[i, j]``."""
    b = boards.astype(np.int64)
    mover = np.where(b > 0, b, 0).sum(axis=-1)
    opponent = np.where(b < 0, -b, 0).sum(axis=-1)
    checks = [
        (
            (b[..., MOVER_SLOTS] < 0).any(axis=-1),
            lambda at: "opponent checkers on the mover's off tray, bar or hand",
        ),
        (
            (b[..., OPPONENT_SLOTS] > 0).any(axis=-1),
            lambda at: "mover checkers on the opponent's off tray, bar or hand",
        ),
        (mover != checkers, lambda at: f"the mover has {mover[at]} checkers, not {checkers}"),
        (
            opponent != checkers,
            lambda at: f"the opponent has {opponent[at]} checkers, not {checkers}",
        ),
        (
            (b[..., MOVER_OFF] == checkers) | (b[..., OPPONENT_OFF] == -checkers),
            lambda at: "a finished game (a side has borne off every checker)",
        ),
    ]
    for bad, describe in checks:
        bad = bad if played is None else bad & played
        if bad.any():
            at = _at(bad)
            raise SelfPlayStateError(f"{name}{list(at)}: {describe(at)}")


def _check_probabilities(name: str, values: np.ndarray, played: np.ndarray | None = None) -> None:
    """SelfPlayStateError unless every row of ``values`` ``(..., 5)`` floats where
    ``played`` ``(...) bool`` (default: all) holds probabilities (finite, 0 to 1)."""
    bad = ~((values >= 0.0) & (values <= 1.0)).all(axis=-1)  # NaN is bad too
    if played is not None:
        bad &= played
    if bad.any():
        raise SelfPlayStateError(f"{name}{list(_at(bad))}: not probabilities from 0 to 1")


def _check_plies(plies: np.ndarray) -> None:
    """Plies played of each game in flight ``(G,)``: 0 to MAX_PLIES."""
    bad = (plies < 0) | (plies > MAX_PLIES)
    if bad.any():
        g = int(np.flatnonzero(bad)[0])
        raise SelfPlayStateError(
            f"selfplay.plies[{g}] must be from 0 to {MAX_PLIES}, got {int(plies[g])}"
        )


def _history(state: dict, plies: np.ndarray, checkers: int) -> tuple:
    """The plies of the games in flight: boards ``(G, L, 30)``, values ``(G, L, 5)``
    and extra-roll flags ``(G, L) bool``, ``L`` the longest game of ``plies`` ``(G,)``;
    the rows past a game's plies are left overs of earlier games and unchecked."""
    games, longest = len(plies), int(plies.max())
    played = np.arange(longest)[None, :] < plies[:, None]
    name = "selfplay.history_boards"
    boards = _array(_entry(state, "history_boards"), name, INTEGERS, (games, longest, BOARD_SIZE))
    _check_positions(name, boards, checkers, played)
    name = "selfplay.history_values"
    values = _array(_entry(state, "history_values"), name, FLOATS, (games, longest, N_OUTPUTS))
    _check_probabilities(name, values, played)
    same = np.zeros((games, longest), dtype=bool)
    if "history_same" in state:
        same = _array(state["history_same"], "selfplay.history_same", FLAGS, (games, longest))
    return boards, values, same


def _finished_games(state: dict, checkers: int) -> tuple[list, list, list]:
    """The finished games not yet trained on: per game boards ``(n, 30)``, values
    ``(n, 5)`` and extra-roll flags ``(n,) bool``, ``n >= 1`` its plies."""
    boards = _list(state, "finished_boards")
    values = _list(state, "finished_values", len(boards))
    flags = [None] * len(boards)
    if "finished_same" in state:
        flags = _list(state, "finished_same", len(boards))
    games = [
        _finished_game(g, *entries, checkers)
        for g, entries in enumerate(zip(boards, values, flags, strict=True))
    ]
    return [g[0] for g in games], [g[1] for g in games], [g[2] for g in games]


def _list(state: dict, key: str, count: int | None = None) -> list:
    """``state[key]``: a list (of ``count`` entries, one per finished game, if given)."""
    entries = _entry(state, key)
    if not isinstance(entries, list | tuple):
        raise SelfPlayStateError(f"selfplay.{key} must be a list of arrays")
    if count is not None and len(entries) != count:
        raise SelfPlayStateError(
            f"selfplay.{key} holds {len(entries)} games, selfplay.finished_boards {count}"
        )
    return list(entries)


def _finished_game(g: int, boards, values, flags, checkers: int) -> tuple:
    """Finished game ``g``: its boards ``(n, 30)``, values ``(n, 5)`` and flags ``(n,)``
    (``flags`` None: no extra rolls), checked."""
    name = f"selfplay.finished_boards[{g}]"
    boards = _array(boards, name, INTEGERS, (None, BOARD_SIZE))
    plies = len(boards)
    if plies == 0:
        raise SelfPlayStateError(f"{name} holds no positions")
    _check_positions(name, boards, checkers)
    name = f"selfplay.finished_values[{g}]"
    values = _array(values, name, FLOATS, (plies, N_OUTPUTS))
    _check_probabilities(name, values)
    if flags is None:
        return boards, values, np.zeros(plies, dtype=bool)
    return boards, values, _array(flags, f"selfplay.finished_same[{g}]", FLAGS, (plies,))


def _count(state: dict, key: str) -> int:
    """``state[key]``: a whole number >= 0."""
    value = state.get(key)
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise SelfPlayStateError(f"selfplay.{key} must be a whole number >= 0, got {shown(value)}")
    return int(value)
