"""Expert input features: boards ``(B, 30) int8`` (side-to-move view) -> ``(B, F) float32``.

The hand-crafted inputs strong engines put beside the raw point encoding
(``docs/strength_notes.md`` sections 2.3 and 7), implemented from
those descriptions in our own vectorized numpy. Every feature is computed for
one SIDE by one piece of code, first for the mover (the player about to roll,
positive on the board), then for the opponent on ``flip(boards)``; two shared
features close the block. Layout of ``expert_features``: ``SIDE_FEATURES`` of
the mover (27), the same 27 of the opponent, then ``SHARED_FEATURES`` (2):
``FEATURE_SIZE = 56`` (names: ``FEATURE_NAMES``, bounds: ``FEATURE_RANGES``).
The ``expert`` encoding (``tdgammon.models.encoding.expert_encoding``,
``EXPERT_SIZE = 254``) is Tesauro's 198 raw inputs followed
by these 56, so a model on it can be compared with a raw model unit for unit.

Conventions. "This side" is the side whose block is filled, "the other side"
its opponent. Positions are in this side's numbering: point ``p`` = pips it
still needs from there (1..24), bar = 25; the other side's point ``k`` is this
side's ``25 - k`` and the other side's bar counts as this side's 0. A point is
MADE (held, blocked) by a side with 2+ of its checkers; a BLOT is a point with
exactly one. The 36 rolls weigh 1/36 for each double and 2/36 for each of the
15 other pairs. Checkers in hand (variants, board indices 28/29) are ignored:
the features are meant for the standard game. An escape table (12 points in
front of a checker, bit k-1 set when the point k pips ahead is made by the
other side, points further on open) is looked up for features 9, 10, 11-14
and 16; ``_FULL_ROLL`` gives the share of the 36 rolls the checker can PLAY
IN FULL from there (a non-double through either intermediate point, both
landing points open; a double with its four landing points open).

Per-side features (index, name: what it measures; how; scaling into its range):

0. ``pips``: pip count (a checker on the bar counts 25); / 200, [0, 1.875],
   0.835 at the start.
1. ``break_contact``: pips this side must still move to get every checker past
   the other side's rearmost checker, at ``q`` in this side's numbering (0
   when it is on the bar, 25 when it has none left): sum over this side's
   checkers on ``p > q`` of ``p - q + 1``; / 167 (1 at the start),
   [0, 2.34]; 0 in a race.
2. ``free_pips``: pips of the checkers already past all the other side's
   checkers (``p < q``, the bar excluded); / 167, [0, 2.25], in practice < 1.
3. ``rear_checker``: point of the rearmost checker (bar 25, 0 when all are
   off); / 25, [0, 1].
4. ``rear_anchor``: highest made point; / 24, [0, 1], 0 when none is made.
5. ``forward_anchor``: the most advanced anchor in the other side's home board
   (the lowest made point of this side's 19..24), valued by the other side's
   number for it ``25 - p`` (1..6); if none, the most advanced made point of
   its outer board (this side's 13..18: 7..12); if none, 12. / 12, [1/12, 1].
6. ``p1``: share of the 36 rolls with which the OTHER side hits at least one
   of this side's blots (points 1..24). Rules: direct shots; combination
   shots through an intermediate point this side has not made (either order
   of the dice); doubles go up to four steps with every landing point open
   (hitting on the way is allowed). Bar rule, exact: an attacker with one
   checker on the bar and a non-double must enter with one die (its entry
   point open); the entered checker may go on with the other die, and any
   other checker may play the other die, so other checkers hit with die ``x``
   only if the entry point of the other die is open, and make no
   combination shots. With 2+ on the bar a non-double only enters (hitting a
   blot on an entry point). With a double, ``k`` checkers on the bar enter
   first (nothing moves if the entry point is made), hitting there if it is
   a blot, and the other ``4 - k`` steps are free. The one approximation:
   the maximum-dice rule is not applied: a hit after which the other die
   cannot be played is counted even when another play would use both dice
   (or the larger die must be played instead). Against an exact brute force
   over ``legal_plays`` this over-counts one roll in about 0.5 % of the
   positions of random games; with the rule dropped from the brute force the
   two agree exactly (tests/test_models_features.py). [0, 1].
7. ``p2``: share of the rolls that hit two or more blots (same rules: two
   different checkers, one checker hitting twice on its way, an entering
   hit plus another; one checker cannot make two hits with the two dice from
   the same start); [0, 1].
8. ``pip_loss``: expected pips this side loses to a hit next roll: for each
   roll the most damaging hittable blot (a blot on this side's ``p`` costs
   ``25 - p`` pips), roll-weighted sum; / (24 * 36), [0, 1].
9. ``escapes``: ``_FULL_ROLL`` of the rearmost checker against the other
   side's made points; 1 when no checker is left; [0, 1].
10. ``escapes_past``: ``tdgammon.models.roll_tables.ESCAPES_PAST`` of the rearmost
    checker: share of the rolls that jump past the farthest made point within
    the 12 in front, landing only on open points (1 with none made there, or
    no checker left); [0, 1].
11. ``contain``: this side's best blockade: ``1 - min _FULL_ROLL`` of an
    other-side checker placed on this side's points 0 (the other side's
    bar) .. 9, against this side's made points; [0, 1].
12. ``contain2``: ``contain ** 2``.
13. ``acontain``: the same minimum taken only over start points at or in
    front of the other side's rearmost checker (``q .. 9``), 0 if ``q > 9``.
14. ``acontain2``: ``acontain ** 2``.
15. ``longest_prime``: longest run of consecutive made points anywhere; / 6,
    [0, 7/6].
16. ``mobility``: how freely this side's outfield and back checkers move past
    the other side's points: sum over checkers on 7..25 of ``(p - 6) *
    _FULL_ROLL(p)``; / 100, [0, 2.85], 0.58 at the start.
17. ``timing``: pips this side can play without breaking a made point: every
    checker except the two holding each made point (blots, spares, the bar)
    may travel to the ace point: ``sum of n_free(p) * (p - 1)`` over 1..25,
    ``n_free = n - 2`` on made points, else ``n``; / 167, [0, 2.16], 0.35 at
    the start (a simple timing/wastage measure, not gnubg's TIMING).
18. ``home_points``: made points among 1..6; / 6, [0, 1].
19. ``bar``: checkers on the bar; ``min(n, 4) / 4``, [0, 1].
20-22. ``off1``, ``off2``, ``off3``: checkers borne off ``n`` as three ramps of
    width 5 (the crashed-net code, since one net sees every phase):
    ``min(n, 5) / 5``, ``clip(n - 5, 0, 5) / 5``, ``clip(n - 10, 0, 5) / 5``.
23. ``enter``: with a checker on the bar, the share of the pips of the 36
    rolls lost because neither die enters (roll pips ``d1 + d2``, doubles
    ``4 d``; the other side's made home points block): weighted sum over the
    failing rolls / (36 * 49/6); 0 with nothing on the bar; [0, 1].
24. ``enter2``: how closed the other side's home board is, always: ``1 - (1 -
    n/6) ** 2``, ``n`` its made home points (the chance that at least one die
    is blocked); [0, 1].
25. ``backgame``: with 2+ anchors in the other side's home board (this side's
    19..24), ``(c - 3) / 8`` where ``c`` counts this side's checkers there and
    on the bar; else 0; [0, 1.5].
26. ``backgame1``: with exactly one anchor there, ``c / 8``; else 0; [0, 1.875].

Shared features: ``contact`` (1.0 while some checker still has to pass an
enemy checker: ``tdgammon.engine.rules.board.has_contact``) and ``race_lead``:
``(opponent pips - mover pips) / 100`` clipped to [-1, 1].

How it runs. Numpy over the whole batch, in chunks of ``_CHUNK`` rows: boards
become 26-bit point masks (``np.packbits``); the shot features are bit
operations over the 15 non-double and 6 double rolls at once (rows with no
blot skipped, P2 only where there are two blots, the bar rules only where
the attacker is on the bar); the escape features are lookups of 12-bit
patterns in tables built at import. ``scripts/bench_features.py`` measures it.

Compiled path. When numba can be imported (it is a dependency) and the
environment variable ``TDGAMMON_NUMBA`` is not ``0``, ``expert_features`` and
``tdgammon.models.encoding.expert_encoding`` run a numba kernel instead
(``tdgammon.models._compiled_features``, loaded on first use): one board at a
time, the same bit operations and the same float operations in the same
precision, so its output is bit-identical to the numpy code, which stays as
the reference (``expert_features_numpy``; ``tests/test_features_compiled.py``
compares the two row for row). ``fill_compiled`` is the entry point.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.movegen.compiled import import_kernel
from tdgammon.engine.rules.board import BOARD_SIZE, flip
from tdgammon.models.roll_tables import ESCAPE_WINDOW, ESCAPES_PAST

SIDE_FEATURES = (
    "pips",
    "break_contact",
    "free_pips",
    "rear_checker",
    "rear_anchor",
    "forward_anchor",
    "p1",
    "p2",
    "pip_loss",
    "escapes",
    "escapes_past",
    "contain",
    "contain2",
    "acontain",
    "acontain2",
    "longest_prime",
    "mobility",
    "timing",
    "home_points",
    "bar",
    "off1",
    "off2",
    "off3",
    "enter",
    "enter2",
    "backgame",
    "backgame1",
)
SHARED_FEATURES = ("contact", "race_lead")
SIDE_SIZE = len(SIDE_FEATURES)
FEATURE_SIZE = 2 * SIDE_SIZE + len(SHARED_FEATURES)
FEATURE_NAMES = (
    tuple(f"mover_{n}" for n in SIDE_FEATURES)
    + tuple(f"opponent_{n}" for n in SIDE_FEATURES)
    + SHARED_FEATURES
)
_F = {name: i for i, name in enumerate(SIDE_FEATURES)}

FEATURE_RANGES = {
    "pips": (0.0, 375 / 200),
    "break_contact": (0.0, 390 / 167),
    "free_pips": (0.0, 375 / 167),
    "rear_checker": (0.0, 1.0),
    "rear_anchor": (0.0, 1.0),
    "forward_anchor": (1 / 12, 1.0),
    "p1": (0.0, 1.0),
    "p2": (0.0, 1.0),
    "pip_loss": (0.0, 1.0),
    "escapes": (0.0, 1.0),
    "escapes_past": (0.0, 1.0),
    "contain": (0.0, 1.0),
    "contain2": (0.0, 1.0),
    "acontain": (0.0, 1.0),
    "acontain2": (0.0, 1.0),
    "longest_prime": (0.0, 7 / 6),
    "mobility": (0.0, 15 * 19 / 100),
    "timing": (0.0, 15 * 24 / 167),
    "home_points": (0.0, 1.0),
    "bar": (0.0, 1.0),
    "off1": (0.0, 1.0),
    "off2": (0.0, 1.0),
    "off3": (0.0, 1.0),
    "enter": (0.0, 1.0),
    "enter2": (0.0, 1.0),
    "backgame": (0.0, 12 / 8),
    "backgame1": (0.0, 15 / 8),
    "contact": (0.0, 1.0),
    "race_lead": (-1.0, 1.0),
}
"""Documented bounds of every feature (per-side names, then the shared ones)."""

# ------------------------------------------------------------------ tables
# Layout: intermediate arrays are (K, B), one row per roll / point / start, so that
# reductions over K are fast row-wise numpy operations; the result is transposed once.

_BAR_BIT = 1 << 25
_POINT_MASK = (1 << 25) - 2  # bits 1..24
_BOARD_MASK = (1 << 26) - 2  # bits 1..25 (points and bar)
_WINDOW_MASK = (1 << ESCAPE_WINDOW) - 1

_ND = np.array([(d1, d2) for d1 in range(1, 7) for d2 in range(d1 + 1, 7)], dtype=np.int32)
_ND1 = _ND[:, :1].copy()  # (15, 1) smaller die of each non-double
_ND2 = _ND[:, 1:].copy()  # (15, 1) larger die
_NDE1 = np.left_shift(1, 25 - _ND1).astype(np.int32)  # bit of the entry point of each die
_NDE2 = np.left_shift(1, 25 - _ND2).astype(np.int32)
_DD = np.arange(1, 7, dtype=np.int32)[:, None]  # (6, 1) the doubles
_DDE = np.left_shift(1, 25 - _DD).astype(np.int32)
_ROLL_WEIGHTS = np.array([2] * 15 + [1] * 6, dtype=np.float32)  # (21,) rows: 15 nd, 6 doubles

_MOBILITY_FROM = 7
# Rows 0..18: for one side's checker on p = 7..25, the 12-bit pattern of the OTHER
# side's made points in front of it, read off the other side's own mask (there the
# checker stands on 25 - p and moves up): mask >> (26 - p). Rows 19..28: for an
# other-side checker on this side's point s = 0..9 (0 = its bar), this side's made
# points in front of it: own mask >> (s + 1).
_CONTAIN_STARTS = 10
_N_MOBILITY = 26 - _MOBILITY_FROM
_ESCAPE_SHIFTS = (26 - np.arange(_MOBILITY_FROM, 26, dtype=np.int32))[:, None]  # (19, 1)
_CONTAIN_SHIFTS = np.arange(1, _CONTAIN_STARTS + 1, dtype=np.int32)[:, None]  # (10, 1)
_MOBILITY_WEIGHT = np.arange(_MOBILITY_FROM, 26, dtype=np.float32)[:, None] - 6  # p - 6
_CONTAIN_ROW = np.arange(_CONTAIN_STARTS, dtype=np.int32)[:, None]
_PIP_WEIGHT = np.arange(1, 26, dtype=np.float32)  # points 1..25 (bar)
_COUNT_AND_PIPS = np.stack([np.ones(25, dtype=np.float32), _PIP_WEIGHT])  # (2, 25)
_SIDE_SUMS = np.stack([np.ones(25), _PIP_WEIGHT, _PIP_WEIGHT >= 19]).astype(np.float32)
"""``(3, 25)``: checkers in play, pips, checkers on 19..25 (the other side's home and bar)."""


def _full_roll_table() -> np.ndarray:
    """``(4096,) float32``: ``escapes`` for each pattern of blocked points in front, in
    rolls (0..36: integers, so that sums of them are exact in any order).

    Bit k-1 of the pattern is set when the point k pips in front of the checker
    is made by the other side (k = 1..12; points further on are open). A roll
    counts when the checker can play all of it: a non-double through one of
    its two intermediate points, both landing points open; a double with all
    four landing points open."""
    patterns = np.arange(4096)

    def free(offset: int) -> np.ndarray:
        if offset > ESCAPE_WINDOW:
            return np.ones(len(patterns), dtype=bool)
        return ((patterns >> (offset - 1)) & 1) == 0

    total = np.zeros(len(patterns))
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            if d1 == d2:
                ok = free(d1) & free(2 * d1) & free(3 * d1) & free(4 * d1)
            else:
                ok = (free(d1) | free(d2)) & free(d1 + d2)
            total += ok
    return total.astype(np.float32)


def _enter_table() -> np.ndarray:
    """``(64,) float32``: ``enter`` for each pattern of blocked entry points.

    Bit d-1 set = a die of d does not enter (the other side holds its d-point).
    Value: roll-weighted pips of the rolls where neither die enters / (36 * 49/6)."""
    table = np.zeros(64, dtype=np.float64)
    for pattern in range(64):
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                if (pattern >> (d1 - 1)) & 1 and (pattern >> (d2 - 1)) & 1:
                    table[pattern] += 4 * d1 if d1 == d2 else d1 + d2
    return (table / (36 * 49 / 6)).astype(np.float32)


def _forward_anchor_table() -> np.ndarray:
    """``(4096,) float32``: ``forward_anchor`` from the 12-bit pattern of this side's
    made points 13..24 (bit j = point 13 + j)."""
    table = np.full(4096, 12.0)
    for pattern in range(4096):
        home = [p for p in range(19, 25) if (pattern >> (p - 13)) & 1]
        outer = [p for p in range(13, 19) if (pattern >> (p - 13)) & 1]
        if home:
            table[pattern] = 25 - min(home)
        elif outer:
            table[pattern] = 25 - min(outer)
    return (table / 12).astype(np.float32)


def _bits_table(value) -> np.ndarray:
    """``(4096,) float32``: ``sum(value(j) for each set bit j)`` of every 12-bit pattern."""
    bits = (np.arange(4096)[:, None] >> np.arange(12)[None, :]) & 1
    return (bits * np.array([value(j) for j in range(12)])[None, :]).sum(axis=1).astype(np.float32)


_FULL_ROLL_ROLLS = _full_roll_table()
_FULL_ROLL = _FULL_ROLL_ROLLS / np.float32(36)
_ENTER = _enter_table()
_FORWARD_ANCHOR = _forward_anchor_table()
_ANCHORS = _bits_table(lambda j: 1.0)[:64].astype(np.int32)
_ENTER2 = (1 - (1 - _ANCHORS / 6) ** 2).astype(np.float32)
# timing: sum of (p - 1) over made points, from the patterns of points 1..12 and 13..24
_MADE_PIPS_LOW = _bits_table(lambda j: j)
_MADE_PIPS_HIGH = _bits_table(lambda j: j + 12)


# ------------------------------------------------------------------ masks


class _Side:
    """Bit masks and counts of one side, in its own numbering (bit i = board index i).

    own: ``occupied`` (points and bar), ``single`` (exactly one checker), ``made``
    (2+); the enemy in this numbering: ``enemy_blots``, ``enemy_made``; all
    ``(B,) int32``. ``counts (26, B) float32`` (row 0 = off, 25 = bar), ``bar``
    ``(B,) int32``, ``pips``, ``rear`` (highest occupied index, 0 if none).
    """

    def __init__(self, boards: np.ndarray) -> None:
        batch = len(boards)
        padded = np.zeros((batch, 32), dtype=np.int8)
        padded[:, :30] = boards
        tests = np.empty((batch, 4, 32), dtype=bool)
        np.greater(padded, 0, out=tests[:, 0])
        np.equal(padded, 1, out=tests[:, 1])
        np.less(padded, 0, out=tests[:, 2])
        np.equal(padded, -1, out=tests[:, 3])
        packed = np.packbits(tests, axis=2, bitorder="little").view("<i4")[:, :, 0]
        masks = np.ascontiguousarray(packed.T)
        self.occupied = masks[0] & np.int32(_BOARD_MASK)
        self.single = masks[1] & np.int32(_POINT_MASK)
        self.made = self.occupied & ~masks[1] & np.int32(_POINT_MASK)
        self.enemy_blots = masks[3] & np.int32(_POINT_MASK)
        self.enemy_made = masks[2] & ~masks[3] & np.int32(_POINT_MASK)
        self.counts = np.array(np.maximum(boards[:, :26], 0).T, dtype=np.float32, order="C")
        self.bar = np.maximum(boards[:, 25], 0).astype(np.int32)
        self.in_play, self.pips, self.back = _SIDE_SUMS @ self.counts[1:]
        self.rear = _highest_bit(self.occupied)


def _highest_bit(masks: np.ndarray) -> np.ndarray:
    """Index of the highest set bit of non-negative int masks (< 2**31), 0 for 0."""
    exponent = (masks.astype(np.float64).view(np.int64) >> 52) - 1023
    return np.maximum(exponent, 0).astype(np.int32)


def _highest_even_bit(masks: np.ndarray) -> np.ndarray:
    """``_highest_bit`` for masks below 2**25 with bit 0 clear: exact through float32."""
    exponent = (masks.astype(np.float32).view(np.int32) >> 23) - 127
    return np.maximum(exponent, 0)


def _more_than_one(masks: np.ndarray) -> np.ndarray:
    return (masks & (masks - 1)) != 0


# ------------------------------------------------------------------ shots


def shots(
    attackers: np.ndarray,
    bar: np.ndarray,
    singles: np.ndarray,
    blots: np.ndarray,
    open_: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hits of the attacker on the defender's blots, in the ATTACKER's numbering.

    attackers: ``(B,) int32`` bit mask of the attacker's occupied points (bits
    1..24, bit 25 = bar); bar: ``(B,)`` its checkers on the bar; singles: its
    points holding exactly one checker (bits 1..24); blots: the defender's
    blots (bits 1..24); open_: points the defender has not made. Returns
    ``p1, p2, pip_loss`` ``(B,) float32`` (module docstring, features 6-8; a
    blot on the attacker's point t costs the defender t pips). Only rows with
    a blot are computed, P2 only where there are two, and the bar rules only
    where the attacker is on the bar.
    """
    batch = len(blots)
    p1 = np.zeros(batch, dtype=np.float32)
    p2 = np.zeros(batch, dtype=np.float32)
    loss = np.zeros(batch, dtype=np.float32)
    rows = np.flatnonzero(blots)
    if len(rows) == 0:
        return p1, p2, loss
    a0, k, s1, t, o = (
        attackers[rows] & np.int32(_POINT_MASK),
        bar[rows],
        singles[rows],
        blots[rows],
        open_[rows],
    )
    hits = _hits_free(a0, t, o)  # (21, n): blots some play of each roll hits
    double = np.zeros(hits.shape, dtype=bool)  # (21, n): two blots hit
    two = np.flatnonzero((np.bitwise_count(t) >= 2) & (k == 0))
    if len(two):
        double[:, two] = _doubles_free(a0[two], s1[two], t[two], o[two])
    on_bar = np.flatnonzero(k > 0)
    if len(on_bar):
        hits[:, on_bar], double[:, on_bar] = _shots_bar(a0[on_bar], k[on_bar], t[on_bar], o[on_bar])
    p1[rows] = _ROLL_WEIGHTS @ (hits != 0).astype(np.float32)
    p2[rows] = _ROLL_WEIGHTS @ double.astype(np.float32)
    loss[rows] = _ROLL_WEIGHTS @ _highest_even_bit(hits).astype(np.float32)
    return p1 / 36, p2 / 36, loss / (24 * 36)


def _hits_free(a0, t, o) -> np.ndarray:
    """``(21, n) int32``: the blots hit by some play of each roll (15 non-doubles, 6
    doubles), for attackers with nothing on the bar."""
    hits = np.empty((21, len(a0)), dtype=np.int32)
    # non-doubles: direct shots with either die, combination shots through an open point
    step1 = a0 >> _ND1
    step2 = a0 >> _ND2
    nd = hits[:15]
    np.bitwise_or(step1, step2, out=nd)
    step1 &= o
    step2 &= o
    step1 >>= _ND2
    step2 >>= _ND1
    nd |= step1
    nd |= step2
    nd &= t
    # doubles: up to four steps, every landing point open
    reach = a0 >> _DD
    reach &= o
    d = hits[15:]
    np.bitwise_and(reach, t, out=d)
    for _ in range(3):
        reach >>= _DD
        reach &= o
        d |= reach & t
    return hits


def _doubles_free(a0, singles, t, o) -> np.ndarray:
    """``(21, n) bool``: rolls that hit two blots, attackers with nothing on the bar."""
    double = np.empty((21, len(a0)), dtype=bool)
    hit1 = (a0 >> _ND1) & t
    hit2 = (a0 >> _ND2) & t
    # Two different checkers: the pairs (d1 hit, d2 hit) on different blots, minus
    # those that need the one checker of a point for both hits; or one checker
    # hitting on its way.
    # (uint8 is enough: at most 15 blots, so at most 225 pairs, and the bad pairs are
    # among them.)
    count = np.bitwise_count(hit1)
    count *= np.bitwise_count(hit2)
    count -= np.bitwise_count(hit1 & hit2)
    count -= np.bitwise_count((hit1 << _ND1) & (hit2 << _ND2) & singles)
    np.greater(count, 0, out=double[:15])
    double[:15] |= (((hit1 >> _ND2) | (hit2 >> _ND1)) & t) != 0
    # Doubles: one checker hitting twice on its path, or two hits of 1 + up to 3
    # steps or 2 + up to 2 steps.
    reach = a0 >> _DD
    reach &= o
    steps = [reach & t]
    hitter = steps[0]  # where checkers that already hit stand
    path = np.zeros(reach.shape, dtype=bool)
    for _ in range(3):
        reach >>= _DD
        reach &= o
        hitter = (hitter >> _DD) & o
        path |= (hitter & t) != 0
        steps.append(reach & t)
        hitter |= steps[-1]
    within2 = steps[0] | steps[1]
    within3 = within2 | steps[2]
    path |= (steps[0] != 0) & _more_than_one(within3)
    path |= (steps[1] != 0) & _more_than_one(within2)
    double[15:] = path
    return double


def _shots_bar(a0, k, t, o) -> tuple[np.ndarray, np.ndarray]:
    """``shots`` for attackers with ``k >= 1`` checkers on the bar (module docstring):
    ``hits (21, n) int32`` and ``double (21, n) bool``."""
    k1 = k == 1
    # ---- non-doubles
    open1 = (o & _NDE1) != 0
    open2 = (o & _NDE2) != 0
    entry1 = (t & _NDE1) != 0  # the entry point of d1 is a blot (hence open)
    entry2 = (t & _NDE2) != 0
    # With one on the bar, other checkers play d1 after entering with d2 and vice
    # versa, and the entered checker may go on (a combination shot from the bar).
    others1 = np.where(k1 & open2, a0, 0)
    others2 = np.where(k1 & open1, a0, 0)
    nd_hits = ((others1 >> _ND1) | (others2 >> _ND2)) & t
    nd_hits |= np.where(entry1, _NDE1, 0) | np.where(entry2, _NDE2, 0)
    from_bar = np.where(k1, _BAR_BIT, 0)
    nd_hits |= ((((from_bar >> _ND1) & o) >> _ND2) | (((from_bar >> _ND2) & o) >> _ND1)) & t
    one_double = (entry1 & ((((a0 | _NDE1) >> _ND2) & t & ~_NDE1) != 0)) | (
        entry2 & ((((a0 | _NDE2) >> _ND1) & t & ~_NDE2) != 0)
    )
    nd_double = np.where(k1, one_double, entry1 & entry2)
    # ---- doubles: enter k checkers (nothing moves if the entry point is made), then
    # 4 - k steps for anyone
    entry_open = (o & _DDE) != 0
    budget = np.where(entry_open, np.maximum(4 - k, 0), 0)
    reach = np.where(entry_open, a0 | _DDE, 0)
    targets = t & ~_DDE
    entry_hit = (t & _DDE) != 0
    hitter = np.zeros_like(reach)
    path_double = np.zeros(reach.shape, dtype=bool)
    steps = []
    for j in range(1, 4):  # at most 3 steps are left after entering
        allowed = budget >= j
        reach = (reach >> _DD) & o
        step_hits = np.where(allowed, reach & targets, 0)
        hitter = (hitter >> _DD) & o
        path_double |= allowed & ((hitter & targets) != 0)
        hitter |= step_hits
        steps.append(step_hits)
    within1, within2 = steps[0], steps[0] | steps[1]
    within3 = within2 | steps[2]
    d_hits = within3 | np.where(entry_hit, _DDE, 0)
    # pairs of hits with at most `budget` steps: (1, budget - 1)
    partner = np.where(budget == 3, within2, np.where(budget == 2, within1, 0))
    pair = (within1 != 0) & _more_than_one(within1 | partner) & (partner != 0)
    d_double = path_double | pair | (entry_hit & (within3 != 0))
    return np.concatenate([nd_hits, d_hits]), np.concatenate([nd_double, d_double])


# ------------------------------------------------------------------ one side


def _half(me: _Side, other: _Side, out: np.ndarray) -> None:
    """Fill ``out (SIDE_SIZE, B)`` with the features of ``me`` (module docstring)."""
    counts = me.counts  # (26, B): off, points 1..24, bar
    batch = counts.shape[1]
    # The other side's rearmost checker in my numbering (its bar = 0; none left = 25).
    q = 25 - other.rear
    beyond = np.empty((25, batch), dtype=np.float32)
    np.greater(_PIP_WEIGHT[:, None], q.astype(np.float32), out=beyond)
    beyond *= counts[1:]
    beyond_count, beyond_pips = _COUNT_AND_PIPS @ beyond  # my checkers on p > q
    out[_F["pips"]] = me.pips / 200
    out[_F["break_contact"]] = (beyond_pips - (q - 1) * beyond_count) / 167
    free = me.pips - beyond_pips  # p <= q: p < q but for q = 25 (nothing left to pass)
    out[_F["free_pips"]] = np.where(q < 25, free, free - 25 * counts[25]) / 167
    out[_F["rear_checker"]] = me.rear / 25
    out[_F["rear_anchor"]] = _highest_bit(me.made) / 24
    out[_F["forward_anchor"]] = _FORWARD_ANCHOR[(me.made >> 13) & 4095]

    # My blots, attacked by the other side: computed in its numbering.
    p1, p2, loss = shots(
        other.occupied, other.bar, other.single, other.enemy_blots, ~other.enemy_made
    )
    out[_F["p1"]] = p1
    out[_F["p2"]] = p2
    out[_F["pip_loss"]] = loss

    # Escape-table lookups (module docstring): rows 0..18 my checkers on 7..25, rows
    # 19..28 the other side's checker on my 0..9.
    patterns = np.empty((_N_MOBILITY + _CONTAIN_STARTS, batch), dtype=np.int32)
    np.right_shift(other.made, _ESCAPE_SHIFTS, out=patterns[:_N_MOBILITY])
    np.right_shift(me.made, _CONTAIN_SHIFTS, out=patterns[_N_MOBILITY:])
    patterns &= _WINDOW_MASK
    escapes = np.take(_FULL_ROLL_ROLLS, patterns)  # in rolls
    # integer-valued terms: the sum is exact whatever order numpy adds them in
    mobility = np.einsum(
        "ij,ij->j", counts[_MOBILITY_FROM:] * _MOBILITY_WEIGHT, escapes[:_N_MOBILITY]
    )
    out[_F["mobility"]] = mobility / (36 * 100)
    rear_pattern = (other.made >> (26 - me.rear)) & _WINDOW_MASK
    has_rear = me.rear > 0
    out[_F["escapes"]] = np.where(has_rear, _FULL_ROLL[rear_pattern], 1.0)
    out[_F["escapes_past"]] = np.where(has_rear, ESCAPES_PAST[rear_pattern], 1.0)
    contained = escapes[_N_MOBILITY:]
    contain = 1.0 - contained.min(axis=0) / 36
    out[_F["contain"]] = contain
    out[_F["contain2"]] = contain * contain
    acontain = 1.0 - np.where(_CONTAIN_ROW < q, 36.0, contained).min(axis=0) / 36
    out[_F["acontain"]] = acontain
    out[_F["acontain2"]] = acontain * acontain

    run = me.made
    longest = run != 0
    longest = longest.astype(np.int32)
    for _ in range(6):  # 15 checkers make at most 7 points
        run = run & (run >> 1)
        longest += run != 0
    out[_F["longest_prime"]] = longest / 6
    # timing: every checker on 1..25 travels to the ace point, minus two a made point
    in_play = me.in_play
    made_pips = _MADE_PIPS_LOW[(me.made >> 1) & 4095] + _MADE_PIPS_HIGH[(me.made >> 13) & 4095]
    out[_F["timing"]] = (me.pips - in_play - 2 * made_pips) / 167
    out[_F["home_points"]] = np.bitwise_count(me.made & 0b1111110) / 6
    out[_F["bar"]] = np.minimum(me.bar, 4) / 4
    off = counts[0]
    out[_F["off1"]] = np.minimum(off, 5) / 5
    out[_F["off2"]] = np.clip(off - 5, 0, 5) / 5
    out[_F["off3"]] = np.clip(off - 10, 0, 5) / 5
    their_home = (other.made >> 1) & 63
    out[_F["enter"]] = np.where(me.bar > 0, _ENTER[their_home], 0.0)
    out[_F["enter2"]] = _ENTER2[their_home]
    anchors = _ANCHORS[(me.made >> 19) & 63]
    back = me.back
    out[_F["backgame"]] = np.where(anchors >= 2, (back - 3) / 8, 0.0)
    out[_F["backgame1"]] = np.where(anchors == 1, back / 8, 0.0)


# ------------------------------------------------------------------ public


def expert_features(boards: np.ndarray) -> np.ndarray:
    """The expert features of ``boards (B, 30)`` (view of the player on roll):
    ``(B, FEATURE_SIZE) float32``: mover's ``SIDE_FEATURES``, opponent's, then
    ``SHARED_FEATURES`` (module docstring). Compiled when ``compiled_available()``,
    else ``expert_features_numpy``; both give the same bits."""
    b = _as_boards(boards)
    out = np.empty((len(b), FEATURE_SIZE), dtype=np.float32)
    if not fill_compiled(b, out, with_raw=False):
        _fill(b, out)
    return out


def expert_features_numpy(boards: np.ndarray) -> np.ndarray:
    """``expert_features`` by the numpy code (the reference), whatever numba says."""
    b = _as_boards(boards)
    out = np.empty((len(b), FEATURE_SIZE), dtype=np.float32)
    _fill(b, out)
    return out


def _as_boards(boards: np.ndarray) -> np.ndarray:
    b = np.asarray(boards, dtype=np.int8)
    if b.ndim == 1:
        b = b[None, :]
    return b


# ------------------------------------------------------------------ compiled

_kernel = None
"""The ``_compiled_features`` module once loaded."""
_unavailable = None
"""Why the compiled kernel is not used here, once known (None: it is, or not yet asked)."""
_tables = None
"""``(TABLE_ROWS, 4096) float32``: the tables the kernel reads (``_kernel_tables``)."""

_POINT_UNITS = np.array(
    [(n >= 1, n >= 2, n >= 3, max(n - 3, 0) / 2.0) for n in range(16)], dtype=np.float32
)
"""``(16, 4)``: Tesauro's four units for 0..15 checkers on a point, as
``tdgammon.models.encoding._POINT_TABLE`` (for the compiled raw inputs)."""


def compiled_available() -> bool:
    """Whether the numba kernel runs here (numba importable, ``TDGAMMON_NUMBA`` not 0)."""
    return _load() is not None


def _load():
    global _kernel, _unavailable, _tables
    if _kernel is None and _unavailable is None:
        kernel, _unavailable = import_kernel("tdgammon.models._compiled_features")
        if kernel is not None:
            _tables = _kernel_tables(kernel)
            _kernel = kernel
    return _kernel


def _kernel_tables(kernel) -> np.ndarray:
    tables = np.zeros((kernel.TABLE_ROWS, 4096), dtype=np.float32)
    tables[kernel.TABLE_FULL_ROLL_ROLLS] = _FULL_ROLL_ROLLS
    tables[kernel.TABLE_FULL_ROLL] = _FULL_ROLL
    tables[kernel.TABLE_ESCAPES_PAST] = ESCAPES_PAST
    tables[kernel.TABLE_FORWARD_ANCHOR] = _FORWARD_ANCHOR
    tables[kernel.TABLE_ENTER, :64] = _ENTER
    tables[kernel.TABLE_ENTER2, :64] = _ENTER2
    tables[kernel.TABLE_POINT, :64] = _POINT_UNITS.ravel()
    return tables


def fill_compiled(boards: np.ndarray, out: np.ndarray, with_raw: bool) -> bool:
    """Write the expert features of ``boards (B, 30)`` into ``out``, compiled:
    ``out (B, FEATURE_SIZE)`` float32 C-contiguous, or with ``with_raw``
    ``(B, 198 + FEATURE_SIZE)``, Tesauro's raw inputs first (the ``expert``
    encoding). Returns False, writing nothing, when the kernel is not available."""
    kernel = _load()
    if kernel is None:
        return False
    if not (out.dtype == np.float32 and out.flags.c_contiguous):
        raise ValueError("out must be a C-contiguous float32 array")
    boards = np.ascontiguousarray(boards, dtype=np.int8)
    if boards.ndim != 2 or boards.shape[1] != BOARD_SIZE:
        raise ValueError(f"boards must be (B, {BOARD_SIZE}), got {boards.shape}")
    width = kernel.raw_size + FEATURE_SIZE if with_raw else FEATURE_SIZE
    if out.shape != (len(boards), width):
        raise ValueError(f"out has shape {out.shape}, expected {(len(boards), width)}")
    kernel.fill(boards, out, bool(with_raw), _tables)
    return True


_CHUNK = 8192
"""Rows per pass: the (K, B) intermediates of one pass stay in the CPU caches."""


def _fill(b: np.ndarray, out: np.ndarray) -> None:
    """Write ``expert_features(b)`` into ``out (B, FEATURE_SIZE)``, in chunks."""
    for start in range(0, len(b), _CHUNK):
        chunk = b[start : start + _CHUNK]
        me = _Side(chunk)
        other = _Side(flip(chunk))
        block = np.empty((FEATURE_SIZE, len(chunk)), dtype=np.float32)
        _half(me, other, block[:SIDE_SIZE])
        _half(other, me, block[SIDE_SIZE : 2 * SIDE_SIZE])
        block[2 * SIDE_SIZE] = me.rear + other.rear > 25
        block[2 * SIDE_SIZE + 1] = np.clip((other.pips - me.pips) / 100, -1.0, 1.0)
        out[start : start + len(chunk)] = block.T
