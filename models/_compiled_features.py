"""The numba kernel of the compiled expert encoding (``tdgammon.models.features``;
imported only there, and only when numba is wanted: importing this module
imports numba).

One board at a time, the same integer bit operations as the numpy reference
(``features.py``: ``_Side``, ``shots``, ``_hits_free``, ``_doubles_free``,
``_shots_bar``, ``_half``; ``encoding.py``: ``_raw_side_into``), and every
float computed by the same IEEE operations in the same precision (float32
where numpy works in float32, float64 rounded to float32 where numpy promotes
to float64), so the output is bit-identical to the numpy code
(``tests/test_features_compiled.py``). The escape and entry tables come in one
``(TABLE_ROWS, 4096) float32`` argument built by ``features.py`` from its own
tables (``TABLE_*`` rows).

Speed: the shot features loop over the 15 non-doubles and the 6 doubles
without branches (LLVM vectorizes them); bit counts use LLVM's ``ctpop``,
``ctlz`` and ``cttz`` through small numba intrinsics (one instruction each on
current CPUs, a short sequence elsewhere).

Module-level functions, so that numba's on-disk cache (``cache=True``, in
``__pycache__`` or the user's cache directory) serves every later process.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

TABLE_FULL_ROLL_ROLLS = 0
"""``features._FULL_ROLL_ROLLS``: rolls (0..36) a checker plays in full, by 12-bit pattern."""
TABLE_FULL_ROLL = 1
"""``features._FULL_ROLL``: the same / 36 (float32)."""
TABLE_ESCAPES_PAST = 2
"""``roll_tables.ESCAPES_PAST``."""
TABLE_FORWARD_ANCHOR = 3
"""``features._FORWARD_ANCHOR``."""
TABLE_ENTER = 4
"""``features._ENTER`` (first 64 columns)."""
TABLE_ENTER2 = 5
"""``features._ENTER2`` (first 64 columns)."""
TABLE_POINT = 6
"""``encoding._POINT_TABLE`` flattened: column ``4 n + u`` = unit u for n checkers."""
TABLE_ROWS = 7

bar_bit = 1 << 25
point_mask = (1 << 25) - 2  # bits 1..24
window_mask = 4095
mobility_points = ((1 << 26) - 1) & ~((1 << 7) - 1)  # bits 7..25
side_size = 27
raw_side_size = 98
raw_size = 2 * raw_side_size + 2
max_count = 15
f1 = np.float32(1.0)
f36 = np.float32(36.0)


ND1 = np.array([d1 for d1 in range(1, 7) for d2 in range(d1 + 1, 7)], dtype=np.int64)
"""The smaller die of each of the 15 non-doubles (``features._ND1``)."""
ND2 = np.array([d2 for d1 in range(1, 7) for d2 in range(d1 + 1, 7)], dtype=np.int64)
"""The larger die (``features._ND2``)."""


@intrinsic
def _ctpop(typingctx, mask):
    """Set bits of an int64 (LLVM ``ctpop``: one instruction where the CPU has it)."""
    if not isinstance(mask, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.ctpop(value)

    return types.int64(mask), codegen


@intrinsic
def _ctlz(typingctx, mask):
    """Leading zero bits of an int64, 64 for 0 (LLVM ``ctlz``)."""
    if not isinstance(mask, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.ctlz(value, ir.Constant(ir.IntType(1), 0))

    return types.int64(mask), codegen


@intrinsic
def _cttz(typingctx, mask):
    """Trailing zero bits of an int64, 64 for 0 (LLVM ``cttz``)."""
    if not isinstance(mask, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        return builder.cttz(value, ir.Constant(ir.IntType(1), 0))

    return types.int64(mask), codegen


@njit(cache=True, nogil=True)
def lowest_bit(mask):
    """Index of the lowest set bit of a non-zero mask."""
    return _cttz(np.int64(mask))


@njit(cache=True, nogil=True)
def popcount(mask):
    """Set bits of a non-negative mask."""
    return _ctpop(np.int64(mask))


@njit(cache=True, nogil=True)
def highest_bit(mask):
    """Index of the highest set bit of a non-negative mask, 0 for 0."""
    return max(63 - _ctlz(np.int64(mask)), 0)


@njit(cache=True, nogil=True)
def more_than_one(mask):
    return (mask & (mask - 1)) != 0


@njit(cache=True, nogil=True)
def shots(attackers, k, singles, t, o):
    """``features.shots`` of one row, as roll-weighted integer sums (36ths):
    ``(p1, p2, pip_loss)``. Branch-free loops over the rolls (``_hits_free``,
    ``_doubles_free``, ``_shots_bar`` one roll at a time)."""
    p1 = 0
    p2 = 0
    loss = 0
    if t == 0:
        return p1, p2, loss
    a0 = attackers & point_mask
    if k == 0:
        two = (t & (t - 1)) != 0  # the numpy code computes double hits only then
        for r in range(15):
            d1 = ND1[r]
            d2 = ND2[r]
            step1 = a0 >> d1
            step2 = a0 >> d2
            hits = (step1 | step2 | ((step1 & o) >> d2) | ((step2 & o) >> d1)) & t
            hit1 = step1 & t
            hit2 = step2 & t
            count = popcount(hit1) * popcount(hit2)
            count -= popcount(hit1 & hit2)
            count -= popcount((hit1 << d1) & (hit2 << d2) & singles)
            double = (count > 0) | ((((hit1 >> d2) | (hit2 >> d1)) & t) != 0)
            p1 += 2 * (hits != 0)
            p2 += 2 * (double & two)
            loss += 2 * highest_bit(hits)
        for d in range(1, 7):
            reach = (a0 >> d) & o
            s0 = reach & t
            hitter = s0
            reach = (reach >> d) & o
            hitter = (hitter >> d) & o
            path = (hitter & t) != 0
            s1 = reach & t
            hitter |= s1
            reach = (reach >> d) & o
            hitter = (hitter >> d) & o
            path |= (hitter & t) != 0
            s2 = reach & t
            hitter |= s2
            reach = (reach >> d) & o
            hitter = (hitter >> d) & o
            path |= (hitter & t) != 0
            s3 = reach & t
            hits = s0 | s1 | s2 | s3
            within2 = s0 | s1
            within3 = within2 | s2
            path |= (s0 != 0) & more_than_one(within3)
            path |= (s1 != 0) & more_than_one(within2)
            p1 += hits != 0
            p2 += path & two
            loss += highest_bit(hits)
        return p1, p2, loss
    # the attacker is on the bar (module docstring of features.py)
    k1 = k == 1
    from_bar = bar_bit if k1 else 0
    for r in range(15):
        d1 = ND1[r]
        d2 = ND2[r]
        e1 = np.int64(1) << (25 - d1)
        e2 = np.int64(1) << (25 - d2)
        open1 = (o & e1) != 0
        open2 = (o & e2) != 0
        entry1 = (t & e1) != 0
        entry2 = (t & e2) != 0
        others1 = a0 if (k1 & open2) else 0
        others2 = a0 if (k1 & open1) else 0
        hits = ((others1 >> d1) | (others2 >> d2)) & t
        hits |= (e1 if entry1 else 0) | (e2 if entry2 else 0)
        hits |= ((((from_bar >> d1) & o) >> d2) | (((from_bar >> d2) & o) >> d1)) & t
        one_double = (entry1 & ((((a0 | e1) >> d2) & t & ~e1) != 0)) | (
            entry2 & ((((a0 | e2) >> d1) & t & ~e2) != 0)
        )
        double = one_double if k1 else (entry1 & entry2)
        p1 += 2 * (hits != 0)
        p2 += 2 * double
        loss += 2 * highest_bit(hits)
    for d in range(1, 7):
        entry = np.int64(1) << (25 - d)
        entry_open = (o & entry) != 0
        budget = max(4 - k, 0) if entry_open else 0
        reach = (a0 | entry) if entry_open else 0
        targets = t & ~entry
        entry_hit = (t & entry) != 0
        # step 1
        reach = (reach >> d) & o
        s0 = (reach & targets) if budget >= 1 else 0
        hitter = s0
        # step 2
        reach = (reach >> d) & o
        s1 = (reach & targets) if budget >= 2 else 0
        hitter = (hitter >> d) & o
        path = (budget >= 2) & ((hitter & targets) != 0)
        hitter |= s1
        # step 3
        reach = (reach >> d) & o
        s2 = (reach & targets) if budget >= 3 else 0
        hitter = (hitter >> d) & o
        path |= (budget >= 3) & ((hitter & targets) != 0)
        within2 = s0 | s1
        within3 = within2 | s2
        hits = within3 | (entry if entry_hit else 0)
        partner = within2 if budget == 3 else (s0 if budget == 2 else 0)
        pair = (s0 != 0) & more_than_one(s0 | partner) & (partner != 0)
        double = path | pair | (entry_hit & (within3 != 0))
        p1 += hits != 0
        p2 += double
        loss += highest_bit(hits)
    return p1, p2, loss


@njit(cache=True, nogil=True)
def side_state(counts, side, other):
    """Masks and sums of ``counts[side]`` (``features._Side``): occupied, single,
    made, enemy blots, enemy made, pips, in play, back, rear."""
    occupied = np.int64(0)
    single = np.int64(0)
    made = np.int64(0)
    enemy_blots = np.int64(0)
    enemy_made = np.int64(0)
    pips = np.int64(0)
    in_play = np.int64(0)
    back = np.int64(0)
    for i in range(1, 25):
        n = counts[side, i]
        occupied |= np.int64(n > 0) << i
        single |= np.int64(n == 1) << i
        made |= np.int64(n >= 2) << i
        pips += i * n
        in_play += n
        back += n if i >= 19 else 0
        m = counts[other, 25 - i]
        enemy_blots |= np.int64(m == 1) << i
        enemy_made |= np.int64(m >= 2) << i
    n = counts[side, 25]  # the bar
    occupied |= np.int64(n > 0) << 25
    pips += 25 * n
    in_play += n
    back += n
    rear = highest_bit(occupied)
    return occupied, single, made, enemy_blots, enemy_made, pips, in_play, back, rear


@njit(cache=True, nogil=True)
def half(out, row, base, counts, me, other, state_me, state_other, tables):
    """``features._half``: the 27 features of side ``me`` into ``out[row, base:]``."""
    occupied, _, made, _, _, pips, in_play, back, rear = state_me
    o_occ, o_single, o_made, o_eblots, o_emade, _, _, _, o_rear = state_other
    q = 25 - o_rear
    beyond_count = np.int64(0)
    beyond_pips = np.int64(0)
    for p in range(1, 26):
        n = counts[me, p] if p > q else 0
        beyond_count += n
        beyond_pips += p * n
    bar = counts[me, 25]
    out[row, base + 0] = np.float32(pips) / np.float32(200.0)
    out[row, base + 1] = np.float32((beyond_pips - (q - 1) * beyond_count) / 167.0)
    free = pips - beyond_pips
    if q >= 25:
        free -= 25 * bar
    out[row, base + 2] = np.float32(free) / np.float32(167.0)
    out[row, base + 3] = np.float32(rear / 25.0)
    out[row, base + 4] = np.float32(highest_bit(made) / 24.0)
    out[row, base + 5] = tables[TABLE_FORWARD_ANCHOR, (made >> 13) & window_mask]

    p1, p2, loss = shots(o_occ, counts[other, 25], o_single, o_eblots, ~o_emade)
    out[row, base + 6] = np.float32(p1) / f36
    out[row, base + 7] = np.float32(p2) / f36
    out[row, base + 8] = np.float32(loss) / np.float32(24 * 36)

    mobility = 0.0  # integer-valued: exact in any order
    rest = occupied & mobility_points
    while rest:
        p = lowest_bit(rest)
        rest &= rest - 1
        pattern = (o_made >> (26 - p)) & window_mask
        mobility += counts[me, p] * (p - 6) * tables[TABLE_FULL_ROLL_ROLLS, pattern]
    out[row, base + 16] = np.float32(mobility) / np.float32(3600.0)
    if rear > 0:
        pattern = (o_made >> (26 - rear)) & window_mask
        out[row, base + 9] = tables[TABLE_FULL_ROLL, pattern]
        out[row, base + 10] = tables[TABLE_ESCAPES_PAST, pattern]
    else:
        out[row, base + 9] = 1.0
        out[row, base + 10] = 1.0
    least = f36
    aleast = f36
    for s in range(10):
        value = tables[TABLE_FULL_ROLL_ROLLS, (made >> (s + 1)) & window_mask]
        if value < least:
            least = value
        if s >= q and value < aleast:
            aleast = value
    contain = f1 - least / f36
    out[row, base + 11] = contain
    out[row, base + 12] = contain * contain
    acontain = f1 - aleast / f36
    out[row, base + 13] = acontain
    out[row, base + 14] = acontain * acontain

    run = made
    longest = 1 if run != 0 else 0
    for _ in range(6):
        run = run & (run >> 1)
        if run != 0:
            longest += 1
    out[row, base + 15] = np.float32(longest / 6.0)
    # sum of (p - 1) over the made points: bit k of p, counted by popcounts
    made_pips = (
        popcount(made & 0xAAAAAAAA)
        + 2 * popcount(made & 0xCCCCCCCC)
        + 4 * popcount(made & 0xF0F0F0F0)
        + 8 * popcount(made & 0xFF00FF00)
        + 16 * popcount(made & 0xFFFF0000)
        - popcount(made)
    )
    out[row, base + 17] = np.float32(pips - in_play - 2 * made_pips) / np.float32(167.0)
    out[row, base + 18] = np.float32(popcount(made & 0b1111110) / 6.0)
    out[row, base + 19] = np.float32(min(bar, 4) / 4.0)
    off = counts[me, 0]
    out[row, base + 20] = np.float32(min(off, 5)) / np.float32(5.0)
    out[row, base + 21] = np.float32(min(max(off - 5, 0), 5)) / np.float32(5.0)
    out[row, base + 22] = np.float32(min(max(off - 10, 0), 5)) / np.float32(5.0)
    their_home = (o_made >> 1) & 63
    out[row, base + 23] = tables[TABLE_ENTER, their_home] if bar > 0 else 0.0
    out[row, base + 24] = tables[TABLE_ENTER2, their_home]
    anchors = popcount((made >> 19) & 63)
    out[row, base + 25] = np.float32(back - 3) / np.float32(8.0) if anchors >= 2 else 0.0
    out[row, base + 26] = np.float32(back) / np.float32(8.0) if anchors == 1 else 0.0


@njit(cache=True, nogil=True)
def raw_side(out, row, base, counts, side, tables, bar, off):
    """``encoding._raw_side_into`` of one row: 98 units from ``out[row, base]``."""
    for p in range(1, 25):
        n = min(counts[side, p], max_count)
        for u in range(4):
            out[row, base + 4 * (p - 1) + u] = tables[TABLE_POINT, 4 * n + u]
    out[row, base + 96] = np.float32(bar) * np.float32(0.5)
    out[row, base + 97] = np.float32(off) / np.float32(15.0)


@njit(cache=True, nogil=True)
def fill(boards, out, with_raw, tables):
    """Every row of ``boards (B, 30) int8``: the expert features into ``out (B, F)
    float32``, after Tesauro's 198 raw inputs when ``with_raw`` (the ``expert``
    encoding, ``F = 254``; else ``F = 56``)."""
    counts = np.zeros((2, 26), dtype=np.int64)
    base = raw_size if with_raw else 0
    for row in range(boards.shape[0]):
        # counts[0]: the mover in its numbering (0 = off, 25 = bar); counts[1]: the
        # opponent in its own numbering (flip: its point k is the mover's 25 - k)
        for i in range(26):
            v = np.int64(boards[row, i])
            counts[0, i] = v if v > 0 else 0
        for i in range(1, 25):
            v = -np.int64(boards[row, 25 - i])
            counts[1, i] = v if v > 0 else 0
        v = -np.int64(boards[row, 27])
        counts[1, 0] = v if v > 0 else 0
        v = -np.int64(boards[row, 26])
        counts[1, 25] = v if v > 0 else 0
        if with_raw:
            raw_side(
                out, row, 0, counts, 0, tables, np.int64(boards[row, 25]), np.int64(boards[row, 0])
            )
            raw_side(
                out,
                row,
                raw_side_size,
                counts,
                1,
                tables,
                -np.int64(boards[row, 26]),
                -np.int64(boards[row, 27]),
            )
            out[row, raw_size - 2] = 1.0
            out[row, raw_size - 1] = 0.0
        mine = side_state(counts, 0, 1)
        theirs = side_state(counts, 1, 0)
        half(out, row, base, counts, 0, 1, mine, theirs, tables)
        half(out, row, base + side_size, counts, 1, 0, theirs, mine, tables)
        out[row, base + 2 * side_size] = 1.0 if mine[8] + theirs[8] > 25 else 0.0
        lead = np.float32(theirs[5] - mine[5]) / np.float32(100.0)
        out[row, base + 2 * side_size + 1] = min(max(lead, np.float32(-1.0)), np.float32(1.0))
