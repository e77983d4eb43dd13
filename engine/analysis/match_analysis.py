"""Match analysis: every checker play and cube decision of a match judged (``tdgammon analyse``).

``analyse_match(match, search, plies, progress)`` replays a ``Match`` (read
from a ``.mat`` file, or just played) and returns a ``MatchAnalysis``: one
``Decision`` per checker play and per cube decision, each player's totals
(``PlayerSummary``) and the luck of every roll. ``load_match`` reads a
``.mat`` file and, when the file is broken, the complete games before the
broken part (with a warning). The text report is
``tdgammon.engine.analysis.match_report``, the HTML page
``tdgammon.engine.display.analysis_html``; the JSON contract is in
docs/formats.md ("Match analysis").

How each decision is judged (all equities in EMG: normalised to the cube in
play, +1 = a single game won at that cube; in a match the MWC figure beside):

- Checker plays: every legal play is valued by ``Search.value_plays`` at
  ``plies`` with the search's move filters (GNU Backgammon's order: 0-ply for
  all, then the best few deeper); the played play is always valued at
  ``plies``, filtered out or not. The equity of a play is the mover's
  cubeless equity after it, at the cube and score of the decision: money play
  ``2 pW - 1 + (pWG - pLG) + (pWBG - pLBG)`` (gammons count zero under the
  Jacoby rule with a centred cube, ``theory.dead_equity``); match play the
  cubeless match winning chance from the match equity table turned into EMG
  (``match_equity.cubeless_mwc`` then ``mwc_to_equity``), so gammons are
  worth what the score makes them. The error is the best play's equity
  (among the plays valued at ``plies``) minus the played one's, >= 0.
- Cube decisions: the cubeless probabilities of the doubler's position before
  rolling at ``plies`` (``Search.evaluate``) go through
  ``theory.cube_decision`` (Janowski's cubeful model for money, the match
  equity table in a match): no double ``ND``, double/take ``DT``,
  double/pass ``DP``, in the doubler's EMG (and MWC in a match). Errors:
  a roll without doubling when doubling was right, "missed double",
  ``min(DT, DP) - ND``; a double that was wrong, "wrong double",
  ``ND - min(DT, DP)``; the taker's answer, "wrong take" ``DP - DT`` when
  passing was right, "wrong pass" ``DT - DP`` when taking was right (a beaver,
  money play, is valued as ``2 x beaver_reply``; "missed beaver" and "wrong
  beaver" then). Answers to a beaver or a raccoon and resignations are not
  judged.
- Marks: ``doubtful`` from 0.02 EMG, ``error`` from 0.04, ``blunder`` from
  0.08 (``match_decisions.MARKS``), for checker plays and cube decisions alike.
- Luck of a roll (checker decisions, every roll including forced ones and
  rolls that cannot be played): at 0-ply (``LUCK_PLIES``), the equity of the
  best play of the roll rolled minus the average over the 21 rolls of the
  best play of each (the 15 non-doubles for the opening roll), in the same
  cubeless EMG as checker plays, from the roller's side.

How decisions are counted (``PlayerSummary``):

- checker decisions: every roll a player had to play; unforced: those with
  more than one legal play (distinct resulting positions). Forced plays have
  no error and are not valued.
- cube decisions: every double, take, pass and beaver; and every roll
  without a double where the roller could double (the cube his or centred,
  not the Crawford game, not dead at the score) and the decision was close
  (GNU Backgammon's rule: doubling within ``CLOSE_CUBE`` = 0.25 of not
  doubling, or too good to double) or wrong. Rolls far from a double are no
  decision.
- ``pr`` (eXtreme Gammon's performance rating): 500 x (checker error +
  cube error, EMG) / (unforced checker decisions + cube decisions); that is
  the mean error per counted decision in mEMG x 0.5. 0 with no decision.
  Not multiplied by 1.5 for 1-point matches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tdgammon.engine.analysis.match_decisions import (
    CHECKER,
    CUBE,
    CUBE_KEYS,
    DOUBLE,
    MISSED_BEAVER,
    MISSED_DOUBLE,
    NO_DOUBLE,
    PASS,
    WRONG_BEAVER,
    WRONG_DOUBLE,
    WRONG_PASS,
    WRONG_TAKE,
    CubeFigures,
    Decision,
    MatchAnalysis,
    Play,
    summarise,
)
from tdgammon.engine.cube import match_equity as me
from tdgammon.engine.cube.agent import take_answer
from tdgammon.engine.cube.theory import (
    BEAVER,
    DROP,
    TAKE,
    CubeDecision,
    beaver_reply,
    cube_decision,
    dead_equity,
)
from tdgammon.engine.evaluation.search import Search, check_plies
from tdgammon.engine.flow.checker_moves import apply_moves
from tdgammon.engine.flow.game_records import (
    ACT_ACCEPT,
    ACT_BEAVER,
    ACT_DOUBLE,
    ACT_DROP,
    ACT_MOVE,
    ACT_REJECT,
    ACT_RESIGN,
    ACT_TAKE,
    GameAction,
)
from tdgammon.engine.flow.match import Match
from tdgammon.engine.flow.matfile import (
    LoadedMatch,
    MatFileError,
    decode_mat,
    load_mat,
    position_ids,
    read_mat,
)
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.formats.xgid import position_from_xgid
from tdgammon.engine.movegen.vectorized import MoveList, best_rows, generate_moves
from tdgammon.engine.rules.board import flip
from tdgammon.engine.rules.dice import ALL_ROLLS, ROLL_WEIGHTS
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.outputs import N_OUTPUTS, invert
from tdgammon.engine.rules.position import CUBE_CENTRED, CUBE_OPPONENT, Position

DEFAULT_PLIES = 2
"""Depth of checker plays and cube decisions unless told."""
LUCK_PLIES = 0
"""Depth of the plays that value each roll for the luck figures."""
CLOSE_CUBE = 0.25
"""A roll without a double counts as a cube decision when doubling is within this (EMG)."""
SHOWN_PLAYS = 5
"""Plays listed per checker decision, in GNU Backgammon's order (``Decision.plays``)."""
CHUNK = 64
"""Decisions searched in one batch (one progress step)."""

_ANSWERS = {ACT_TAKE: TAKE, ACT_DROP: PASS, ACT_BEAVER: BEAVER}
"""The taker's action kinds and the words the analysis uses for them."""
_RESIGNATION_KINDS = (ACT_RESIGN, ACT_ACCEPT, ACT_REJECT)

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called after each batch of work (units: positions searched)."""


# ---------------------------------------------------------------- reading


_ERROR_LINE_RE = re.compile(r"(?:^|: )line (\d+): ")
_GAME_HEADER_RE = re.compile(r"^\s*Game\s+\d+\s*$", re.IGNORECASE)


def load_match(path: str | Path) -> tuple[LoadedMatch, list[str]]:
    """Read a ``.mat`` file for analysis: ``(loaded match, warnings)``.

    A broken file (``MatFileError``, naming the line) still gives the complete
    games before the game that holds the broken line, with the error as a
    warning; a file with no complete game before the break raises the error.
    """
    try:
        return load_mat(path), []
    except MatFileError as error:
        loaded = _games_before_error(path, str(error))
        if loaded is None:
            raise
        games = sum(game.is_over for game in loaded.match.games)
        plural = "s" if games != 1 else ""
        return loaded, [f"{error} (analysing the {games} complete game{plural} before it)"]


def _games_before_error(path: str | Path, message: str) -> LoadedMatch | None:
    """The match of the file's text cut at the last ``Game N`` header at or before
    the error's line (earlier headers if that prefix does not read either)."""
    found = _ERROR_LINE_RE.search(message)
    if found is None or int(found.group(1)) < 1:  # line 0: the file itself
        return None
    lines = _read_text(path).splitlines(keepends=True)
    bad_line = int(found.group(1))
    headers = [n for n, text in enumerate(lines[:bad_line], 1) if _GAME_HEADER_RE.match(text)]
    for header in reversed(headers):
        try:
            loaded = read_mat("".join(lines[: header - 1]))
        except MatFileError:
            continue
        if any(game.is_over for game in loaded.match.games):
            return loaded
    return None


def _read_text(path: str | Path) -> str:
    """The file's text, decoded as ``load_mat`` decodes it (``decode_mat``)."""
    return decode_mat(Path(path).read_bytes())


# ---------------------------------------------------------------- the walk


@dataclass
class _CheckerItem:
    """A checker decision waiting for its search: board ``(30,) int8`` in play
    (the variant's, mover's view, before the play), the pairs played."""

    decision: Decision
    board: np.ndarray
    pairs: tuple
    opening: bool


@dataclass
class _CubeItem:
    """A cube decision waiting for the doubler's probabilities: ``board`` is the
    doubler's board before rolling (in play); ``position`` his position."""

    decision: Decision
    board: np.ndarray
    position: Position


def _actions(match: Match):
    """``(game number, ply, action, xgid)`` for every action of the match, in order."""
    entries = iter(position_ids(match))
    for number, game in enumerate(match.games, 1):
        for ply, action in enumerate(game.history, 1):
            entry = next(entries)
            if entry["xgid"] is None:
                raise FormatError(
                    f"{match.settings.variant}: positions with checkers in hand cannot be "
                    "analysed (no XGID holds them)"
                )
            yield number, ply, action, entry["xgid"]


def _rolled_without_double(history: Sequence[GameAction], index: int) -> bool:
    """The move at ``history[index]`` came after the opponent's move, so its roller
    had the cube decision before rolling (not the opening roll, not after his own
    double). Resignation offers in between do not count."""
    for action in reversed(history[:index]):
        if action.kind in _RESIGNATION_KINDS:
            continue
        return action.kind == ACT_MOVE
    return False


def _collect(match: Match, search: Search) -> tuple[list[_CheckerItem], list[_CubeItem]]:
    """The decisions of the match, waiting for their searches, in match order."""
    checkers: list[_CheckerItem] = []
    cubes: list[_CubeItem] = []
    in_play = search.variant.board_in_play
    for number, ply, action, xgid in _actions(match):
        game = match.games[number - 1]
        position = position_from_xgid(xgid)
        board = in_play(position.board)
        if action.kind == ACT_MOVE:
            before = position.with_changes(dice=None)
            if _rolled_without_double(game.history, ply - 1) and _cube_in_reach(game, before):
                cubes.append(_cube_item(number, ply, action.seat, NO_DOUBLE, before, board))
            checkers.append(_checker_item(number, ply, action, position, board, game.history))
        elif action.kind == ACT_DOUBLE:
            cubes.append(_cube_item(number, ply, action.seat, DOUBLE, position, board))
        elif action.kind in _ANSWERS and position.beaver_stage == 0:
            answer = _ANSWERS[action.kind]
            cubes.append(_cube_item(number, ply, action.seat, answer, position, board))
    return checkers, cubes


def _checker_item(number, ply, action: GameAction, position, board, history) -> _CheckerItem:
    """The roll ``action`` played at ``position`` (ply ``ply`` of game ``number``)."""
    move = format_move(board, action.moves)
    decision = Decision(number, ply, action.seat, CHECKER, move, position, dice=action.dice)
    opening = not any(a.kind == ACT_MOVE for a in history[: ply - 1])
    return _CheckerItem(decision, board, action.moves, opening)


def _cube_item(number, ply, seat: int, what: str, position, board) -> _CubeItem:
    """The cube decision ``what`` (NO_DOUBLE, DOUBLE or an answer) of ``seat``."""
    return _CubeItem(Decision(number, ply, seat, CUBE, what, position), board, position)


def _cube_in_reach(game, position: Position) -> bool:
    """The roller may turn the cube under the game's rules: cube in use, not the
    Crawford game, not the opponent's (the score and the limit: ``cube_decision``)."""
    return game.settings.cube_in_play and position.cube_owner != CUBE_OPPONENT


# ---------------------------------------------------------------- equity measure


def emg_coefficients(position: Position) -> tuple[np.ndarray, float]:
    """``(w (5,) float64, c)``: the mover's cubeless EMG of probabilities ``p`` is
    ``w @ p + c`` (module docstring: money ``dead_equity``, match the cubeless
    MWC as EMG at the position's cube and score).

    ``p``: ``(5,)`` cumulative, the mover's view (after his play: the play's
    probabilities). Both measures are affine in ``p``; the coefficients are
    read off the cube layer's own functions.
    """
    if position.is_money:
        jacoby = bool(position.jacoby) and position.cube_owner == CUBE_CENTRED

        def value(p):
            return dead_equity(p, jacoby)
    else:
        state, cube = me.MatchState.from_position(position), position.cube_value

        def value(p):
            return me.mwc_to_equity(me.cubeless_mwc(p, state, cube), state, cube)

    base = value(np.zeros(N_OUTPUTS))
    unit = np.eye(N_OUTPUTS)
    return np.array([value(unit[i]) - base for i in range(N_OUTPUTS)]), base


def mwc_per_emg(position: Position) -> float | None:
    """Match winning chance per unit of EMG at the position's cube and score (the
    mover's; None in money play): ``equity_to_mwc`` is affine in the equity."""
    if position.is_money:
        return None
    state, cube = me.MatchState.from_position(position), position.cube_value
    return (me.equity_to_mwc(1.0, state, cube) - me.equity_to_mwc(-1.0, state, cube)) / 2.0


def _scaled(value: float, position: Position) -> float | None:
    rate = mwc_per_emg(position)
    return None if rate is None else value * rate


# ---------------------------------------------------------------- checker plays


def _play_pairs(moves: MoveList, row: int) -> tuple:
    return tuple((int(a), int(b)) for a, b in moves.moves[row] if a >= 0)


def _played_row(moves: MoveList, rows: np.ndarray, item: _CheckerItem) -> int:
    """The row of ``moves`` (among ``rows``, one decision's) that the player made."""
    after, _ = apply_moves(item.board, item.pairs)
    same = np.flatnonzero((moves.boards[rows] == after).all(axis=1))
    if len(same) != 1:
        raise RuntimeError(f"game {item.decision.game} ply {item.decision.ply}: play not found")
    return int(rows[same[0]])


def _search_checker_chunk(search: Search, items: list[_CheckerItem], plies: int, cache: dict):
    """Value and judge one batch of unforced checker decisions at ``plies``; the
    played plays' values go to ``cache`` as the next roller's pre-roll values."""
    boards = np.stack([item.board for item in items])
    dice = np.array([item.decision.dice for item in items], dtype=np.int8)
    moves = generate_moves(boards, dice, search.variant)
    values, depth = search.value_plays(moves, plies)
    bounds = np.searchsorted(moves.parents, np.arange(len(items) + 1))
    spans = [np.arange(bounds[k], bounds[k + 1]) for k in range(len(items))]
    played = np.array([_played_row(moves, spans[k], item) for k, item in enumerate(items)])
    shallow = played[depth[played] < plies]
    if len(shallow):
        extra = moves.extra_roll[shallow]
        values[shallow] = search.play_probabilities(moves.boards[shallow], plies, extra)
        depth[shallow] = plies
    for k, item in enumerate(items):
        _judge_checker(item, moves, spans[k], int(played[k]), values, depth)
        if not moves.extra_roll[played[k]]:
            cache[flip(moves.boards[played[k]]).tobytes()] = invert(values[played[k]])


def _judge_checker(item, moves: MoveList, rows, played: int, values, depth) -> None:
    """Fill the decision: its plays ranked as GNU Backgammon lists them (deeper first,
    then higher EMG), and the error against the best play valued at full depth."""
    decision = item.decision
    w, c = emg_coefficients(decision.position)
    equities = values[rows].astype(np.float64) @ w + c
    order = np.lexsort((-equities, -depth[rows]))
    decision.plays = [
        Play(
            format_move(item.board, _play_pairs(moves, int(rows[i]))),
            float(equities[i]),
            int(depth[rows[i]]),
        )
        for i in order[:SHOWN_PLAYS]
    ]
    full = depth[rows] == depth[played]
    played_equity = float(values[played].astype(np.float64) @ w + c)
    decision.played = Play(decision.action, played_equity, int(depth[played]))
    decision.error = max(0.0, float(equities[full].max()) - played_equity)
    decision.error_mwc = _scaled(decision.error, decision.position)


def _legal_counts(search: Search, items: list[_CheckerItem]) -> None:
    """Number of distinct legal plays of each decision (0 when the roll cannot be
    played); ``counted`` when there is a choice."""
    if not items:
        return
    boards = np.stack([item.board for item in items])
    dice = np.array([item.decision.dice for item in items], dtype=np.int8)
    moves = generate_moves(boards, dice, search.variant)
    counts = moves.counts(len(items)) - np.bincount(
        moves.parents[moves.is_pass()], minlength=len(items)
    )
    for item, count in zip(items, counts, strict=True):
        item.decision.legal = int(count)
        item.decision.counted = bool(count > 1)
        if count <= 1:
            item.decision.played = Play(item.decision.action, None, 0)
            item.decision.error_mwc = _scaled(0.0, item.decision.position)


# ---------------------------------------------------------------- luck


def _roll_weights(opening: bool) -> np.ndarray:
    """``(21,)`` chances of the rolls (``ALL_ROLLS`` order); the opening roll is never a double."""
    if not opening:
        return ROLL_WEIGHTS
    weights = np.where(ALL_ROLLS[:, 0] == ALL_ROLLS[:, 1], 0.0, ROLL_WEIGHTS)
    return weights / weights.sum()


def _roll_index(dice: tuple[int, int]) -> int:
    high, low = max(dice), min(dice)
    return int(np.flatnonzero((ALL_ROLLS[:, 0] == high) & (ALL_ROLLS[:, 1] == low))[0])


def _luck_chunk(search: Search, items: list[_CheckerItem]) -> None:
    """The luck of each item's roll: best play of that roll minus the mean over the rolls
    (``LUCK_PLIES``), the roller's EMG."""
    count, rolls = len(items), len(ALL_ROLLS)
    boards = np.repeat(np.stack([item.board for item in items]), rolls, axis=0)
    moves = generate_moves(boards, np.tile(ALL_ROLLS, (count, 1)), search.variant)
    values = search.play_probabilities(moves.boards, LUCK_PLIES, moves.extra_roll)
    coefficients = [emg_coefficients(item.decision.position) for item in items]
    w = np.stack([cw for cw, _ in coefficients])
    c = np.array([cc for _, cc in coefficients])
    owner = moves.parents // rolls
    equities = np.einsum("mk,mk->m", values.astype(np.float64), w[owner]) + c[owner]
    per_roll = equities[best_rows(equities, moves.parents, count * rolls)].reshape(count, rolls)
    for k, item in enumerate(items):
        decision = item.decision
        mean = float(per_roll[k] @ _roll_weights(item.opening))
        decision.luck = float(per_roll[k, _roll_index(decision.dice)]) - mean
        decision.luck_mwc = _scaled(decision.luck, decision.position)


# ---------------------------------------------------------------- cube decisions


def _cube_values(decision: CubeDecision) -> tuple[dict, dict | None]:
    """ND, DT, DP of the doubler (``CUBE_KEYS``) in EMG, and in MWC (match play) or None."""
    emg = {key: getattr(decision, key) for key in CUBE_KEYS}
    if decision.mwc is None:
        return emg, None
    return emg, {key: decision.mwc[key] for key in CUBE_KEYS}


def _doubler_error(action: str, values: dict) -> float:
    """EMG (or MWC) the doubler lost by doubling or not: ``values`` his ND, DT, DP."""
    double = min(values["double_take"], values["double_pass"])
    if action == DOUBLE:
        return max(0.0, values["no_double"] - double)
    return max(0.0, double - values["no_double"])


def _answer_values(values: dict, keep: float | None) -> dict:
    """The taker's value of each answer, in the doubler's units: take -DT, pass -DP,
    beaver -2 x ``beaver_reply`` (money play, where ``keep`` is known)."""
    out = {TAKE: -values["double_take"], PASS: -values["double_pass"]}
    if keep is not None:
        out[BEAVER] = -2.0 * beaver_reply(values["double_take"], keep)[1]
    return out


def _answer_label(chosen: str, proper: str) -> str:
    if chosen == proper:
        return ""
    if proper == PASS:
        return WRONG_TAKE
    if chosen == PASS:
        return WRONG_PASS
    return WRONG_BEAVER if chosen == BEAVER else MISSED_BEAVER


def _judge_cube(item: _CubeItem, probabilities: np.ndarray) -> bool:
    """Fill a cube decision from the doubler's probabilities; False when it is no
    decision (a roll where doubling was not available or far from right)."""
    decision = item.decision
    figures = cube_decision(probabilities, item.position, board=item.board)
    if decision.action == NO_DOUBLE and not figures.cube_available:
        return False
    emg, mwc = _cube_values(figures)
    decision.cube = CubeFigures(
        figures.action, emg["no_double"], emg["double_take"], emg["double_pass"], mwc
    )
    if decision.action in (NO_DOUBLE, DOUBLE):
        decision.error = _doubler_error(decision.action, emg)
        decision.error_mwc = None if mwc is None else _doubler_error(decision.action, mwc)
        decision.label = "" if decision.error == 0 else _doubler_label(decision.action)
        return decision.action == DOUBLE or decision.error > 0 or _close(emg)
    answer = take_answer(figures, item.position)
    proper = PASS if answer == DROP else answer
    answers = _answer_values(emg, figures.double_keep if item.position.is_money else None)
    decision.error = max(0.0, answers[proper] - answers[decision.action])
    if mwc is not None:
        by_mwc = _answer_values(mwc, None)
        decision.error_mwc = max(0.0, by_mwc[proper] - by_mwc[decision.action])
    decision.label = _answer_label(decision.action, proper) if decision.error > 0 else ""
    return True


def _doubler_label(action: str) -> str:
    return WRONG_DOUBLE if action == DOUBLE else MISSED_DOUBLE


def _close(emg: dict) -> bool:
    """GNU Backgammon's close cube decision: doubling within ``CLOSE_CUBE`` of not
    doubling, or too good to double."""
    double = min(emg["double_take"], emg["double_pass"])
    return double - emg["no_double"] > -CLOSE_CUBE or emg["no_double"] > emg["double_pass"]


def _cube_probabilities(search: Search, items: list[_CubeItem], plies: int, cache: dict):
    """Yield the number of boards searched per batch while filling ``cache`` with the
    ``plies`` probabilities of every cube decision's board not in it yet."""
    missing: dict[bytes, np.ndarray] = {}
    for item in items:
        key = item.board.tobytes()
        if key not in cache:
            missing[key] = item.board
    keys = list(missing)
    for start in range(0, len(keys), CHUNK):
        part = keys[start : start + CHUNK]
        values = search.evaluate(np.stack([missing[k] for k in part]), plies)
        cache.update(zip(part, values, strict=True))
        yield len(part)


# ---------------------------------------------------------------- driver


class _Steps:
    """The work done so far, reported to a ``Progress`` (units: positions searched)."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0
        self.advance(0)

    def advance(self, count: int) -> None:
        self.done += count
        if self.progress is not None:
            self.progress(self.done, self.total)


def analyse_match(
    match: Match,
    search: Search,
    plies: int = DEFAULT_PLIES,
    progress: Progress | None = None,
    warnings: Sequence[str] = (),
) -> MatchAnalysis:
    """Judge every decision of ``match`` (module docstring) at ``plies``.

    search: a ``Search`` of the match's variant (``reports.load_search``).
    progress: called as ``progress(done, total)`` at the start and after each batch.
    warnings: carried into the result (``load_match``'s).
    FormatError for a search of another variant, or a variant whose positions
    have checkers in hand.
    """
    check_plies(plies)
    if match.settings.rules != search.variant:
        raise FormatError(
            f"the match is {match.settings.rules.name}, the network plays {search.variant.name}"
        )
    checkers, cubes = _collect(match, search)
    _legal_counts(search, checkers)
    unforced = [item for item in checkers if item.decision.counted]
    steps = _Steps(progress, len(unforced) + len(cubes) + len(checkers))
    cache: dict[bytes, np.ndarray] = {}
    for part in _chunks(unforced):
        _search_checker_chunk(search, part, plies, cache)
        steps.advance(len(part))
    kept = _search_cubes(search, cubes, plies, cache, steps)
    for part in _chunks(checkers):
        _luck_chunk(search, part)
        steps.advance(len(part))
    decisions = [item.decision for item in checkers] + kept
    decisions.sort(key=lambda d: (d.game, d.ply, d.kind != CUBE))
    return _analysis(match, plies, decisions, list(warnings))


def _chunks(items: list) -> list[list]:
    return [items[start : start + CHUNK] for start in range(0, len(items), CHUNK)]


def _search_cubes(
    search: Search, items: list[_CubeItem], plies: int, cache: dict, steps: _Steps
) -> list[Decision]:
    """The cube decisions judged (those that are decisions), their boards searched at
    ``plies`` unless ``cache`` has them."""
    searched = 0
    for count in _cube_probabilities(search, items, plies, cache):
        steps.advance(count)
        searched += count
    kept = [item.decision for item in items if _judge_cube(item, cache[item.board.tobytes()])]
    steps.advance(len(items) - searched)
    return kept


def _analysis(match: Match, plies: int, decisions: list[Decision], warnings) -> MatchAnalysis:
    money = match.is_money
    players = tuple(summarise(decisions, seat, match.names[seat], money) for seat in (0, 1))
    return MatchAnalysis(
        names=match.names,
        length=match.settings.length,
        scores=match.scores,
        games=sum(1 for game in match.games if game.history or game.is_over),
        winner=match.winner,
        variant=match.settings.variant,
        plies=plies,
        decisions=decisions,
        players=players,
        warnings=warnings,
    )


__all__ = [
    "CHUNK",
    "CLOSE_CUBE",
    "DEFAULT_PLIES",
    "LUCK_PLIES",
    "SHOWN_PLAYS",
    "Progress",
    "analyse_match",
    "emg_coefficients",
    "load_match",
    "mwc_per_emg",
]
