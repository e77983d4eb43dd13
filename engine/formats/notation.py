"""Move notation: read, print and match plays written as from/to pairs.

docs/rules.md 8: "A move is a list of from/to pairs from the mover's view:
``24/18 13/11``. ``bar`` (or 25) is the bar, ``off`` (or 0) is off the board. A
hit may be marked with ``*`` (``13/7*``). Repeated moves may be written
``8/5(2)``. One checker moving twice may be written in one step (``24/13`` for
6-5 through 18 or 19) or in full (``24/18 18/13``). Parsers accept all these
forms; printers write the GNU Backgammon style (``24/13``, ``8/5(2)``,
``13/7*``)."

Every point number is the mover's (the player on roll): 24 down to 1, 25 the
bar, 0 off. Boards are ``(30,)`` integer arrays or sequences in the layout of
``tdgammon.engine.rules.board``, seen from the mover (mover positive, opponent negative), and
always the board *before* the play.

Three entry points:

- ``parse_move(text)``: the from/to segments as written, no position needed.
- ``format_move(board, moves)``: GNU Backgammon style text of a play.
- ``match_move(board, dice, text)`` (``tdgammon.engine.formats.move_matching``):
  the legal ``Play`` (``legal_plays``) that the text denotes, or an
  ``IllegalMoveError`` saying why there is none.

Decisions (where docs/rules.md is silent):

- The empty play. ``parse_move`` reads ``""`` (or only spaces/commas),
  ``"pass"``, ``"no move"`` and ``"cannot move"`` (any case) as the empty
  play ``()``. ``format_move`` prints the empty play as ``""`` (as the UBGI
  protocol does: "an empty line if there is no legal move"). ``match_move``
  accepts the empty play only when no play is legal (docs/rules.md 2.6: "If
  nothing can be played, the turn passes") and then returns
  ``Play((), board)``; when a play exists it raises IllegalMoveError.
- Hit marks. ``*`` may follow any point of the board (1..24); on the bar or
  off it is a FormatError. ``match_move`` treats marks as optional, but a
  ``*`` on a point where the play hits nothing is an error. When a string fits
  several legal plays with different results (``24/13`` with 6-5 where 18 and
  19 both hold blots, or where only one of them does), the play whose hits are
  exactly the marked points is chosen; if that does not single one out the
  string is ambiguous and the error lists the candidates. So ``24/13``
  written without a mark means the path that hits nothing, as GNU Backgammon
  would print it.
- Repeats. ``(n)`` applies to the whole token it ends: ``24/18/13(2)`` is
  two checkers each moving 24/18/13. ``n`` is 1..4.
- Printer facts taken from GNU Backgammon's ``FormatMove`` (drawboard.c):
  moves are sorted by from-point, highest first (to-point, highest first,
  breaks ties), before the steps of one checker are joined; a step is joined
  to an earlier move ending where it starts; the joining point is kept (and
  starred) only if a blot was hit there, else left out (``24/18 18/13`` ->
  ``24/13``); identical paths are then grouped with ``(n)``, which comes after
  the ``*`` (``13/7*(2)``); each hit point is starred once.
- ``format_move_plain`` prints a play the UBGI way (docs/formats.md: "every
  partial move written out ... no ``*``"), in play order.
- ``match_move`` takes the legal plays as an optional argument so callers
  that already have them (CLI, tests) need not generate them again.
- Variants (docs/rules.md 7). A checker entering from the hand is written
  ``hand/20`` (source 28, the board index of the hand); ``hand`` is only a
  from-point and never carries a ``*``. Every function takes an optional
  ``variant`` (default standard) and then checks legality by that variant's
  rules. The Acey-Deucey 1-2 is one play of up to six moves: the 1 and the 2,
  then the named double, which may be written as a token ``d-d:`` between
  them (``24/23 24/22 6-6: 13/7(4)``; ``format_move`` prints it so when given
  the named double). Without the token every double is tried; when the same
  board can be reached with and without the extra roll, the extra roll wins.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.movegen.reference import (
    Move,
    Play,
    apply_move,
)
from tdgammon.engine.rules.board import BOARD_SIZE, MOVER_BAR, MOVER_HAND, MOVER_OFF
from tdgammon.engine.rules.dice import MAX_MOVES, MAX_MOVES_ACEY_DEUCEY
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.variants import Variant, get_variant

_NAMED_DOUBLE_RE = re.compile(r"([1-6])-([1-6]):")

EMPTY_PLAY_WORDS = frozenset({"", "pass", "no move", "cannot move"})
"""Texts (lower case, single spaces, commas dropped) that mean the empty play."""

_POINT_RE = re.compile(r"(bar|off|hand|[0-9]+)(\*?)")
_TOKEN_RE = re.compile(r"([^()]*)(?:\(([^()]*)\))?")


@dataclass(frozen=True)
class ParsedMove:
    """A move string read without a position.

    segments: the written from/to pairs, in written order, chains split
    (``24/18/13`` -> ``(24, 18), (18, 13)``) and repeats expanded.
    hit_marks: the points written with a ``*`` (1..24).
    """

    segments: tuple[Move, ...]
    hit_marks: frozenset[int]
    named_double: int = 0
    split: int = 0
    """Acey-Deucey: the double named by a ``d-d:`` token (0: none) and the
    number of segments written before it."""


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------


def point_name(point: int) -> str:
    """``"bar"`` for 25, ``"off"`` for 0, ``"hand"`` for 28, else the number."""
    if point == MOVER_HAND:
        return "hand"
    if point == MOVER_BAR:
        return "bar"
    if point == MOVER_OFF:
        return "off"
    return str(point)


def _normalize(text: str) -> str:
    """Lower case, commas as spaces, no spaces around ``/ ( ) *``."""
    t = text.lower().replace(",", " ")
    t = re.sub(r"\s*/\s*", "/", t)
    t = re.sub(r"\s*\(\s*", "(", t)
    t = re.sub(r"\s*\)", ")", t)
    t = re.sub(r"\s*\*", "*", t)
    return " ".join(t.split())


def _parse_point(part: str, token: str) -> tuple[int, bool]:
    match = _POINT_RE.fullmatch(part)
    if match is None:
        raise FormatError(
            f"{part!r} in {token!r} is not a point: write 1-24, bar (or 25) or off (or 0)"
        )
    word, star = match.groups()
    if word == "hand":
        point = MOVER_HAND
    elif word == "bar":
        point = MOVER_BAR
    elif word == "off":
        point = MOVER_OFF
    elif len(word) > 2 or int(word) > MOVER_BAR:
        raise FormatError(f"point {word} in {token!r} is outside 0..25 (25 is the bar, 0 is off)")
    else:
        point = int(word)
    if star and point in (MOVER_BAR, MOVER_OFF, MOVER_HAND):
        raise FormatError(
            f"'*' after {point_name(point)} in {token!r}: a hit happens on a point 1-24, "
            "never on the bar or off the board"
        )
    return point, bool(star)


def _parse_token(token: str) -> tuple[list[Move], set[int]]:
    match = _TOKEN_RE.fullmatch(token)
    if match is None:
        raise FormatError(f"cannot read {token!r}: write a move as from/to, such as 13/7 or 8/5(2)")
    chain, count_text = match.groups()
    parts = chain.split("/")
    if len(parts) < 2:
        raise FormatError(f"{token!r} is not a move: write from/to, such as 13/7")
    points: list[int] = []
    marks: set[int] = set()
    for part in parts:
        point, star = _parse_point(part, token)
        points.append(point)
        if star:
            marks.add(point)
    for index, point in enumerate(points):
        if point == MOVER_OFF and index < len(points) - 1:
            raise FormatError(
                f"{token!r}: off (0) cannot be a from-point; a checker borne off moves no more"
            )
        if point == MOVER_BAR and index > 0:
            raise FormatError(
                f"{token!r}: the bar (25) cannot be a to-point; only a hit checker goes there"
            )
        if point == MOVER_HAND and index > 0:
            raise FormatError(
                f"{token!r}: the hand cannot be a to-point; checkers only enter from it"
            )
    segments = list(itertools.pairwise(points))
    for source, target in segments:
        if source <= target:
            raise FormatError(
                f"{token!r}: from-point {point_name(source)} must be above its to-point "
                f"{point_name(target)} (the mover moves from 24 down to 1, then off)"
            )
    if count_text is not None:
        if not re.fullmatch(r"[0-9]{1,2}", count_text) or not 1 <= int(count_text) <= MAX_MOVES:
            raise FormatError(
                f"{token!r}: repeat count ({count_text}) must be a number 1..{MAX_MOVES}"
            )
        segments = segments * int(count_text)
    return segments, marks


def parse_move_marked(text: str, variant: str | Variant | None = None) -> ParsedMove:
    """Parse a move string (docs/rules.md 8) into its segments and its ``*`` marks.

    See ``parse_move`` for the forms accepted. Raises FormatError.
    """
    if not isinstance(text, str):
        raise FormatError(f"a move must be a string, got {type(text).__name__}")
    variant = get_variant(variant)
    most = MAX_MOVES_ACEY_DEUCEY if variant.acey_deucey_roll else MAX_MOVES
    normal = _normalize(text)
    if normal in EMPTY_PLAY_WORDS:
        return ParsedMove((), frozenset())
    segments: list[Move] = []
    marks: set[int] = set()
    named, split = 0, 0
    for token in normal.split(" "):
        named_token = _NAMED_DOUBLE_RE.fullmatch(token)
        if named_token:
            high, low = (int(x) for x in named_token.groups())
            if not variant.acey_deucey_roll:
                raise FormatError(
                    f"{token!r}: naming a double is only for the Acey-Deucey 1-2 (docs/rules.md 7)"
                )
            if high != low or named:
                raise FormatError(f"{token!r}: name one double after the 1 and the 2, such as 6-6:")
            named, split = high, len(segments)
            continue
        token_segments, token_marks = _parse_token(token)
        segments.extend(token_segments)
        marks |= token_marks
    if len(segments) > most:
        words = "six (the Acey-Deucey 1-2)" if most == MAX_MOVES_ACEY_DEUCEY else "four"
        raise FormatError(
            f"{text.strip()!r} has {len(segments)} moves, more than {most}: "
            f"a roll plays at most {words}"
        )
    return ParsedMove(tuple(segments), frozenset(marks), named, split)


def parse_move(text: str, variant: str | Variant | None = None) -> tuple[Move, ...]:
    """Read a move string into the written from/to segments, mover's numbering.

    Accepts (case-insensitive, separated by spaces and/or commas):
    ``24/18 13/11``; ``bar/22`` or ``25/22``; ``6/off`` or ``6/0``; ``*`` after
    any point 1..24 (``13/7*``, ``24/18*/13``); repeats ``8/5(2)`` (1..4, for the
    whole token); chains ``24/18/13`` -> ``(24, 18), (18, 13)``; one checker
    in one step ``24/13`` -> ``(24, 13)``. ``""``, ``"pass"``, ``"no move"``
    and ``"cannot move"`` are the empty play ``()``. Variants: ``hand/20`` (28 =
    the hand); the Acey-Deucey ``d-d:`` token (module docstring), up to six moves.

    Returns a tuple of ``(from, to)`` pairs (25 = bar, 0 = off) in written
    order, at most four (six for Acey-Deucey). Raises FormatError naming the problem: unreadable
    text, a point outside 0..25, a from-point not above its to-point, off as a
    source, the bar as a destination, a bad repeat count, more than 4 moves.
    """
    return parse_move_marked(text, variant).segments


# --------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------


def _check_moves(moves) -> list[Move]:
    if isinstance(moves, Play):
        moves = moves.moves
    try:
        pairs = [(int(a), int(b)) for a, b in moves]
    except (TypeError, ValueError):
        raise FormatError(f"moves must be (from, to) pairs, got {moves!r}") from None
    if len(pairs) > MAX_MOVES_ACEY_DEUCEY:
        raise FormatError(f"{len(pairs)} moves, more than {MAX_MOVES_ACEY_DEUCEY}")
    for source, target in pairs:
        source_ok = 1 <= source <= MOVER_BAR or source == MOVER_HAND
        if not (source_ok and MOVER_OFF <= target < min(source, MOVER_BAR)):
            raise FormatError(
                f"({source}, {target}) is not a move from 28 (hand) or 25..1 down to 24..0"
            )
    return pairs


def board_as_list(board) -> list[int]:
    """``board`` as a list of 30 ints after checking its shape (FormatError if wrong)."""
    values = np.asarray(board)
    if values.shape != (BOARD_SIZE,):
        raise FormatError(f"board must have shape ({BOARD_SIZE},), got {values.shape}")
    return [int(x) for x in values]


def hit_points(board: list[int], moves: Sequence[Move]) -> set[int]:
    """Points (1..24) where ``moves`` land on an opposing blot of ``board``.

    docs/rules.md 2.4: "Landing on a blot hits it: the hit checker goes to the bar."
    Opposing checkers do not move during the mover's turn except when hit, so
    the board before the play decides, whatever order the moves are given in.
    """
    return {target for _, target in moves if target != MOVER_OFF and board[target] == -1}


def format_move(
    board: np.ndarray | Sequence[int], moves: Sequence[Move] | Play, named_double: int = 0
) -> str:
    """Print a play in GNU Backgammon style: ``24/13``, ``8/5(2) 6/3(2)``, ``24/18*/13``.

    board: ``(30,)`` ints, mover's view, the board *before* the play (it tells
    where blots are hit). moves: ``(from, to)`` pairs in play order, 25 = bar,
    0 = off (``Play.moves``), or a ``Play``. Output: paths sorted by from-point,
    highest first; one checker's consecutive steps joined, keeping an
    intermediate point only where it hit (``24/18*/13``); each hit point starred
    once; identical paths grouped ``(n)``; ``bar`` and ``off`` as words. The
    empty play prints as ``""``. Raises FormatError for malformed moves.

    named_double: Acey-Deucey 1-2 (a ``Play`` carries its own): the first two
    moves are the 1 and the 2, printed before a ``d-d:`` token and the rest.
    """
    if isinstance(moves, Play) and not named_double:
        named_double = moves.named_double
    pairs = _check_moves(moves)
    if named_double and len(pairs) >= 2:
        first = format_move(board, pairs[:2])
        after = list(board_as_list(board))
        for move in pairs[:2]:
            after = apply_move(after, move)
        rest = format_move(after, pairs[2:])
        return " ".join(w for w in (first, f"{named_double}-{named_double}:", rest) if w)
    if not pairs:
        return ""
    hits = hit_points(board_as_list(board), pairs)
    # GNU Backgammon: "Order the moves in decreasing order of source point."
    ordered = sorted(pairs, key=lambda move: (move[0], move[1]), reverse=True)
    paths: list[list[int] | None] = [[a, b] for a, b in ordered]
    for i, first in enumerate(paths):
        for j in range(i + 1, len(paths)):
            second = paths[j]
            if first is None or second is None or first[-1] != second[0]:
                continue
            if first[-1] in hits:
                first.append(second[1])  # the joining point hit: keep it (24/18*/13)
            else:
                first[-1] = second[1]  # no hit: leave it out (24/18 18/13 -> 24/13)
            paths[j] = None
    groups: list[list] = []  # [path, count], in order of first appearance
    for path in paths:
        if path is None:
            continue
        for group in groups:
            if group[0] == path:
                group[1] += 1
                break
        else:
            groups.append([path, 1])
    starred: set[int] = set()
    words = []
    for path, count in groups:
        parts = [point_name(path[0])]
        for point in path[1:]:
            part = point_name(point)
            if point in hits and point not in starred:
                part += "*"
                starred.add(point)
            parts.append(part)
        words.append("/".join(parts) + (f"({count})" if count > 1 else ""))
    return " ".join(words)


def format_move_plain(moves: Sequence[Move] | Play) -> str:
    """Print a play with every single-die move written out, in play order, no ``*``.

    The UBGI form (docs/formats.md: ``24/18 18/13``, never ``24/13``; ``8/5 8/5``).
    moves: ``(from, to)`` pairs (25 = bar, 0 = off) or a ``Play``. The empty
    play prints as ``""``.
    """
    return " ".join(f"{point_name(a)}/{point_name(b)}" for a, b in _check_moves(moves))
