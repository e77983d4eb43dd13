"""The rule settings of London Bridge: one field per [choice] clause.

docs/london_bridge.md marks with [choice] each place where the published rules
are silent; ``Rules`` holds the rule chosen there, so that each one stays a
setting. ``Rules()`` is the default game. The fixed parts of the equipment
(clause 1.4's two cycles) are constants here too, beside the settings that
index them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from tdgammon.engine.rules.errors import QUOTE_LIMIT, FormatError, quoted

COLOURS = "RYB"
"""Pot and dial colours as letters; a colour's code is its index (0 red, 1 yellow, 2 blue)."""
COLOUR_NAMES = ("red", "yellow", "blue")

NUMBER_CYCLE = (1, 2, 3, 4)
"""1.4: "The number dial's pin moves round 1 -> 2 -> 3 -> 4 -> 1"; index = pin position."""
COLOUR_CYCLE = (0, 1, 2, 0, 2, 1)
"""1.4: "the colour dial's pin moves round six positions, red -> yellow -> blue -> red
-> blue -> yellow -> red, two of each colour" (colour codes; index = pin position)."""

SOWING_CHOICES = ("free", "own-first", "opponent-first")
"""3.5 settings: the mover picks each bead (free), or own beads go first, or the opponent's do."""
GOAL_PASSES = ("pass", "reserve")
"""3.3 settings: a goal reached holding only opponent beads is passed (pass); or the mover
must keep an own bead for each goal reached when some order of dropping allows it (reserve)."""

DEFAULT_LAYOUT = "RYBRYBRYBRYB"


@dataclass(frozen=True)
class Rules:
    """The [choice] clauses of docs/london_bridge.md, each a setting (defaults: the chosen rule).

    Frozen and hashable: the sowing tables are cached per ``Rules``.
    """

    layout: str = DEFAULT_LAYOUT
    """1.2: 12 letters over RYB: the first player's row left to right, then the second
    player's row left to right from the second player's seat."""
    number_start: int = 1
    """1.4: the number pin's starting value, 1-4."""
    colour_start: int = 0
    """1.4: the colour pin's starting position, 0-5 in ``COLOUR_CYCLE`` (0: the first red)."""
    first_player: int = 0
    """2.3: the seat that moves first: 0 the first player of the layout, 1 the second."""
    goal_without_own: str = "pass"
    """3.3: what a goal reached with only opponent beads in hand does (``GOAL_PASSES``)."""
    sowing: str = "free"
    """3.5: who picks the colour dropped into each pot (``SOWING_CHOICES``)."""
    turn_limit: int = 400
    """5.3: the game ends after this many turns (both players' turns counted)."""

    def __post_init__(self) -> None:
        layout = self.layout.upper()
        if len(layout) != 12 or set(layout) - set(COLOURS):
            raise FormatError(
                "rule layout must be 12 letters over R, Y, B (clause 1.2), "
                f"got {quoted(self.layout)}"
            )
        object.__setattr__(self, "layout", layout)
        _check_range("number_start", self.number_start, 1, 4)
        _check_range("colour_start", self.colour_start, 0, len(COLOUR_CYCLE) - 1)
        _check_range("first_player", self.first_player, 0, 1)
        _check_range("turn_limit", self.turn_limit, 1, 100_000)
        _check_choice("goal_without_own", self.goal_without_own, GOAL_PASSES)
        _check_choice("sowing", self.sowing, SOWING_CHOICES)

    def describe(self) -> str:
        """The settings that differ from the default as ``key=value,...`` ('' if none)."""
        default = Rules()
        return ",".join(
            f"{f.name}={getattr(self, f.name)}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        )


def parse_rules(texts: list[str] | tuple[str, ...]) -> Rules:
    """``Rules`` from ``key=value`` texts (each may hold several, comma-separated).

    ``parse_rules(["turn_limit=200", "sowing=own-first"])``. Unknown keys and bad
    values raise ``FormatError`` naming the key.
    """
    types = {f.name: f.type for f in fields(Rules)}
    values: dict[str, object] = {}
    for text in texts:
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, value = item.partition("=")
            key = key.strip().replace("-", "_")
            if not sep or key not in types:
                raise FormatError(
                    f"rule {quoted(item)}: expected key=value with key one of {', '.join(types)}"
                )
            if types[key] == "int":
                try:
                    values[key] = int(value)
                except ValueError:
                    digits = value.strip().lstrip("+-")
                    if digits.isdigit():  # past int()'s digit limit
                        reason = f"a number of {len(digits)} digits is out of range"
                    else:
                        reason = f"must be a whole number, got {quoted(value)}"
                    raise FormatError(f"rule {key}: {reason}") from None
            else:
                values[key] = value.strip()
    return Rules(**values)


def _check_range(name: str, value: int, low: int, high: int) -> None:
    if not isinstance(value, int) or not low <= value <= high:
        text = str(value)
        if not isinstance(value, int):
            shown = quoted(text)
        else:  # a number is shown bare, or by its size
            shown = text if len(text) <= QUOTE_LIMIT else f"a number of {len(text)} digits"
        raise FormatError(f"rule {name} must be {low}-{high}, got {shown}")


def _check_choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise FormatError(
            f"rule {name} must be one of {', '.join(allowed)}, got {quoted(str(value))}"
        )
