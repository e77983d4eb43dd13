"""Race quality: a network's 0-ply race equities against long rollouts (``tdgammon bench race``).

In a pure race (no contact, docs/rules.md) play is simple and rollouts are
nearly exact, so the gap between the 0-ply value and a long rollout measures
the evaluator itself. The strength issue asks for this figure: a net should be
close to perfect in races.

Reference set (``REFERENCE_FILE``, shipped in this package; rebuilt only with
``tdgammon bench race --build N``):

- ``boards (N, 30) int8``: race positions before a roll, side-to-move view,
  from self-play of the network of ``build_reference`` (0-ply), where the
  network is the judge: no contact and at least one checker outside a home
  board (pure bear-offs take the bear-off databases' value, not the net's);
- ``equity (N,) float64`` and ``se (N,)``: each position's cubeless money
  equity for the player on roll by a rollout of ``trials`` trials (0-ply
  plays, variance reduction, quasi-random dice), each trial stopped at the
  first pure bear-off with the databases' value (exact with at most 6
  checkers a side, ``tdgammon.engine.evaluation.two_sided_bearoff``).

``race_error(search, reference)``: mean absolute difference between
``search``'s 0-ply equity and the reference, with its spread; the reference's
own standard errors say how much of that is rollout noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.evaluation.rollout import RolloutSettings, estimate, rollout_trials
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.flow.batch import play_ply
from tdgammon.engine.rules.board import has_contact
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.errors import TdgammonError

REFERENCE_FILE = "race_reference.npz"
GAMES_IN_FLIGHT = 256


@dataclass(frozen=True)
class RaceReference:
    """Reference positions and rollout equities (module docstring); all ``(N, ...)``."""

    boards: np.ndarray
    equity: np.ndarray
    se: np.ndarray
    trials: int
    evaluator: str

    def save(self, path: str | Path) -> None:
        """Write the reference atomically (``np.savez_compressed``)."""
        import io

        from tdgammon.models.atomic import atomic_write_bytes

        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            boards=self.boards,
            equity=self.equity,
            se=self.se,
            trials=np.int64(self.trials),
            evaluator=np.str_(self.evaluator),
        )
        atomic_write_bytes(path, buffer.getvalue())


def load_reference(path: str | Path | None = None) -> RaceReference:
    """The shipped reference set, or the one in ``path``."""
    source = resources.files(__package__).joinpath(REFERENCE_FILE) if path is None else Path(path)
    try:
        with resources.as_file(source) as file:
            data = np.load(file, allow_pickle=False)
            return RaceReference(
                boards=data["boards"].astype(np.int8),
                equity=data["equity"].astype(np.float64),
                se=data["se"].astype(np.float64),
                trials=int(data["trials"]),
                evaluator=str(data["evaluator"]),
            )
    except (OSError, KeyError, ValueError) as error:
        raise TdgammonError(f"{source}: not a race reference file ({error})") from None


def race_positions(search: Search, count: int, rng: np.random.Generator) -> np.ndarray:
    """``(count, 30) int8`` distinct race positions (module docstring) from 0-ply
    self-play of ``search``, at most one position per game and phase of it
    (every fourth race position of a game), shuffled by ``rng``."""
    variant = search.variant
    start = variant.starting_board()
    boards = np.repeat(start[None, :], GAMES_IN_FLIGHT, axis=0)
    plies = np.zeros(GAMES_IN_FLIGHT, dtype=np.int64)
    race_plies = np.zeros(GAMES_IN_FLIGHT, dtype=np.int64)
    found = np.zeros((0, boards.shape[1]), dtype=np.int8)
    while len(found) < count:
        dice = roll_dice(rng, len(boards), opening=plies == 0)
        ply = play_ply(boards, dice, lambda b, d, m: search.choose_rows(m, len(b)), variant)
        boards, plies = ply.next_boards.copy(), plies + 1
        judged = ~ply.over & ~has_contact(boards) & ~is_bearoff_position(boards)
        race_plies += judged
        take = judged & (race_plies % 4 == 1)
        if take.any():
            found = np.unique(np.concatenate([found, boards[take]]), axis=0)
        boards[ply.over], plies[ply.over], race_plies[ply.over] = start, 0, 0
    return found[rng.permutation(len(found))[:count]]


def build_reference(search: Search, count: int, trials: int, seed: int) -> RaceReference:
    """``count`` race positions from self-play of ``search`` and their rollouts
    (``trials`` trials each, all positions advanced together as one batch)."""
    rng = np.random.default_rng(seed)
    boards = race_positions(search, count, rng)
    settings = RolloutSettings(seed=seed, bearoff_truncate=True)
    results = rollout_trials(search, boards, range(trials), settings)
    estimates = estimate(results, search.variant)
    return RaceReference(
        boards=boards,
        equity=np.array([e.equity for e in estimates]),
        se=np.array([e.equity_se for e in estimates]),
        trials=trials,
        evaluator=search.name,
    )


def race_error(search: Search, reference: RaceReference) -> dict:
    """0-ply equity of ``search`` against the reference: mean absolute error, its
    95% CI half-width over positions, root mean square, largest, and the
    reference's mean rollout standard error (the noise floor)."""
    equity = search.score(search.evaluate(reference.boards, 0)).astype(np.float64)
    diff = np.abs(equity - reference.equity)
    return {
        "evaluator": search.name,
        "positions": len(diff),
        "reference_trials": reference.trials,
        "reference_evaluator": reference.evaluator,
        "mean_abs_error": float(diff.mean()),
        "mean_abs_error_ci95": float(1.96 * diff.std(ddof=1) / np.sqrt(len(diff))),
        "rms_error": float(np.sqrt((diff**2).mean())),
        "max_error": float(diff.max()),
        "reference_se_mean": float(reference.se.mean()),
    }
