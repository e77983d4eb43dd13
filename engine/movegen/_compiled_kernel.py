"""The numba kernel of ``tdgammon.engine.movegen.compiled`` (imported only there,
through ``import_kernel``, and only when numba is wanted: importing this module
imports numba). ``generate`` walks each (board, roll) pair depth-first; the
sets of source columns are 25-bit masks, iterated lowest bit first (a De
Bruijn table), so a node costs a few instructions per legal move rather than
a scan of every point.

Module-level functions, so that numba's on-disk cache (``cache=True``, in
``__pycache__`` or the user's cache directory) serves every later process.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tdgammon.engine.rules.board import BOARD_SIZE, MOVER_BAR, OPPONENT_BAR
from tdgammon.engine.rules.dice import MAX_MOVES

bar = MOVER_BAR
opponent_bar = OPPONENT_BAR
size = BOARD_SIZE
max_moves = MAX_MOVES
columns = 25
"""Source columns: points 1..24 (board index = column + 1) and the bar (column 24)."""
bar_bit = 1 << 24
point_bits = (1 << 24) - 1
everything = bar_bit | point_bits
table_bits = 11
"""Hash table of one pair's two-dice plays: 2,048 slots for at most 2 x 25 x 25 plays."""
de_bruijn = 0x077CB531
"""The index of the lowest set bit of a 32-bit mask ``m`` is
``lowest_bit[((m & -m) * de_bruijn mod 2**32) >> 27]`` (``LOWEST_BIT``)."""
LOWEST_BIT = np.zeros(32, dtype=np.int64)
_POWERS = np.uint64(1) << np.arange(32, dtype=np.uint64)
_SLOTS = (_POWERS * np.uint64(de_bruijn) & np.uint64(0xFFFFFFFF)) >> np.uint64(27)
LOWEST_BIT[_SLOTS] = np.arange(32)
HIGHEST_HOME = np.array([0] + [int(m).bit_length() for m in range(1, 64)], dtype=np.int64)
"""The highest occupied home point of a 6-bit mask of points 1..6 (0: none)."""


@njit(cache=True, nogil=True)
def column_of(bit, lowest_bit):
    """The source column of a one-bit mask ``bit`` (De Bruijn lookup)."""
    return lowest_bit[((bit * de_bruijn) & 0xFFFFFFFF) >> 27]


@njit(cache=True, nogil=True)
def occupied_mask(board):
    """Bit ``c`` set where source column ``c`` holds a mover checker."""
    mask = np.int64(0)
    for column in range(columns):
        if board[column + 1] > 0:
            mask |= np.int64(1) << column
    return mask


@njit(cache=True, nogil=True)
def sources(level, row, mask, allowed, die, lowest_bit, highest_home):
    """Mask of the source columns in ``allowed`` whose checker may move
    ``die`` on board ``level[row]`` (occupied columns ``mask``)."""
    rest = mask & allowed
    # 2.5: "A player with any checker on the bar must enter it before
    # moving anything else."
    if mask & bar_bit:
        rest &= bar_bit
    legal = np.int64(0)
    while rest:
        low = rest & -rest
        column = column_of(low, lowest_bit)
        rest ^= low
        pip = column + 1
        if pip > die:
            # 2.2: "It may not end on a point held by two or more opposing
            # checkers."
            if level[row, pip - die] >= -1:
                legal |= low
        elif (mask >> 6) == 0:
            # 3.1: bearing off only while every checker is in the home board;
            # 3.2: "A die of n bears off a checker from point n ... if no
            # checker stands higher than n, the die bears off a checker from
            # the highest occupied point."
            if pip == die or pip == highest_home[mask & 63]:
                legal |= low
    return legal


@njit(cache=True, nogil=True)
def move(level, row, column, die, weights, key, mask):
    """``level[row + 1]`` = ``level[row]`` after moving the checker of
    ``column`` by ``die``; returns (target index, 0 when borne off; the
    child's key; the child's occupied mask)."""
    for index in range(size):
        level[row + 1, index] = level[row, index]
    pip = column + 1
    target = pip - die if pip > die else 0
    level[row + 1, pip] -= 1
    if level[row + 1, pip] == 0:
        mask ^= np.int64(1) << column
    key = key - weights[pip] + weights[target]
    # 2.4: "Landing on a blot hits it: the hit checker goes to the bar."
    if target > 0 and level[row + 1, target] == -1:
        level[row + 1, target] = 1
        level[row + 1, opponent_bar] -= 1
        key = key + weights[target] - weights[opponent_bar]
    else:
        level[row + 1, target] += 1
    if target > 0:
        mask |= np.int64(1) << (target - 1)
    return target, key, mask


@njit(cache=True, nogil=True)
def grow(out_boards, out_parents, out_moves, count):
    grown = 2 * len(out_parents)
    boards2 = np.empty((grown, size), dtype=np.int8)
    boards2[:count] = out_boards[:count]
    parents2 = np.empty(grown, dtype=np.int64)
    parents2[:count] = out_parents[:count]
    moves2 = np.empty((grown, max_moves, 2), dtype=np.int8)
    moves2[:count] = out_moves[:count]
    return boards2, parents2, moves2


@njit(cache=True, nogil=True)
def write(out_boards, out_parents, out_moves, count, level, row, parent, path, depth):
    for index in range(size):
        out_boards[count, index] = level[row, index]
    out_parents[count] = parent
    for k in range(max_moves):
        out_moves[count, k, 0] = path[k, 0] if k < depth else -1
        out_moves[count, k, 1] = path[k, 1] if k < depth else -1


@njit(cache=True, nogil=True)
def same_board(out_boards, other, level, row):
    for index in range(size):
        if out_boards[other, index] != level[row, index]:
            return False
    return True


@njit(cache=True, nogil=True)
def generate(boards, dice, weights, lowest_bit, highest_home):
    """See ``tdgammon.engine.movegen.compiled.generate_pairs``."""
    batch = len(boards)
    capacity = 32 * batch + 2048
    out_boards = np.empty((capacity, size), dtype=np.int8)
    out_parents = np.empty(capacity, dtype=np.int64)
    out_moves = np.empty((capacity, max_moves, 2), dtype=np.int8)
    count = 0
    slots = 1 << table_bits
    table = np.zeros(slots, dtype=np.int64)
    stamp = np.zeros(slots, dtype=np.int64)
    table_key = np.zeros(slots, dtype=np.int64)
    level = np.empty((max_moves + 1, size), dtype=np.int8)
    path = np.empty((max_moves, 2), dtype=np.int64)
    todo = np.zeros(max_moves + 1, dtype=np.int64)
    masks = np.zeros(max_moves + 1, dtype=np.int64)
    for parent in range(batch):
        if count + 2 * columns * columns > len(out_parents):
            out_boards, out_parents, out_moves = grow(out_boards, out_parents, out_moves, count)
        key = np.int64(0)
        for index in range(size):
            level[0, index] = boards[parent, index]
            key += weights[index] * np.int64(boards[parent, index])
        mask = occupied_mask(level[0])
        high = max(dice[parent, 0], dice[parent, 1])
        low = min(dice[parent, 0], dice[parent, 1])
        start = count
        if high != low:
            # two-dice plays, the larger die first, then the smaller die
            # first, in column order; each board once (the first seen)
            for order in range(2):
                first = high if order == 0 else low
                second = low if order == 0 else high
                rest1 = sources(level, 0, mask, everything, first, lowest_bit, highest_home)
                while rest1:
                    bit1 = rest1 & -rest1
                    rest1 ^= bit1
                    c1 = column_of(bit1, lowest_bit)
                    t1, key1, mask1 = move(level, 0, c1, first, weights, key, mask)
                    rest2 = sources(level, 1, mask1, everything, second, lowest_bit, highest_home)
                    while rest2:
                        bit2 = rest2 & -rest2
                        rest2 ^= bit2
                        c2 = column_of(bit2, lowest_bit)
                        t2, key2, _ = move(level, 1, c2, second, weights, key1, mask1)
                        slot = key2 & (slots - 1)
                        duplicate = False
                        while stamp[slot] == parent + 1:
                            if table_key[slot] == key2 and same_board(
                                out_boards, table[slot], level, 2
                            ):
                                duplicate = True
                                break
                            slot = (slot + 1) & (slots - 1)
                        if duplicate:
                            continue
                        stamp[slot] = parent + 1
                        table[slot] = count
                        table_key[slot] = key2
                        path[0, 0] = c1 + 1
                        path[0, 1] = t1
                        path[1, 0] = c2 + 1
                        path[1, 1] = t2
                        write(out_boards, out_parents, out_moves, count, level, 2, parent, path, 2)
                        count += 1
            if count > start:
                continue
            # 2.6: "the larger one must be played when it can be; if only
            # the smaller one can be played, play it"
            for die in (high, low):
                rest1 = sources(level, 0, mask, everything, die, lowest_bit, highest_home)
                while rest1:
                    bit1 = rest1 & -rest1
                    rest1 ^= bit1
                    c1 = column_of(bit1, lowest_bit)
                    t1, _, _ = move(level, 0, c1, die, weights, key, mask)
                    path[0, 0] = c1 + 1
                    path[0, 1] = t1
                    write(out_boards, out_parents, out_moves, count, level, 1, parent, path, 1)
                    count += 1
                if count > start:
                    break
            if count == start:
                # 2.6: "If nothing can be played, the turn passes."
                write(out_boards, out_parents, out_moves, count, level, 0, parent, path, 0)
                count += 1
            continue
        # 2.3: "Doubles are played four times." Depth-first, each move from
        # a source of no higher rank than the one before (the bar ranks
        # above every point); a leaf is a node with no legal move (or four
        # moves played); only the leaves of the greatest depth are kept.
        die = high
        best = 0
        depth = 0
        masks[0] = mask
        todo[0] = sources(level, 0, mask, everything, die, lowest_bit, highest_home)
        fresh = True
        while depth >= 0:
            if fresh and (depth == max_moves or todo[depth] == 0):
                if depth >= best:
                    if depth > best:
                        best = depth
                        count = start
                    if count == len(out_parents):
                        out_boards, out_parents, out_moves = grow(
                            out_boards, out_parents, out_moves, count
                        )
                    write(
                        out_boards, out_parents, out_moves, count, level, depth, parent, path, depth
                    )
                    count += 1
                depth -= 1
                fresh = False
                continue
            if depth == max_moves or todo[depth] == 0:
                depth -= 1
                continue
            bit = todo[depth] & -todo[depth]
            todo[depth] ^= bit
            column = column_of(bit, lowest_bit)
            target, _, child_mask = move(level, depth, column, die, weights, key, masks[depth])
            path[depth, 0] = column + 1
            path[depth, 1] = target
            depth += 1
            masks[depth] = child_mask
            if depth < max_moves:
                # sources ranked no higher: points below this one, or the bar
                # again after a move from the bar
                allowed = (bit << 1) - 1 if column < columns - 1 else everything
                todo[depth] = sources(
                    level, depth, child_mask, allowed, die, lowest_bit, highest_home
                )
            fresh = True
    return out_boards[:count], out_parents[:count], out_moves[:count]
