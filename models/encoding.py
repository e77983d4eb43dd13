"""Input encodings: boards ``(B, 30) int8`` (side-to-move view) -> ``(B, N) float32``.

Every encoding describes the position from the view of the player ABOUT TO
ROLL (the mover of ``tdgammon.engine.rules.board``). The mover's features come first, then the
opponent's, computed by the same code on ``flip(boards)``, so the two halves
mean the same thing for either player. All code is vectorized numpy over the
whole batch: a row's encoding never depends on the other rows.

``raw`` (Tesauro 1992, 198 inputs)
    For each side, for each of its 24 points in its own numbering, four units
    for ``n`` checkers: ``n >= 1``, ``n >= 2``, ``n >= 3``, ``(n - 3) / 2`` if
    ``n > 3``; then checkers on the bar ``/ 2`` and checkers off ``/ 15``
    (98 per side). Two turn units close it; since we always encode for the
    player on roll they are the constant ``(1, 0)``, kept for fidelity with
    the published layout.

``extended`` (raw + 19 hand-crafted features)
    Per side (mover first, then opponent; 8 each): pip count / 100; blots / 5;
    ``hit_chance``, the share of the 36 rolls with which the OTHER side could
    hit at least one of this side's blots (direct or indirect shots, counting
    combination shots, and entering from the bar; blocked intermediate
    points of combination shots and the rule that a checker on the bar must
    enter first are ignored: a cheap, vectorized approximation); home
    board points made / 6; longest prime (consecutive made points anywhere)
    / 6; ``escapes``, the share of the 36 rolls that let this side's rearmost
    checker jump past every point the other side holds within the 12 pips in
    front of it, touching down only on open points (points beyond those 12
    pips count as open; 1 when the other side holds none of the 12);
    anchors (points made in the other side's home board) / 3; checkers back
    (in the other side's home board or on the bar) / 15. Then 3 shared
    features: contact (1/0), race (1 - contact), and the race lead
    ``(opponent pips - mover pips) / 100``.

``raw_hand`` (raw + 2 hand units, 200 inputs; variants)
    Tesauro's 198 raw inputs exactly as above, then the checkers each side
    still has in hand (board indices 28 and 29, Dutch backgammon and
    Acey-Deucey: not yet entered) ``/ 15``, mover first. In the standard game
    the two units are always 0. ``raw`` itself is unchanged, so models
    trained on it (the shipped ``tdgammon-tesauro80``) load and evaluate
    exactly as before.

Each encoding has a version; a model checkpoint stores the encoding's name and
version, and loading a checkpoint whose version differs is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.rules.board import flip, has_contact
from tdgammon.engine.rules.dice import ROLLS_REACHING
from tdgammon.models.features import FEATURE_SIZE, expert_features_numpy, fill_compiled
from tdgammon.models.roll_tables import ESCAPE_WINDOW, ESCAPES_PAST, PATH_LENGTHS, PATH_OFFSETS

POINT_UNITS = 4
RAW_SIDE_SIZE = 24 * POINT_UNITS + 2
RAW_SIZE = 2 * RAW_SIDE_SIZE + 2
EXTENDED_SIDE_FEATURES = (
    "pips",
    "blots",
    "hit_chance",
    "home_points",
    "longest_prime",
    "escapes",
    "anchors",
    "checkers_back",
)
EXTENDED_SHARED_FEATURES = ("contact", "race", "race_lead")
EXTENDED_SIZE = RAW_SIZE + 2 * len(EXTENDED_SIDE_FEATURES) + len(EXTENDED_SHARED_FEATURES)
RAW_HAND_SIZE = RAW_SIZE + 2


_MAX_COUNT = 15
_POINT_TABLE = np.array(
    [(n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2.0) for n in range(_MAX_COUNT + 1)],
    dtype=np.float32,
)
"""``(16, 4)``: Tesauro's four units for 0..15 checkers on a point."""


def _raw_side_into(out: np.ndarray, counts: np.ndarray, bar, off) -> None:
    """Write Tesauro's 98 units of one side into ``out (B, 98) float32``.

    counts: ``(B, 24)`` checkers on that side's points 1..24 in its own
    numbering (>= 0); bar, off: ``(B,)`` its checkers on the bar and borne off.
    The units come from a table lookup (``np.take`` on a flat index is several
    times faster than computing the four comparisons).
    """
    index = np.minimum(counts, _MAX_COUNT).astype(np.intp).ravel()
    out[:, : 24 * POINT_UNITS] = np.take(_POINT_TABLE, index, axis=0).reshape(len(out), -1)
    out[:, 96] = bar
    out[:, 96] *= 0.5
    out[:, 97] = off
    out[:, 97] /= 15.0


def raw_encoding(boards: np.ndarray) -> np.ndarray:
    """Tesauro's 198 inputs. boards: ``(B, 30)`` ints, view of the player on roll.

    Returns ``(B, 198) float32``: mover (98), opponent (98), turn units (1, 0).
    """
    b = np.asarray(boards)
    out = np.empty((len(b), RAW_SIZE), dtype=np.float32)
    # Opponent's point k (its numbering) is the mover's index 25 - k; its checkers are < 0.
    _raw_side_into(out[:, :RAW_SIDE_SIZE], np.maximum(b[:, 1:25], 0), b[:, 25], b[:, 0])
    _raw_side_into(
        out[:, RAW_SIDE_SIZE : 2 * RAW_SIDE_SIZE],
        np.maximum(-b[:, 24:0:-1], 0),
        -b[:, 26],
        -b[:, 27],
    )
    out[:, -2] = 1.0
    out[:, -1] = 0.0
    return out


def raw_hand_encoding(boards: np.ndarray) -> np.ndarray:
    """Raw inputs plus checkers in hand. boards: ``(B, 30)`` ints, view of the player
    on roll. Returns ``(B, 200) float32``: ``raw_encoding`` (198), then mover's
    checkers in hand / 15 and the opponent's / 15."""
    b = np.asarray(boards)
    out = np.empty((len(b), RAW_HAND_SIZE), dtype=np.float32)
    out[:, :RAW_SIZE] = raw_encoding(b)
    out[:, RAW_SIZE] = np.maximum(b[:, 28], 0) / 15.0
    out[:, RAW_SIZE + 1] = np.maximum(-b[:, 29], 0) / 15.0
    return out


# ----------------------------------------------------------------- features


_PATH_STEP_USED = np.arange(4)[None, None, :] < PATH_LENGTHS[:, :, None]  # (36, 4, 4)
_LAST_OFFSET = np.take_along_axis(
    PATH_OFFSETS, np.maximum(PATH_LENGTHS - 1, 0)[:, :, None], axis=2
)[:, :, 0]  # (36, 4)


_REACH = ROLLS_REACHING[1:26].astype(np.float32)
"""``(25, 36) float32``: row d-1 = rolls that can carry one checker exactly d pips."""
_REACH_T = np.ascontiguousarray(_REACH[:24].T)


def _shots(attackers: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Share of the 36 rolls with which some attacker can reach some target.

    attackers: ``(B, 26) bool`` by index (1..24 points, 25 bar) in the
    attacker's numbering (it moves from high to low index); targets: ``(B, 26)
    bool`` blots, same numbering. Blocked intermediate points of combination
    shots are not checked (a documented approximation). Returns ``(B,) float32``.
    """
    # pair[b, d-1]: some attacker at s and blot at t with s - t = d (d = 1..24),
    # found with 26-bit masks: bit t of (attacker mask >> d) & (target mask).
    bit = (2.0 ** np.arange(26)).astype(np.float64)  # exact: sums stay below 2**53
    attacker_mask = (attackers @ bit).astype(np.int64)
    target_mask = (targets @ bit).astype(np.int64)
    pair = np.empty((24, len(attackers)), dtype=bool)
    for d in range(1, 25):
        np.not_equal((attacker_mask >> d) & target_mask, 0, out=pair[d - 1])
    hit = _REACH_T @ pair.astype(np.float32)  # (36, B)
    return np.count_nonzero(hit, axis=0).astype(np.float32) / np.float32(36.0)


def _longest_run(made: np.ndarray) -> np.ndarray:
    """``(B,) int``: longest run of consecutive True in ``made (B, n) bool``."""
    run = np.zeros(len(made), dtype=np.int64)
    best = np.zeros(len(made), dtype=np.int64)
    for j in range(made.shape[1]):
        run = np.where(made[:, j], run + 1, 0)
        best = np.maximum(best, run)
    return best


def _escapes(blocked: np.ndarray, rear: np.ndarray) -> np.ndarray:
    """Escapes of the checker at index ``rear (B,)`` given ``blocked (B, 26) bool``
    (points held by the other side, mover's numbering): ``(B,) float32``."""
    front = rear[:, None] - np.arange(1, ESCAPE_WINDOW + 1)[None, :]  # (B, 12)
    inside = front >= 1
    held = blocked[np.arange(len(rear))[:, None], np.where(inside, front, 0)] & inside
    pattern = (held.astype(np.int64) << np.arange(ESCAPE_WINDOW)[None, :]).sum(axis=1)
    return ESCAPES_PAST[pattern]


def side_features(boards: np.ndarray) -> np.ndarray:
    """The 8 per-side features of the mover of ``boards (B, 30)``: ``(B, 8) float32``,
    in the order of ``EXTENDED_SIDE_FEATURES`` (see the module docstring)."""
    b = np.asarray(boards).astype(np.int16)
    batch = len(b)
    mover = np.maximum(b, 0)
    weights = np.arange(26, dtype=np.int16)
    pips = (mover[:, 1:26] * weights[1:26]).sum(axis=1)
    blot = b[:, 1:25] == 1
    blots = blot.sum(axis=1)
    # Hits on the mover's blots by the opponent, in the opponent's numbering.
    fb = flip(b)
    attackers = np.zeros((batch, 26), dtype=bool)
    attackers[:, 1:26] = fb[:, 1:26] > 0
    targets = np.zeros((batch, 26), dtype=bool)
    targets[:, 1:25] = fb[:, 1:25] == -1
    hit_chance = _shots(attackers, targets)
    made = b[:, 1:25] >= 2
    home_points = made[:, 0:6].sum(axis=1)
    longest_prime = _longest_run(made)
    anchors = made[:, 18:24].sum(axis=1)
    checkers_back = mover[:, 19:26].sum(axis=1)
    present = mover[:, 1:26] > 0
    rear = np.where(present.any(axis=1), 25 - np.argmax(present[:, ::-1], axis=1), 0)
    blocked = np.zeros((batch, 26), dtype=bool)
    blocked[:, 1:25] = b[:, 1:25] <= -2
    escapes = _escapes(blocked, rear)
    return np.stack(
        [
            pips / 100.0,
            blots / 5.0,
            hit_chance,
            home_points / 6.0,
            longest_prime / 6.0,
            escapes,
            anchors / 3.0,
            checkers_back / 15.0,
        ],
        axis=1,
    ).astype(np.float32)


def extended_encoding(boards: np.ndarray) -> np.ndarray:
    """Raw inputs plus hand-crafted features. boards: ``(B, 30)`` ints, view of the
    player on roll. Returns ``(B, EXTENDED_SIZE) float32`` (see module docstring)."""
    b = np.asarray(boards)
    fb = flip(b)
    mine = side_features(b)
    theirs = side_features(fb)
    contact = has_contact(b).astype(np.float32)
    lead = (theirs[:, 0] - mine[:, 0]).astype(np.float32)
    shared = np.stack([contact, 1.0 - contact, lead], axis=1).astype(np.float32)
    return np.concatenate([raw_encoding(b), mine, theirs, shared], axis=1)


@dataclass(frozen=True)
class Encoding:
    """A named input encoding."""

    name: str
    """Key in ``ENCODINGS`` and in checkpoints."""
    version: int
    """Bumped whenever the meaning of any input changes; checkpoints must match."""
    size: int
    """Number of inputs."""
    encode: Callable[[np.ndarray], np.ndarray]
    """``(B, 30) int8`` boards, view of the player on roll -> ``(B, size) float32``."""


EXPERT_SIZE = RAW_SIZE + FEATURE_SIZE


def expert_encoding(boards: np.ndarray) -> np.ndarray:
    """``expert``: Tesauro's 198 raw inputs, then the 56 expert features of
    ``tdgammon.models.features``: ``(B, EXPERT_SIZE) float32``. One numba kernel
    writes both when it is available (``features.fill_compiled``), with the same
    bits as ``expert_encoding_numpy``."""
    b = np.asarray(boards, dtype=np.int8)
    if b.ndim == 1:
        b = b[None, :]
    out = np.empty((len(b), EXPERT_SIZE), dtype=np.float32)
    if not fill_compiled(b, out, with_raw=True):
        out[:, :RAW_SIZE] = raw_encoding(b)
        out[:, RAW_SIZE:] = expert_features_numpy(b)
    return out


def expert_encoding_numpy(boards: np.ndarray) -> np.ndarray:
    """``expert_encoding`` by the numpy code (the reference), whatever numba says."""
    b = np.asarray(boards, dtype=np.int8)
    if b.ndim == 1:
        b = b[None, :]
    out = np.empty((len(b), EXPERT_SIZE), dtype=np.float32)
    out[:, :RAW_SIZE] = raw_encoding(b)
    out[:, RAW_SIZE:] = expert_features_numpy(b)
    return out


ENCODINGS = {
    "raw": Encoding("raw", 1, RAW_SIZE, raw_encoding),
    "extended": Encoding("extended", 1, EXTENDED_SIZE, extended_encoding),
    "raw_hand": Encoding("raw_hand", 1, RAW_HAND_SIZE, raw_hand_encoding),
    "expert": Encoding("expert", 1, EXPERT_SIZE, expert_encoding),
}
