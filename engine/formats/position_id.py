"""GNU Backgammon Position ID: the checkers of one board in 14 characters.

Layout (docs/formats.md, "GNU Backgammon Position ID"): two 25-slot arrays, one per
player, each in that player's own numbering (slots 0..23 = its points 1..24,
slot 24 = its bar). The bit string holds first the player NOT on roll, then
the player on roll; for each slot, one 1-bit per checker and then a 0-bit.
It is padded with 0-bits to 80 bits, packed little-endian by bit (bit k is
bit k % 8 of byte k // 8), base64-encoded, and the two trailing ``=`` dropped.

The GNU Backgammon manual words the order the other way round ("starting at
the ace point of the player on roll"), but GNU Backgammon itself and the
project's test vectors (tests/data/movegen_vectors.jsonl) put the player not
on roll first; so does this module.

Mapping to the board layout of ``tdgammon.engine.rules.board`` (mover = player on roll):

=================  ====================================
bit-string slot    board index (mover's view)
=================  ====================================
opponent slot s    ``24 - s`` for s in 0..23 (opponent's point s + 1 is the
                   mover's point 24 - s); slot 24 -> ``OPPONENT_BAR``
mover slot s       ``s + 1`` for s in 0..23; slot 24 -> ``MOVER_BAR``
=================  ====================================

Checkers not on the board are borne off; checkers "in hand" (variants) cannot
be written.
"""

from __future__ import annotations

import base64
import binascii

import numpy as np

from tdgammon.engine.rules.board import (
    BOARD_DTYPE,
    BOARD_SIZE,
    CHECKERS_PER_SIDE,
    MOVER_BAR,
    MOVER_HAND,
    MOVER_OFF,
    OPPONENT_BAR,
    OPPONENT_HAND,
    OPPONENT_OFF,
    validate,
)
from tdgammon.engine.rules.errors import FormatError, InvalidBoardError

POSITION_ID_LENGTH = 14
"""Characters in a Position ID (10 bytes of base64 without the ``==``)."""
KEY_BYTES = 10
KEY_BITS = 80
SLOTS = 25
"""Slots per player: 24 points and the bar."""

BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_BASE64_SET = frozenset(BASE64_ALPHABET)

# Board index of each bit-string slot, per player (module docstring table).
OPPONENT_SLOT_INDEX = tuple(24 - s for s in range(24)) + (OPPONENT_BAR,)
MOVER_SLOT_INDEX = tuple(s + 1 for s in range(24)) + (MOVER_BAR,)


def check_base64(text: object, length: int, what: str) -> str:
    """Return ``text`` stripped after checking it is ``length`` base64 characters.

    Raises FormatError naming ``what`` (e.g. "Position ID") and the problem.
    """
    if not isinstance(text, str):
        raise FormatError(f"{what} must be a string, got {type(text).__name__}")
    raw = text.strip()
    if not raw:
        raise FormatError(f"{what} is empty")
    if len(raw) != length:
        raise FormatError(f"{what} must be {length} characters, got {len(raw)}: {_show(raw)}")
    bad = sorted({c for c in raw if c not in _BASE64_SET})
    if bad:
        shown = "".join(bad)
        raise FormatError(
            f"{what} {_show(raw)} has characters outside the base64 alphabet: {shown!r}"
        )
    return raw


def base64_to_int(raw: str, n_bytes: int) -> int:
    """Decode checked base64 text into its key as a little-endian integer.

    Bit k of the result is bit k % 8 of byte k // 8 (docs/formats.md). Trailing bits
    of the last character beyond ``n_bytes`` must be zero (FormatError).
    """
    padding = "=" * (-len(raw) % 4)
    try:
        data = base64.b64decode(raw + padding, validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - alphabet checked
        raise FormatError(f"{_show(raw)} is not valid base64: {exc}") from None
    spare_bits = len(raw) * 6 - n_bytes * 8
    if spare_bits and BASE64_ALPHABET.index(raw[-1]) & ((1 << spare_bits) - 1):
        raise FormatError(
            f"{_show(raw)}: its last character {raw[-1]!r} sets bits beyond the "
            f"{n_bytes * 8} that the key holds"
        )
    return int.from_bytes(data[:n_bytes], "little")


def int_to_base64(key: int, n_bytes: int) -> str:
    """Encode a little-endian key of ``n_bytes`` bytes as base64 without padding."""
    return base64.b64encode(key.to_bytes(n_bytes, "little")).decode("ascii").rstrip("=")


def _show(raw: str, limit: int = 40) -> str:
    """``raw`` quoted for an error message, shortened when long."""
    return repr(raw if len(raw) <= limit else raw[:limit] + "...")


def encode_position_id(board: np.ndarray, checkers_per_side: int = CHECKERS_PER_SIDE) -> str:
    """The 14-character GNU Backgammon Position ID of one board.

    board: ``(30,)`` signed ints, the mover's view (mover = player on roll),
    layout of ``tdgammon.engine.rules.board``. Borne-off checkers are implied; the board must
    be valid (``tdgammon.engine.rules.board.validate`` with ``checkers_per_side``) and hold no
    checkers in hand. Raises InvalidBoardError or FormatError.
    """
    b = np.asarray(board)
    if b.shape != (BOARD_SIZE,):
        raise InvalidBoardError(f"board must have shape ({BOARD_SIZE},), got {b.shape}")
    validate(b, checkers_per_side)
    b = b.astype(np.int64)
    if b[MOVER_HAND] or b[OPPONENT_HAND]:
        raise FormatError("a Position ID cannot record checkers in hand (variants)")
    key = 0
    bit = 0
    for slots, sign in ((OPPONENT_SLOT_INDEX, -1), (MOVER_SLOT_INDEX, 1)):
        for index in slots:
            count = max(0, int(sign * b[index]))
            key |= ((1 << count) - 1) << bit
            bit += count + 1
    return int_to_base64(key, KEY_BYTES)


def decode_position_id(text: str, checkers_per_side: int = CHECKERS_PER_SIDE) -> np.ndarray:
    """Read a GNU Backgammon Position ID into a board.

    Returns ``(30,) int8``, the view of the player on roll (the mover);
    checkers not on the board are borne off (``MOVER_OFF`` / ``OPPONENT_OFF``).
    Raises FormatError for a malformed ID (length, characters, bits past the
    last slot) and InvalidBoardError for an impossible board (more than
    ``checkers_per_side`` checkers for a side, both players on one point, no
    checker left for either player: ``AAAAAAAAAAAAAA``).
    """
    raw = check_base64(text, POSITION_ID_LENGTH, "Position ID")
    key = base64_to_int(raw, KEY_BYTES)
    counts: list[int] = []
    run = 0
    bit = 0
    while len(counts) < 2 * SLOTS:
        if bit >= KEY_BITS:
            raise InvalidBoardError(
                f"Position ID {raw!r} holds too many checkers: its {KEY_BITS} bits "
                f"end before the {2 * SLOTS} slots are complete"
            )
        if (key >> bit) & 1:
            run += 1
        else:
            counts.append(run)
            run = 0
        bit += 1
    if key >> bit:
        raise FormatError(
            f"Position ID {raw!r} has 1-bits after the last slot (bit {bit} onward must be 0)"
        )
    board = np.zeros(BOARD_SIZE, dtype=np.int64)
    sides = (
        ("player not on roll (opponent)", counts[:SLOTS], OPPONENT_SLOT_INDEX, -1, OPPONENT_OFF),
        ("player on roll (mover)", counts[SLOTS:], MOVER_SLOT_INDEX, 1, MOVER_OFF),
    )
    for who, side_counts, slots, sign, off_index in sides:
        total = sum(side_counts)
        if total > checkers_per_side:
            raise InvalidBoardError(
                f"Position ID {raw!r}: the {who} has {total} checkers, "
                f"more than {checkers_per_side}"
            )
        for index, count in zip(slots, side_counts, strict=True):
            if not count:
                continue
            if board[index]:
                raise InvalidBoardError(
                    f"Position ID {raw!r}: both players have checkers on the mover's "
                    f"point {index} (the opponent's point {25 - index})"
                )
            board[index] = sign * count
        board[off_index] = sign * (checkers_per_side - total)
    try:
        validate(board, checkers_per_side)  # e.g. both players borne off (an empty board)
    except InvalidBoardError as exc:
        raise InvalidBoardError(f"Position ID {raw!r}: {exc}") from None
    return board.astype(BOARD_DTYPE)
