"""Terminal play: a human agent and the session loop of ``tdgammon play``.

``HumanAgent`` marks a seat as played from the terminal (``is_human = True``);
``TerminalSession`` runs a ``Match`` between any two players (humans or bots,
``tdgammon.engine.players.agents``), reading one line per human decision from ``input`` and
writing to ``output``, so the same code serves a person at a terminal and a
script piping moves into stdin.

At each prompt a human may type (case does not matter):

- a move in standard notation (``24/18 13/11``, ``8/5(2)``, ``bar/22*``,
  ``hand/20`` to enter a checker from the hand (Dutch, Acey-Deucey), ``pass``
  when nothing can be played) after rolling; the Acey-Deucey 1-2 as the 1 and
  the 2, then the named double: ``24/23 24/22 6-6: 13/7(4)``;
- ``roll`` (or an empty line) or ``double`` before rolling;
- ``take``, ``drop`` (``pass``), ``beaver`` when doubled; ``take`` (accept),
  ``drop`` (refuse: the beaverer scores 2 on a cube of 1) or ``raccoon`` when
  one's double was beavered; ``take`` or ``drop`` when one's beaver was
  raccooned (docs/rules.md 5);
- ``accept`` / ``reject`` a resignation;
- ``resign [single|gammon|backgammon]`` (Acey-Deucey: ``resign N``, N
  points), ``board``, ``moves`` (list the legal plays), ``hint``,
  ``save [FILE]`` (FILE as typed, its case kept; it must end in ``.mat``),
  ``analyse [PLIES]`` (the match so far judged by ``tdgammon analyse``'s code,
  ``tdgammon.engine.analysis.match_analysis``; ``tdgammon play --analyse``
  prints the same at the end of the session), ``help``, ``quit``. ``hint`` ranks the plays with the
  shipped network (``tdgammon.engine.interfaces.cli_analysis``); when the variant has
  none, or its file cannot be read, it says so and shows pubeval's ranking instead.

A bad line gets a one-line explanation and the same prompt again; the state
never changes on a refused action. A refusal of the rules (``Game``'s) names the
players as the rest of the session's output does (``match.names``: "you", the
bot's name), not by seat number ("player 0"): the session names the seats of the
match's games so (``Match.name_seats``). A command that acts at once (``roll``,
``double``, ``take``, ``drop``, ``accept``, ``hint``, ...) takes nothing after it:
``drop 8/2`` is refused, not carried out with ``8/2`` ignored. A ``double`` after
a roll made automatically says why the cube was not available. Lines of a byte
stream (stdin) are decoded as UTF-8 one by one, whatever the locale: a line that
is not UTF-8 is one bad line; what the output cannot encode (a file name's
undecodable bytes) is written as backslash escapes. Only ``TdgammonError`` (bad input, a refused
action, a missing model) is reported that way: any other exception is a bug and
propagates (after the match is saved), so ``tdgammon play`` ends with the CLI's
internal-error line (the traceback under ``tdgammon --debug play``). The end of
input (or Ctrl-C) saves the match (when a file is set) and ends the session. A
human whose cube is not available rolls automatically, and a roll that cannot be
played passes automatically, as in GNU Backgammon.

Saving (``write_match``) checks the file first (``check_save_path``: a ``.mat``
name in a folder that exists and can be written; ``tdgammon play --save`` checks
it before the first game) and writes through ``tdgammon.models.atomic`` (a
temporary file in the same folder, then a rename), so a failed save (a full
disk, a file size limit) leaves the previous file whole. A ``save`` at the
prompt that fails says why and play goes on; the save at the end that fails is
a ``TdgammonError`` once the session is over (``tdgammon play`` exits with 2).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from tdgammon.engine.display.render import render_board
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import (
    ACT_MOVE,
    BEAVERED,
    CUBE_ANSWER_PHASES,
    DOUBLED,
    OPENING,
    RACCOONED,
    RESIGNING,
    TO_MOVE,
    TO_ROLL,
)
from tdgammon.engine.flow.match import Match
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.formats.parse import format_ids
from tdgammon.engine.interfaces.terminal_io import (
    read_line,
    refuse_words_after,
    whole_number,
    write_text,
)
from tdgammon.engine.players.cube_actions import bot_step
from tdgammon.engine.rules.errors import FormatError, TdgammonError, quoted
from tdgammon.engine.rules.outcome import BACKGAMMON, GAMMON, RESULT_NAMES, SINGLE
from tdgammon.engine.rules.variants import SCORING_CHECKERS_LEFT

HINT_PLIES = 1
"""Search depth of the ``hint`` command (``tdgammon.engine.evaluation.search``; 1-ply takes well
under a second)."""

RESIGN_WORDS = {
    "": SINGLE,
    "single": SINGLE,
    "s": SINGLE,
    "1": SINGLE,
    "normal": SINGLE,
    "gammon": GAMMON,
    "g": GAMMON,
    "2": GAMMON,
    "backgammon": BACKGAMMON,
    "b": BACKGAMMON,
    "3": BACKGAMMON,
}

ACTION_WORDS = {
    TO_ROLL: ("roll", "r", "double", "d"),
    TO_MOVE: ("moves",),
    DOUBLED: ("take", "t", "drop", "pass", "p", "beaver", "b"),
    BEAVERED: ("take", "t", "drop", "pass", "p", "raccoon"),
    RACCOONED: ("take", "t", "drop", "pass", "p", "raccoon"),
    RESIGNING: ("accept", "a", "yes", "y", "reject", "r", "no"),
}
"""The one-word commands that act at once in each phase (and ``hint`` in any): a
word typed after one of them is refused, never ignored (``TerminalSession._command``)."""

HELP = """Commands:
  <move>          play the roll in standard notation, e.g. 24/18 13/11, 8/5(2), bar/22*,
                  hand/20 (enter from the hand), Acey-Deucey 1-2: 24/23 24/22 6-6: 13/7(4)
  roll (Enter)    roll the dice           double    offer the cube
  take / drop     answer a double, a beaver or a raccoon (drop: refuse, lose the stake)
  beaver          take and redouble (money, if allowed)
  raccoon         re-redouble a beaver (if allowed)
  accept / reject answer a resignation
  resign [single|gammon|backgammon]       moves     list the legal plays
  board           show the board          hint      best plays (network, else pubeval)
  save [FILE]     save the match (.mat)   quit      save and stop
  analyse [PLIES] judge every decision so far (as tdgammon analyse; default 1-ply)"""


def check_save_path(path: str) -> Path:
    """``path`` as the file to save a match to; FormatError saying why it cannot be:
    its name must end in ``.mat`` and its folder must exist and take new files."""
    if not path.lower().endswith(".mat"):
        raise FormatError(f"a match is saved as a .mat file: the name must end in .mat: {path!r}")
    target = Path(path)
    try:
        if stat.S_ISDIR(os.stat(target).st_mode):
            raise FormatError(f"cannot save to {path!r}: it is a folder")
    except FileNotFoundError:
        pass  # a new file (its folder is checked next)
    except (OSError, ValueError) as error:  # ValueError: a NUL or an unencodable character
        raise FormatError(f"cannot save to {path!r}: {_reason(error)}") from None
    folder = target.parent
    if not folder.is_dir():
        raise FormatError(f"cannot save to {path!r}: there is no folder {str(folder)!r}")
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise FormatError(
            f"cannot save to {path!r}: cannot write in {str(folder)!r}: {_reason(error)}"
        ) from None
    return target


def write_match(match: Match, path: str) -> None:
    """Save ``match`` to ``path`` as a .mat file, atomically (module docstring);
    FormatError saying why it could not be saved."""
    from tdgammon.engine.flow.matfile import format_mat
    from tdgammon.models.atomic import atomic_write_bytes

    target = check_save_path(path)
    data = format_mat(match).encode("utf-8")
    try:
        atomic_write_bytes(target, data)
    except (OSError, ValueError) as error:
        raise FormatError(f"cannot save to {path!r}: {_reason(error)}") from None


def _reason(error: Exception) -> str:
    """The words of an OSError (its strerror), or the message of any other error."""
    return getattr(error, "strerror", None) or str(error)


class HumanAgent:
    """A player at the terminal: decisions come from ``TerminalSession``'s input."""

    is_human = True

    def __init__(self, name: str = "human") -> None:
        self.name = name

    def choose_plays(self, boards, dice, moves):  # pragma: no cover - never called
        raise TdgammonError("a human plays through the terminal session, not choose_plays")


def _analysis_plies(text: str) -> int:
    """The depth of ``analyse [PLIES]`` (default 1); TdgammonError for a bad one."""
    if not text:
        return 1
    plies = whole_number(text, 3) if text.isascii() else None
    if plies is None:
        raise TdgammonError(f"analyse takes a depth 0-3, got {text!r}")
    return plies


def _plays_made(game: Game) -> int:
    """How many plays (``pass`` included) ``game`` has had: it names a turn."""
    return sum(action.kind == ACT_MOVE for action in game.history)


class QuitSession(Exception):
    """The human asked to stop (``quit`` or the end of input)."""


class TerminalSession:
    """Play ``match`` between ``players[0]`` and ``players[1]`` on a text terminal."""

    def __init__(
        self,
        match: Match,
        players: Sequence,
        input: TextIO = sys.stdin,
        output: TextIO = sys.stdout,
        save_path: str | None = None,
        show_board: bool = True,
        save: Callable[[Match, str], None] | None = None,
        analyse_plies: int | None = None,
    ) -> None:
        self.match = match
        # Game's refusals name the players as this session's output does.
        match.name_seats(match.names)
        self.analyse_plies = analyse_plies
        self.players = list(players)
        self.input = input
        self.output = output
        self.save_path = save_path
        self.show_board = show_board
        self._save = save
        # The last roll made for a human (the cube was not available): the game, its
        # plays made then and why no double was possible (``_already_rolled``).
        self._rolled_for: tuple[Game, int, str | None] | None = None

    # ------------------------------------------------------------ output

    def say(self, text: str) -> None:
        self._write(text + "\n")

    def _write(self, text: str) -> None:
        write_text(self.output, text)

    def name(self, seat: int) -> str:
        return self.match.names[seat]

    def does(self, seat: int, verb: str) -> str:
        """``"tdgammon rolls"``, or ``"you roll"`` for a player named you: ``verb`` is
        the third-person form (rolls, plays, doubles, ...)."""
        name = self.name(seat)
        if name.lower() == "you" and verb.endswith("s"):
            verb = verb[:-1]
        return f"{name} {verb}"

    def draw(self, asked: bool = False) -> None:
        """The board, after each action unless ``--no-board``; always when ``asked``
        (the ``board`` command)."""
        if not (self.show_board or asked):
            return
        game = self.match.game
        position = game.position()
        try:
            ids = format_ids(position)
        except TdgammonError:
            ids = None
        self.say(render_board(position, ids, game.variant, (self.name(0), self.name(1))))

    # ------------------------------------------------------------ loop

    def run(self) -> int:
        """Play until the match ends, the input ends or the human quits; returns 0.

        The match is saved then (also when a bug ends the session); a save that
        fails at the end is a TdgammonError after the session.
        """
        try:
            self._loop()
        except QuitSession:
            self.say("Session stopped.")
        except KeyboardInterrupt:  # Ctrl-C at the prompt: end its line first
            self.say("\nSession stopped.")
        except Exception:
            self._save_on_error()
            raise
        self.save_match()
        if self.analyse_plies is not None:
            self.say(self._analysis(self.analyse_plies))
        return 0

    def _save_on_error(self) -> None:
        """Save what can be saved before an error (a bug) ends the session."""
        try:
            self.save_match()
        except TdgammonError as error:
            self.say(f"  {error}")

    def save_match(self, path: str | None = None) -> None:
        """Save to ``path`` (default: the session's file, if any); TdgammonError if
        it cannot be saved (the previous file is left whole)."""
        target = path or self.save_path
        if not target:
            return
        (self._save or write_match)(self.match, target)
        self.say(f"Match saved to {target}")

    def _loop(self) -> None:
        while True:
            game = self.match.game
            if game.is_over:
                self.say(game.result.text(self.match.names))
                s0, s1 = self.match.scores
                self.say(f"Score: {self.name(0)} {s0}, {self.name(1)} {s1}")
                if self.match.is_over:
                    if self.match.winner is not None:
                        self.say(f"{self.name(self.match.winner)} wins the match.")
                    else:
                        self.say("The session is over.")
                    return
                self.match.next_game()
                self.say(f"\nGame {len(self.match.games)}")
                continue
            if game.phase == OPENING:
                self._opening(game)
                continue
            seat = game.decider
            if getattr(self.players[seat], "is_human", False):
                self._human_step(game, seat)
            else:
                self._bot_step(game, seat)

    def _opening(self, game: Game) -> None:
        while not game.opening_roll():
            extra = f"; the cube is now {game.cube_value}" if game.cube_value > 1 else ""
            self.say(f"Opening roll: a tie, roll again{extra}")
        d = game.dice
        self.say(f"Opening roll: {self.does(game.turn, 'rolls')} {d[0]}, the other {d[1]}.")
        self.say(f"{self.does(game.turn, 'moves')} first with {d[0]}-{d[1]}.")
        self._say_stake(game)
        self.draw()

    # ------------------------------------------------------------ bots

    def _bot_step(self, game: Game, seat: int) -> None:
        phase, before = game.phase, game.board.copy()
        dice = game.dice
        bot_step(game, self.players)
        if phase == TO_MOVE:
            action = game.history[-1]
            moves = action.moves
            text = format_move(before, list(moves), action.named_double) if moves else "cannot move"
            self.say(f"{self.does(seat, 'plays')} {dice[0]}-{dice[1]}: {text}")
            self._say_extra_roll(action, seat)
            if not game.is_over:
                self.draw()
        elif phase == TO_ROLL:
            if game.phase == DOUBLED:
                self.say(f"{self.does(seat, 'doubles')} to {2 * game.cube_value}.")
            else:
                self.say(f"{self.does(seat, 'rolls')} {game.dice[0]}-{game.dice[1]}.")
                self._say_stake(game)
        elif phase in CUBE_ANSWER_PHASES:
            self.say(self._cube_answer_text(game, seat, phase))
        elif phase == RESIGNING:
            accepted = game.is_over
            verb = "accepts" if accepted else "rejects"
            self.say(f"{self.does(seat, verb)} the resignation.")

    # ------------------------------------------------------------ humans

    def _read(self, prompt: str) -> str:
        """One line typed at ``prompt`` (QuitSession at the end of input)."""
        self._write(prompt)
        line = read_line(self.input)
        if not line:
            self.say("")
            raise QuitSession()
        text = line.strip()
        if self.input is not sys.stdin or not sys.stdin.isatty():
            self.say(text)  # echo scripted input so transcripts read naturally
        return text

    def _cube_answer_text(self, game: Game, seat: int, phase: str) -> str:
        """What ``seat`` did in answer to the double, beaver or raccoon of ``phase``."""
        last = game.history[-1].kind
        what = {DOUBLED: "", BEAVERED: " the beaver", RACCOONED: " the raccoon"}[phase]
        if last == "beaver":
            return f"{self.does(seat, 'beavers')}: the cube goes to {2 * game.cube_value}."
        if last == "raccoon":
            return f"{self.does(seat, 'raccoons')}: the cube goes to {2 * game.cube_value}."
        if last == "drop":
            verb = "drops" if phase == DOUBLED else "refuses"
            return f"{self.does(seat, verb)}{what}."
        verb = "takes" if phase == DOUBLED else "accepts"
        return f"{self.does(seat, verb)}{what}; the cube is at {game.cube_value}."

    def _say_stake(self, game: Game) -> None:
        """docs/rules.md 7, optional rule: a 1-2 thrown doubles the stake."""
        if game.settings.acey_deucey_stakes and game.dice and sorted(game.dice) == [1, 2]:
            self.say(f"A 1-2: the stake doubles to {game.stake} (Acey-Deucey stakes).")

    def _say_extra_roll(self, action, seat: int) -> None:
        if action.extra_roll:
            self.say(
                f"{self.name(seat)} played the named double in full; "
                f"{self.does(seat, 'rolls')} again (docs/rules.md 7)."
            )

    def _human_step(self, game: Game, seat: int) -> None:
        who = self.name(seat)
        if game.phase == TO_ROLL and not game.may_double:
            reason = game.double_refusal()
            d = game.roll()
            self._rolled_for = (game, _plays_made(game), reason)
            self.say(f"{self.does(seat, 'rolls')} {d[0]}-{d[1]}.")
            self._say_stake(game)
            return
        if game.phase == TO_MOVE and not game.can_play():
            self.say(f"{self.does(seat, 'rolls')} {game.dice[0]}-{game.dice[1]} and cannot move.")
            game.play(())
            if not game.is_over:
                self.draw()
            return
        prompt = self._prompt(game, who)
        try:
            self._command(game, seat, self._read(prompt))
        except TdgammonError as error:
            self.say(f"  {error}")

    def _prompt(self, game: Game, who: str) -> str:
        if game.phase == TO_ROLL:
            return f"{who}, roll or double? "
        if game.phase == TO_MOVE:
            return f"{who}, your move ({game.dice[0]}-{game.dice[1]}): "
        if game.phase == DOUBLED:
            extra = ", beaver" if game.may_beaver else ""
            return f"{who}, the cube is offered at {2 * game.cube_value}: take, drop{extra}? "
        if game.phase == BEAVERED:
            extra = ", raccoon" if game.may_raccoon else ""
            return (
                f"{who}, your double was beavered to {2 * game.cube_value}: take, drop "
                f"(lose {game.cube_value}){extra}? "
            )
        if game.phase == RACCOONED:
            return (
                f"{who}, your beaver was raccooned to {2 * game.cube_value}: take, drop "
                f"(lose {game.cube_value})? "
            )
        if game.phase == RESIGNING:
            if game.variant.scoring == SCORING_CHECKERS_LEFT:
                offer = game.resign_offer * game.stake
                return f"{who}, accept the resignation for {offer} points? (accept/reject) "
            kind = RESULT_NAMES[game.resign_offer]
            return f"{who}, accept the resignation of a {kind}? (accept/reject) "
        return f"{who}> "

    def _command(self, game: Game, seat: int, line: str) -> None:
        words = line.lower().split()
        word = words[0] if words else ""
        rest = " ".join(words[1:])
        if word == "hint" or word in ACTION_WORDS.get(game.phase, ()):
            # "drop 8/2", "hint 3": refused, not carried out with the words ignored
            refuse_words_after(line)
        if word in ("help", "?"):
            self.say(HELP)
        elif word in ("quit", "exit", "q"):
            raise QuitSession()
        elif word == "board":
            self.draw(asked=True)
        elif word == "save":
            typed = line.split(None, 1)[1].strip() if len(words) > 1 else ""
            if not (typed or self.save_path):
                raise TdgammonError("no file: give one, e.g. save mygame.mat")
            self.save_match(typed or None)
        elif word == "hint":
            self.say(self._hint(game))
        elif word in ("analyse", "analyze"):
            self.say(self._analysis(_analysis_plies(rest)))
        elif word == "moves" and game.phase == TO_MOVE:
            self._list_moves(game)
        elif word == "moves":
            raise TdgammonError(
                f"moves lists the plays of the dice rolled, and none are: {self._expected(game)}"
            )
        elif word == "resign" and game.variant.scoring == SCORING_CHECKERS_LEFT:
            most = game.variant.checkers
            points = whole_number(rest, most)
            if not points:  # None (not a number 0..most: "²", 5000 digits) or 0
                raise TdgammonError(
                    f"resign how many points? resign N, N from 1 to {most} "
                    f"({game.variant.name}: the stake per checker not borne off; "
                    f"the stake is {game.stake})"
                )
            game.offer_resignation(points, seat=seat)
        elif word == "resign":
            if rest not in RESIGN_WORDS:
                raise TdgammonError(
                    "resign what? resign single, resign gammon or resign backgammon"
                )
            game.offer_resignation(RESIGN_WORDS[rest], seat=seat)
        elif game.phase == TO_ROLL and word in ("", "roll", "r"):
            d = game.roll(seat=seat)
            self.say(f"{self.does(seat, 'rolls')} {d[0]}-{d[1]}.")
            self._say_stake(game)
        elif game.phase == TO_ROLL and word in ("double", "d"):
            game.double(seat=seat)
            self.say(f"{self.does(seat, 'doubles')} to {2 * game.cube_value}.")
        elif game.phase == DOUBLED and word in ("take", "t", "drop", "pass", "p", "beaver", "b"):
            if word in ("take", "t"):
                game.take(seat=seat)
            elif word in ("beaver", "b"):
                game.beaver(seat=seat)
            else:
                game.drop(seat=seat)
        elif game.phase in (BEAVERED, RACCOONED) and word in (
            "take",
            "t",
            "drop",
            "pass",
            "p",
            "raccoon",
        ):
            # docs/rules.md 5: a beaver (and a raccoon) may be accepted or refused
            phase = game.phase
            if word in ("take", "t"):
                game.take(seat=seat)
            elif word == "raccoon":
                game.raccoon(seat=seat)
            else:
                game.drop(seat=seat)
            self.say(self._cube_answer_text(game, seat, phase))
        elif game.phase == RESIGNING and word in ("accept", "a", "yes", "y", "reject", "r", "no"):
            if word in ("accept", "a", "yes", "y"):
                game.accept_resignation(seat=seat)
            else:
                game.reject_resignation(seat=seat)
        elif game.phase == TO_MOVE and word in ("double", "d", "roll", "r"):
            raise TdgammonError(self._already_rolled(game, word))
        elif game.phase == TO_MOVE:
            if not line.strip():
                raise TdgammonError("type your move, e.g. 13/8 13/11 (or 'moves' to list them)")
            board = game.board.copy()
            pairs = game.play_text(line, seat=seat)
            action = game.history[-1]
            text = format_move(board, list(pairs), action.named_double) or "nothing"
            self.say(f"{self.does(seat, 'plays')} {text}")
            self._say_extra_roll(action, seat)
            if not game.is_over:
                self.draw()
        elif game.phase == TO_ROLL and "/" in line:
            raise TdgammonError("roll first (type roll or press Enter), then enter your move")
        else:
            raise TdgammonError(f"not understood: {quoted(line)}. {self._expected(game)}")

    def _already_rolled(self, game: Game, word: str) -> str:
        """Why ``roll`` or ``double`` is refused once the dice are rolled.

        The rule for bad input: "a clear error message naming what is wrong". When
        the dice were rolled for the human because no double was possible (the
        cube dead, owned by the other side, Crawford, no cube at all), a ``double``
        is told that reason, not that it came too late.
        """
        dice = f"{game.dice[0]}-{game.dice[1]}"
        note = self._rolled_for
        if word in ("double", "d") and note is not None and note[2] is not None:
            rolled_game, plays, reason = note
            if rolled_game is game and plays == _plays_made(game):
                reason = reason.removesuffix("; roll")  # Game's advice, followed already
                return (
                    f"the dice are already rolled ({dice}), for {self.name(game.turn)}: "
                    f"cannot double, {reason}. Play them"
                )
        return (
            f"the dice are already rolled ({dice}): play them (a double must come before rolling)"
        )

    def _expected(self, game: Game) -> str:
        return {
            TO_ROLL: "Type roll or double (help for all commands).",
            DOUBLED: "Type take or drop" + (" or beaver." if game.may_beaver else "."),
            BEAVERED: "Type take or drop" + (" or raccoon." if game.may_raccoon else "."),
            RACCOONED: "Type take or drop.",
            RESIGNING: "Type accept or reject.",
        }.get(game.phase, "Type help for the commands.")

    def _list_moves(self, game: Game) -> None:
        legal = game.legal_moves()
        for row in range(len(legal)):
            pairs = [(int(a), int(b)) for a, b in legal.moves[row] if a >= 0]
            text = format_move(game.board, pairs, int(legal.named_double[row]))
            extra = "  (rolls again)" if legal.extra_roll[row] else ""
            self.say(f"  {row + 1:3d}. {text}{extra}")

    def _analysis(self, plies: int) -> str:
        """The ``tdgammon analyse`` report of the match so far, at ``plies``."""
        from tdgammon.engine.analysis.match_analysis import analyse_match
        from tdgammon.engine.analysis.match_report import analysis_text
        from tdgammon.engine.analysis.reports import load_search

        if not any(game.history for game in self.match.games):
            return "  nothing to analyse yet"
        search = load_search(variant=self.match.settings.variant)
        return analysis_text(analyse_match(self.match, search, plies))

    def _hint(self, game: Game) -> str:
        if game.phase == TO_ROLL:
            return "  hint is for moves: roll first"
        if game.phase != TO_MOVE:  # a cube answer or a resignation waits: not a roll
            return f"  hint is for moves, not this decision. {self._expected(game)}"
        from tdgammon.engine.analysis.reports import load_search

        try:
            search = load_search(variant=game.variant.name)
        except TdgammonError as error:  # no shipped network for the variant, or a bad file
            return self._pubeval_hint(game, str(error))
        # Anything else (here or in the search) is a bug: it ends the session with
        # the CLI's internal-error line, not a quiet switch to pubeval.
        plays = search.analyse(game.board, game.dice, HINT_PLIES)
        if plays:
            units = " in stakes" if game.variant.scoring == SCORING_CHECKERS_LEFT else ""
            lines = [f"  best plays ({search.name}, {HINT_PLIES}-ply, equity{units}):"]
            for rank, play in enumerate(plays[:5], 1):
                text = format_move(game.board, list(play.moves), play.named_double)
                extra = ", rolls again" if play.extra_roll else ""
                lines.append(
                    f"  {rank}. {text:<24} equity {play.equity:+.3f}"
                    f"  ({play.equity - plays[0].equity:+.3f}{extra})"
                )
            return "\n".join(lines)
        return "  no play to hint: nothing can be played"

    def _pubeval_hint(self, game: Game, reason: str) -> str:
        """pubeval's favourite plays, after saying why there is no network hint."""
        from tdgammon.engine.players.agents import has_contact
        from tdgammon.engine.players.pubeval import score

        legal = game.legal_moves()
        race = np.full(len(legal), not bool(has_contact(game.board[None, :])[0]))
        scores = score(legal.boards, race)
        order = np.argsort(-scores, kind="stable")[:5]
        lines = [
            f"  no network hint: {' '.join(reason.split())}",
            "  pubeval's top plays instead (a weak bot; only a guide):",
        ]
        for rank, row in enumerate(order, 1):
            pairs = [(int(a), int(b)) for a, b in legal.moves[row] if a >= 0]
            lines.append(
                f"  {rank}. {format_move(game.board, pairs, int(legal.named_double[row]))}"
            )
        return "\n".join(lines)
