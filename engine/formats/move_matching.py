"""Matching a written move to the legal play it denotes (docs/rules.md 8).

``match_move(board, dice, text)`` returns the ``Play`` of ``legal_plays`` that
``text`` names, or raises ``IllegalMoveError`` saying why there is none: a
blocked point, a checker on the bar that must enter first, the larger die
that must be played, too few dice, an intermediate stop on a blocked point,
the bear-off rules, or an ambiguity (the candidates listed). Reading and
printing the notation is ``tdgammon.engine.formats.notation``; its module
docstring states the decisions where docs/rules.md is silent (the empty play,
optional hit marks, repeats, the Acey-Deucey ``d-d:`` token).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from tdgammon.engine.formats.notation import (
    ParsedMove,
    board_as_list,
    hit_points,
    parse_move_marked,
    point_name,
)
from tdgammon.engine.movegen.reference import (
    Move,
    Play,
    apply_move,
    can_bear_off,
    legal_plays,
    single_die_moves,
)
from tdgammon.engine.rules.board import MOVER_BAR, MOVER_HAND, MOVER_OFF, validate
from tdgammon.engine.rules.dice import check_dice
from tdgammon.engine.rules.errors import IllegalMoveError
from tdgammon.engine.rules.variants import STANDARD, Variant, get_variant


def _format_with_hits(board: list[int], moves: Sequence[Move]) -> str:
    """Every single-die move written out, in the given order, hits starred (for messages)."""
    hits = hit_points(board, moves)
    words = []
    for source, target in moves:
        star = "*" if target in hits else ""
        hits.discard(target)
        words.append(f"{point_name(source)}/{point_name(target)}{star}")
    return " ".join(words)


@dataclass(frozen=True)
class _Realization:
    """One way to play the written segments die by die: result, dice used, hit points."""

    board: tuple[int, ...]
    dice_used: tuple[int, ...]
    hits: frozenset[int]
    moves: tuple[Move, ...] = ()
    """The single-die moves, in the order played (the first way found)."""


def _roll_name(dice: tuple[int, int]) -> str:
    return f"{dice[0]}-{dice[1]}"


def _segment_name(segment: Move) -> str:
    return f"{point_name(segment[0])}/{point_name(segment[1])}"


def _die_list(dice: tuple[int, int]) -> list[int]:
    # docs/rules.md 2.3: "Doubles are played four times (6-6 is four moves of 6)."
    return [dice[0]] * 4 if dice[0] == dice[1] else sorted(dice, reverse=True)


def _dice_options(segment: Move, dice_list: list[int]) -> set[tuple[int, ...]]:
    """Multisets of dice (sorted tuples) with which one checker can travel ``segment``.

    To a point: the dice sum to the distance. Off: the dice reach 0 or below, and
    the checker is still on the board (>= 1) before the last die, played largest last.
    """
    source, target = segment
    source = MOVER_BAR if source == MOVER_HAND else source  # the hand enters like the bar
    options = set()
    for size in range(1, len(dice_list) + 1):
        for subset in itertools.combinations(dice_list, size):
            total = sum(subset)
            if target != MOVER_OFF:
                fits = total == source - target
            else:
                fits = total >= source and total - max(subset) < source
            if fits:
                options.add(tuple(sorted(subset)))
    return options


def _static_problem(
    segments: Sequence[Move], dice: tuple[int, int], dice_list: list[int] | None = None
) -> str | None:
    """Why the written segments cannot fit the dice at all, ignoring the board; or None."""
    dice_list = _die_list(dice) if dice_list is None else dice_list
    roll = _roll_name(dice)
    if len(segments) > len(dice_list):
        return (
            f"too many moves for the dice: {len(segments)} moves written, but {roll} "
            f"plays at most {len(dice_list)} (each move uses at least one die)"
        )
    options = []
    for segment in segments:
        found = _dice_options(segment, dice_list)
        if not found:
            source, target = segment
            source = MOVER_BAR if source == MOVER_HAND else source
            if target == MOVER_OFF:
                where = "the bar" if source == MOVER_BAR else f"point {source}"
                return (
                    f"{_segment_name(segment)}: bearing off from {where} needs at least "
                    f"{source} pips, more than the {sum(dice_list)} of the roll {roll}"
                )
            sums = sorted(
                {
                    sum(s)
                    for n in range(1, len(dice_list) + 1)
                    for s in itertools.combinations(dice_list, n)
                }
            )
            allowed = ", ".join(str(s) for s in sums[:-1]) + f" or {sums[-1]}"
            return (
                f"{_segment_name(segment)} is {source - target} pips, which no die or sum of "
                f"dice of the roll {roll} makes (one checker can move {allowed})"
            )
        options.append(sorted(found))

    def assign(index: int, left: list[int]) -> bool:
        if index == len(options):
            return True
        for option in options[index]:
            remaining = list(left)
            try:
                for die in option:
                    remaining.remove(die)
            except ValueError:
                continue
            if assign(index + 1, remaining):
                return True
        return False

    if not assign(0, dice_list):
        names = ", ".join(_segment_name(s) for s in segments)
        return (
            f"too many moves for the dice: {names} together need more dice than the roll "
            f"{roll} gives"
        )
    return None


def _step_problem(
    board: list[int], move: Move, die: int, final: bool, variant: Variant = STANDARD
) -> str:
    """Why one single-die ``move`` is illegal on ``board`` (it is known to be illegal)."""
    source, target = move
    # docs/rules.md 2.5: "A player with any checker on the bar must enter it before
    # moving anything else."
    if board[MOVER_BAR] > 0 and source != MOVER_BAR:
        count = board[MOVER_BAR]
        return (
            f"a checker on the bar must enter first ({count} on the bar); "
            "nothing else may move until it has entered"
        )
    if board[source] <= 0:
        if source == MOVER_HAND:
            return "no checker in hand"
        return "no checker on the bar" if source == MOVER_BAR else f"no checker on point {source}"
    # docs/rules.md 7, Dutch: "all 15 must be entered before any checker may move on".
    if variant.hand_enters_first and board[MOVER_HAND] > 0 and source != MOVER_HAND:
        return (
            f"all checkers in hand must enter first ({board[MOVER_HAND]} in hand) "
            f"before any checker may move on ({variant.name})"
        )
    # docs/rules.md 7, Dutch: "a player may not hit until at least one of his own
    # checkers has reached his home board".
    if (
        variant.no_hit_before_home
        and target != MOVER_OFF
        and board[target] == -1
        and not any(board[p] > 0 for p in range(MOVER_OFF, 7))
    ):
        return (
            f"no hitting on point {target} until one of your checkers has reached your "
            f"home board ({variant.name})"
        )
    if target != MOVER_OFF:
        # docs/rules.md 2.2: "It may not end on a point held by two or more opposing
        # checkers ... the point where the first die lands must itself be open".
        held = -board[target]
        if held >= 2:
            what = f"point {target}" if final else f"the intermediate stop {target}"
            return f"{what} is blocked (held by {held} opposing checkers)"
        return f"{source}/{target} with a {die} is not legal"
    # docs/rules.md 3.1: "Bearing off is allowed only while all of the mover's
    # remaining checkers are in the home board (none on the bar, none on points 7-24)."
    if not can_bear_off(board):
        outside = [str(p) for p in range(MOVER_BAR - 1, 6, -1) if board[p] > 0]
        if board[MOVER_HAND] > 0 and not outside:
            return f"cannot bear off while {board[MOVER_HAND]} checkers are still in hand"
        return (
            "cannot bear off while checkers are outside the home board "
            f"(on point{'s' if len(outside) > 1 else ''} {', '.join(outside)})"
        )
    # docs/rules.md 3.2: "If point n is empty, the die must be played by a checker on a
    # higher point if one exists".
    higher = [p for p in range(6, source, -1) if board[p] > 0]
    if higher:
        return (
            f"cannot bear off from point {source} with a {die} while a checker stands on "
            f"higher point {higher[0]} (a die larger than the point bears off only from "
            "the highest occupied point)"
        )
    return f"{source}/off with a {die} is not legal"


def _realize(
    board: list[int],
    dice: tuple[int, int],
    segments: Sequence[Move],
    variant: Variant = STANDARD,
    dice_list: list[int] | None = None,
):
    """Every way to play ``segments`` one die at a time, each die legal when played.

    Segments may be interleaved in any order and a segment spanning several dice
    may stop on any intermediate point. Returns ``(realizations, failures)``:
    the completed ways, and ``(dice played so far, segment, reason)`` for each
    illegal step that was tried.
    """
    legal_cache: dict[tuple[tuple[int, ...], int], list[Move]] = {}
    realizations: list[_Realization] = []
    failures: list[tuple[int, Move, str]] = []
    seen: set = set()
    dice_list = _die_list(dice) if dice_list is None else list(dice_list)
    total_dice = len(dice_list)

    def legal(state: tuple[int, ...], die: int) -> list[Move]:
        key = (state, die)
        if key not in legal_cache:
            legal_cache[key] = single_die_moves(state, die, variant)
        return legal_cache[key]

    def step(
        state: tuple[int, ...], left: tuple[int, ...], active: tuple, hits, used, path=()
    ) -> None:
        key = (state, left, active, hits)
        if key in seen:
            return
        seen.add(key)
        if not active:
            realizations.append(_Realization(state, used, hits, path))
            return
        depth = total_dice - len(left)
        for index, (origin, position, target) in enumerate(active):
            if index and active[index - 1] == active[index]:
                continue  # identical checkers on identical segments
            for die in sorted(set(left), reverse=True):
                landing = (MOVER_BAR if position == MOVER_HAND else position) - die
                if target != MOVER_OFF and landing < target:
                    continue  # overshoots this segment's to-point
                landing = max(landing, MOVER_OFF)
                final = landing == target
                move = (position, landing)
                if move not in legal(state, die):
                    reason = _step_problem(list(state), move, die, final, variant)
                    failures.append((depth, (origin, target), reason))
                    continue
                hit = landing != MOVER_OFF and state[landing] == -1
                rest = list(left)
                rest.remove(die)
                others = active[:index] + active[index + 1 :]
                if not final:
                    others = tuple(sorted(others + ((origin, landing, target),)))
                step(
                    tuple(apply_move(state, move)),
                    tuple(rest),
                    others,
                    hits | {landing} if hit else hits,
                    used + (die,),
                    path + (move,),
                )

    start = tuple(sorted((source, source, target) for source, target in segments))
    step(tuple(board), tuple(dice_list), start, frozenset(), ())
    return realizations, failures


def match_move(
    board: np.ndarray | Sequence[int],
    dice: Sequence[int],
    text: str,
    plays: Sequence[Play] | None = None,
    variant: str | Variant | None = None,
) -> Play:
    """Find the legal play that ``text`` denotes.

    board: ``(30,)`` ints, mover's view, before the play. dice: two ints 1..6.
    text: a move string (see ``parse_move``). plays: ``legal_plays(board,
    dice)`` if already computed. Returns that ``Play`` of ``legal_plays``
    (its ``moves`` are the generator's, possibly in another order or path).

    A one-step jump (``24/13`` with 6-5) matches the play through either
    intermediate point; a chain (``24/18/13``) fixes the path; the match is on
    the resulting board, so order does not matter. ``*`` marks are optional,
    but one where nothing is hit is an error. The empty play matches only when
    nothing can be played and then returns ``Play((), board)``.

    Raises FormatError for unreadable text or dice, InvalidBoardError for an
    impossible board, IllegalMoveError saying why the text is not legal or
    listing the candidates when it is ambiguous.

    variant: the rules (default standard); for the Acey-Deucey 1-2 the
    returned ``Play`` carries the named double and the extra roll.
    """
    variant = get_variant(variant)
    parsed = parse_move_marked(text, variant)
    dice = check_dice(dice)
    validate(np.asarray(board), variant.checkers)
    start = board_as_list(board)
    if plays is None:
        plays = legal_plays(start, dice, variant)
    roll = _roll_name(dice)
    shown = text.strip()
    most = max((len(play.moves) for play in plays), default=0)

    if not parsed.segments:
        if not plays:
            # docs/rules.md 2.6: "If nothing can be played, the turn passes."
            return Play((), tuple(start))
        raise _illegal(
            shown,
            roll,
            f"the empty play (pass) is allowed only when nothing can be played; here "
            f"{most} {'die' if most == 1 else 'dice'} of {roll} can be played",
        )

    if variant.acey_deucey_roll and sorted(dice) == [1, 2]:
        return _match_acey_deucey(start, parsed, plays, variant, shown, roll)
    if parsed.named_double:
        raise _illegal(shown, roll, "a double is named only after the Acey-Deucey 1-2")

    problem = _static_problem(parsed.segments, dice)
    if problem:
        raise _illegal(shown, roll, problem)

    realizations, failures = _realize(start, dice, parsed.segments, variant)
    by_board = {play.board: play for play in plays}
    candidates = [r for r in realizations if r.board in by_board]

    if not candidates:
        if realizations:
            raise _illegal(shown, roll, _dice_use_problem(realizations, dice, most))
        deepest = max((depth for depth, _, _ in failures), default=0)
        # The furthest any attempt got is the most telling; one line per reason,
        # naming the segments it stopped, in written order.
        stopped: dict[str, list[Move]] = {}
        for depth, segment, reason in failures:
            if depth == deepest and segment not in stopped.setdefault(reason, []):
                stopped[reason].append(segment)
        detail = "; ".join(
            ", ".join(_segment_name(s) for s in sorted(segments, key=parsed.segments.index))
            + f": {reason}"
            for reason, segments in stopped.items()
        )
        if not plays:
            detail += f"; nothing can be played with {roll}: the turn passes (write 'pass')"
        raise _illegal(shown, roll, detail)

    marks = parsed.hit_marks
    marked = [r for r in candidates if marks <= r.hits]
    if not marked:
        hit_anywhere = frozenset().union(*(r.hits for r in candidates))
        missing = sorted(marks - hit_anywhere)
        if missing:
            points = ", ".join(str(p) for p in missing)
            detail = f"'*' on point {points}, but the play hits nothing there"
        else:
            detail = "the hits marked with '*' do not all happen in one legal play"
        raise _illegal(shown, roll, detail)
    boards = {r.board for r in marked}
    if len(boards) > 1:
        exact = {r.board for r in marked if r.hits == marks}
        if len(exact) == 1:
            boards = exact
    if len(boards) == 1:
        return by_board[boards.pop()]
    listed = " or ".join(
        _format_with_hits(start, by_board[b].moves)
        for b in sorted(boards, key=lambda b: _format_with_hits(start, by_board[b].moves))
    )
    raise _illegal(shown, roll, f"ambiguous: it could mean {listed}; write the full path")


def _match_acey_deucey(
    start: list[int],
    parsed: ParsedMove,
    plays: Sequence[Play],
    variant: Variant,
    shown: str,
    roll: str,
) -> Play:
    """``match_move`` for the Acey-Deucey 1-2 (docs/rules.md 7): the 1 and the 2, then
    four moves of a named double (the ``d-d:`` token, else every double)."""
    by_key = {(play.board, play.extra_roll): play for play in plays}
    direct = _acey_deucey_as_written(start, parsed, by_key, variant)
    if direct is not None:
        return direct
    outcomes: list = []
    failures: list[tuple[int, Move, str]] = []
    segments = parsed.segments
    if parsed.named_double:
        double = parsed.named_double
        first, second = segments[: parsed.split], segments[parsed.split :]
        if not first:
            raise _illegal(shown, roll, "play the 1 and the 2 before naming a double")
        found, stopped = _realize(start, (2, 1), first, variant, [2, 1])
        failures += stopped
        for head in found:
            if len(head.dice_used) != 2:
                continue
            tails, stopped = _realize(
                list(head.board), (double, double), second, variant, [double] * 4
            )
            failures += [(depth + 2, segment, reason) for depth, segment, reason in stopped]
            for tail in tails:
                full = len(tail.dice_used) == 4
                moves = head.moves + tail.moves
                outcomes.append((tail.board, full, head.hits | tail.hits, double, moves))
        if found and not any(len(head.dice_used) == 2 for head in found):
            raise _illegal(
                shown, roll, "the 1 and the 2 must both be played before naming a double"
            )
    else:
        for double in range(1, 7):
            found, stopped = _realize(start, (2, 1), segments, variant, [2, 1] + [double] * 4)
            failures += stopped
            for way in found:
                used = len(way.dice_used)
                # The moves are usable as a record only when the 1 and the 2 came first.
                in_order = used <= 2 or sorted(way.dice_used[:2]) == [1, 2]
                moves = way.moves if in_order else None
                outcomes.append((way.board, used == 6, way.hits, double if used > 2 else 0, moves))
    candidates = [o for o in outcomes if (o[0], o[1]) in by_key]
    if not candidates:
        if not plays:
            detail = f"nothing can be played with {roll}: the turn passes (write 'pass')"
        elif failures and not outcomes:
            deepest = max(depth for depth, _, _ in failures)
            reasons = []
            for depth, segment, reason in failures:
                text = f"{_segment_name(segment)}: {reason}"
                if depth == deepest and text not in reasons:
                    reasons.append(text)
            detail = "; ".join(reasons)
        else:
            detail = (
                "no legal play makes this: the 1 and the 2 come first, then the named "
                "double four times as far as it can be played (docs/rules.md 7)"
            )
        raise _illegal(shown, roll, detail)
    marks = parsed.hit_marks
    marked = [o for o in candidates if marks <= o[2]]
    if not marked:
        raise _illegal(shown, roll, "the hits marked with '*' do not all happen in one legal play")
    keys = {(o[0], o[1]) for o in marked}
    if len(keys) > 1:
        exact = {(o[0], o[1]) for o in marked if o[2] == marks}
        if len(exact) == 1:
            keys = exact
    if len(keys) > 1 and len({board for board, _ in keys}) == 1:
        keys = {key for key in keys if key[1]}  # the same board: the extra roll is kept
    if len(keys) != 1:
        listed = " or ".join(sorted(_format_with_hits(start, by_key[key].moves) for key in keys))
        raise _illegal(shown, roll, f"ambiguous: it could mean {listed}; write the full path")
    key = keys.pop()
    play = by_key[key]
    # The play as recorded: the written path in play order (the 1 and the 2
    # first) when one was found, else the generator's own play.
    for outcome in marked:
        if (outcome[0], outcome[1]) == key and outcome[4] is not None:
            return replace(play, moves=outcome[4], named_double=outcome[3])
    return play


def _acey_deucey_as_written(
    start: list[int], parsed: ParsedMove, by_key: dict, variant: Variant
) -> Play | None:
    """The play when the text lists single-die moves in play order with the
    named double after the 1 and the 2 (``hand/24 24/22 6-6: ...``, as records
    are written), each legal when played; else None."""
    if not parsed.named_double or parsed.split != 2:
        return None
    double = parsed.named_double
    head, tail = parsed.segments[:2], parsed.segments[2:]
    for order in ((1, 2), (2, 1)):
        state, hits, ok = list(start), set(), True
        for move, die in zip(head + tail, order + (double,) * len(tail), strict=True):
            if move not in single_die_moves(state, die, variant):
                ok = False
                break
            if move[1] != MOVER_OFF and state[move[1]] == -1:
                hits.add(move[1])
            state = apply_move(state, move)
        key = (tuple(state), len(tail) == 4)
        if ok and key in by_key and parsed.hit_marks <= hits:
            return replace(by_key[key], moves=tuple(head + tail), named_double=double)
    return None


def _dice_use_problem(realizations: list[_Realization], dice: tuple[int, int], most: int) -> str:
    """Why complete realizations are still not legal plays: docs/rules.md 2.6."""
    used = max(len(r.dice_used) for r in realizations)
    high = max(dice)
    if dice[0] != dice[1] and most == 1 and used == 1:
        # docs/rules.md 2.6: "If only one die of a non-double can be played, the larger
        # one must be played when it can be".
        return (
            f"only one die can be played, and then the larger die ({high}) must be played "
            "when it can be"
        )
    # docs/rules.md 2.6: "the mover must play a sequence that uses the most dice possible."
    return (
        f"the play does not use as many dice as possible: {most} dice must be used, "
        f"this uses {used}"
    )


def _illegal(text: str, roll: str, detail: str) -> IllegalMoveError:
    """The error for an illegal ``text``: what was written, the roll, and why."""
    return IllegalMoveError(f"illegal play {text!r} with {roll}: {detail}")
