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
from tdgammon.engine.rules.board import has_contact
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.outcome import variant_equity
from tdgammon.engine.rules.outputs import N_OUTPUTS, invert
from tdgammon.engine.rules.variants import Variant, get_variant

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
        self.boards = np.asarray(state["boards"]).astype(np.int8)
        self.plies = np.asarray(state["plies"]).astype(np.int64)
        self.games = len(self.boards)
        size = max(128, int(2 ** np.ceil(np.log2(max(1, self.plies.max() + 1)))))
        self.history_boards = np.zeros((self.games, size, 30), dtype=np.int8)
        self.history_values = np.zeros((self.games, size, N_OUTPUTS), dtype=np.float32)
        hb = np.asarray(state["history_boards"])
        hv = np.asarray(state["history_values"])
        self.history_same = np.zeros((self.games, size), dtype=bool)
        self.history_boards[:, : hb.shape[1]] = hb
        self.history_values[:, : hv.shape[1]] = hv
        if "history_same" in state:  # absent in checkpoints written before variants
            hs = np.asarray(state["history_same"]).astype(bool)
            self.history_same[:, : hs.shape[1]] = hs
        self.finished_boards = [np.asarray(b).astype(np.int8) for b in state["finished_boards"]]
        self.finished_values = [np.asarray(v).astype(np.float32) for v in state["finished_values"]]
        self.finished_same = [
            np.asarray(s).astype(bool) for s in state.get("finished_same", [])
        ] or [np.zeros(len(b), dtype=bool) for b in self.finished_boards]
        self.finished_positions = sum(len(b) for b in self.finished_boards)
        self.games_finished = int(state["games_finished"])
        self.plies_played = int(state["plies_played"])
