"""Refinement: fit a trained network to its own search values (``tdgammon refine``).

TD(lambda) self-play plateaus below the strongest nets; the documented way
past the plateau is a supervised fit to values from the network's own search
or rollouts (docs/strength_notes.md 6, "6.2", and 7, item 1). One generation:

1. **Positions**: self-play games of the starting network (0-ply, with a
   share ``exploration`` of random plays so the positions are not only the
   greedy line), every distinct position before a roll where the network is
   the judge (not over, not a pure bear-off, which the exact database values).
   ``phase = "race"``: race positions only (no contact; the race net of a
   phase set, ``tdgammon.engine.analysis.race_benchmark.race_positions``).
   ``candidates = K``: the positions the network must RANK instead: for
   self-play positions and a random roll each, the positions left by the
   best K plays at 0-ply (opponent to roll), so the fit sees the
   near-alternatives of each choice, not only the played line (the plays
   1-ply search corrects are among them).
   ``positions.npz``: ``boards (N, 30) int8``, side-to-move view; with
   candidates also ``groups (D, K) int32``, each decision's plays as rows
   of ``boards`` (``candidate_positions``).
2. **Labels**: each position's ``plies``-ply value by the starting network
   (``Search.evaluate``: the mean over the 21 rolls of the best play's
   value, exact at finished games and bear-offs), or with ``rollout_trials``
   its rollout by the starting network (that many trials, variance
   reduction, each trial stopped at the first pure bear-off with the
   databases' value, and with ``rollout_truncate`` after that many plies
   with the network's value there), in chunks of ``CHUNK_POSITIONS`` written one file each
   (``labels/chunk-NNNNN.npy``, ``(n, 5) float32``, the player on roll's
   view), so a stopped run resumes where it was; on Ray workers with
   ``--workers N``. ``labelled_only``: label nothing, fit the positions
   whose chunks are written so far (a long run checked part way; the same
   command without it resumes the labelling and fits everything).
3. **Fit**: the starting weights trained by Adam on the mean squared error of
   the five probabilities, a held-out share for validation; the epoch with
   the lowest validation loss is kept (``history.jsonl``, one line per epoch).
   ``rank_weight`` (with candidates): plus the error in the equity
   differences between each decision's plays (``fit``), the part of the
   values a 0-ply choice depends on. ``keep_values`` (with ``rank_weight``):
   the squared error is then taken against the starting network's own
   outputs instead of the labels, so the fit keeps the values (and the cube
   verdicts that hang on them) and the labels only teach the ranking.
4. **Model**: ``model.pt``, the refined network with a card naming its
   parent, the settings and the figures; with ``--eval-games``, its strength
   against pubeval and against the starting network (duplicate dice) goes in
   the card and ``report.json``.

A phase set (a model whose card names a ``race_model``,
``tdgammon.engine.evaluation.evaluator``) is refined as the set plays: the
positions come from the set's self-play, the labels from the set's search
(races valued by its race evaluator at every leaf), and only its main net is
fitted, on contact positions only (the set's races never reach it);
``model.pt`` names the same race file, copied beside it.
``phase = "race"`` is refused for a set (its races have their own evaluator).

Never another engine's values: the labels come from this project's own
network and search only.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from tdgammon.engine.rules.dice import seed_argument
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.outputs import (
    LOSE_BACKGAMMON,
    LOSE_GAMMON,
    N_OUTPUTS,
    WIN,
    WIN_BACKGAMMON,
    WIN_GAMMON,
    equity,
)

CHUNK_POSITIONS = 4000
"""Positions per label file (about 10 s of 1-ply labels for expert128 on one core)."""
PHASES = ("all", "race")
"""Which positions a generation fits: every position the net judges, or races only."""
LABEL_TOLERANCE = 1e-4
"""How far a label file's value may pass [0, 1] or the cumulative order
(``_check_labels``): float32 rounding of the search's means, with room to spare."""


@dataclass(frozen=True)
class RefineSettings:
    """One refinement generation (module docstring); ``tdgammon refine --help``."""

    positions: int = 200_000
    plies: int = 1
    phase: str = "all"
    rollout_trials: int = 0
    rollout_truncate: int = 0
    candidates: int = 0
    exploration: float = 0.1
    seed: int = 1
    epochs: int = 12
    learning_rate: float = 3e-4
    batch_size: int = 256
    validation: float = 0.05
    eval_games: int = 0
    preset: str | None = None
    fit_seed: int | None = None
    """Seed of the fit (validation split, batch order); None: ``seed``."""
    rank_weight: float = 0.0
    """Weight of the ranking error in the fit (``fit``; needs ``candidates`` data)."""
    keep_values: bool = False
    """Fit the values to the starting network's own outputs, the ranking to the
    labels (``fit``; needs ``rank_weight``)."""
    labelled_only: bool = False
    """Fit on the positions whose label chunks are already written, without
    labelling the rest (``labelled_so_far``); the folder stays resumable."""

    def __post_init__(self) -> None:
        whole = {
            "positions": 1,
            "plies": 1,
            "rollout_trials": 0,
            "rollout_truncate": 0,
            "candidates": 0,
            "epochs": 1,
            "batch_size": 1,
            "eval_games": 0,
        }
        for name, low in whole.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise FormatError(f"refine {name} must be a whole number >= {low}, got {value}")
        if self.fit_seed is not None and (
            isinstance(self.fit_seed, bool) or not isinstance(self.fit_seed, int)
        ):
            raise FormatError(f"refine fit_seed must be a whole number, got {self.fit_seed!r}")
        if self.rollout_trials:
            from tdgammon.engine.evaluation.rollout import check_trials

            check_trials(self.rollout_trials)
        if self.rollout_truncate and not self.rollout_trials:
            raise FormatError("refine rollout_truncate needs rollout_trials (rollout labels)")
        if self.candidates and self.phase == "race":
            raise FormatError("refine candidates are for phase all (race plays come from races)")
        if self.plies > 2:
            raise FormatError("refine plies must be 1 or 2")
        if self.phase not in PHASES:
            raise FormatError(
                f"refine phase must be one of {', '.join(PHASES)}, got {self.phase!r}"
            )
        for name, low, high in (
            ("exploration", 0.0, 1.0),
            ("validation", 0.0, 0.5),
        ):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and low <= value <= high):
                raise FormatError(f"refine {name} must be in [{low}, {high}], got {value}")
        if not (
            isinstance(self.rank_weight, (int, float))
            and math.isfinite(self.rank_weight)
            and self.rank_weight >= 0
        ):
            raise FormatError(f"refine rank_weight must be a number >= 0, got {self.rank_weight}")
        if self.rank_weight and not self.candidates:
            raise FormatError("refine rank_weight needs candidates (the decisions it ranks)")
        if not isinstance(self.keep_values, bool):
            raise FormatError(f"refine keep_values must be true or false, got {self.keep_values!r}")
        if not isinstance(self.labelled_only, bool):
            raise FormatError(
                f"refine labelled_only must be true or false, got {self.labelled_only!r}"
            )
        if self.keep_values and not self.rank_weight:
            raise FormatError(
                "refine keep_values needs rank_weight (the labels would teach nothing)"
            )
        if not (math.isfinite(self.learning_rate) and 0 < self.learning_rate <= 1):
            raise FormatError(f"refine learning_rate must be in (0, 1], got {self.learning_rate}")
        if self.eval_games % 2:
            raise FormatError("refine eval_games must be even (duplicate pairs)")


# ----------------------------------------------------------------------------- positions


def sample_positions(
    evaluator, count: int, rng: np.random.Generator, exploration: float, contact_only: bool = False
):
    """``(count, 30) int8`` distinct positions before a roll (side-to-move view) from
    self-play of ``evaluator`` with ``exploration`` random plays, where the
    network is the judge: not over, not a pure bear-off (with ``contact_only``:
    positions with contact only, those a phase set's main net judges).
    Shuffled by ``rng``."""
    from tdgammon.engine.evaluation.bearoff import is_bearoff_position
    from tdgammon.engine.rules.board import has_contact
    from tdgammon.engine.rules.outcome import is_game_over
    from tdgammon.train.selfplay import SelfPlay

    selfplay = SelfPlay(512, rng, exploration)
    found = np.zeros((0, 30), dtype=np.int8)
    while len(found) < count:
        while selfplay.finished_positions < count:
            selfplay.step(evaluator)
        boards = selfplay.take_finished(0.0)[0]
        judged = ~is_game_over(boards) & ~is_bearoff_position(boards)
        if contact_only:
            judged &= has_contact(boards)
        found = np.unique(np.concatenate([found, boards[judged]]), axis=0)
    return found[rng.permutation(len(found))[:count]]


def candidate_positions(
    evaluator,
    count: int,
    rng: np.random.Generator,
    exploration: float,
    keep: int,
    contact_only: bool = False,
):
    """The positions the network must rank: from ``sample_positions`` of
    ``evaluator`` (with ``exploration``), one random roll each (no opening rule),
    the positions the best ``keep`` plays at 0-ply leave, flipped to the view of
    the opponent, who rolls next; kept where the network is the judge (not
    over, not a pure bear-off; with ``contact_only``, with contact).

    Returns ``(boards, groups)``: ``boards (count, 30) int8``, distinct, shuffled
    by ``rng``; ``groups (D, keep) int32``, one row per decision (in random
    order): the rows of ``boards`` its plays leave, best first by 0-ply, -1
    where a play leaves no judged position (or the sample ended inside the
    decision). Every board is in at least one group."""
    from tdgammon.engine.evaluation.bearoff import is_bearoff_position
    from tdgammon.engine.evaluation.search import rank_per_parent
    from tdgammon.engine.movegen.vectorized import generate_moves
    from tdgammon.engine.rules.board import flip, has_contact
    from tdgammon.engine.rules.dice import roll_dice
    from tdgammon.engine.rules.outcome import is_game_over, variant_equity

    raw = np.zeros((0, 30), dtype=np.int8)  # every kept play's board, duplicates included
    slots = np.zeros((0, keep), dtype=np.int64)  # per decision: rows of ``raw``, -1 empty
    distinct = 0
    while distinct < count:
        decisions = sample_positions(
            evaluator, -(-(count - distinct) // keep) + 64, rng, exploration, contact_only
        )
        moves = generate_moves(decisions, roll_dice(rng, len(decisions)))
        scores = variant_equity(evaluator.play_probabilities(moves), evaluator.variant)
        rows, rank = rank_per_parent(scores, moves.parents)  # by decision, best play first
        rows, rank = rows[rank < keep], rank[rank < keep]
        parents = moves.parents[rows]
        boards = flip(moves.boards[rows])
        judged = ~is_game_over(boards) & ~is_bearoff_position(boards)
        if contact_only:
            judged &= has_contact(boards)
        block = np.full((len(decisions), keep), -1, dtype=np.int64)
        block[parents[judged], rank[judged]] = len(raw) + np.arange(judged.sum())
        raw = np.concatenate([raw, boards[judged]])
        slots = np.concatenate([slots, block])
        distinct = len(np.unique(raw, axis=0))
    return _first_distinct(raw, slots[rng.permutation(len(slots))], count, rng)


def _first_distinct(raw: np.ndarray, slots: np.ndarray, count: int, rng: np.random.Generator):
    """``candidate_positions``' result from every kept board ``raw (M, 30)`` and the
    decisions ``slots (D, K)`` (rows of ``raw``, -1 empty), taken in order until
    ``count`` distinct boards are reached."""
    unique, inverse = np.unique(raw, axis=0, return_inverse=True)
    ids = np.where(slots >= 0, inverse.reshape(-1)[np.maximum(slots, 0)], -1).reshape(-1)
    filled = np.flatnonzero(ids >= 0)
    _, first = np.unique(ids[filled], return_index=True)
    ids[np.sort(filled[first])[count - 1] + 1 :] = -1  # the sample ends at the count-th new board
    ids = ids.reshape(slots.shape)
    ids = ids[(ids >= 0).any(axis=1)]
    used = np.unique(ids[ids >= 0])
    shuffled = used[rng.permutation(len(used))]
    row_of = np.full(len(unique), -1, dtype=np.int64)
    row_of[shuffled] = np.arange(len(shuffled))
    groups = np.where(ids >= 0, row_of[np.maximum(ids, 0)], -1).astype(np.int32)
    return unique[shuffled], groups


# ----------------------------------------------------------------------------- labels


def label_chunk(
    search,
    boards: np.ndarray,
    rows: range,
    plies: int,
    rollout_trials: int = 0,
    seed: int = 0,
    rollout_truncate: int = 0,
) -> np.ndarray:
    """``(len(rows), 5) float32``: the labels of ``boards[rows]`` (player on roll's
    view): ``plies``-ply values, or with ``rollout_trials`` the rollout means,
    each trial stopped after ``rollout_truncate`` plies (0: played out; module
    docstring; trial dice from ``seed``). A module-level function, so Ray can
    run it."""
    part = boards[rows.start : rows.stop]
    if not rollout_trials:
        return search.evaluate(part, plies)
    from tdgammon.engine.evaluation.rollout import RolloutSettings
    from tdgammon.engine.evaluation.rollout import rollout_trials as trials_of

    settings = RolloutSettings(seed=seed, truncate=rollout_truncate, bearoff_truncate=True)
    results = trials_of(search, part, range(rollout_trials), settings)
    # luck-adjusted means of few trials can leave [0, 1]; the network's outputs cannot
    return np.clip(results.probabilities.mean(axis=1), 0.0, 1.0).astype(np.float32)


def _chunk_path(folder: Path, index: int) -> Path:
    return folder / f"chunk-{index:05d}.npy"


def label_positions(search, boards, options: dict, folder: Path, workers=None, echo=print):
    """Label every position of ``boards`` (``label_chunk`` with ``options``: plies,
    rollout_trials, seed, rollout_truncate), chunk by chunk into ``folder``, skipping chunks
    already there; ``(N, 5) float32``.

    workers: ``tdgammon.engine.evaluation.distributed.Workers`` (Ray), or None
    for this process.
    """
    from tdgammon.engine.evaluation.distributed import split_trials

    _check_label_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chunks = split_trials(0, len(boards), CHUNK_POSITIONS)
    todo = [i for i in range(len(chunks)) if not _chunk_path(folder, i).exists()]
    start, done = time.perf_counter(), 0

    def save(index: int, values: np.ndarray) -> None:
        nonlocal done
        write_label_chunk(folder, index, values)
        done += len(values)
        rate = done / max(time.perf_counter() - start, 1e-9)
        echo(f"labels: chunk {index + 1}/{len(chunks)}, {rate:.0f} positions/s")

    if workers is None:
        for i in todo:
            save(i, label_chunk(search, boards, chunks[i], **options))
    else:
        from tdgammon.engine.evaluation.distributed import map_trial_chunks, ray_session

        with ray_session(workers.count, workers.address, what="label workers"):
            results = map_trial_chunks(
                label_chunk, (search, boards), [chunks[i] for i in todo], options=options
            )
            for i, values in zip(todo, results, strict=True):
                save(i, values)
    return labelled_so_far(folder, len(boards), not options.get("rollout_trials"))[1]


def write_label_chunk(folder: Path, index: int, values: np.ndarray) -> None:
    """Write chunk ``index`` of a label folder: ``values (n, 5)`` as float32 ``.npy``,
    atomically (a stopped run leaves whole chunks or none)."""
    import io

    from tdgammon.models.atomic import atomic_write_bytes

    buffer = io.BytesIO()
    np.save(buffer, np.asarray(values, dtype=np.float32))
    atomic_write_bytes(_chunk_path(folder, index), buffer.getvalue())


def labelled_so_far(
    folder: Path, count: int, consistent: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The labels written so far for ``count`` positions (``label_positions``'
    chunks in ``folder``, whichever exist): ``(rows (n,) int64, labels (n, 5)
    float32)``, rows in increasing order. Refused when none is written, and
    (FormatError naming the file) when a chunk is not a label file of its
    positions (``_load_chunk``; ``consistent``: search labels, whose outputs
    keep the cumulative order; rollout means need not)."""
    from tdgammon.engine.evaluation.distributed import split_trials

    _check_label_folder(folder)
    rows, labels = [], []
    for index, chunk in enumerate(split_trials(0, count, CHUNK_POSITIONS)):
        path = _chunk_path(folder, index)
        if not path.exists():
            continue
        values = _load_chunk(path, consistent)
        if len(values) != len(chunk):
            raise FormatError(
                f"{path}: {len(values)} labels for {len(chunk)} positions; delete it to redo it"
            )
        rows.append(np.arange(chunk.start, chunk.stop))
        labels.append(values)
    if not rows:
        raise TdgammonError(f"{folder}: no labels written yet; run without --labelled-only")
    return np.concatenate(rows), np.concatenate(labels)


def read_label_run(folder: Path, finished: bool = True) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(boards (n, 30) int8, labels (n, 5) float32, rollout)``: the labelled
    positions of the label run in ``folder``, read and checked as ``refine``
    reads its own (its ``refine.json`` gives the count, the decisions and
    whether the labels are rollout means, ``rollout``). ``finished``: refuse a
    run with positions still unlabelled (else the labelled ones, in order)."""
    try:
        record = json.loads((folder / "refine.json").read_text())
        settings = RefineSettings(
            positions=record["positions"],
            candidates=record.get("candidates", 0),
            rollout_trials=record.get("rollout_trials", 0),
        )
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise TdgammonError(
            f"{folder}: not a refine positions file (its refine.json: {error})"
        ) from None
    boards, _ = load_positions(folder / "positions.npz", settings)
    rollout = bool(settings.rollout_trials)
    rows, labels = labelled_so_far(folder / "labels", len(boards), not rollout)
    if finished and len(rows) != len(boards):
        raise TdgammonError(
            f"{folder}: {len(rows)} of {len(boards)} positions labelled; finish its run first"
        )
    return boards[rows], labels, rollout


def restrict(boards: np.ndarray, groups, rows: np.ndarray):
    """``boards[rows]`` and ``groups`` (``candidate_positions``' decisions, or None)
    renumbered to those rows: plays outside them become -1, decisions left with
    none are dropped."""
    if groups is None:
        return boards[rows], None
    renumber = np.full(len(boards), -1, dtype=np.int64)
    renumber[rows] = np.arange(len(rows))
    kept = np.where(groups >= 0, renumber[np.maximum(groups, 0)], -1).astype(np.int32)
    return boards[rows], kept[(kept >= 0).any(axis=1)]


def _check_label_folder(folder: Path) -> None:
    if folder.exists() and not folder.is_dir():
        raise FormatError(f"{folder}: a file where the folder of label chunks goes; move it away")


def _load_chunk(path: Path, consistent: bool = True) -> np.ndarray:
    """``(n, 5) float32``: the labels in ``path`` (``label_positions``' chunk);
    FormatError naming it when it cannot be read or holds no such labels
    (``_check_labels``)."""
    redo = "delete it to redo it"
    try:
        values = np.load(path, allow_pickle=False)
    except Exception as error:  # any unreadable file: header, pickle, zip or short-data errors
        raise FormatError(f"{path}: not a label file ({_reason(error)}); {redo}") from None
    if not isinstance(values, np.ndarray):  # an .npz archive
        values.close()
        raise FormatError(f"{path}: an .npz archive, not a label file (.npy); {redo}")
    if values.dtype.kind != "f" or values.ndim != 2 or values.shape[1] != N_OUTPUTS:
        raise FormatError(
            f"{path}: {values.dtype} array of shape {values.shape}, not labels "
            f"(n, {N_OUTPUTS}) float32; {redo}"
        )
    _check_labels(path, values, consistent)
    return values.astype(np.float32, copy=False)


def _check_labels(path: Path, values: np.ndarray, consistent: bool) -> None:
    """FormatError naming ``path`` and the first bad row unless every row of
    ``values (n, 5)`` is finite probabilities in [0, 1] and, with ``consistent``,
    in the cumulative order the network's outputs keep (``win >= wg >= wbg``,
    ``1 - win >= lg >= lbg``; ``tdgammon.engine.rules.outputs``), each within
    ``LABEL_TOLERANCE``. Rollout labels (``label_chunk``) are only clipped to
    [0, 1]: a variance-reduced mean of few trials can have wg above win."""
    v = values.astype(np.float64)
    tol = LABEL_TOLERANCE
    checks = [
        ("a value that is not a finite number", ~np.isfinite(v).all(axis=1)),
        ("a value outside [0, 1]", ((v < -tol) | (v > 1 + tol)).any(axis=1)),
    ]
    if consistent:
        checks += [
            ("win gammon above win", v[:, WIN_GAMMON] > v[:, WIN] + tol),
            ("win backgammon above win gammon", v[:, WIN_BACKGAMMON] > v[:, WIN_GAMMON] + tol),
            ("lose gammon above 1 - win", v[:, LOSE_GAMMON] > 1 - v[:, WIN] + tol),
            ("lose backgammon above lose gammon", v[:, LOSE_BACKGAMMON] > v[:, LOSE_GAMMON] + tol),
        ]
    for what, bad in checks:
        if bad.any():
            row = int(np.argmax(bad))
            shown = ", ".join(f"{x:.4g}" for x in values[row])
            raise FormatError(
                f"{path}: row {row} ({shown}) has {what}, not probabilities "
                "as the network gives them; delete it to redo it"
            )


def _reason(error: Exception) -> str:
    """One line for a reader's exception: its kind and its first 200 characters."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:200]}" if text else type(error).__name__


# ----------------------------------------------------------------------------- fit


def fit(
    network, encoding, boards, targets, settings: RefineSettings, groups=None, echo=print
) -> list[dict]:
    """Train ``network`` (in place) on ``boards (N, 30)`` -> ``targets (N, 5)``: Adam,
    mean squared error of the five probabilities, ``settings.validation`` held
    out; the weights of the epoch with the lowest validation loss are kept.
    Returns one dict per epoch.

    With ``settings.rank_weight`` w > 0 and ``groups (D, K)`` (rows of ``boards``
    that one decision's plays leave, -1 empty; ``candidate_positions``), the
    batches are whole decisions, and the loss adds w times the ranking error:
    the mean squared difference between the network's and the targets'
    cubeless equities, each centred on its decision's mean, so the fit spends
    its capacity on the differences between the plays the network must choose
    from rather than on their common level. Decisions, not rows, are then held
    out, and the validation loss includes the ranking error. With
    ``settings.keep_values`` the squared error is against the network's own
    outputs before the fit (its values are kept; the targets only rank)."""
    import torch

    seed = settings.seed if settings.fit_seed is None else settings.fit_seed
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.from_numpy(
        np.concatenate(
            [encoding.encode(boards[i : i + 16384]) for i in range(0, len(boards), 16384)]
        )
    )
    labels = torch.from_numpy(np.asarray(targets, dtype=np.float32))
    values = labels
    if settings.keep_values:
        network.eval()
        with torch.inference_mode():
            values = torch.cat(
                [network(inputs[i : i + 16384]) for i in range(0, len(inputs), 16384)]
            )
    ranked = settings.rank_weight > 0
    if ranked:
        if groups is None:
            raise TdgammonError("refine rank_weight needs the decisions of --candidates data")
        units = torch.from_numpy(np.asarray(groups, dtype=np.int64))
        per_batch = max(1, settings.batch_size // units.shape[1])
    else:  # a unit is one row
        units = torch.arange(len(inputs)).reshape(-1, 1)
        per_batch = settings.batch_size
    order = torch.randperm(len(units), generator=generator)
    held = max(1, int(len(units) * settings.validation)) if settings.validation else 0
    valid, train_units = units[order[:held]], units[order[held:]]
    optimizer = torch.optim.Adam(network.parameters(), lr=settings.learning_rate)

    def loss_of(unit_rows: torch.Tensor) -> torch.Tensor:
        """The loss over ``(G, K)`` rows of decisions (-1 empty)."""
        if not ranked:
            rows = unit_rows.reshape(-1)
            return ((network(inputs[rows]) - values[rows]) ** 2).mean()
        present = (unit_rows >= 0).float()
        rows = unit_rows.clamp(min=0)
        output = network(inputs[rows.reshape(-1)]).reshape(*rows.shape, -1)
        squared = (((output - values[rows]) ** 2).mean(dim=-1) * present).sum() / present.sum()
        error = equity(output) - equity(labels[rows])
        centre = (error * present).sum(dim=1, keepdim=True) / present.sum(dim=1, keepdim=True)
        ranking = (((error - centre) ** 2) * present).sum() / present.sum()
        return squared + settings.rank_weight * ranking

    def validation_loss() -> float:
        if not held:
            return float("nan")
        with torch.inference_mode():
            return float(loss_of(valid))

    history = [{"epoch": 0, "train_loss": None, "validation_loss": validation_loss()}]
    best_loss, best_state = history[0]["validation_loss"], _copy_state(network)
    echo(f"fit: epoch 0, validation loss {best_loss:.6f}")
    for epoch in range(1, settings.epochs + 1):
        network.train()
        shuffled = train_units[torch.randperm(len(train_units), generator=generator)]
        total = 0.0
        for start in range(0, len(shuffled), per_batch):
            batch = shuffled[start : start + per_batch]
            loss = loss_of(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        network.eval()
        row = {
            "epoch": epoch,
            "train_loss": total / max(1, len(shuffled)),
            "validation_loss": validation_loss(),
        }
        history.append(row)
        echo(
            f"fit: epoch {epoch}, train loss {row['train_loss']:.6f}, "
            f"validation loss {row['validation_loss']:.6f}"
        )
        if not held or row["validation_loss"] < best_loss:
            best_loss, best_state = row["validation_loss"], _copy_state(network)
    network.load_state_dict(best_state)
    network.eval()
    return history


def _copy_state(network) -> dict:
    return {name: tensor.detach().clone() for name, tensor in network.state_dict().items()}


# ----------------------------------------------------------------------------- driver


def refine(model: str, out: Path, settings: RefineSettings, workers=None, echo=print) -> dict:
    """One refinement generation of model file ``model`` into folder ``out`` (module
    docstring); stages already done there are reused. Returns the report."""
    import torch

    from tdgammon.engine.evaluation.evaluator import NetworkEvaluator, load_evaluator
    from tdgammon.engine.evaluation.search import Search
    from tdgammon.models.atomic import atomic_write_bytes
    from tdgammon.models.encoding import ENCODINGS
    from tdgammon.models.network import get_preset, load_model, save_model, widen_network

    torch.set_num_threads(1)
    preset, network, card = load_model(model)
    if settings.preset and settings.preset != preset.name:
        preset = get_preset(settings.preset)
        network = widen_network(network, preset, seed=settings.seed)
    if (card.get("variant") or "standard") != "standard":
        raise TdgammonError(f"{model}: refinement is for standard backgammon models")
    race_file = card.get("race_model")
    if race_file is not None and settings.phase == "race":
        raise TdgammonError(f"{model}: its races go to its race evaluator ({race_file})")
    out.mkdir(parents=True, exist_ok=True)
    _check_same_run(out, model, settings)
    # refused now, not after the labelling: a folder where a result file goes
    for name in ("history.jsonl", "model.pt", "report.json", race_file):
        if name is not None and (out / name).is_dir():
            raise FormatError(f"{out / name}: a folder where refine writes a file; move it away")
    started = time.perf_counter()
    if race_file is None:
        evaluator = NetworkEvaluator(network, preset, Path(model).stem)
    else:  # the set as it plays; its own copy of the main net, which is not trained
        evaluator = load_evaluator(model)
        atomic_write_bytes(out / race_file, (Path(model).parent / race_file).read_bytes())
    positions_file = out / "positions.npz"
    groups = None
    if positions_file.exists():
        boards, groups = load_positions(positions_file, settings)
        if settings.rank_weight and groups is None:
            raise TdgammonError(
                f"{positions_file} was made before decisions were kept; "
                "--rank-weight needs a new --out folder"
            )
    else:
        rng = np.random.default_rng(settings.seed)
        if settings.phase == "race":
            from tdgammon.engine.analysis.race_benchmark import race_positions

            boards = race_positions(Search(evaluator), settings.positions, rng)
        elif settings.candidates:
            boards, groups = candidate_positions(
                evaluator,
                settings.positions,
                rng,
                settings.exploration,
                settings.candidates,
                race_file is not None,
            )
        else:
            boards = sample_positions(
                evaluator, settings.positions, rng, settings.exploration, race_file is not None
            )
        decisions = {} if groups is None else {"groups": groups}
        save_npz(positions_file, boards=boards, **decisions)
    echo(f"positions: {len(boards)}")
    options = {
        "plies": settings.plies,
        "rollout_trials": settings.rollout_trials,
        "seed": settings.seed,
        "rollout_truncate": settings.rollout_truncate,
    }
    if settings.labelled_only:
        rows, targets = labelled_so_far(out / "labels", len(boards), not settings.rollout_trials)
        echo(f"labels: fitting the {len(rows)} of {len(boards)} positions labelled so far")
        boards, groups = restrict(boards, groups, rows)
    else:
        targets = label_positions(Search(evaluator), boards, options, out / "labels", workers, echo)
    history = fit(network, ENCODINGS[preset.encoding], boards, targets, settings, groups, echo)
    lines = "".join(json.dumps(row) + "\n" for row in history)  # the whole file, each fit
    atomic_write_bytes(out / "history.jsonl", lines.encode())
    report = {
        "parent": str(model),
        "preset": preset.name,
        "settings": asdict(settings),
        "positions": len(boards),
        "seconds": time.perf_counter() - started,
        "best_validation_loss": min((r["validation_loss"] for r in history), default=None),
    }
    new_card = {**card, "refined_from": str(model), "refine": report}
    save_model(out / "model.pt", preset, network, new_card)
    if settings.eval_games:
        report["strength"] = _measure(out / "model.pt", model, settings, echo)
        save_model(out / "model.pt", preset, network, {**new_card, "refine": report})
    atomic_write_bytes(out / "report.json", (json.dumps(report, indent=2) + "\n").encode())
    return report


def _measure(new: Path, parent: str, settings: RefineSettings, echo) -> dict:
    from tdgammon.train.evaluate import strength

    figures = {}
    for name, opponent in (("vs_pubeval", "pubeval"), ("vs_parent", parent)):
        summary, text = strength(str(new), opponent, settings.eval_games, settings.seed, 1)
        echo(text)
        figures[name] = summary
    return figures


def read_positions_file(
    path: Path, redo: str, count: int | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """``(boards (N, 30), groups or None)`` as stored in a positions file
    (``positions.npz``: ``boards``, and ``groups`` for ``--candidates`` runs,
    unchecked); FormatError naming the file and ending in ``redo`` when it
    cannot be read, holds other arrays, boards of another shape or type,
    another count than ``count`` (None: any), or a board that cannot occur."""
    from tdgammon.engine.rules.board import BOARD_SIZE, validate
    from tdgammon.engine.rules.errors import InvalidBoardError

    try:
        saved = np.load(path, allow_pickle=False)
        if isinstance(saved, np.lib.npyio.NpzFile):
            with saved:
                arrays = {name: saved[name] for name in saved.files}
    except Exception as error:  # any unreadable file: zip, header, pickle or short-data errors
        raise FormatError(f"{path}: not a positions file ({_reason(error)}); {redo}") from None
    if not isinstance(saved, np.lib.npyio.NpzFile):
        raise FormatError(f"{path}: a single array, not a positions file (.npz); {redo}")
    if "boards" not in arrays or not set(arrays) <= {"boards", "groups"}:
        raise FormatError(f"{path}: holds {sorted(arrays)}, not boards (and groups); {redo}")
    boards, groups = arrays["boards"], arrays.get("groups")
    if boards.dtype.kind not in "iu" or boards.ndim != 2 or boards.shape[1] != BOARD_SIZE:
        raise FormatError(
            f"{path}: boards are {boards.dtype} of shape {boards.shape}, not "
            f"(N, {BOARD_SIZE}) int8; {redo}"
        )
    if count is not None and len(boards) != count:
        raise FormatError(f"{path}: {len(boards)} positions, refine.json says {count}; {redo}")
    try:
        validate(boards)
    except InvalidBoardError as error:
        raise FormatError(f"{path}: an impossible board: {error}; {redo}") from None
    return boards, groups


def load_positions(path: Path, settings: RefineSettings) -> tuple[np.ndarray, np.ndarray | None]:
    """``(boards (N, 30) int8, groups (D, K) int32 or None)`` from ``positions.npz``
    as ``refine`` wrote it for ``settings`` (module docstring); FormatError
    naming the file when it cannot be read or holds anything else: other
    arrays, shapes or types, another count than ``settings.positions``, a board
    that cannot occur, decisions of other than ``settings.candidates`` plays or
    naming rows outside ``boards``, or with none."""
    redo = "delete it to sample the positions again"
    boards, groups = read_positions_file(path, redo, settings.positions)
    if groups is None:
        return boards.astype(np.int8), None
    plays = settings.candidates
    if not plays:
        raise FormatError(f"{path}: holds decisions (groups), this run no --candidates; {redo}")
    if (
        groups.dtype.kind not in "iu"
        or groups.ndim != 2
        or groups.shape[1] != plays
        or groups.size == 0
    ):
        raise FormatError(
            f"{path}: groups are {groups.dtype} of shape {groups.shape}, not decisions "
            f"(D, {plays}) int32 of the --candidates {plays} plays; {redo}"
        )
    if ((groups < -1) | (groups >= len(boards))).any():
        raise FormatError(f"{path}: groups name rows outside the {len(boards)} boards; {redo}")
    if not (groups >= 0).any(axis=1).all():
        raise FormatError(f"{path}: a decision in groups with no play; {redo}")
    return boards.astype(np.int8), groups.astype(np.int32)


def save_npz(path: Path, **arrays) -> None:
    """Write ``arrays`` to ``path`` as one ``.npz`` file, atomically (the
    positions files of refine and of the scripts that make them)."""
    import io

    from tdgammon.models.atomic import atomic_write_bytes

    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    atomic_write_bytes(path, buffer.getvalue())


def _check_same_run(out: Path, model: str, settings: RefineSettings) -> None:
    """``out/refine.json`` records the parent and the settings that decide the data;
    a folder made from another parent or other data settings is refused."""
    record = {
        "parent": str(Path(model).resolve()),
        "positions": settings.positions,
        "plies": settings.plies,
        "phase": settings.phase,
        "rollout_trials": settings.rollout_trials,
        "exploration": settings.exploration,
        "seed": settings.seed,
    }
    # folders made before these settings existed stay resumable
    for name in ("rollout_truncate", "candidates"):
        if getattr(settings, name):
            record[name] = getattr(settings, name)
    path = out / "refine.json"
    if path.exists():
        try:
            saved = json.loads(path.read_text())
        except (OSError, ValueError):
            raise TdgammonError(f"{path}: unreadable; use another --out folder") from None
        if saved != record:
            raise TdgammonError(
                f"{out} holds a refinement of other data ({saved}); use another --out folder"
            )
    else:
        from tdgammon.models.atomic import atomic_write_bytes

        atomic_write_bytes(path, (json.dumps(record) + "\n").encode())


# ----------------------------------------------------------------------------- CLI


def cmd_refine(args: argparse.Namespace) -> int:
    from tdgammon.engine.evaluation.distributed import workers_option

    settings = RefineSettings(
        positions=args.positions,
        plies=args.plies,
        phase=args.phase,
        rollout_trials=args.rollout_trials,
        rollout_truncate=args.rollout_truncate,
        candidates=args.candidates,
        exploration=args.exploration,
        seed=args.seed,
        epochs=args.epochs,
        learning_rate=args.learning_rate,
        batch_size=args.batch_size,
        eval_games=args.eval_games,
        preset=args.preset,
        fit_seed=args.fit_seed,
        rank_weight=args.rank_weight,
        keep_values=args.keep_values,
        labelled_only=args.labelled_only,
    )
    if not Path(args.model).is_file():
        raise FormatError(f"--model {args.model}: no such file")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise FormatError(f"--out {out} is a file, not a folder")
    report = refine(args.model, out, settings, workers_option(args), lambda t: print(t, flush=True))
    print(json.dumps(report))
    return 0


def register(commands, bench_targets: dict) -> None:
    """Add ``tdgammon refine``."""
    defaults = RefineSettings()
    ref = commands.add_parser(
        "refine",
        help="fit a trained network to its own search or rollout values (one generation)",
    )
    ref.add_argument("--model", required=True, help="the model file or checkpoint to refine")
    ref.add_argument("--out", required=True, help="folder for the data and the refined model")
    ref.add_argument("--positions", type=int, default=defaults.positions)
    ref.add_argument("--plies", type=int, default=defaults.plies, help="label depth (1 or 2)")
    ref.add_argument(
        "--phase", choices=PHASES, default=defaults.phase, help="all positions, or races only"
    )
    ref.add_argument(
        "--rollout-trials",
        type=int,
        default=0,
        help="label by rollouts of N trials instead of --plies search (0: search)",
    )
    ref.add_argument(
        "--rollout-truncate",
        type=int,
        default=0,
        help="with --rollout-trials: stop each trial after N plies, valued there by the "
        "network (0: play each trial out)",
    )
    ref.add_argument(
        "--candidates",
        type=int,
        default=0,
        help="fit the positions the best K plays leave (per self-play position and a random "
        "roll) instead of the positions self-play reaches (0)",
    )
    ref.add_argument("--exploration", type=float, default=defaults.exploration)
    ref.add_argument("--seed", type=seed_argument, default=defaults.seed)
    ref.add_argument("--epochs", type=int, default=defaults.epochs)
    ref.add_argument(
        "--fit-seed",
        type=int,
        default=None,
        help="seed of the fit (validation split, batch order; default --seed); the data "
        "of a folder stays, so a refit of it may change this and --epochs",
    )
    ref.add_argument(
        "--rank-weight",
        type=float,
        default=defaults.rank_weight,
        help="with --candidates: add this weight times the error in the equity differences "
        "between each decision's plays to the fit's loss (0: values only)",
    )
    ref.add_argument(
        "--keep-values",
        action="store_true",
        help="with --rank-weight: fit the values to the starting network's own outputs, so "
        "only the ranking of each decision's plays is learnt from the labels",
    )
    ref.add_argument(
        "--labelled-only",
        action="store_true",
        help="fit on the positions whose labels are already written (a long label run "
        "stopped part way) without labelling the rest; run again without it to resume",
    )
    ref.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    ref.add_argument("--batch-size", type=int, default=defaults.batch_size)
    ref.add_argument(
        "--eval-games", type=int, default=0, help="games vs pubeval and vs the parent (even)"
    )
    ref.add_argument(
        "--preset",
        default=None,
        help="fit a wider network of this preset, starting from the model's function "
        "(e.g. expert256 from expert128)",
    )
    ref.add_argument("--workers", type=int, default=0, help="label on N Ray workers")
    ref.add_argument("--ray-address", default=None, help="with --workers: join this Ray cluster")
    ref.set_defaults(run=cmd_refine)
