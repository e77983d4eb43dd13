"""Cube decisions against cubeful rollouts: the ``tdgammon bench cube`` benchmark (issue 18).

Reference set (``REFERENCE_FILE``, JSON, shipped in this package; built with
``tdgammon bench cube --build N --reference FILE``, or its decisions rolled
out again by another network with ``--reroll OLD``: the shipped set's
positions come from ``tesauro80``'s self-play, its figures from the default
network's rollouts; ``cube_reference_tesauro80.json`` keeps ``tesauro80``'s):

- ``decisions``: pre-roll positions as GNU Backgammon IDs
  (``PositionID:MatchID``) in which the player on roll may double, from 0-ply
  self-play of the network that builds the set: his 0-ply winning chance
  between ``WIN_RANGE`` (where cube decisions are close), spread over the
  phases (``phase``: contact, crashed, race, bear-off; ``PHASE_SHARES``) and
  over cube contexts (``cube_contexts``): half money play (centred cube, or
  his own cube on 2), half a 7-point match at scores from 2-away to 7-away
  each (centred cube, or his own cube on 2);
- for each: ``no_double`` and ``double_take`` with their standard errors, the
  mover's cubeful equity (money: units of the current stake; match: EMG at
  the current cube) from cubeful rollouts (``tdgammon.engine.cube.rollout``,
  0-ply plays, variance reduction, quasi-random dice, every trial truncated
  after ``truncate`` plies with the cube's value there; money bear-offs with at
  most 6 checkers a side take the exact two-sided database's figures instead):
  ND rolls out the position with the root player not doubling before his
  first roll (``root_doubles=False``), DT the position with the cube doubled
  and owned by the taker; the same dice for both. ``double_pass`` is +1.

The benchmark (``cube_benchmark``) takes each decision at ``plies`` with
``cubeful_decision`` and scores it against the reference: the doubler's
verdict agrees when ``double`` equals the reference's ``min(DT, DP) >= ND``,
the taker's when "take" equals ``DT < DP``; the error of a decision is what
the wrong choices give away in the reference's figures, doubler's and
taker's together (``decision_error``), in mEMG (thousandths of the stake).
Results are split by money / match and by phase.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from tdgammon.engine.cube import match_equity as me
from tdgammon.engine.cube.cubeful_search import CubefulSearch, cubeful_decision
from tdgammon.engine.cube.rollout import (
    combine_cubeful,
    cubeful_estimate,
    cubeful_rollout_trials,
)
from tdgammon.engine.cube.theory import TAKE, cube_available, proper_answer
from tdgammon.engine.evaluation.bearoff import is_bearoff_position
from tdgammon.engine.evaluation.distributed import map_trial_chunks_threaded, split_trials
from tdgammon.engine.evaluation.rollout import RolloutSettings, rollout_search
from tdgammon.engine.evaluation.search import Search
from tdgammon.engine.evaluation.two_sided_bearoff import covers, two_sided_cube_equities
from tdgammon.engine.flow.batch import play_ply
from tdgammon.engine.formats.match_id import position_from_gnubg, position_to_gnubg
from tdgammon.engine.rules.board import MOVER_OFF, has_contact
from tdgammon.engine.rules.dice import roll_dice
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.position import CUBE_MOVER, CUBE_OPPONENT, Position

__all__ = [
    "BEAROFF",
    "CONTACT",
    "CRASHED",
    "RACE",
    "CubeReference",
    "build_reference",
    "candidate_boards",
    "cube_benchmark",
    "cube_contexts",
    "decision_error",
    "load_reference",
    "phase",
]

REFERENCE_FILE = "cube_reference.json"
MEANING = (
    "position: GNU Backgammon PositionID:MatchID of the player on roll before rolling, "
    "who may double; phase: contact, crashed, race or bearoff; no_double, double_take "
    "(and their standard errors, _se): his cubeful equity from cubeful rollouts (exact "
    "for money bear-offs of at most 6 checkers a side), money in units of the current "
    "stake, match in EMG at the current cube; double_pass: +1. engine/cube/benchmark.py"
)
CONTACT, CRASHED, RACE, BEAROFF = "contact", "crashed", "race", "bearoff"
PHASE_SHARES = {CONTACT: 0.4, CRASHED: 0.2, RACE: 0.2, BEAROFF: 0.2}
WIN_RANGE = (0.6, 0.9)
MATCH_LENGTH = 7
CRUNCHED = 8
"""A side with at least this many checkers on its 1- and 2-points or borne off is crashed."""
GAMES_IN_FLIGHT = 256
MAX_SELFPLAY_PLIES = 20000


def phase(board: np.ndarray) -> str:
    """The phase of one board ``(30,)`` (mover's view): BEAROFF (pure bear-off),
    RACE (no contact), CRASHED (contact, and a side has ``CRUNCHED`` checkers on
    its 1- and 2-points or off: its board has collapsed) or CONTACT."""
    b = np.asarray(board)
    if bool(is_bearoff_position(b)):
        return BEAROFF
    if not bool(has_contact(b)):
        return RACE
    mover = b[MOVER_OFF] + max(b[1], 0) + max(b[2], 0)
    opponent = -b[27] + max(-b[24], 0) + max(-b[23], 0)
    return CRASHED if max(mover, opponent) >= CRUNCHED else CONTACT


def cube_contexts(board: np.ndarray, index: int, rng: np.random.Generator) -> Position:
    """The ``index``-th decision's cube context (module docstring) on ``board``:
    even indices money, odd ones a 7-point match; a cube the mover could not
    double is drawn again."""
    while True:
        owned = rng.random() < 1 / 3
        cube = {"cube_value": 2, "cube_owner": CUBE_MOVER} if owned else {}
        if index % 2 == 0:
            position = Position(board=board, **cube)
        else:
            away, opponent_away = rng.integers(2, MATCH_LENGTH + 1, size=2)
            position = Position(
                board=board,
                match_length=MATCH_LENGTH,
                mover_score=MATCH_LENGTH - int(away),
                opponent_score=MATCH_LENGTH - int(opponent_away),
                **cube,
            )
        if cube_available(position)[0]:
            return position


def candidate_boards(search: Search, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``count`` distinct pre-roll boards (mover's view) from 0-ply self-play of
    ``search`` with the mover's 0-ply winning chance in ``WIN_RANGE``, in the
    phase shares of ``PHASE_SHARES`` (as near as ``MAX_SELFPLAY_PLIES`` allows)."""
    variant = search.variant
    start = variant.starting_board()
    boards = np.repeat(start[None, :], GAMES_IN_FLIGHT, axis=0)
    plies = np.zeros(GAMES_IN_FLIGHT, dtype=np.int64)
    wanted = {name: int(share * count) for name, share in PHASE_SHARES.items()}
    wanted[CONTACT] += count - sum(wanted.values())
    found: dict[str, dict[bytes, np.ndarray]] = {name: {} for name in PHASE_SHARES}
    for _ in range(MAX_SELFPLAY_PLIES):
        if all(len(found[name]) >= wanted[name] for name in wanted):
            break
        dice = roll_dice(rng, len(boards), opening=plies == 0)
        ply = play_ply(boards, dice, lambda b, d, m: search.choose_rows(m, len(b)), variant)
        boards, plies = ply.next_boards.copy(), plies + 1
        win = np.where(ply.over, 0.0, search.static(boards)[:, 0])
        close = (win >= WIN_RANGE[0]) & (win <= WIN_RANGE[1]) & (rng.random(len(boards)) < 0.25)
        for board in boards[close]:
            kind = phase(board)
            if len(found[kind]) < wanted[kind]:
                found[kind][board.tobytes()] = board.copy()
        boards[ply.over], plies[ply.over] = start, 0
    out = [board for kind in PHASE_SHARES for board in found[kind].values()]
    return [out[i] for i in rng.permutation(len(out))]


@dataclass(frozen=True)
class CubeReference:
    """The reference set (module docstring): ``decisions`` are dicts with keys
    position, phase, no_double, no_double_se, double_take, double_take_se,
    double_pass."""

    decisions: list[dict]
    trials: int
    truncate: int
    seed: int
    evaluator: str

    def save(self, path: str | Path) -> None:
        """Write the reference as JSON, atomically."""
        from tdgammon.models.atomic import atomic_write_bytes

        data = {
            "name": "tdgammon cube benchmark",
            "meaning": MEANING,
            "evaluator": self.evaluator,
            "trials": self.trials,
            "truncate": self.truncate,
            "seed": self.seed,
            "decisions": self.decisions,
        }
        atomic_write_bytes(path, (json.dumps(data, indent=1) + "\n").encode())


def load_reference(path: str | Path | None = None) -> CubeReference:
    """The shipped reference set, or the one in ``path``."""
    source = resources.files(__package__).joinpath(REFERENCE_FILE) if path is None else Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
        return CubeReference(
            decisions=list(data["decisions"]),
            trials=int(data["trials"]),
            truncate=int(data["truncate"]),
            seed=int(data["seed"]),
            evaluator=str(data["evaluator"]),
        )
    except (OSError, KeyError, ValueError, TypeError) as error:
        raise TdgammonError(f"{source}: not a cube reference file ({error})") from None


def _emg(estimate, position: Position, doubled: bool) -> tuple[float, float]:
    """(equity, standard error) of a rollout estimate in units of ``position``'s stake
    (match: EMG at its cube); ``doubled``: the estimate's root had twice the cube."""
    if position.is_money:
        factor = 2.0 if doubled else 1.0
        return factor * estimate.equity, factor * estimate.equity_se
    state = me.MatchState.from_position(position)
    out = me.outcome_mwcs(state, position.cube_value)
    scale = 2.0 / (out[0, 0] - out[1, 0])
    value = me.mwc_to_equity(estimate.mwc, state, position.cube_value)
    return value, estimate.mwc_se * scale


def rollout_decisions(
    search: Search,
    positions: list[Position],
    settings: RolloutSettings,
    trials: int,
    threads: int = 1,
) -> list[dict]:
    """The reference figures of ``positions`` (all money or all match): ND and DT
    rollouts with the same dice (module docstring), on ``threads`` threads (the
    same trials whatever their number)."""
    doubled = [
        p.with_changes(cube_value=2 * p.cube_value, cube_owner=CUBE_OPPONENT) for p in positions
    ]
    nd = _cubeful_trials(search, positions, trials, settings, threads, root_doubles=False)
    dt = _cubeful_trials(search, doubled, trials, settings, threads, root_doubles=True)
    rows = []
    for position, nd_est, dt_est in zip(
        positions, cubeful_estimate(nd, positions), cubeful_estimate(dt, doubled), strict=True
    ):
        no_double, no_double_se = _emg(nd_est, position, False)
        double_take, double_take_se = _emg(dt_est, position, True)
        rows.append(
            {
                "position": position_to_gnubg(position),
                "phase": phase(search.variant.board_in_play(position.board)),
                "no_double": no_double,
                "no_double_se": no_double_se,
                "double_take": double_take,
                "double_take_se": double_take_se,
                "double_pass": 1.0,
            }
        )
    return rows


def _cubeful_trials(search, roots, trials, settings, threads, root_doubles):
    """``cubeful_rollout_trials`` of ``range(trials)``, split over ``threads`` threads."""
    options = {"settings": settings, "root_doubles": root_doubles}
    if threads <= 1:
        return cubeful_rollout_trials(search, roots, range(trials), **options)
    chunks = split_trials(0, trials, -(-trials // threads))
    shared = (rollout_search(search), roots)
    parts = map_trial_chunks_threaded(cubeful_rollout_trials, shared, chunks, threads, options)
    return combine_cubeful(list(parts))


def rollout_reference(
    search: Search,
    positions: list[Position],
    trials: int,
    truncate: int,
    seed: int,
    threads: int = 1,
) -> CubeReference:
    """The reference rollouts of ``positions`` (money ones first, then match)."""
    settings = RolloutSettings(seed=seed, truncate=truncate)
    decisions = []
    for money in (True, False):
        group = [p for p in positions if p.is_money == money]
        if group:
            decisions += rollout_decisions(search, group, settings, trials, threads)
    return CubeReference([_exact(d) for d in decisions], trials, truncate, seed, search.name)


def build_reference(
    search: Search, count: int, trials: int, truncate: int, seed: int, threads: int = 1
) -> CubeReference:
    """``count`` decisions from self-play of ``search`` and their reference rollouts."""
    rng = np.random.default_rng(seed)
    boards = candidate_boards(search, count, rng)
    positions = [cube_contexts(board, i, rng) for i, board in enumerate(boards)]
    return rollout_reference(search, positions, trials, truncate, seed, threads)


def reroll_reference(
    search: Search,
    reference: CubeReference,
    trials: int,
    truncate: int,
    seed: int,
    threads: int = 1,
) -> CubeReference:
    """The decisions of ``reference`` rolled out again with ``search``: a new
    network's references on the same positions."""
    positions = [position_from_gnubg(d["position"]) for d in reference.decisions]
    return rollout_reference(search, positions, trials, truncate, seed, threads)


def _exact(decision: dict) -> dict:
    """``decision`` with the exact two-sided database's ND and DT (standard error 0)
    where it covers the position in money play (docs/cube.md section 4)."""
    position = position_from_gnubg(decision["position"])
    board = position.board[None, :]
    if not (position.is_money and covers(board)[0]):
        return decision
    nd, dt, _ = two_sided_cube_equities(board[0], position.cube_owner)
    return decision | {
        "no_double": float(nd),
        "no_double_se": 0.0,
        "double_take": float(dt),
        "double_take_se": 0.0,
    }


def decision_error(nd: float, dt: float, dp: float, double: bool, take: bool) -> float:
    """What a decision gives away in the reference's ND, DT, DP (stake units, >= 0):
    the doubler's part, the best of max(ND, min(DT, DP)) minus what his verdict
    gets with the right answer (min(DT, DP) when he doubles, else ND); the
    taker's part, |DT - DP| when his answer is the wrong one (take when DT >= DP
    or pass when DT < DP)."""
    doubler = max(nd, min(dt, dp)) - (min(dt, dp) if double else nd)
    taker = abs(dt - dp) if take != (dt < dp) else 0.0
    return doubler + taker


def _summary(rows: list[dict]) -> dict:
    if not rows:
        return {"decisions": 0}
    errors = np.array([r["error"] for r in rows])
    return {
        "decisions": len(rows),
        "double_agreement": float(np.mean([r["double_agrees"] for r in rows])),
        "take_agreement": float(np.mean([r["take_agrees"] for r in rows])),
        "mean_error_memg": float(1000 * errors.mean()),
        "mean_error_ci95_memg": float(1000 * 1.96 * errors.std(ddof=1) / np.sqrt(len(rows)))
        if len(rows) > 1
        else 0.0,
    }


def cube_benchmark(search: Search, reference: CubeReference, plies: int) -> dict:
    """Agreement and error of ``cubeful_decision`` at ``plies`` on ``reference``
    (module docstring): ``overall``, ``money``, ``match`` and one entry per phase,
    each ``{"decisions", "double_agreement", "take_agreement", "mean_error_memg",
    "mean_error_ci95_memg"}``, plus the reference's mean standard error (mEMG)."""
    cubeful = CubefulSearch(search)
    rows = []
    for entry in reference.decisions:
        position = position_from_gnubg(entry["position"])
        decision = cubeful_decision(search, position, plies, cubeful=cubeful)
        take = proper_answer(decision.double_take, decision.double_pass, False) == TAKE
        nd, dt, dp = entry["no_double"], entry["double_take"], entry["double_pass"]
        rows.append(
            {
                "money": position.is_money,
                "phase": entry["phase"],
                "double_agrees": decision.double == (min(dt, dp) >= nd),
                "take_agrees": take == (dt < dp),
                "error": decision_error(nd, dt, dp, decision.double, take),
            }
        )
    se = [max(e["no_double_se"], e["double_take_se"]) for e in reference.decisions]
    out = {
        "evaluator": search.name,
        "plies": plies,
        "reference_trials": reference.trials,
        "reference_truncate": reference.truncate,
        "reference_se_memg": float(1000 * np.mean(se)) if se else 0.0,
        "overall": _summary(rows),
        "money": _summary([r for r in rows if r["money"]]),
        "match": _summary([r for r in rows if not r["money"]]),
    }
    for name in PHASE_SHARES:
        out[name] = _summary([r for r in rows if r["phase"] == name])
    return out
