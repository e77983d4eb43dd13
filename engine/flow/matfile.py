"""Matches as plain-text ``.mat`` files (the Jellyfish layout GNU Backgammon exports).

Layout (facts of the format as GNU Backgammon and eXtreme Gammon write it)::

    ; [Player 1 "alice"]
    ; [Player 2 "bob"]
    ; [Crawford "On"]

     7 point match

     Game 1
     alice : 0                          bob : 0
      1)                             31: 8/5 6/5
      2) 52: 13/8 13/11                64: 24/18 13/9
      3)  Doubles => 2                  Takes
     ...
          Wins 1 point

- Lines starting with ``;`` are comments; ``; [Key "Value"]`` are header tags
  (eXtreme Gammon reads ``Crawford``, ``Jacoby``, ``Beaver``, ``CubeLimit``
  among others; ``CubeLimit "1"`` means cubeless). ``0 point match`` is a money
  session.
- Each numbered line holds one action of player 1 (left column) and then one
  of player 2 (right column), in the order they happened. A move is the roll
  and its from/to pairs, 25 the bar and 0 off, ``*`` a hit (``52: 13/8 6/4*``);
  a roll with nothing written is a roll that could not be played. Cube
  actions: ``Doubles => 2``, ``Takes``, ``Drops``, ``Beavers => 4``.
- A player who rolls and then resigns has the roll written with nothing after
  it (GNU Backgammon: ``51:``; eXtreme Gammon: ``51: ???``), then the ``Wins``
  of the resignation.
- A beaver (docs/rules.md 5) is ``Beavers => 4`` in the beaverer's column (the
  cube if it is accepted), then the doubler's ``Takes`` (play goes on at 4)
  or ``Drops`` (refused: ``Wins 2 points`` for the beaverer, on a cube of 1).
  GNU Backgammon reads ``Beavers`` as a second double while the first waits,
  and its own export writes that second double as ``Doubles => 4``.
- The end of a game is ``Wins N point(s)`` in the winner's column on a line of
  its own; ``and the match`` may follow for the last game of a match.

Decisions:

- Reading replays every action through ``tdgammon.engine.flow.match.Match`` and
  ``tdgammon.engine.flow.game.Game``: an illegal move, a double in the Crawford game, a score
  line that does not match the games, ... is a ``MatFileError`` naming the
  line. Spacing and tabs do not matter; a line with a single action belongs to
  the right column when its action starts more than 10 columns after the
  ``N)`` (as the writer pads the left column to 28 characters).
- ``Wins`` when the board is not finished and no double was dropped is an
  accepted resignation of ``points / cube`` (single, gammon or backgammon) by
  the loser. Rejected resignations are not written (the format has no place
  for them). ``Raccoons => 8`` (our extension; GNU Backgammon reads it as a
  third double) is written in the doubler's column after the beaver, then the
  beaverer's ``Takes`` or ``Drops`` (``Wins 4 points`` for the doubler);
  ``; [Raccoon "On"]`` and ``; [AutoDoubles "N"]`` (our tags) carry those
  options. Reading also takes GNU Backgammon's ``Doubles`` for a beaver (by
  the doubled player while the double waits) and for a raccoon (by the
  beavered doubler), and the doubler's roll straight after a beaver or raccoon
  (as tdgammon wrote them before they could be refused) as the beaver or
  raccoon accepted.
- Automatic doubles (docs/rules.md 1: "Each tie on the opening roll doubles
  the cube (still centred) before the re-roll"; money play) are written as
  cube actions, ``Doubles => 2``, ``Doubles => 4``, ..., one a numbered line in
  the left column, before the game's first roll; reading a ``Doubles`` before
  the opening roll replays a tie that doubled the cube (the tie's dice are not
  recorded) and refuses one the settings do not allow.
- A roll with no move written (or ``???``) when the dice can be played is a
  roll the roller resigned after: the next action must be ``Wins`` (read as
  the resignation, with the dice rolled and not played; the history keeps no
  roll without its move, so writing the game again leaves the roll out). Any
  other action after it is a ``MatFileError`` at the roll's line (a move left
  out of the record).
- A game resigned before its first move has no numbered line (the format
  writes a roll only with its move, so the opening roll is not recorded): its
  ``Wins`` is read as the loser's resignation before the opening roll.
- Dice are written larger first. A game in progress (e.g. saved on Ctrl-C) is
  written without ``Wins`` and ends with the comment line ``; game in
  progress`` (``IN_PROGRESS``); it is read back in progress. A last game with
  neither a result nor that line is a file cut short (truncated, e.g. by a full
  disk): a ``MatFileError`` naming the last line. Earlier files of a game in
  progress load again once that line is added at their end.
- Player names must be printable text on one line (``check_name``); the score
  line under ``Game N`` is read with the names of the ``Player`` tags, so any
  such name (``:``, digits, a leading ``;``) reads back. Numbers are at most
  ``MAX_DIGITS`` digits.
- Writing is ``format_mat``; the interfaces write its text to a file through
  ``tdgammon.models.atomic`` (a temporary file in the same folder, then a
  rename), so a failed save leaves the previous file whole.
- A file written and read back gives the same text when written again
  (``format_mat(read_mat(text).match, headers) == text``).
- Variants (docs/rules.md 7). GNU Backgammon's .mat export names its variations in
  a ``; [Variation "..."]`` tag (``NackGammon``, ``HyperGammon (3)``; none
  for standard backgammon); we write the same for those, and ``Dutch`` and
  ``Acey-Deucey`` (our names) for the variants GNU Backgammon does not have.
  Reading accepts these (any case) and ``Standard`` / ``Backgammon``. A checker
  entering from the hand is written ``hand/20``; an Acey-Deucey 1-2 is one
  entry with the named double as a ``d-d:`` token after the 1 and the 2
  (``21: 24/23 24/22 6-6: 13/7 13/7 13/7 13/7``), and when the double was
  played in full the same player's next roll follows on the next line.
  Acey-Deucey is written with ``CubeLimit "1"`` (it has no cube). Its optional
  rule, the stake doubling on each 1-2 (docs/rules.md 7), is our tag
  ``; [AceyDeuceyStakes "On"]``; the 1-2 rolls are in the record, so reading
  replays the stake, and ``Wins`` lines count it.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tdgammon.engine.flow.checker_moves import apply_moves
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import (
    ACT_ACCEPT,
    ACT_BEAVER,
    ACT_DOUBLE,
    ACT_DROP,
    ACT_MOVE,
    ACT_RACCOON,
    ACT_TAKE,
    BEAVERED,
    DOUBLED,
    OPENING,
    OVER,
    RACCOONED,
    TO_ROLL,
)
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.formats.notation import point_name
from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.variants import SCORING_CHECKERS_LEFT, get_variant

IN_PROGRESS = "; game in progress"
"""The last line of a game written before its end: without it a game with no
result is a truncated file."""
MAX_DIGITS = 9
"""Longest number a .mat file may hold (scores, cube values, line numbers)."""

LEFT_WIDTH = 28
"""Characters of the left column (player 1), after the ``NNN) `` prefix."""
RIGHT_COLUMN_GAP = 10
"""A lone action starting more than this many columns after ``N)`` is in the right column."""
STANDARD_TAGS = ("Player 1", "Player 2", "Crawford", "Jacoby", "Beaver", "CubeLimit")
OUR_TAGS = ("Raccoon", "AutoDoubles", "Variation", "AceyDeuceyStakes")
"""Tags written from the match settings (besides the standard ones), never from ``headers``."""
VARIATION_TAGS = {
    "nackgammon": "NackGammon",
    "hypergammon": "HyperGammon (3)",
    "dutch": "Dutch",
    "acey-deucey": "Acey-Deucey",
}
"""``; [Variation "..."]`` per variant (the first two as GNU Backgammon writes them)."""
_VARIATION_NAMES = {
    "standard": "standard",
    "backgammon": "standard",
    "standard backgammon": "standard",
    "nackgammon": "nackgammon",
    "hypergammon (3)": "hypergammon",
    "hypergammon": "hypergammon",
    "3-chequer hypergammon": "hypergammon",
    "dutch": "dutch",
    "dutch backgammon": "dutch",
    "acey-deucey": "acey-deucey",
    "aceydeucey": "acey-deucey",
    "acey deucey": "acey-deucey",
}


class MatFileError(FormatError):
    """A .mat file that cannot be read; the message starts with the line number
    (from ``load_mat``: with the file name before it)."""


def check_name(name: str) -> None:
    """FormatError unless ``name`` can be a player name in a .mat file: not blank,
    and printable text on one line (no control, format or line-separator characters)."""
    if not name.strip():
        raise FormatError("a player name must not be empty")
    for char in name:
        kind = unicodedata.category(char)
        if kind.startswith("C") or kind in ("Zl", "Zp"):
            raise FormatError(
                f"a player name must be printable text on one line: {name!r} has {char!r}"
            )


@dataclass
class LoadedMatch:
    """A .mat file read and replayed: the match and the header tags, in file order."""

    match: Match
    headers: dict[str, str] = field(default_factory=dict)


# ------------------------------------------------------------------ writing


def _move_text(board: np.ndarray, dice, moves, named_double: int = 0) -> str:
    """``52: 13/8 6/4*`` for a roll and its pairs played on ``board`` (mover's view);
    ``hand/20`` for a checker entering from the hand, ``d-d:`` after the 1 and
    the 2 of an Acey-Deucey 1-2."""
    _, hits = apply_moves(board, moves)
    parts = [
        f"{point_name(a) if a > 25 else a}/{b}{'*' if hit else ''}"
        for (a, b), hit in zip(moves, hits, strict=True)
    ]
    if named_double and len(parts) >= 2:
        parts.insert(2, f"{named_double}-{named_double}:")
    high, low = max(dice), min(dice)
    return f"{high}{low}: {' '.join(parts)}".rstrip()


def _wins_text(points: int, match_won: bool) -> str:
    unit = "point" if points == 1 else "points"
    return f" Wins {points} {unit}" + (" and the match" if match_won else "")


def _line(number: int, left: str, right: str) -> str:
    if right and len(left) >= LEFT_WIDTH:
        body = left + " " + right
    else:
        body = left.ljust(LEFT_WIDTH) + right if right else left
    return f"{number:3d}) {body}".rstrip()


def _game_lines(game: Game, names, number: int, match_won: bool) -> list[str]:
    """The lines of one game; none for a game with nothing to write yet."""
    automatic = [(f" Doubles => {2**n}", "") for n in range(1, game.auto_doubles_done + 1)]
    rows = automatic + _action_rows(game)
    if not rows and game.result is None:
        return []
    s0, s1 = game.settings.scores
    head = f"{names[0]} : {s0}"
    lines = [f" Game {number}", f" {head:<33}  {names[1]} : {s1}".rstrip()]
    for index, (left, right) in enumerate(rows, 1):
        lines.append(_line(index, left, right))
    if game.result is None:
        lines.append(IN_PROGRESS)
    else:
        wins = _wins_text(game.result.points, match_won)
        pad = " " * 5 + ("" if game.result.winner == 0 else " " * LEFT_WIDTH)
        lines.append(pad + wins)
    return lines


def _action_rows(game: Game) -> list[tuple[str, str]]:
    """(left, right) cells of the game's history, a numbered line each."""
    cells: list[list[str]] = []
    board0 = game.variant.starting_board()  # seat 0's view
    for action in game.history:
        if action.kind == ACT_MOVE:
            view = board0 if action.seat == 0 else _flip(board0)
            text = _move_text(view, action.dice, action.moves, action.named_double)
            after, _ = apply_moves(view, action.moves)
            board0 = after if action.seat == 0 else _flip(after)
        elif action.kind == ACT_DOUBLE:
            text = f" Doubles => {action.value}"
        elif action.kind == ACT_TAKE:
            text = " Takes"
        elif action.kind == ACT_DROP:
            text = " Drops"
        elif action.kind == ACT_BEAVER:
            text = f" Beavers => {action.value}"
        elif action.kind == ACT_RACCOON:
            text = f" Raccoons => {action.value}"
        else:
            continue  # resign / accept / reject: no place in the format
        # Left (seat 0) always opens a line unless the line is empty; right
        # (seat 1) fills the current line unless its right cell is taken.
        if not cells or cells[-1][1] or (action.seat == 0 and cells[-1][0]):
            cells.append(["", ""])
        cells[-1][action.seat] = text
    return [(left, right) for left, right in cells]


def _flip(board: np.ndarray) -> np.ndarray:
    from tdgammon.engine.rules.board import flip

    return flip(board)


def _settings_tags(settings: MatchSettings) -> dict[str, str]:
    on = {True: "On", False: "Off"}
    rules = settings.rules
    tags = {}
    if rules.name in VARIATION_TAGS:
        tags["Variation"] = VARIATION_TAGS[rules.name]
    tags.update(
        {
            "Crawford": on[settings.crawford],
            "Jacoby": on[settings.jacoby],
            "Beaver": on[settings.beavers],
            "CubeLimit": str(settings.max_cube if settings.cube and rules.cube else 1),
        }
    )
    if settings.raccoons:
        tags["Raccoon"] = "On"
    if settings.auto_doubles:
        tags["AutoDoubles"] = str(settings.auto_doubles)
    if settings.acey_deucey_stakes:
        tags["AceyDeuceyStakes"] = "On"
    return tags


def format_mat(match: Match, headers: dict[str, str] | None = None) -> str:
    """The .mat text of ``match`` (games with nothing recorded yet are left out).

    headers: extra ``; [Key "Value"]`` tags (e.g. Site, EventDate), written
    after the players and rules tags, which always come from the match.
    FormatError for a player name the format cannot hold (``check_name``).
    """
    for name in match.names:
        check_name(name)
    tags = {"Player 1": match.names[0], "Player 2": match.names[1]}
    tags.update(_settings_tags(match.settings))
    for key, value in (headers or {}).items():
        if key not in tags and key not in OUR_TAGS:
            tags[key] = value
    lines = [f'; [{key} "{value}"]' for key, value in tags.items()]
    lines += ["", f" {match.settings.length} point match", ""]
    for number, game in enumerate(match.games, 1):
        last = number == len(match.games)
        match_won = last and match.winner is not None
        block = _game_lines(game, match.names, number, match_won)
        if block:
            lines += block + [""]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ reading

_TAG_RE = re.compile(r'^;\s*\[\s*([^\]"]+?)\s+"(.*)"\s*\]\s*$')
_LENGTH_RE = re.compile(r"^(\d+)\s+point\s+match$", re.IGNORECASE)
_GAME_RE = re.compile(r"^Game\s+(\d+)$", re.IGNORECASE)
_SCORE_RE = re.compile(
    r"^(?P<name0>.+?)\s*:\s*(?P<score0>\d+)\s+(?P<name1>.+?)\s*:\s*(?P<score1>\d+)$"
)
_NUMBER_RE = re.compile(r"^\s*(\d+)\)")
_ENTRY_START_RE = re.compile(
    r"(?<!\S)(?:[1-6][1-6]:|Doubles\b|Takes\b|Drops\b|Passes\b|Beavers\b|Raccoons\b|Wins\b)",
    re.IGNORECASE,
)
_MOVE_RE = re.compile(r"^([1-6])([1-6]):\s*(.*)$")
_CUBE_RE = re.compile(r"^(Doubles|Beavers|Raccoons)\s*=>\s*(\d+)$", re.IGNORECASE)
_WINS_RE = re.compile(r"^Wins\s+(\d+)\s+points?(\s+and\s+the\s+match)?$", re.IGNORECASE)
_IN_PROGRESS_RE = re.compile(r"^;\s*game\s+in\s+progress$", re.IGNORECASE)
_UNRECORDED_RE = re.compile(r"^\?{3,}$")
"""eXtreme Gammon's move for a roll the roller resigned after (``52: ???``)."""


def _names_score_re(names: tuple[str, str]) -> re.Pattern:
    """The score line of a game with these player names (the ``Player`` tags)."""
    first, second = (re.escape(name) for name in names)
    return re.compile(
        rf"^\s*(?P<name0>{first})\s*:\s*(?P<score0>\d+)\s+(?P<name1>{second})\s*:\s*"
        r"(?P<score1>\d+)$"
    )


def _integer(text: str, line: int, what: str) -> int:
    """``text`` as a whole number of at most ``MAX_DIGITS`` digits, else MatFileError."""
    digits = text.strip()
    if len(digits) > MAX_DIGITS:
        raise MatFileError(
            f"line {line}: {what} {digits[:MAX_DIGITS]}... is too large "
            f"(more than {MAX_DIGITS} digits)"
        )
    try:
        return int(digits)
    except ValueError:
        raise MatFileError(f"line {line}: {what} must be a whole number, got {text!r}") from None


def _on_off(value: str, tag: str, line: int) -> bool:
    v = value.strip().lower()
    if v in ("on", "yes", "true", "1"):
        return True
    if v in ("off", "no", "false", "0"):
        return False
    raise MatFileError(f"line {line}: [{tag}] must be On or Off, got {value!r}")


def _settings_from(headers: dict[str, tuple[str, int]], length: int) -> MatchSettings:
    def get(tag, default):
        return headers[tag] if tag in headers else (default, 0)

    crawford, line = get("Crawford", "On")
    jacoby, jline = get("Jacoby", "Off")
    beaver, bline = get("Beaver", "Off")
    raccoon, rline = get("Raccoon", "Off")
    limit, lline = get("CubeLimit", "1024")
    auto, aline = get("AutoDoubles", "0")
    stakes, sline = get("AceyDeuceyStakes", "Off")
    variation, vline = get("Variation", "standard")
    variant = _VARIATION_NAMES.get(" ".join(variation.lower().split()))
    if variant is None:
        known = ", ".join(sorted(set(VARIATION_TAGS.values()) | {"Standard"}))
        raise MatFileError(f"line {vline}: unknown [Variation] {variation!r}: use one of {known}")
    max_cube = _integer(limit, lline, "[CubeLimit]")
    auto_doubles = _integer(auto, aline, "[AutoDoubles]")
    money = length == 0
    settings = MatchSettings(
        length=length,
        crawford=_on_off(crawford, "Crawford", line),
        cube=max_cube > 1,
        jacoby=_on_off(jacoby, "Jacoby", jline) and money,
        beavers=_on_off(beaver, "Beaver", bline) and money,
        raccoons=_on_off(raccoon, "Raccoon", rline) and money,
        max_cube=max_cube if max_cube > 1 else 1024,
        auto_doubles=auto_doubles if money else 0,
        variant=get_variant(variant).name,
        acey_deucey_stakes=_on_off(stakes, "AceyDeuceyStakes", sline),
    )
    try:
        settings.check()
    except TdgammonError as error:
        raise MatFileError(f"line {lline or bline or sline or line or vline}: {error}") from None
    return settings


def _split_entries(rest: str) -> list[tuple[int, str]]:
    """(column, text) of each action on a numbered line (``rest`` after ``N)``)."""
    starts = [m.start() for m in _ENTRY_START_RE.finditer(rest)]
    if not starts:
        return []
    bounds = starts + [len(rest)]
    return [(bounds[i], rest[bounds[i] : bounds[i + 1]].strip()) for i in range(len(starts))]


class _Reader:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.headers: dict[str, tuple[str, int]] = {}
        self.match: Match | None = None
        self.line = 0
        self.expect_number = 1
        self.game_started = False
        self.names: tuple[str, str] | None = None
        self.names_score_re: re.Pattern | None = None
        self.last = (0, "")  # the last line with text: number, text
        self.unplayed: tuple[int, str] | None = None  # a roll resigned after?: line, text

    def error(self, message: str) -> MatFileError:
        return MatFileError(f"line {self.line}: {message}")

    def integer(self, text: str, what: str) -> int:
        return _integer(text, self.line, what)

    def run(self) -> LoadedMatch:
        for index, raw in enumerate(self.lines, 1):
            self.line = index
            line = raw.expandtabs(8).rstrip()
            stripped = line.strip()
            if not stripped:
                continue
            self.last = (index, stripped)
            if stripped.startswith(";") and not self.named_scores(line):
                tag = _TAG_RE.match(stripped)
                if tag:
                    self.headers[tag.group(1).strip()] = (tag.group(2), index)
            elif self.match is None:
                self.start_match(stripped)
            else:
                self.read_line(line, stripped)
        if self.match is None:
            self.line = len(self.lines)
            raise self.error("no match length line ('7 point match'): is this a .mat file?")
        self.check_complete()
        headers = {key: value for key, (value, _) in self.headers.items()}
        return LoadedMatch(self.match, headers)

    def start_match(self, stripped: str) -> None:
        """The match length line: the settings come from the tags read before it."""
        m = _LENGTH_RE.match(stripped)
        if not m:
            raise self.error(f"expected the match length ('7 point match') first, got {stripped!r}")
        settings = _settings_from(self.headers, self.integer(m.group(1), "the match length"))
        names = (
            self.headers.get("Player 1", ("player 1", 0))[0],
            self.headers.get("Player 2", ("player 2", 0))[0],
        )
        if "Player 1" in self.headers and "Player 2" in self.headers:
            self.names_score_re = _names_score_re(names)
        self.match = Match(settings, names=names, seed=0, seat_names=names)

    def check_complete(self) -> None:
        """A last game with no result must end with ``IN_PROGRESS``, or the file is cut short."""
        self.check_unplayed()
        if not self.game_started or self.match.game.is_over:
            return
        self.line, text = self.last
        if not _IN_PROGRESS_RE.match(text):
            raise self.error(
                f"game {len(self.match.games)} has no result ('Wins N points') and does not "
                f"end with {IN_PROGRESS!r} (the mark of a game saved in progress): "
                "the file is cut short (truncated)"
            )

    # ---------------------------------------------------------------- lines

    def named_scores(self, line: str) -> re.Match | None:
        """The score line due after ``Game N``, read with the ``Player`` tag names
        (which may hold anything the generic score pattern would misread)."""
        if self.names_score_re is None or not self.game_started or self.expect_number:
            return None
        return self.names_score_re.match(line)

    def read_line(self, line: str, stripped: str) -> None:
        named = self.named_scores(line)
        if named:
            self.read_scores(named)
            return
        game_header = _GAME_RE.match(stripped)
        if game_header:
            self.start_game(self.integer(game_header.group(1), "the game number"))
            return
        numbered = _NUMBER_RE.match(line)
        if numbered:
            self.read_numbered(line, numbered)
            return
        wins = _WINS_RE.match(stripped)
        if wins:
            column = len(line) - len(line.lstrip())
            self.read_wins(wins, 0 if column < 5 + RIGHT_COLUMN_GAP + 4 else 1)
            return
        score = _SCORE_RE.match(stripped)
        if score and self.game_started and self.expect_number == 0:
            self.read_scores(score)
            return
        raise self.error(f"not understood: {stripped[:60]!r}")

    def start_game(self, number: int) -> None:
        self.check_unplayed()
        match = self.match
        if number != len(match.games) + (0 if self.first_game_unused() else 1):
            raise self.error(f"expected game {len(match.games) + 1}, got Game {number}")
        if not self.first_game_unused():
            if not match.game.is_over:
                raise self.error(
                    f"game {len(match.games)} has no result ('Wins N points') before Game {number}"
                )
            try:
                match.next_game()
            except TdgammonError as error:
                raise self.error(str(error)) from None
        self.game_started = True
        self.expect_number = 0  # the score line comes next

    def first_game_unused(self) -> bool:
        return not self.game_started and len(self.match.games) == 1

    def read_scores(self, score: re.Match) -> None:
        names = (score.group("name0").strip(), score.group("name1").strip())
        scores = (
            self.integer(score.group("score0"), "a score"),
            self.integer(score.group("score1"), "a score"),
        )
        if self.names is None:
            self.names = names
            if "Player 1" not in self.headers:
                self.match.names = (names[0], self.match.names[1])
            if "Player 2" not in self.headers:
                self.match.names = (self.match.names[0], names[1])
            self.match.name_seats(self.match.names)  # refusals name them as the file does
        if scores != self.match.scores:
            raise self.error(
                f"score line says {scores[0]}-{scores[1]}, but the games before make it "
                f"{self.match.scores[0]}-{self.match.scores[1]}"
            )
        self.expect_number = 1

    def read_numbered(self, line: str, numbered: re.Match) -> None:
        if not self.game_started or self.expect_number == 0:
            raise self.error("a numbered move line before 'Game N' and its score line")
        number = self.integer(numbered.group(1), "the move number")
        if number != self.expect_number:
            raise self.error(f"expected move number {self.expect_number}, got {number})")
        self.expect_number += 1
        rest = line[numbered.end() :]
        entries = _split_entries(rest)
        if not entries:
            if rest.strip():
                raise self.error(f"not understood: {rest.strip()[:60]!r}")
            return
        before = rest[: entries[0][0]].strip()
        if before:
            raise self.error(f"not understood: {before[:60]!r}")
        if len(entries) > 2:
            raise self.error(f"more than two actions on one line: {rest.strip()[:60]!r}")
        if len(entries) == 2:
            seats = [0, 1]
        else:
            gap = len(rest[: entries[0][0]])
            seats = [1 if gap > RIGHT_COLUMN_GAP else 0]
        for (_, text), seat in zip(entries, seats, strict=True):
            wins = _WINS_RE.match(text)
            if wins:
                self.read_wins(wins, seat)
            else:
                self.apply(text, seat)

    def apply(self, text: str, seat: int) -> None:
        self.check_unplayed()
        game = self.match.game
        try:
            self._apply(game, text, seat)
        except MatFileError:
            raise
        except TdgammonError as error:
            who = self.match.names[seat]
            raise self.error(f"{who}: {text!r}: {error}") from None

    def _apply(self, game: Game, text: str, seat: int) -> None:
        move = _MOVE_RE.match(text)
        if move:
            dice = (int(move.group(1)), int(move.group(2)))
            if game.phase == OPENING:
                if dice[0] == dice[1]:
                    raise self.error(f"the opening roll cannot be a double ({text!r})")
                high, low = max(dice), min(dice)
                game.opening_roll((high, low) if seat == 0 else (low, high))
            else:
                if game.phase in (BEAVERED, RACCOONED) and seat == game.turn:
                    # an older record: the beaver (raccoon) taken, the doubler rolls
                    game.take()
                if game.phase != TO_ROLL:
                    raise self.error(f"{text!r}: {game._phase_text()}")
                game.roll(dice, seat=seat)
            played = move.group(3).strip()
            if _UNRECORDED_RE.match(played):
                played = ""
            if not played and game.can_play():
                # "a roll the roller resigned after: the next action must be Wins"
                self.unplayed = (self.line, f"{self.match.names[seat]}: {text!r}")
                return
            game.play_text(played or "pass", seat=seat)
            return
        cube = _CUBE_RE.match(text)
        if cube:
            what, value = cube.group(1).lower(), self.integer(cube.group(2), "the cube")
            if what == "doubles" and game.phase == OPENING:
                self.automatic_double(game, value)
                return
            if what == "doubles" and game.phase in (DOUBLED, BEAVERED):
                # GNU Backgammon writes a beaver, and a raccoon, as one more double
                what = "beavers" if game.phase == DOUBLED else "raccoons"
            # the cube if accepted: a beaver is four times the stake; at a
            # raccoon the cube holds the beaverer's take (twice), so again x4
            expected = {
                "doubles": 2 * game.cube_value,
                "beavers": 4 * game.cube_value,
                "raccoons": 4 * game.cube_value,
            }[what]
            if value != expected:
                raise self.error(f"{text!r}: the cube would go to {expected}, not {value}")
            {"doubles": game.double, "beavers": game.beaver, "raccoons": game.raccoon}[what](
                seat=seat
            )
            return
        word = text.lower()
        if word == "takes":
            game.take(seat=seat)
        elif word in ("drops", "passes"):
            game.drop(seat=seat)
        else:
            raise self.error(f"not an action: {text!r}")

    def check_unplayed(self) -> None:
        """MatFileError at the line of a roll with no move written, though its dice
        can be played, unless it was followed at once by ``Wins`` (a resignation)."""
        if self.unplayed is None:
            return
        self.line, what = self.unplayed
        raise self.error(
            f"{what}: no move written, but the dice can be played: a roll with nothing "
            "written is one that cannot be played, or one the roller resigned after "
            "('Wins N points' next); is a move missing?"
        )

    def automatic_double(self, game: Game, value: int) -> None:
        """``Doubles => N`` before the opening roll: a tie that doubled the cube."""
        expected = 2 * game.cube_value
        if value != expected:
            raise self.error(f"an automatic double takes the cube to {expected}, not {value}")
        _opening_tie(game)
        if game.cube_value != expected:
            s = game.settings
            raise self.error(
                f"no automatic double to {value} here: [AutoDoubles] allows {s.auto_doubles} "
                f"(money play only), the cube limit is {s.max_cube}"
            )

    def read_wins(self, wins: re.Match, column_seat: int) -> None:
        if not self.game_started:
            raise self.error("'Wins' before any game")
        game = self.match.game
        points = self.integer(wins.group(1), "the points won")
        if game.phase == OVER:
            result = game.result
            if result.points != points:
                raise self.error(
                    f"the game was worth {result.points} "
                    f"point{'s' if result.points != 1 else ''}, the file says {points}"
                )
            return
        if game.phase in (DOUBLED, BEAVERED, RACCOONED):
            raise self.error("'Wins' while a double waits for an answer")
        winner = column_seat
        kind, remainder = divmod(points, game.cube_value * game.stake)
        if game.variant.scoring == SCORING_CHECKERS_LEFT:
            if remainder or not 1 <= kind <= game.variant.checkers:
                raise self.error(
                    f"'Wins {points}' is not a resignation of 1..{game.variant.checkers} points"
                )
        elif remainder or kind not in (1, 2, 3):
            raise self.error(
                f"'Wins {points}' with the cube at {game.cube_value} is not a single game, "
                "gammon or backgammon"
            )
        if game.settings.jacoby and not game.cube_turned and kind > 1:
            raise self.error(f"'Wins {points}': with the Jacoby rule the cube was not turned")
        try:
            game.offer_resignation(kind, seat=1 - winner)
            game.accept_resignation()
        except TdgammonError as error:
            raise self.error(str(error)) from None
        self.unplayed = None  # the roll before it, if any, is accounted for


def read_mat(text: str) -> LoadedMatch:
    """Read .mat text into a replayed Match; MatFileError (with the line) if it is not valid."""
    if not isinstance(text, str):
        raise MatFileError(f"line 0: a .mat file is text, got {type(text).__name__}")
    return _Reader(text).run()


def decode_mat(data: bytes) -> str:
    """The text of a .mat file's bytes: UTF-16 when it starts with a UTF-16 byte-order
    mark (a Windows editor's "Unicode" save), else UTF-8 (a byte-order mark skipped),
    else Latin-1 (older exports); so every byte string decodes to some text."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass  # not UTF-16 after all (an odd byte count): read as the others
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def load_mat(path: str | Path) -> LoadedMatch:
    """Read a .mat file (``decode_mat``); errors name the file, then the line."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise MatFileError(f"{path}: line 0: cannot read the file: {error.strerror}") from None
    text = decode_mat(data)
    try:
        return read_mat(text)
    except MatFileError as error:
        raise MatFileError(f"{path}: {error}") from None


def position_ids(match: Match) -> list[dict]:
    """Every position of the match, replayed, as XGID and GNU Backgammon ID.

    One entry per decision: ``{"game", "seat", "action", "xgid", "gnubg"}``,
    the position seen by the player who acts, before the action. Positions
    with checkers in hand (Dutch, Acey-Deucey) have no IDs: both are None.
    """
    from tdgammon.engine.formats.match_id import position_to_gnubg
    from tdgammon.engine.formats.xgid import position_to_xgid

    out = []
    replay = Match(match.settings, names=match.names, seed=0)
    for number, game in enumerate(match.games, 1):
        if number > 1:
            replay.next_game()
        target = replay.game
        for _ in range(game.auto_doubles_done):
            _opening_tie(target)
        for action in game.history:
            if target.phase == OPENING and action.kind == ACT_MOVE:
                high, low = max(action.dice), min(action.dice)
                target.opening_roll((high, low) if action.seat == 0 else (low, high))
            elif action.kind == ACT_MOVE and target.phase == TO_ROLL:
                target.roll(action.dice)
            position = target.position()
            try:
                xgid, gnubg = position_to_xgid(position), position_to_gnubg(position)
            except TdgammonError:
                xgid = gnubg = None  # checkers in hand: neither ID can record them
            out.append(
                {
                    "game": number,
                    "seat": action.seat,
                    "action": action.kind,
                    "xgid": xgid,
                    "gnubg": gnubg,
                }
            )
            _replay(target, action)
    return out


def _opening_tie(game: Game) -> None:
    """docs/rules.md 1: a tie on the opening roll (an automatic double where the
    settings allow one); which tie is not recorded."""
    game.opening_roll((1, 1))


def _replay(game: Game, action) -> None:
    kind = action.kind
    if kind == ACT_MOVE:
        game.play(action.moves, extra_roll=action.extra_roll, named_double=action.named_double)
    elif kind == ACT_DOUBLE:
        game.double()
    elif kind == ACT_TAKE:
        game.take()
    elif kind == ACT_DROP:
        game.drop()
    elif kind == ACT_BEAVER:
        game.beaver()
    elif kind == ACT_RACCOON:
        game.raccoon()
    elif kind == "resign":
        game.offer_resignation(action.value, seat=action.seat)
    elif kind == ACT_ACCEPT:
        game.accept_resignation()
    else:
        game.reject_resignation()


__all__ = [
    "IN_PROGRESS",
    "LoadedMatch",
    "MatFileError",
    "check_name",
    "format_mat",
    "load_mat",
    "position_ids",
    "read_mat",
]
