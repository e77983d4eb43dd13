"""The records of a game: its phases, settings, history actions and result.

The vocabulary the state machine (``tdgammon.engine.flow.game``), the ``.mat``
records (``tdgammon.engine.flow.matfile``), the bots' drivers and the terminal
share: the phases a game is in (``docs/rules.md`` 1, 4, 5: the opening roll,
rolling, a double and its answers, moving, a resignation, over), the action
kinds of its history, the rules a game is played under (``GameSettings``) and
how it ended (``GameResult``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tdgammon.engine.movegen.reference import Move
from tdgammon.engine.rules.errors import FormatError, RuleError
from tdgammon.engine.rules.outcome import (
    RESULT_NAMES,
)
from tdgammon.engine.rules.variants import SCORING_CHECKERS_LEFT, Variant, get_variant

OPENING = "opening"
TO_ROLL = "to roll"
DOUBLED = "doubled"
BEAVERED = "beavered"
RACCOONED = "raccooned"
TO_MOVE = "to move"
RESIGNING = "resigning"
OVER = "over"
PHASES = (OPENING, TO_ROLL, DOUBLED, BEAVERED, RACCOONED, TO_MOVE, RESIGNING, OVER)
CUBE_ANSWER_PHASES = (DOUBLED, BEAVERED, RACCOONED)
"""Phases where a double (or a beaver, or a raccoon) waits for take or drop."""

ENDED_BY_BEAR_OFF = "bear-off"
ENDED_BY_DROP = "drop"
ENDED_BY_RESIGNATION = "resignation"


# Action kinds of the game history (tdgammon.engine.flow.matfile writes them).
ACT_MOVE = "move"
ACT_DOUBLE = "double"
ACT_TAKE = "take"
ACT_DROP = "drop"
ACT_BEAVER = "beaver"
ACT_RACCOON = "raccoon"
ACT_RESIGN = "resign"
ACT_ACCEPT = "accept"
ACT_REJECT = "reject"


@dataclass(frozen=True)
class GameSettings:
    """Rules of one game and the match context it is played in.

    cube: the doubling cube is used at all (False: cubeless).
    crawford: this is the Crawford game (docs/rules.md 6: "the cube may not be used").
    jacoby, beavers, raccoons: money-play options (docs/rules.md 5), off unless set.
    max_cube: highest cube value allowed, a power of two (docs/rules.md 5, "Cube limit").
    auto_doubles: most automatic doubles on opening ties (docs/rules.md 1, money only).
    match_length: points to win the match, 0 for money play.
    scores: points of seat 0 and seat 1 before this game.
    variant: the variant's name (``tdgammon.engine.rules.variants``: standard, nackgammon,
        hypergammon, dutch, acey-deucey); ``rules`` is its ``Variant``.
    acey_deucey_stakes: Acey-Deucey's optional rule (docs/rules.md 7, off unless
        set): the stake doubles each time a 1-2 is thrown. An option of the game,
        like Jacoby, not a variant of its own: the moves, the positions and the
        networks are Acey-Deucey's; only the points of a game change.
    """

    cube: bool = True
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    raccoons: bool = False
    max_cube: int = 1024
    auto_doubles: int = 0
    match_length: int = 0
    scores: tuple[int, int] = (0, 0)
    variant: str = "standard"
    acey_deucey_stakes: bool = False

    @property
    def rules(self) -> Variant:
        """The ``Variant`` played (FormatError for an unknown name)."""
        return get_variant(self.variant)

    def check(self) -> None:
        """Raise RuleError for settings that contradict each other or docs/rules.md."""
        try:
            rules = self.rules
        except FormatError as error:  # an unknown variant name: a setting the rules refuse
            raise RuleError(str(error)) from None
        if not rules.cube:
            for name, on in (
                ("Jacoby rule", self.jacoby),
                ("beavers", self.beavers),
                ("raccoons", self.raccoons),
                ("automatic doubles", self.auto_doubles > 0),
            ):
                if on:
                    raise RuleError(
                        f"the {name} needs the doubling cube, and {rules.name} has none"
                    )
        if self.acey_deucey_stakes and not rules.acey_deucey_roll:
            raise RuleError(
                "the Acey-Deucey stakes rule (the stake doubles on each 1-2, docs/rules.md 7) "
                f"is for acey-deucey only, not {rules.name}"
            )
        if self.max_cube < 1 or self.max_cube & (self.max_cube - 1):
            raise RuleError(f"the cube limit must be a power of two, got {self.max_cube}")
        if self.auto_doubles < 0:
            raise RuleError(f"automatic doubles must be 0 or more, got {self.auto_doubles}")
        if self.match_length < 0:
            raise RuleError(f"match length must be 0 (money) or more, got {self.match_length}")
        if self.match_length > 0:
            for name, on in (
                ("Jacoby rule", self.jacoby),
                ("beavers", self.beavers),
                ("automatic doubles", self.auto_doubles > 0),
            ):
                if on:
                    raise RuleError(f"the {name} is for money play only, not for a match")
        elif self.crawford:
            raise RuleError("the Crawford rule is for match play only")
        if self.raccoons and not self.beavers:
            raise RuleError("raccoons need beavers")
        if any(s < 0 for s in self.scores):
            raise RuleError(f"scores must not be negative, got {self.scores}")

    @property
    def cube_in_play(self) -> bool:
        """The cube may be used in this game (not cubeless, not the Crawford game,
        not a variant without a cube)."""
        return self.cube and not self.crawford and self.rules.cube

    @property
    def checkers(self) -> int:
        """Checkers per side in this variant (the game ends when one side bears them off)."""
        return self.rules.checkers


@dataclass(frozen=True)
class GameAction:
    """One entry of a game's history.

    seat: the player who acted. kind: one of the ACT_* names.
    dice: the roll of a move (the opening roll for the first move).
    moves: the (from, to) pairs of a move, in play order; () for no play.
    value: the cube value a double/beaver/raccoon offers, i.e. the stake if it
        is accepted (``Doubles => 2``, ``Beavers => 4``, ``Raccoons => 8`` on a
        cube of 1), the resignation kind (1..3) of ``resign``.
    named_double: Acey-Deucey 1-2: the double named after the 1 and the 2 (0: none).
    extra_roll: Acey-Deucey 1-2: the named double was played in full, so the
        same player rolled again.
    """

    seat: int
    kind: str
    dice: tuple[int, int] | None = None
    moves: tuple[Move, ...] = ()
    value: int = 0
    named_double: int = 0
    extra_roll: bool = False


@dataclass(frozen=True)
class GameResult:
    """How a game ended.

    winner: seat. kind: SINGLE / GAMMON / BACKGAMMON as it happened on the board
    (a drop is SINGLE; a resignation the kind resigned); under Acey-Deucey
    scoring the number of checkers the loser had not borne off (or the points
    resigned). points: what the
    winner scores: cube value x stake x kind, or x 1 under the Jacoby rule with
    the cube not turned (docs/rules.md 4, 5). ended_by: ENDED_BY_*. A drop
    scores the cube value: after a refused beaver the beaverer's take (2 on a
    cube of 1). stake: the Acey-Deucey stake (docs/rules.md 7; doubled on each
    1-2 under ``GameSettings.acey_deucey_stakes``), 1 otherwise.
    """

    winner: int
    kind: int
    cube_value: int
    points: int
    ended_by: str
    scoring: str = "standard"
    stake: int = 1

    def text(self, names: Sequence[str] = ("player 0", "player 1")) -> str:
        how = {
            ENDED_BY_BEAR_OFF: "",
            ENDED_BY_DROP: " (double dropped)",
            ENDED_BY_RESIGNATION: " (resignation)",
        }[self.ended_by]
        unit = "point" if self.points == 1 else "points"
        who = names[self.winner]
        wins = "win" if who.lower() == "you" else "wins"  # the terminal's player is "you"
        if self.scoring == SCORING_CHECKERS_LEFT:
            if self.ended_by == ENDED_BY_BEAR_OFF:
                left = "checker" if self.kind == 1 else "checkers"
                how = f" ({self.kind} {left} not borne off)"
            if self.stake > 1:
                how += f" at a stake of {self.stake}"
            return f"{who} {wins}{how}: {self.points} {unit}"
        return f"{who} {wins} a {RESULT_NAMES[self.kind]}{how}: {self.points} {unit}"
