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
``stop``                               nothing (analysis is synchronous: there is
                                       never one running to stop)
``quit``                               nothing; the engine exits
empty line                             nothing
anything else                          ``sorry``
=====================================  ===========================================

A position is an XGID (prefix optional) or a FIBS board string
(``tdgammon.engine.formats.parse.parse_position``; GNU Backgammon IDs are accepted
too). A position that cannot be read, or one that asks for something the
protocol has no answer for (a beaver or raccoon already on the table, XGID
dice ``B``/``R``; a finished game before rolling) gets ``sorry``; the engine
never dies on a bad line. Positions are answered whether or not the ``ubgi``
handshake came first.

Decisions come from ``tdgammon.engine.cube.agent.CubeAgent`` (plays at ``plies``
with move filters; cube actions by ``tdgammon.engine.cube.theory.cube_decision`` on the
n-ply cubeless probabilities).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

import numpy as np
from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.formats.notation import format_move_plain
from tdgammon.engine.formats.parse import parse_position
from tdgammon.engine.movegen.vectorized import generate_moves
from tdgammon.engine.rules.board import CHECKERS_PER_SIDE, MOVER_OFF, OPPONENT_OFF
from tdgammon.engine.rules.errors import TdgammonError

ENGINE_NAME = "tdgammon"
ENGINE_AUTHOR = "the tdgammon authors"
SORRY = "sorry"


def engine_version() -> str:
    """The installed package version (``0`` when not installed)."""
    try:
        from importlib.metadata import version

        return version("tdgammon")
    except Exception:  # noqa: BLE001 - any metadata problem: an unknown version
        return "0"


class UbgiEngine:
    """Answers UBGI lines with a ``CubeAgent`` (module docstring).

    ``answer(line) -> list[str]``: the lines to write (possibly none, or one
    empty line for "no legal move"). ``quit_requested`` turns True on ``quit``.
    """

    def __init__(self, agent: CubeAgent) -> None:
        self.agent = agent
        self.quit_requested = False

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
        except TdgammonError:
            return [SORRY]

    def _position_answer(self, text: str) -> str:
        position = parse_position(text)
        if position.double_offered:
            if position.beaver_stage != 0:
                return SORRY
            return self.agent.decide_take(position)
        if position.dice is None:
            board = position.board
            over = (
                board[MOVER_OFF] == CHECKERS_PER_SIDE or -board[OPPONENT_OFF] == CHECKERS_PER_SIDE
            )
            if over:
                return SORRY
            return "double" if self.agent.decide_double(position) else "roll"
        moves = generate_moves(position.board[None, :], np.array([position.dice], dtype=np.int8))
        if moves.is_pass().all():
            return ""
        row = int(
            self.agent.choose_plays(position.board[None, :], np.array([position.dice]), moves)[0]
        )
        pairs = [(int(s), int(t)) for s, t in moves.moves[row] if s >= 0]
        return format_move_plain(pairs)

    def run(self, lines: Iterable[str], out: TextIO) -> int:
        """Answer every line of ``lines`` on ``out`` until ``quit`` or end of input; returns 0."""
        for line in lines:
            try:
                replies = self.answer(line)
            except Exception:  # noqa: BLE001 - the engine never dies on a bad line
                replies = [SORRY]
            for reply in replies:
                out.write(reply + "\n")
            out.flush()
            if self.quit_requested:
                break
        return 0
