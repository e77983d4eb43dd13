"""GNU Backgammon Match ID (12 characters) and the ``PositionID:MatchID`` pair.

Layout (docs/formats.md, "GNU Backgammon Match ID"; GNU Backgammon manual 11.7):
67 bits packed like the Position ID (bit k = bit k % 8 of byte k // 8, 9 bytes,
base64 without padding). Fields from bit 0, each stored lowest bit first:

=====  =====  ==============================================================
bits   width  field
=====  =====  ==============================================================
0-3    4      cube value as log2
4-5    2      cube owner: 0 or 1 = that player, 3 = centred
6      1      player on roll (or who did roll)
7      1      Crawford game
8-10   3      game state: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
11     1      player on turn: whose decision it is
12     1      double offered
13-14  2      resignation offered: 0 none, 1 single, 2 gammon, 3 backgammon
15-17  3      die 1 (0 with die 2 = 0: not yet rolled)
18-20  3      die 2
21-35  15     match length (0 = money)
36-50  15     score of player 0
51-65  15     score of player 1
66     1      Jacoby rule not in effect (see below)
67-71  5      always 0
=====  =====  ==============================================================

Bit 66: current GNU Backgammon writes 1 when the Jacoby rule is not in effect
(every match-play ID, and money play with Jacoby off) and 0 when it is.
Reading: in money play 0 means Jacoby on, 1 Jacoby off; in match play the bit
means nothing (Jacoby never applies in a match), so an older program's match
ID with 0 there is read as well. Writing sets it exactly as GNU Backgammon
does, so that GNU Backgammon reads our IDs with the right rule. A 1-bit past
bit 66 is refused.

Perspective: the Position ID of the pair is seen from the player on roll
(bit 6), which is the board's mover in ``tdgammon.engine.rules.position.Position``. GNU
Backgammon keeps the board from that side while a double is pending: the
doubler stays "on roll" and "on turn" passes to the taker, so
``Position.double_offered`` means the mover doubled.

Beavers (docs/rules.md 5; money play only). GNU Backgammon records a beaver as
a second double while the first is pending: the cube goes to twice its value,
owned by the beaverer, and "on turn" goes back to the doubler; a raccoon
doubles the cube again (owner unchanged) and "on turn" passes to the
beaverer. ``Position.beaver_stage`` is exactly that state, so in money play it
is read from the bits: double offered with the decision on the player on roll
is stage 1 (the doubler answers the beaver); double offered, the decision with
the other player and the cube owned by him is stage 2 (a double is offered
only from a centred or own cube, so only a raccoon leaves the cube with the
taker). In match play (no beavers) an unusual decider is ``decision_swapped``.

Seats: ``Position.mover_seat`` is the player on roll; ``Position.cube_owner``
and the two scores are translated between seats and mover/opponent.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass, fields

import numpy as np

from tdgammon.engine.formats.position_id import (
    POSITION_ID_LENGTH,
    base64_to_int,
    check_base64,
    decode_position_id,
    encode_position_id,
    int_to_base64,
)
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.position import (
    CUBE_CENTRED,
    CUBE_MOVER,
    CUBE_OPPONENT,
    CUBE_OWNERS,
    GAME_DROPPED,
    GAME_NOT_STARTED,
    GAME_OVER,
    GAME_PLAYING,
    GAME_RESIGNED,
    Position,
)

MATCH_ID_LENGTH = 12
MATCH_KEY_BYTES = 9
MATCH_KEY_BITS = 67
"""Bits a Match ID may set: the 66 of the fields and bit 66 (Jacoby not in effect)."""
CUBE_OWNER_CENTRED = 3
"""Match ID cube owner code for a centred cube."""
MAX_FIELD_15 = (1 << 15) - 1
"""Largest match length or score a 15-bit field holds."""
MAX_CUBE_LOG2 = 15
GAME_STATES = {
    GAME_NOT_STARTED: "no game",
    GAME_PLAYING: "playing",
    GAME_OVER: "game over",
    GAME_RESIGNED: "resigned",
    GAME_DROPPED: "dropped",
}
DEFAULT_MAX_CUBE = 1024

_BIT_FIELDS = (
    ("cube_log2", 4),
    ("cube_owner", 2),
    ("player_on_roll", 1),
    ("crawford", 1),
    ("game_state", 3),
    ("player_on_turn", 1),
    ("double_offered", 1),
    ("resignation", 2),
    ("die1", 3),
    ("die2", 3),
    ("match_length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),
)
"""(field, width) in bit order from bit 0; widths sum to 67 (``MATCH_KEY_BITS``)."""

_INT_RE = re.compile(r"[+-]?[0-9]{1,18}")


def parse_int(text: str, what: str) -> int:
    """Parse one ASCII integer field (optional sign, at most 18 digits).

    Raises FormatError naming ``what`` when ``text`` is not such an integer.
    """
    raw = text.strip()
    if not _INT_RE.fullmatch(raw):
        raise FormatError(f"{what} must be an integer, got {raw[:20]!r}")
    return int(raw)


def as_int(value: object, what: str) -> int:
    """``value`` as a Python int (ints and numpy integers, not bools); FormatError otherwise."""
    if isinstance(value, bool):
        raise FormatError(f"{what} must be an integer, got {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise FormatError(f"{what} must be an integer, got {value!r}") from None


def log2_exact(value: object, what: str) -> int:
    """log2 of a power of two ``value`` >= 1; FormatError otherwise."""
    value = as_int(value, what)
    if value < 1:
        raise FormatError(f"{what} must be a power of two >= 1, got {value!r}")
    if value & (value - 1):
        raise FormatError(f"{what} {value} is not a power of two")
    return value.bit_length() - 1


def check_dice_pair(dice: object, what: str = "dice") -> tuple[int, int] | None:
    """Return ``dice`` as ``(d1, d2)`` with values 1..6, or None; FormatError otherwise."""
    if dice is None:
        return None
    try:
        d1, d2 = dice  # type: ignore[misc]
    except (TypeError, ValueError):
        raise FormatError(f"{what} must be two numbers 1-6 or None, got {dice!r}") from None
    d1, d2 = as_int(d1, "a die"), as_int(d2, "a die")
    for d in (d1, d2):
        if not 1 <= d <= 6:
            raise FormatError(f"die {d} is out of range 1-6")
    return d1, d2


def check_match_context(
    *,
    match_length: int,
    scores: tuple[int, int],
    crawford: bool,
    dice: tuple[int, int] | None,
    double_offered: bool,
    where: str,
) -> None:
    """Raise FormatError naming the first impossible match state.

    scores: ``(mover or player 0, opponent or player 1)`` in either order.
    Checks: match length >= 0; scores >= 0 and, in a match, below the length;
    a Crawford game only in a match where exactly one player is 1-away
    (docs/rules.md 6: "the first game after either player reaches N-1 points");
    no dice while a double awaits an answer (docs/rules.md 5: "A double is offered
    only at the start of one's own turn, before rolling"), and no double in the
    Crawford game ("the cube may not be used").
    """
    if match_length < 0:
        raise FormatError(f"{where}: match length {match_length} is negative")
    for score in scores:
        if score < 0:
            raise FormatError(f"{where}: score {score} is negative")
        if match_length and score >= match_length:
            raise FormatError(
                f"{where}: score {score} is not below the match length {match_length}"
            )
    if crawford:
        if not match_length:
            raise FormatError(f"{where}: a Crawford game needs match play, not money")
        one_away = [s == match_length - 1 for s in scores]
        if sum(one_away) != 1:
            raise FormatError(
                f"{where}: Crawford game at score {scores[0]}-{scores[1]} of a "
                f"{match_length}-point match; exactly one player must be 1-away"
            )
    if double_offered and dice is not None:
        raise FormatError(f"{where}: dice {dice} are rolled while a double is offered")
    if double_offered and crawford:
        raise FormatError(f"{where}: a double is offered in the Crawford game")


@dataclass(frozen=True)
class MatchId:
    """The fields of a GNU Backgammon Match ID, by absolute player (0 or 1).

    cube_log2: 0..15, the cube value is ``2 ** cube_log2``.
    cube_owner: 0 or 1 (that player owns the cube) or 3 (centred).
    player_on_roll: the player who rolls or rolled; the Position ID is from
        this player's view.
    crawford: this game is the Crawford game.
    game_state: 0 no game, 1 playing, 2 over, 3 resigned, 4 ended by a drop.
    player_on_turn: the player whose decision it is (the taker while a double
        is pending).
    double_offered: a double awaits take or pass.
    resignation: 0 none, 1 single, 2 gammon, 3 backgammon offered.
    dice: ``(die1, die2)`` 1..6 each, or ``(0, 0)`` before rolling.
    match_length: 0 for money; score0 / score1: scores of players 0 and 1.
    no_jacoby: bit 66, True when the Jacoby rule is not in effect (GNU
        Backgammon sets it in every match-play ID and in money play without
        Jacoby); False in money play means Jacoby is on. Kept as read, so a
        Match ID decodes and encodes back to the same text.
    """

    cube_log2: int = 0
    cube_owner: int = CUBE_OWNER_CENTRED
    player_on_roll: int = 0
    crawford: bool = False
    game_state: int = 1
    player_on_turn: int = 0
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score0: int = 0
    score1: int = 0
    no_jacoby: bool = False

    @property
    def cube_value(self) -> int:
        """The cube value, ``2 ** cube_log2``."""
        return 1 << self.cube_log2

    def check(self) -> None:
        """Raise FormatError naming the first field out of range or inconsistent."""
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "dice":
                continue
            if f.name in ("crawford", "double_offered", "no_jacoby"):
                if not isinstance(value, bool) and value not in (0, 1):
                    raise FormatError(f"Match ID field {f.name} must be a bool, got {value!r}")
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise FormatError(f"Match ID field {f.name} must be an integer, got {value!r}")
        if not 0 <= self.cube_log2 <= MAX_CUBE_LOG2:
            raise FormatError(f"Match ID cube log2 {self.cube_log2} is not 0..{MAX_CUBE_LOG2}")
        if self.cube_owner not in (0, 1, CUBE_OWNER_CENTRED):
            raise FormatError(f"Match ID cube owner {self.cube_owner} is not 0, 1 or 3 (centred)")
        for name in ("player_on_roll", "player_on_turn"):
            if getattr(self, name) not in (0, 1):
                raise FormatError(f"Match ID {name.replace('_', ' ')} must be 0 or 1")
        if self.game_state not in GAME_STATES:
            raise FormatError(
                f"Match ID game state {self.game_state} is not 0..4 "
                "(none, playing, over, resigned, dropped)"
            )
        if not 0 <= self.resignation <= 3:
            raise FormatError(f"Match ID resignation {self.resignation} is not 0..3")
        try:
            d1, d2 = self.dice
        except (TypeError, ValueError):
            raise FormatError(f"Match ID dice must be two numbers, got {self.dice!r}") from None
        for d in (d1, d2):
            if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d <= 6:
                raise FormatError(f"Match ID die {d!r} is out of range 1-6 (0 = not rolled)")
        if (d1 == 0) != (d2 == 0):
            raise FormatError(
                f"Match ID dice {d1}-{d2}: one die is rolled and the other is not (0)"
            )
        for name in ("match_length", "score0", "score1"):
            value = getattr(self, name)
            if not 0 <= value <= MAX_FIELD_15:
                raise FormatError(
                    f"Match ID {name.replace('_', ' ')} {value} is not 0..{MAX_FIELD_15}"
                )
        check_match_context(
            match_length=self.match_length,
            scores=(self.score0, self.score1),
            crawford=bool(self.crawford),
            dice=None if d1 == 0 else (d1, d2),
            double_offered=bool(self.double_offered),
            where="Match ID",
        )


def encode_match_id(match: MatchId) -> str:
    """The 12-character Match ID of ``match`` (checked first; FormatError)."""
    match.check()
    values = {f.name: int(getattr(match, f.name)) for f in fields(match) if f.name != "dice"}
    values["die1"], values["die2"] = (int(d) for d in match.dice)
    key = 0
    bit = 0
    for name, width in _BIT_FIELDS:
        key |= values[name] << bit
        bit += width
    return int_to_base64(key, MATCH_KEY_BYTES)


def decode_match_id(text: str) -> MatchId:
    """Read a 12-character Match ID; FormatError names what is wrong."""
    raw = check_base64(text, MATCH_ID_LENGTH, "Match ID")
    key = base64_to_int(raw, MATCH_KEY_BYTES)
    if key >> MATCH_KEY_BITS:
        raise FormatError(
            f"Match ID {raw!r} has 1-bits past bit {MATCH_KEY_BITS - 1} "
            f"(bits {MATCH_KEY_BITS}-{MATCH_KEY_BYTES * 8 - 1} must be 0)"
        )
    values: dict[str, int] = {}
    bit = 0
    for name, width in _BIT_FIELDS:
        values[name] = (key >> bit) & ((1 << width) - 1)
        bit += width
    dice = (values.pop("die1"), values.pop("die2"))
    values["crawford"] = bool(values["crawford"])
    values["double_offered"] = bool(values["double_offered"])
    values["no_jacoby"] = bool(values["no_jacoby"])
    match = MatchId(dice=dice, **values)
    try:
        match.check()
    except FormatError as exc:
        raise FormatError(f"Match ID {raw!r}: {exc}") from None
    return match


def _usual_decider(position: Position) -> int:
    """Seat that normally acts next: the opponent while a double or resignation is
    pending, except the mover (the doubler) answering a beaver (``beaver_stage`` 1)."""
    mover = position.mover_seat
    if position.double_offered and position.beaver_stage == 1:
        return mover
    pending = position.double_offered or position.resign_offered
    return 1 - mover if pending else mover


def _beaver_stage(match: MatchId) -> int:
    """The beaver stage a money-play Match ID's bits say (module docstring); 0 in a match."""
    if match.match_length or not match.double_offered:
        return 0
    if match.player_on_turn == match.player_on_roll:
        return 1
    if match.cube_owner == 1 - match.player_on_roll:
        return 2
    return 0


def match_id_from_position(position: Position) -> MatchId:
    """The Match ID fields of a Position (seats from ``position.mover_seat``).

    Bit 66 (``no_jacoby``) is set as GNU Backgammon sets it: in every
    match-play ID, and in money play unless ``position.jacoby``. Carries
    neither the beaver and raccoon rules nor the cube limit; ``beaver_stage``
    is carried by the decider and the cube owner (module docstring). Raises
    FormatError for values a Match ID cannot hold.
    """
    mover = position.mover_seat
    if mover not in (0, 1):
        raise FormatError(f"mover seat must be 0 or 1, got {mover!r}")
    if position.cube_owner not in CUBE_OWNERS:
        raise FormatError(f"cube owner must be one of {CUBE_OWNERS}, got {position.cube_owner!r}")
    if position.cube_owner == CUBE_CENTRED:
        owner = CUBE_OWNER_CENTRED
    else:
        owner = mover if position.cube_owner == CUBE_MOVER else 1 - mover
    cube_log2 = log2_exact(position.cube_value, "cube value")
    if cube_log2 > MAX_CUBE_LOG2:
        raise FormatError(f"cube value {position.cube_value} is above a Match ID's 32768")
    dice = check_dice_pair(position.dice)
    scores = [0, 0]
    scores[mover] = as_int(position.mover_score, "mover score")
    scores[1 - mover] = as_int(position.opponent_score, "opponent score")
    match_length = as_int(position.match_length, "match length")
    turn = _usual_decider(position)
    if position.decision_swapped:
        turn = 1 - turn
    match = MatchId(
        cube_log2=cube_log2,
        cube_owner=owner,
        player_on_roll=mover,
        crawford=bool(position.crawford),
        game_state=as_int(position.game_state, "game state"),
        player_on_turn=turn,
        double_offered=bool(position.double_offered),
        resignation=as_int(position.resign_offered, "resignation"),
        dice=dice if dice is not None else (0, 0),
        match_length=match_length,
        score0=scores[0],
        score1=scores[1],
        no_jacoby=bool(match_length) or not position.jacoby,
    )
    match.check()
    return match


def position_from_match_id(board: np.ndarray, match: MatchId) -> Position:
    """Build a Position from a board and Match ID fields.

    board: ``(30,)`` ints, the view of the player on roll (``match.player_on_roll``).
    The cube limit is 1024, or the cube value when that is higher. ``jacoby``
    is True in money play when bit 66 is 0; always False in match play. In
    money play a beaver or raccoon on the table gives ``beaver_stage`` 1 or 2
    (module docstring) and ``beavers`` True; ``raccoons`` is never carried.
    """
    match.check()
    mover = match.player_on_roll
    if match.cube_owner == CUBE_OWNER_CENTRED:
        owner = CUBE_CENTRED
    else:
        owner = CUBE_MOVER if match.cube_owner == mover else CUBE_OPPONENT
    scores = (match.score0, match.score1)
    stage = _beaver_stage(match)
    position = Position(
        board=board,
        dice=None if match.dice == (0, 0) else tuple(match.dice),
        cube_value=match.cube_value,
        cube_owner=owner,
        mover_score=scores[mover],
        opponent_score=scores[1 - mover],
        match_length=match.match_length,
        crawford=bool(match.crawford),
        jacoby=match.match_length == 0 and not match.no_jacoby,
        double_offered=bool(match.double_offered),
        max_cube=max(DEFAULT_MAX_CUBE, match.cube_value),
        mover_seat=mover,
        game_state=match.game_state,
        resign_offered=match.resignation,
        beavers=stage > 0,
        beaver_stage=stage,
    )
    swapped = match.player_on_turn != _usual_decider(position)
    return position.with_changes(decision_swapped=swapped) if swapped else position


def position_to_gnubg(position: Position) -> str:
    """``"PositionID:MatchID"`` of a Position, the Position ID from the mover's view."""
    match = encode_match_id(match_id_from_position(position))
    return f"{encode_position_id(position.board)}:{match}"


def position_from_gnubg(text: str) -> Position:
    """Read GNU Backgammon's ``"PositionID:MatchID"`` into a Position.

    The Position ID is read from the view of the Match ID's player on roll,
    who becomes the mover: the Position's board is ``(30,) int8``, mover's
    view, and ``mover_seat`` is that player. Raises FormatError /
    InvalidBoardError.
    """
    if not isinstance(text, str):
        raise FormatError(f"GNU Backgammon ID must be a string, got {type(text).__name__}")
    raw = text.strip()
    parts = raw.split(":")
    if len(parts) != 2:
        raise FormatError(
            f"GNU Backgammon ID must be PositionID:MatchID "
            f"({POSITION_ID_LENGTH} + {MATCH_ID_LENGTH} characters), got {raw[:60]!r}"
        )
    board = decode_position_id(parts[0])
    return position_from_match_id(board, decode_match_id(parts[1]))


__all__ = [
    "MatchId",
    "decode_match_id",
    "encode_match_id",
    "match_id_from_position",
    "position_from_gnubg",
    "position_from_match_id",
    "position_to_gnubg",
]
