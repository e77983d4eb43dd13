"""UBGI, the engine protocol on stdin/stdout (docs/formats.md, "UBGI").

One line in, at most one answer out (flushed at once):

=====================================  ===========================================
line                                   answer
=====================================  ===========================================
``ubgi``                               ``id name tdgammon``, ``id author ...``,
                                       ``id version ...``, ``readyok``
``isready``                            ``readyok`` (as UCI; harmless)
a position with dice rolled            the best play, every single-die move
                                       written out in play order (``24/18 18/13``,
                                       ``8/5 8/5 6/3 6/3``), ``bar``/``off``,
                                       no ``*``; an empty line if nothing is legal
a position before rolling (dice 00)    ``double`` or ``roll`` (``roll`` also when
                                       the cube is not available to the roller)
a position with a double pending (D)   ``take``, ``drop`` or ``beaver`` (beaver
                                       only in money play with beavers allowed)
a beaver on the table (B)              the doubler's answer: ``take`` (accept),
                                       ``drop`` (refuse) or ``raccoon`` (only
                                       from an engine made with ``raccoons``)
a raccoon on the table (R)             the beaverer's answer: ``take`` or ``drop``
a finished game, a resignation         ``sorry`` (the reason on stderr)
pending (GNU Backgammon Match ID)
``stop``                               nothing (analysis is synchronous: there is
                                       never one running to stop)
``quit``                               nothing; the engine exits
empty line                             nothing
anything else                          ``sorry``
=====================================  ===========================================

A position is an XGID (prefix optional) or a FIBS board string
(``tdgammon.engine.formats.parse.parse_position``; GNU Backgammon IDs are accepted
too). A position that cannot be read, or one that asks for something the
protocol has no answer for, gets ``sorry`` on stdout and the reason, one line
``ubgi: sorry: <why>``, on stderr: a finished game (one side has borne off every
checker, or a GNU Backgammon Match ID's game state says over, resigned or
dropped), and a resignation pending (a Match ID whose resignation field is set:
the decision is the opponent's accept or reject, for which UBGI has no line),
whatever the dice or the cube; so does a line that is not UTF-8 text (``run``
decodes each line of bytes on its own). The engine never dies on a bad line
(bad input raises ``TdgammonError``). Any other exception is a bug: it is not answered but
propagates, so ``tdgammon ubgi`` stops with the CLI's "internal error" line and
exit status 3 (the traceback under ``tdgammon --debug ubgi``), rather than
going on with answers from an engine in an unknown state and a ``sorry`` the
controller could not tell from bad input. Positions are answered whether or
not the ``ubgi`` handshake came first.

Decisions come from ``tdgammon.engine.cube.agent.CubeAgent`` (plays at ``plies``
with move filters; cube actions by ``tdgammon.engine.cube.theory.cube_decision`` on the
n-ply cubeless probabilities). A beaver or raccoon on the table (docs/rules.md 5)
is read as GNU Backgammon keeps it (``Position.beaver_stage``: the cube holds what
a refusal loses, owned by the beaverer; the player on roll is the doubler):
XGID dice ``B``/``R``, or a GNU Backgammon ID whose bits say so. No position
format carries the raccoon rule, so the engine answers ``raccoon`` only when
made with ``raccoons=True``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import TextIO

import numpy as np

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.formats.notation import format_move_plain
from tdgammon.engine.formats.parse import parse_position
from tdgammon.engine.interfaces.cli_positions import check_game_on, decode_line
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.errors import TdgammonError
from tdgammon.engine.rules.position import RESIGN_BACKGAMMON, RESIGN_GAMMON, RESIGN_SINGLE

RESIGNATIONS = {
    RESIGN_SINGLE: "a resignation of a single game",
    RESIGN_GAMMON: "a resignation of a gammon",
    RESIGN_BACKGAMMON: "a resignation of a backgammon",
}
"""How the ``sorry`` of a pending resignation names it (Match ID resignation field)."""

ENGINE_NAME = "tdgammon"
ENGINE_AUTHOR = "the tdgammon authors"
SORRY = "sorry"


def engine_version() -> str:
    """The installed package version (``0`` when not installed)."""
    try:
        return version("tdgammon")
    except PackageNotFoundError:
        return "0"


class UbgiEngine:
    """Answers UBGI lines with a ``CubeAgent`` (module docstring).

    ``answer(line) -> list[str]``: the lines to write (possibly none, or one
    empty line for "no legal move"). ``quit_requested`` turns True on ``quit``.
    The reason of each ``sorry`` goes to ``err`` (default: ``sys.stderr``).
    """

    def __init__(self, agent: CubeAgent, err: TextIO | None = None, raccoons: bool = False) -> None:
        """raccoons: the controller's money games allow raccoons (docs/rules.md 5)."""
        self.agent = agent
        self.err = err
        self.raccoons = raccoons
        self.quit_requested = False

    def _sorry(self, reason: str) -> str:
        """``sorry``, after writing why on one line of ``err``."""
        err = self.err if self.err is not None else sys.stderr
        err.write(f"ubgi: sorry: {' '.join(reason.split())}\n")
        err.flush()
        return SORRY

    def answer(self, line: str) -> list[str]:
        text = line.strip()
        if not text:
            return []
        word = text.lower()
        if word == "ubgi":
            return [
                f"id name {ENGINE_NAME}",
                f"id author {ENGINE_AUTHOR}",
                f"id version {engine_version()}",
                "readyok",
            ]
        if word == "isready":
            return ["readyok"]
        if word == "stop":
            return []
        if word == "quit":
            self.quit_requested = True
            return []
        try:
            return [self._position_answer(text)]
        except TdgammonError as error:  # bad input; anything else is a bug and propagates
            return [self._sorry(str(error))]

    def _position_answer(self, text: str) -> str:
        position = check_game_on(parse_position(text))
        if position.resign_offered:
            # the decision on the table is the opponent's answer to a resignation:
            # the protocol has no line for it (module docstring)
            offered = RESIGNATIONS.get(position.resign_offered, "a resignation")
            return self._sorry(
                f"{offered} is offered and awaits its answer; UBGI has no answer to a resignation"
            )
        if position.double_offered:
            if position.is_money and self.raccoons:
                position = position.with_changes(raccoons=True)
            if position.beaver_stage == 1:
                # docs/rules.md 5: the doubler may refuse a beaver, accept it or raccoon
                return self.agent.decide_beaver(position)
            return self.agent.decide_take(position)
        if position.dice is None:
            return "double" if self.agent.decide_double(position) else "roll"
        moves = generate_moves(position.board[None, :], np.array([position.dice], dtype=np.int8))
        if moves.is_pass().all():
            return ""
        row = int(
            self.agent.choose_plays(position.board[None, :], np.array([position.dice]), moves)[0]
        )
        pairs = [(int(s), int(t)) for s, t in moves.moves[row] if s >= 0]
        return format_move_plain(pairs)

    def run(self, lines: Iterable[bytes] | Iterable[str], out: TextIO) -> int:
        """Answer every line of ``lines`` on ``out`` until ``quit`` or end of input; returns 0.

        Lines of bytes are read as UTF-8, one at a time. A bad line (not UTF-8
        included) is answered ``sorry``; an unexpected exception propagates."""
        for raw in lines:
            try:
                line = decode_line(raw)
            except TdgammonError as error:
                replies = [self._sorry(str(error))]
            else:
                replies = self.answer(line)
            for reply in replies:
                out.write(reply + "\n")
            out.flush()
            if self.quit_requested:
                break
        return 0
