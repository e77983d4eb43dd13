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

Impossible cube states are refused, reading and writing, by
``check_cube_context`` (docs/rules.md 5 and 6), which the XGID shares: a cube
of 1 with an owner, a turned cube in the Crawford game, a double offered from
the other player's cube, a beaver or raccoon in match play or with a cube that
does not hold what a refusal loses, a double past the cube limit. So in money
play a double offered with the decision and the cube both with the other
player is a raccoon (stage 2) and needs a cube of 4 or more.

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


def cube_limit_read(cube_value: int, double_offered: bool) -> int:
    """The cube limit of a format that does not carry one (Match ID, FIBS board):
    1024 (``DEFAULT_MAX_CUBE``), or what the position needs when that is higher,
    the cube value and twice it while a double is on the table; 32768 at most,
    the highest cube a Match ID holds."""
    needed = cube_value * (2 if double_offered else 1)
    return min(max(DEFAULT_MAX_CUBE, needed), 1 << MAX_CUBE_LOG2)


_OWNER_WORDS = {
    CUBE_MOVER: "owned by the player on roll",
    CUBE_OPPONENT: "owned by the player not on roll",
    CUBE_CENTRED: "centred",
}
_BEAVER_WORDS = {1: "beaver", 2: "raccoon"}
"""Name of ``Position.beaver_stage`` 1 and 2 in messages."""


def check_cube_context(
    *,
    cube_value: int,
    cube_owner: str,
    double_offered: bool,
    beaver_stage: int,
    match_length: int,
    crawford: bool,
    beavers: bool,
    max_cube: int,
    where: str,
) -> None:
    """Raise FormatError naming the first impossible cube state.

    The one statement of these rules for the position formats: the XGID and
    GNU Backgammon Match ID readers and writers and the FIBS board reader all
    call it with the fields of the ``Position`` they read or write. ``cube_owner`` is one of
    ``CUBE_OWNERS``, from the view of the player on roll (the doubler while a
    double is on the table); ``beaver_stage`` as ``Position.beaver_stage``;
    ``beavers``: the beaver rule is in effect; ``max_cube``: the cube limit.
    Checks, from docs/rules.md:

    - 5, Beaver: "(money play): the player being doubled may take and
      immediately redouble" (a raccoon likewise), and "Jacoby, beavers,
      raccoons and automatic doubles are money-play options ...; a match
      refuses them": a beaver or raccoon on the table needs money play with
      beavers allowed. "While an answer is due the cube holds what a refusal
      loses (twice, then four times the stake), owned by the beaverer": the
      player not on roll owns the cube, at 2 or more after a beaver and 4 or
      more after a raccoon.
    - 6: "in the first game after either player reaches N-1 points (the
      Crawford game) the cube may not be used": the cube is 1 and centred.
    - 5: "The cube starts at 1 (shown as 64), in the centre", and the taker
      "now owns the cube" at twice the stake: a cube of 1 is centred.
    - 5: "the taker now owns the cube and only the owner may redouble" (a
      centred cube: "either player may double"): a double is offered from a
      centred cube or the doubler's own.
    - 5, "Cube limit: a maximum cube value", and "A beaver needs the cube limit
      to allow four times the stake, a raccoon eight times": accepting what is
      on the table, twice the cube value, stays within the limit.
    """
    owned = _OWNER_WORDS.get(cube_owner, repr(cube_owner))
    stage = beaver_stage if double_offered else 0
    if stage:
        kind = _BEAVER_WORDS.get(stage, f"beaver stage {stage}")
        if match_length:
            raise FormatError(
                f"{where}: a {kind} in a {match_length}-point match: beavers and "
                "raccoons are a money-play rule"
            )
        if not beavers:
            raise FormatError(
                f"{where}: a {kind} is on the table but the beaver rule is not in effect"
            )
    if crawford and (cube_value != 1 or cube_owner != CUBE_CENTRED):
        raise FormatError(
            f"{where}: cube {cube_value} {owned} in the Crawford game: the cube may not "
            "be used in the Crawford game, so it stays at 1 in the centre"
        )
    if cube_value == 1 and cube_owner != CUBE_CENTRED:
        raise FormatError(
            f"{where}: cube 1 {owned}: a cube that was never turned is centred (a player "
            "owns the cube only after taking a double, at 2 or more)"
        )
    if double_offered and not stage and cube_owner == CUBE_OPPONENT:
        raise FormatError(
            f"{where}: a double is offered by the player on roll, but the cube "
            f"({cube_value}) is owned by the other player: only the cube's owner may "
            "redouble (a centred cube: either player)"
        )
    if stage:
        if cube_owner != CUBE_OPPONENT:
            raise FormatError(
                f"{where}: a {kind} is on the table with the cube {owned}: after a "
                "beaver the beaverer (the player not on roll) owns the cube"
            )
        if cube_value < 1 << stage:
            raise FormatError(
                f"{where}: a {kind} is on the table with the cube at {cube_value}: the "
                f"cube then holds what a refusal loses, at least {1 << stage}"
            )
    if double_offered and 2 * cube_value > max_cube:
        what = f"accepting the {kind}" if stage else "the double offered"
        raise FormatError(
            f"{where}: {what} would turn the cube to {2 * cube_value}, above the cube "
            f"limit {max_cube}"
        )


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
    FormatError for values a Match ID cannot hold and for impossible cube
    states (``check_cube_context``, with the position's own cube limit).
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
    stage = as_int(position.beaver_stage, "beaver stage")
    check_cube_context(
        cube_value=position.cube_value,
        cube_owner=position.cube_owner,
        double_offered=bool(position.double_offered),
        beaver_stage=stage,
        match_length=match_length,
        crawford=bool(position.crawford),
        beavers=stage > 0,  # not carried: a beaver on the table says it is in effect
        max_cube=as_int(position.max_cube, "cube limit (max_cube)"),
        where="position",
    )
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
    The cube limit is not carried: it is 1024, or what the ID needs when that
    is higher (``cube_limit_read``). ``jacoby`` is True in money play when bit 66 is 0; always False
    in match play. In money play a beaver or raccoon on the table gives
    ``beaver_stage`` 1 or 2 (module docstring) and ``beavers`` True;
    ``raccoons`` is never carried. An impossible cube state (a cube of 1 with
    an owner, a turned cube in the Crawford game, a double from the other
    player's cube, a beaver in match play...) raises FormatError
    (``check_cube_context``).
    """
    match.check()
    mover = match.player_on_roll
    if match.cube_owner == CUBE_OWNER_CENTRED:
        owner = CUBE_CENTRED
    else:
        owner = CUBE_MOVER if match.cube_owner == mover else CUBE_OPPONENT
    scores = (match.score0, match.score1)
    stage = _beaver_stage(match)
    max_cube = cube_limit_read(match.cube_value, bool(match.double_offered))
    # Bits of a raccoon (stage 2) on a cube below 4 are a double offered from
    # the other player's cube: named so.
    check_cube_context(
        cube_value=match.cube_value,
        cube_owner=owner,
        double_offered=bool(match.double_offered),
        beaver_stage=0 if stage == 2 and match.cube_value < 4 else stage,
        match_length=match.match_length,
        crawford=bool(match.crawford),
        beavers=stage > 0,
        max_cube=max_cube,
        where="Match ID",
    )
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
        max_cube=max_cube,
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
