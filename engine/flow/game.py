"""One game of backgammon as an explicit state machine (docs/rules.md 1, 4, 5).

A ``Game`` is always in exactly one *phase*; each phase allows a fixed set of
actions, and each action is a method that first checks that it is allowed and
then changes the state. A refused action raises ``RuleError`` with the reason
in words, before anything changes, so the state is left exactly as it was.
The phases, the action kinds of the history, ``GameSettings`` and
``GameResult`` are defined in ``tdgammon.engine.flow.game_records``; moving
checkers by (from, to) pairs in ``tdgammon.engine.flow.checker_moves``.

=============  ==============================  =====================================
phase          who acts (``decider``)          allowed actions
=============  ==============================  =====================================
OPENING        both players                    ``opening_roll``, ``offer_resignation``
TO_ROLL        the player on turn              ``roll``, ``double``, ``offer_resignation``
DOUBLED        the doubled player              ``take``, ``drop``, ``beaver``
BEAVERED       the doubler                     ``take``, ``drop``, ``raccoon``
RACCOONED      the beaverer                    ``take``, ``drop``
TO_MOVE        the player on turn              ``play``, ``play_text``, ``offer_resignation``
RESIGNING      the resigner's opponent         ``accept_resignation``, ``reject_resignation``
OVER           nobody                          nothing
=============  ==============================  =====================================

Every action takes an optional ``seat``: when given it must be the player whose
decision it is ("the decision is up to player 1, not player 0").

A refusal names the seats ``Game(seat_names=...)`` gives (the attribute
``seat_names``): by default "player 0" and "player 1" (``SEAT_NAMES``); a session
that shows the game to a person names them as it does in its own output
(``tdgammon play``: "you" and the bot's name). The messages are worded to read
well with any name, "you" included ("you must first take or drop the double",
"the cube is owned by tdgammon", "the decision is up to you, not tdgammon").

Seats 0 and 1 are the two players. The board is kept from the view of the
player on turn (``tdgammon.engine.rules.board`` layout), flipped after every play. The cube
owner is a seat or None (centred).

Decisions where docs/rules.md is silent (GNU Backgammon's behaviour where it has one):

- Opening roll (docs/rules.md 1): ``opening_roll((die of seat 0, die of seat 1))``;
  the winner's roll is stored higher die first. Each tie re-rolls; with
  automatic doubles (money only) each tie also doubles the centred cube, at
  most ``auto_doubles`` times and never past ``max_cube``.
- Beaver (docs/rules.md 5): the doubled player takes and redoubles at once
  (``beaver``, phase BEAVERED); the doubler then refuses (``drop``: the
  beaverer wins the stake of the first double, 2 on a cube of 1, as a drop),
  accepts (``take``: four times the stake, the beaverer keeps the cube) or,
  with raccoons, re-redoubles (``raccoon``, phase RACCOONED); the beaverer
  then refuses (``drop``: the doubler wins 4 on a cube of 1) or accepts
  (``take``: eight times the stake, the raccooner keeps the cube, as the
  beaverer does after a beaver). While a beaver or raccoon waits for its
  answer the cube is kept as GNU Backgammon keeps it: the value a refusal
  loses (2, then 4, on a cube of 1), owned by the beaverer. A beaver needs
  the cube limit to allow four times the stake, a raccoon eight times.
- Jacoby (docs/rules.md 5): "gammons and backgammons count as single games unless
  the cube has been turned during the game". The cube counts as turned once a
  double has been taken (it is then owned); automatic doubles at the opening
  leave it centred, so they do not turn it (as GNU Backgammon, which applies
  Jacoby while the cube is centred).
- A drop ends the game at once: the doubler wins the stake before the double,
  a single game (docs/rules.md 5: "drops (passes: loses the current stake at once)").
- Resignations: either player (by default the one on turn) may offer to resign a single game, a
  gammon or a backgammon before or after rolling; the opponent accepts (the
  game ends, worth that many times the cube, Jacoby applied) or rejects (play
  goes on where it was). Before the opening roll (phase OPENING) nobody is on
  turn, so the resigner's seat must be given: that is how a ``.mat`` record of
  a game resigned before its first move is read back (the format writes a roll
  only with its move, so the opening roll is not in the record).
- One double a turn: docs/rules.md 5, "A double is offered only at the start of
  one's own turn, before rolling". A double answered by a beaver and a raccoon
  leaves the cube with the doubler, on his turn, still before his roll; the
  start of his turn has passed with his double, so he must roll
  (``double_refusal``).
- Variants (docs/rules.md 7, ``GameSettings.variant``): the start position, the
  number of checkers that ends the game (Hypergammon 3) and the scoring come
  from ``tdgammon.engine.rules.variants``. Acey-Deucey has no cube: a double is refused with
  that reason, Jacoby, beavers, raccoons and automatic doubles are refused in
  its settings, and a game is worth ``tdgammon.engine.rules.outcome.game_values`` (the stake
  times the loser's checkers not borne off); ``GameResult.kind`` is then that
  number of checkers, and a resignation offers a number of points 1..15 (times
  the stake). With ``GameSettings.acey_deucey_stakes`` (the optional rule, off
  by default) the stake (``Game.stake``, 1 at the start) doubles each time a
  1-2 is thrown, the opening roll and the extra rolls included.
  The Acey-Deucey 1-2 is one play (the 1, the 2 and the named double, up to
  six (from, to) pairs; the hand is source 28); when the named double was
  played in full (``extra_roll``) the same player is to roll again instead of
  the turn passing.
- A play is given as (from, to) pairs (``play``), as text (``play_text``,
  docs/rules.md 8 notation through
  ``tdgammon.engine.formats.move_matching.match_move``) or as a row of the
  legal plays (``play_row``, the fast path of bots). The empty play is
  accepted only when nothing can be played (docs/rules.md 2.6).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tdgammon.engine.flow.checker_moves import apply_moves, check_pairs, move_checkers
from tdgammon.engine.flow.game_records import (
    ACT_ACCEPT,
    ACT_BEAVER,
    ACT_DOUBLE,
    ACT_DROP,
    ACT_MOVE,
    ACT_RACCOON,
    ACT_REJECT,
    ACT_RESIGN,
    ACT_TAKE,
    BEAVERED,
    CUBE_ANSWER_PHASES,
    DOUBLED,
    ENDED_BY_BEAR_OFF,
    ENDED_BY_DROP,
    ENDED_BY_RESIGNATION,
    OPENING,
    OVER,
    PHASES,
    RACCOONED,
    RESIGNING,
    TO_MOVE,
    TO_ROLL,
    GameAction,
    GameResult,
    GameSettings,
)
from tdgammon.engine.formats.notation import point_name
from tdgammon.engine.movegen.reference import Move
from tdgammon.engine.movegen.vectorized import MoveList, generate_moves
from tdgammon.engine.rules.board import (
    flip,
    validate,
)
from tdgammon.engine.rules.errors import RuleError
from tdgammon.engine.rules.outcome import (
    BACKGAMMON,
    GAMMON,
    SINGLE,
    game_values,
    result_kind,
    winner,
)
from tdgammon.engine.rules.position import (
    CUBE_CENTRED,
    CUBE_MOVER,
    CUBE_OPPONENT,
    GAME_DROPPED,
    GAME_NOT_STARTED,
    GAME_OVER,
    GAME_PLAYING,
    GAME_RESIGNED,
    RESIGN_NONE,
    Position,
)
from tdgammon.engine.rules.variants import SCORING_CHECKERS_LEFT

SEAT_NAMES = ("player 0", "player 1")
"""The names a ``Game`` gives seats 0 and 1 in its messages unless told others."""


def check_seat_names(names: Sequence[str]) -> tuple[str, str]:
    """``names`` as the two seat names of a game's messages; RuleError unless two."""
    if isinstance(names, str) or len(names) != 2:
        raise RuleError(f"a game has two seats to name, got {names!r}")
    return str(names[0]), str(names[1])


class Game:
    """One game; see the module docstring for phases and actions."""

    def __init__(
        self,
        settings: GameSettings | None = None,
        rng: np.random.Generator | None = None,
        board: np.ndarray | None = None,
        seat_names: Sequence[str] = SEAT_NAMES,
    ) -> None:
        """settings: rules and match context; rng: dice when an action is given none.

        board: optional starting board ``(30,)``, from seat 0's view (tests and
        set-up positions); default the variant's set-up (docs/rules.md 1, 7).
        seat_names: what a refusal calls seats 0 and 1 (module docstring).
        """
        self.seat_names = check_seat_names(seat_names)
        self.settings = settings or GameSettings()
        self.settings.check()
        self.variant = self.settings.rules
        self.rng = rng if rng is not None else np.random.default_rng()
        if board is None:
            start = self.variant.starting_board()
        else:
            start = np.array(board, dtype=np.int8)
        validate(start, self.variant.checkers)
        self.board = start.copy()  # seat 0's view until the opening roll is decided
        self.turn: int | None = None
        self.phase = OPENING
        self.dice: tuple[int, int] | None = None
        self.cube_value = 1
        self.cube_owner: int | None = None
        self.resign_offer = RESIGN_NONE
        self.resign_return_phase: str | None = None
        self.resigner: int | None = None
        self.result: GameResult | None = None
        self.history: list[GameAction] = []
        self.opening_ties = 0
        self.auto_doubles_done = 0
        self.stake = 1
        self.one_two_rolls = 0
        self._moves_cache: MoveList | None = None

    @classmethod
    def from_position(
        cls,
        board: np.ndarray,
        turn: int = 0,
        cube_value: int = 1,
        cube_owner: int | None = None,
        settings: GameSettings | None = None,
        rng: np.random.Generator | None = None,
        seat_names: Sequence[str] = SEAT_NAMES,
    ) -> Game:
        """A game already under way: ``board`` ``(30,)`` from ``turn``'s view, that
        player to roll (phase TO_ROLL). For tests, analysis and set-up positions."""
        game = cls(settings, rng=rng, board=board, seat_names=seat_names)
        if turn not in (0, 1):
            raise RuleError(f"turn must be seat 0 or 1, got {turn!r}")
        if cube_owner not in (None, 0, 1):
            raise RuleError(f"cube owner must be None (centred), 0 or 1, got {cube_owner!r}")
        if cube_value < 1 or cube_value & (cube_value - 1) or cube_value > game.settings.max_cube:
            raise RuleError(f"cube value must be a power of two up to the limit, got {cube_value}")
        if int(winner(game.board, game.variant.checkers)) != 0:
            raise RuleError("the position is already finished")
        if not game.settings.cube_in_play and (cube_value != 1 or cube_owner is not None):
            raise RuleError("the cube is not in use in this game: it must be 1 and centred")
        if cube_owner is None and cube_value != 1:
            game.auto_doubles_done = cube_value.bit_length() - 1
        game.turn = turn
        game.cube_value = cube_value
        game.cube_owner = cube_owner
        game.phase = TO_ROLL
        return game

    # ------------------------------------------------------------ queries

    @property
    def decider(self) -> int | None:
        """Seat whose decision it is; None in the opening (both roll) and when over."""
        if self.phase in (TO_ROLL, TO_MOVE, BEAVERED):
            return self.turn
        if self.phase in (DOUBLED, RACCOONED):
            return 1 - self.turn
        if self.phase == RESIGNING:
            return 1 - self.resigner
        return None

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def cube_turned(self) -> bool:
        """A double has been taken (or beavered) in this game: the cube has an owner."""
        return self.cube_owner is not None

    def double_refusal(self) -> str | None:
        """Why the player on turn may not double now, or None if they may."""
        if self.phase == TO_MOVE:
            return "the dice are already rolled: a double must come before rolling"
        if self.phase != TO_ROLL:
            return f"no double now: {self._phase_text()}"
        if self.settings.crawford:
            return "no doubling in the Crawford game (docs/rules.md 6)"
        if not self.variant.cube:
            return f"there is no doubling cube in {self.variant.name} (docs/rules.md 7)"
        if not self.settings.cube:
            return "the cube is not in use in this game"
        if self.cube_owner is not None and self.cube_owner != self.turn:
            return (
                f"the cube is owned by {self._seat_name(self.cube_owner)}: "
                "only its owner may redouble"
            )
        if self._doubled_this_turn():
            # docs/rules.md 5: "A double is offered only at the start of one's own
            # turn, before rolling" (after a raccoon the doubler holds the cube)
            return (
                f"{self._seat_name(self.turn)} doubled this turn already: a double is offered "
                "only at the start of one's own turn (docs/rules.md 5); roll"
            )
        if self.cube_value * 2 > self.settings.max_cube:
            return f"the cube is at its limit of {self.settings.max_cube}"
        return None

    def _doubled_this_turn(self) -> bool:
        """The player on turn has offered a double since the last play."""
        for action in reversed(self.history):
            if action.kind == ACT_MOVE:
                return False
            if action.kind == ACT_DOUBLE:
                return True
        return False

    @property
    def may_double(self) -> bool:
        return self.double_refusal() is None

    @property
    def may_beaver(self) -> bool:
        return (
            self.phase == DOUBLED
            and self.settings.beavers
            and self.settings.match_length == 0
            and self.cube_value * 4 <= self.settings.max_cube
        )

    @property
    def may_raccoon(self) -> bool:
        """The beavered doubler may re-redouble: raccoons on, eight times the stake
        within the cube limit (the cube holds twice the stake here)."""
        return (
            self.phase == BEAVERED
            and self.settings.raccoons
            and self.cube_value * 4 <= self.settings.max_cube
        )

    def legal_moves(self) -> MoveList:
        """The legal plays of the roll (``tdgammon.engine.movegen.vectorized``): every row has
        parent 0.

        A single pass row when nothing can be played. Only in phase TO_MOVE.
        """
        self._require_phase(TO_MOVE, "list the legal plays")
        if self._moves_cache is None:
            self._moves_cache = generate_moves(
                self.board[None, :], np.array([self.dice]), self.variant
            )
        return self._moves_cache

    def _legal_plays(self) -> list:
        """``legal_moves()`` as ``tdgammon.engine.movegen.reference.Play`` objects (for
        notation)."""
        from tdgammon.engine.movegen.reference import Play

        legal = self.legal_moves()
        if bool(legal.is_pass()[0]):
            return []
        return [
            Play(
                tuple((int(a), int(b)) for a, b in legal.moves[row] if a >= 0),
                tuple(int(x) for x in legal.boards[row]),
                int(legal.named_double[row]),
                bool(legal.extra_roll[row]),
            )
            for row in range(len(legal))
        ]

    def can_play(self) -> bool:
        """Some play is legal with the dice rolled (phase TO_MOVE)."""
        return not bool(self.legal_moves().is_pass()[0])

    def position(self) -> Position:
        """The game as a ``Position`` seen from the player on turn.

        In the opening the board is seat 0's view and game_state is 0 (not
        started). When over, the view is the last player on turn: the winner
        after a bear-off, the doubler after a drop.

        ``Position`` holds 15 checkers a side, so in Hypergammon the 12 checkers
        of each side that are not in play are counted as borne off (as GNU
        Backgammon's Position ID does, ``Variant.position_board``);
        ``Variant.board_in_play`` takes them out again.
        """
        s = self.settings
        mover = self.turn if self.turn is not None else 0
        if self.cube_owner is None:
            owner = CUBE_CENTRED
        else:
            owner = CUBE_MOVER if self.cube_owner == mover else CUBE_OPPONENT
        game_state = {OPENING: GAME_NOT_STARTED, OVER: GAME_OVER}.get(self.phase, GAME_PLAYING)
        if self.phase == OVER and self.result is not None:
            game_state = {
                ENDED_BY_BEAR_OFF: GAME_OVER,
                ENDED_BY_RESIGNATION: GAME_RESIGNED,
                ENDED_BY_DROP: GAME_DROPPED,
            }[self.result.ended_by]
        return Position(
            board=self.variant.position_board(self.board),
            dice=self.dice if self.phase == TO_MOVE else None,
            cube_value=self.cube_value,
            cube_owner=owner,
            mover_score=s.scores[mover],
            opponent_score=s.scores[1 - mover],
            match_length=s.match_length,
            crawford=s.crawford,
            jacoby=s.jacoby,
            beavers=s.beavers,
            double_offered=self.phase in CUBE_ANSWER_PHASES,
            max_cube=s.max_cube,
            mover_seat=mover,
            game_state=game_state,
            resign_offered=self.resign_offer if self.phase == RESIGNING else RESIGN_NONE,
            beaver_stage={BEAVERED: 1, RACCOONED: 2}.get(self.phase, 0),
            decision_swapped=self.phase == RESIGNING and self.resigner != self.turn,
            raccoons=s.raccoons,
        )

    def board_of(self, seat: int) -> np.ndarray:
        """The board ``(30,) int8`` seen from ``seat``."""
        view = 0 if self.turn is None else self.turn
        return self.board.copy() if seat == view else flip(self.board)

    # ------------------------------------------------------------ checks

    def _seat_name(self, seat: int) -> str:
        """What the messages call ``seat`` (``seat_names``). Every message is worded
        so that any name reads well in it, "you" included: no verb that agrees
        with its subject ("must", a past tense), no possessive."""
        return self.seat_names[seat]

    def _phase_text(self) -> str:
        if self.phase == OPENING:
            return "the game has not started: roll the opening roll first"
        if self.phase == OVER:
            return "the game is over"
        who = self._seat_name(self.decider)
        return {
            TO_ROLL: f"it is for {who} to roll (or double)",
            DOUBLED: f"{who} must first take or drop the double",
            BEAVERED: f"{who} must first take or drop the beaver"
            + (" (or raccoon)" if self.may_raccoon else ""),
            RACCOONED: f"{who} must first take or drop the raccoon",
            TO_MOVE: f"{who} must first play the roll {_roll_text(self.dice)}",
            RESIGNING: f"{who} must first accept or reject the resignation",
        }[self.phase]

    def _require_phase(self, phases, action: str) -> None:
        allowed = (phases,) if isinstance(phases, str) else tuple(phases)
        if self.phase not in allowed:
            raise RuleError(f"cannot {action}: {self._phase_text()}")

    def _require_seat(self, seat: int | None) -> None:
        if seat is None:
            return
        if seat not in (0, 1):
            raise RuleError(f"seat must be 0 or 1, got {seat!r}")
        if self.decider is not None and seat != self.decider:
            raise RuleError(
                f"the decision is up to {self._seat_name(self.decider)}, "
                f"not {self._seat_name(seat)}"
            )

    def _roll(self, dice) -> tuple[int, int]:
        if dice is None:
            values = self.rng.integers(1, 7, size=2)
            return int(values[0]), int(values[1])
        try:
            d = tuple(int(x) for x in dice)
        except (TypeError, ValueError):
            raise RuleError(f"dice must be two numbers 1-6, got {dice!r}") from None
        if len(d) != 2 or not all(1 <= x <= 6 for x in d):
            raise RuleError(f"dice must be two numbers 1-6, got {dice!r}")
        return d

    # ------------------------------------------------------------ actions

    def opening_roll(self, dice=None, seat: int | None = None) -> bool:
        """docs/rules.md 1: each player rolls one die; the higher moves first with both.

        dice: ``(die of seat 0, die of seat 1)``, random if None. Returns True
        when the game has started, False on a tie (roll again; with automatic
        doubles the cube doubles, up to the limit).
        """
        self._require_phase(OPENING, "roll the opening roll")
        d0, d1 = self._roll(dice)
        if d0 == d1:
            # "Equal numbers: both roll again." / "Each tie on the opening roll
            # doubles the cube (still centred) before the re-roll, up to a set limit."
            self.opening_ties += 1
            if (
                self.settings.cube_in_play
                and self.auto_doubles_done < self.settings.auto_doubles
                and self.cube_value * 2 <= self.settings.max_cube
            ):
                self.cube_value *= 2
                self.auto_doubles_done += 1
            return False
        first = 0 if d0 > d1 else 1
        if first == 1:
            self.board = flip(self.board)
        self.turn = first
        self.dice = (max(d0, d1), min(d0, d1))
        self.phase = TO_MOVE
        self._moves_cache = None
        self._count_stake(self.dice)
        return True

    def roll(self, dice=None, seat: int | None = None) -> tuple[int, int]:
        """Roll for the player on turn (random if ``dice`` is None); returns the dice."""
        self._require_phase(TO_ROLL, "roll")
        self._require_seat(seat)
        d = self._roll(dice)
        self.dice = d
        self.phase = TO_MOVE
        self._moves_cache = None
        self._count_stake(d)
        return d

    def _count_stake(self, dice: tuple[int, int]) -> None:
        """docs/rules.md 7, optional rule: "the stake doubles each time a 1-2 is thrown"."""
        if self.settings.acey_deucey_stakes and sorted(dice) == [1, 2]:
            self.stake *= 2
            self.one_two_rolls += 1

    def double(self, seat: int | None = None) -> None:
        """docs/rules.md 5: "A double is offered only at the start of one's own turn,
        before rolling"."""
        self._require_seat(seat)
        reason = self.double_refusal()
        if reason:
            raise RuleError(f"cannot double: {reason}")
        self.phase = DOUBLED
        self.history.append(GameAction(self.turn, ACT_DOUBLE, value=2 * self.cube_value))

    def take(self, seat: int | None = None) -> None:
        """Accept the double, beaver or raccoon that waits (docs/rules.md 5).

        DOUBLED: "game continues at twice the stake; the taker now owns the cube".
        BEAVERED: the doubler accepts the beaver and "play goes on at four times
        the stake"; the beaverer keeps the cube. RACCOONED: the beaverer accepts
        the raccoon: eight times the stake, the raccooner keeps the cube.
        """
        self._require_phase(CUBE_ANSWER_PHASES, "take")
        self._require_seat(seat)
        taker = self.decider
        self.cube_value *= 2
        # The redoubler of a beaver or raccoon keeps the cube; a plain taker gets it.
        self.cube_owner = self.turn if self.phase == RACCOONED else 1 - self.turn
        self.phase = TO_ROLL
        self.history.append(GameAction(taker, ACT_TAKE))

    def drop(self, seat: int | None = None) -> None:
        """Refuse the double, beaver or raccoon that waits (docs/rules.md 5): drops
        "(passes: loses the current stake at once)".

        After a beaver the doubler "loses the stake of the first double (the
        beaverer scores the doubled value: 2 on a cube of 1)"; after a raccoon
        the beaverer loses four times the stake. The cube holds that value.
        """
        self._require_phase(CUBE_ANSWER_PHASES, "drop")
        self._require_seat(seat)
        dropper = self.decider
        self.history.append(GameAction(dropper, ACT_DROP))
        self._end(1 - dropper, SINGLE, ENDED_BY_DROP, jacoby_applies=False)

    def beaver(self, seat: int | None = None) -> None:
        """docs/rules.md 5: "the player being doubled may take and immediately redouble,
        keeping ownership of the cube" (money play, beavers on).

        The doubler answers next (phase BEAVERED): ``take``, ``drop`` or ``raccoon``.
        Meanwhile the cube holds the beaverer's take (twice the stake, his).
        """
        self._require_phase(DOUBLED, "beaver")
        self._require_seat(seat)
        if not self.settings.beavers or self.settings.match_length:
            raise RuleError("cannot beaver: beavers are not allowed in this game")
        if self.cube_value * 4 > self.settings.max_cube:
            raise RuleError(f"cannot beaver: the cube limit is {self.settings.max_cube}")
        beaverer = 1 - self.turn
        self.cube_value *= 2
        self.cube_owner = beaverer
        self.phase = BEAVERED
        self.history.append(GameAction(beaverer, ACT_BEAVER, value=2 * self.cube_value))

    def raccoon(self, seat: int | None = None) -> None:
        """docs/rules.md 5: "Raccoon: the original doubler may in turn re-redouble
        instead of accepting, and the beaverer accepts or refuses" (phase RACCOONED).

        Meanwhile the cube holds four times the stake, still the beaverer's.
        """
        self._require_phase(BEAVERED, "raccoon")
        self._require_seat(seat)
        if not self.settings.raccoons:
            raise RuleError("cannot raccoon: raccoons are not allowed in this game")
        if self.cube_value * 4 > self.settings.max_cube:
            raise RuleError(f"cannot raccoon: the cube limit is {self.settings.max_cube}")
        self.cube_value *= 2
        self.phase = RACCOONED
        self.history.append(GameAction(self.turn, ACT_RACCOON, value=2 * self.cube_value))

    def play(
        self,
        moves: Sequence[Sequence[int]],
        seat: int | None = None,
        extra_roll: bool | None = None,
        named_double: int | None = None,
    ) -> None:
        """Play the roll as (from, to) pairs (25 = bar, 0 = off, 28 = the hand),
        mover's numbering.

        The pairs are applied one by one (a pair may span both dice, e.g.
        ``(24, 13)``) and the resulting board must be one of the legal plays.
        Acey-Deucey 1-2 (up to six pairs): ``extra_roll`` says whether the named
        double was played in full (None: as the pairs show, else the extra
        roll when the board allows both); ``named_double`` is recorded.
        """
        self._require_phase(TO_MOVE, "move")
        self._require_seat(seat)
        pairs = check_pairs(moves)
        legal = self.legal_moves()
        roll = f"{self.dice[0]}{self.dice[1]}"
        if not pairs:
            if not self.can_play():
                self._finish_play(self.board.copy(), ())
                return
            raise RuleError(f"you must play the roll {roll}: a legal play exists")
        if named_double and not (
            self.variant.acey_deucey_roll
            and sorted(self.dice) == [1, 2]
            and 1 <= int(named_double) <= 6
        ):
            raise RuleError(
                f"a named double is only for the Acey-Deucey 1-2, not {roll} in {self.variant.name}"
            )
        after, _ = apply_moves(self.board, pairs)
        key = after.tobytes()
        rows = [
            row
            for row in range(len(legal))
            if legal.boards[row].tobytes() == key and not legal.is_pass()[row]
        ]
        if extra_roll is not None:
            matching = [row for row in rows if bool(legal.extra_roll[row]) == bool(extra_roll)]
            if rows and not matching:
                earned = "earns" if not extra_roll else "does not earn"
                raise RuleError(f"that play of {roll} {earned} the extra roll (docs/rules.md 7)")
            rows = matching
        if rows:
            row = _pick_row(legal, rows, pairs)
            named = int(named_double) if named_double else int(legal.named_double[row])
            self._finish_play(after, pairs, named, bool(legal.extra_roll[row]))
            return
        text = " ".join(f"{point_name(a)}/{point_name(b)}" for a, b in pairs)
        if not self.can_play():
            raise RuleError(f"{text} is not legal: nothing can be played with {roll}")
        raise RuleError(f"{text} is not a legal play of {roll}")

    def play_row(self, row: int, seat: int | None = None) -> None:
        """Play row ``row`` of ``legal_moves()`` (the bots' fast path)."""
        self._require_phase(TO_MOVE, "move")
        self._require_seat(seat)
        legal = self.legal_moves()
        if not 0 <= row < len(legal):
            raise RuleError(f"no legal play number {row}: there are {len(legal)}")
        pairs = tuple((int(a), int(b)) for a, b in legal.moves[row] if a >= 0)
        self._finish_play(
            legal.boards[row].copy(),
            pairs,
            int(legal.named_double[row]),
            bool(legal.extra_roll[row]),
        )

    def play_text(self, text: str, seat: int | None = None) -> tuple[Move, ...]:
        """Play a move written in docs/rules.md 8 notation (``24/18 13/11``, ``8/5(2)``,
        ``bar/22*``, ``hand/20`` for a checker entering from the hand; the
        Acey-Deucey 1-2 as ``24/23 24/22 6-6: 13/7(4)``, see ``tdgammon.engine.formats.notation``).

        Returns the (from, to) pairs played. IllegalMoveError / FormatError say
        why a text is refused; the state is then unchanged.
        """
        from tdgammon.engine.formats.move_matching import match_move
        from tdgammon.engine.formats.notation import parse_move

        self._require_phase(TO_MOVE, "move")
        self._require_seat(seat)
        play = match_move(self.board, self.dice, text, self._legal_plays(), variant=self.variant)
        after = np.array(play.board, dtype=np.int8)
        pairs = tuple((int(a), int(b)) for a, b in play.moves)
        # Keep the pairs as written when they make the same board: a record
        # written and read back is then identical. (Not for the Acey-Deucey
        # 1-2: its record needs the 1 and the 2 first, as match_move gives them.)
        # match_move has read the text already, so parse_move cannot fail here. The
        # written order may not be playable pair by pair (a reason, not a board):
        # then the generator's order is kept.
        if not play.named_double:
            written = tuple((int(a), int(b)) for a, b in parse_move(text, variant=self.variant))
            if len(written) <= len(pairs):
                moved = move_checkers(self.board, written)
                if not isinstance(moved, str) and np.array_equal(moved[0], after):
                    pairs = written
        self._finish_play(after, pairs, play.named_double, play.extra_roll)
        return pairs

    def offer_resignation(self, kind: int = SINGLE, seat: int | None = None) -> None:
        """``seat`` (default: the player on turn) offers to resign a single game (1),
        gammon (2) or backgammon (3). Allowed before or after rolling, and before
        the opening roll with the resigner's ``seat`` given."""
        self._require_phase((OPENING, TO_ROLL, TO_MOVE), "offer a resignation")
        if seat is not None and seat not in (0, 1):
            raise RuleError(f"seat must be 0 or 1, got {seat!r}")
        if seat is None and self.phase == OPENING:
            raise RuleError("before the opening roll nobody is on turn: say who resigns (seat)")
        resigner = self.turn if seat is None else seat
        if self.variant.scoring == SCORING_CHECKERS_LEFT:
            most = self.variant.checkers
            if not isinstance(kind, int | np.integer) or not 1 <= kind <= most:
                raise RuleError(
                    f"a resignation in {self.variant.name} offers 1..{most} points "
                    f"(the stake per checker not borne off), not {kind!r}"
                )
        elif kind not in (SINGLE, GAMMON, BACKGAMMON):
            raise RuleError(
                f"a resignation is 1 (single), 2 (gammon) or 3 (backgammon), not {kind!r}"
            )
        self.resign_return_phase = self.phase
        self.resign_offer = kind
        self.resigner = resigner
        self.phase = RESIGNING
        self.history.append(GameAction(resigner, ACT_RESIGN, value=kind))

    def accept_resignation(self, seat: int | None = None) -> None:
        """The opponent accepts: the game ends, worth the resigned kind x cube."""
        self._require_phase(RESIGNING, "accept a resignation")
        self._require_seat(seat)
        self.history.append(GameAction(1 - self.resigner, ACT_ACCEPT, value=self.resign_offer))
        self._end(1 - self.resigner, self.resign_offer, ENDED_BY_RESIGNATION, jacoby_applies=True)

    def reject_resignation(self, seat: int | None = None) -> None:
        """The opponent rejects: play goes on where it was."""
        self._require_phase(RESIGNING, "reject a resignation")
        self._require_seat(seat)
        self.history.append(GameAction(1 - self.resigner, ACT_REJECT, value=self.resign_offer))
        self.phase = self.resign_return_phase
        self.resign_offer = RESIGN_NONE
        self.resign_return_phase = None
        self.resigner = None

    # ------------------------------------------------------------ internals

    def _finish_play(
        self,
        after: np.ndarray,
        pairs: tuple[Move, ...],
        named_double: int = 0,
        extra_roll: bool = False,
    ) -> None:
        self.history.append(
            GameAction(
                self.turn,
                ACT_MOVE,
                dice=self.dice,
                moves=pairs,
                named_double=int(named_double),
                extra_roll=bool(extra_roll),
            )
        )
        self._moves_cache = None
        if int(winner(after, self.variant.checkers)) != 0:
            # docs/rules.md 4: "The first player to bear off all 15 checkers wins";
            # docs/rules.md 7: Acey-Deucey pays per checker not borne off.
            self.board = after
            if self.variant.scoring == SCORING_CHECKERS_LEFT:
                kind = abs(int(game_values(after[None, :], self.variant)[0]))
            else:
                kind = int(result_kind(after, self.variant.checkers))
            self._end(self.turn, kind, ENDED_BY_BEAR_OFF, jacoby_applies=True)
            return
        self.dice = None
        self.phase = TO_ROLL
        if extra_roll:
            # docs/rules.md 7: the named double played in full: "then rolls again".
            self.board = after
            return
        self.board = flip(after)
        self.turn = 1 - self.turn

    def _end(self, winner_seat: int, kind: int, ended_by: str, jacoby_applies: bool) -> None:
        # docs/rules.md 5, Jacoby: "gammons and backgammons count as single games
        # unless the cube has been turned during the game".
        counted = kind
        if jacoby_applies and self.settings.jacoby and not self.cube_turned:
            counted = SINGLE
        self.result = GameResult(
            winner=winner_seat,
            kind=kind,
            cube_value=self.cube_value,
            points=self.cube_value * self.stake * counted,
            ended_by=ended_by,
            scoring=self.variant.scoring,
            stake=self.stake,
        )
        if ended_by == ENDED_BY_DROP:
            self.dice = None
        self.phase = OVER

    def check_invariants(self) -> None:
        """Raise AssertionError if the state is impossible (tests call this every step)."""
        validate(self.board, self.variant.checkers)
        assert self.phase in PHASES, self.phase
        v = self.cube_value
        assert v >= 1 and v & (v - 1) == 0 and v <= self.settings.max_cube, v
        assert self.cube_owner in (None, 0, 1)
        if not self.settings.cube_in_play:
            assert self.cube_owner is None
        if self.settings.crawford or not self.settings.cube or not self.variant.cube:
            assert v == 1, v
        if self.cube_owner is None:
            assert v == 2**self.auto_doubles_done, (v, self.auto_doubles_done)
        if self.phase in (BEAVERED, RACCOONED):
            # the beaverer's take is on the cube; the pending redouble fits the limit
            assert self.settings.beavers and self.cube_owner == 1 - self.turn
            assert 2 * v <= self.settings.max_cube
            assert self.phase == BEAVERED or self.settings.raccoons
        # docs/rules.md 7, optional rule: the stake doubles on each 1-2 thrown
        assert self.stake == 2**self.one_two_rolls, (self.stake, self.one_two_rolls)
        if not self.settings.acey_deucey_stakes:
            assert self.stake == 1
        played = sum(1 for a in self.history if a.kind == ACT_MOVE and sorted(a.dice) == [1, 2])
        assert played <= self.one_two_rolls <= played + 1 or not self.settings.acey_deucey_stakes
        if self.turn is None:  # before the opening roll, or resigned then
            assert self.dice is None and self.phase in (OPENING, RESIGNING, OVER)
            assert all(a.kind in (ACT_RESIGN, ACT_REJECT, ACT_ACCEPT) for a in self.history)
        else:
            assert self.phase != OPENING and self.turn in (0, 1)
        if self.phase == TO_MOVE:
            assert self.dice is not None and all(1 <= d <= 6 for d in self.dice)
        over = int(winner(self.board, self.variant.checkers)) != 0
        if self.phase == OVER:
            assert self.result is not None
            if self.result.ended_by == ENDED_BY_BEAR_OFF:
                assert over
        else:
            assert not over and self.result is None
        if self.phase == RESIGNING:
            if self.variant.scoring == SCORING_CHECKERS_LEFT:
                assert 1 <= self.resign_offer <= self.variant.checkers
            else:
                assert self.resign_offer in (SINGLE, GAMMON, BACKGAMMON)
        if self.phase == OVER and self.result.ended_by == ENDED_BY_BEAR_OFF:
            value = abs(int(game_values(self.board[None, :], self.variant)[0]))
            if self.variant.scoring == SCORING_CHECKERS_LEFT:
                assert self.result.points == self.cube_value * self.stake * value, (
                    self.result,
                    value,
                )


def _roll_text(dice) -> str:
    return "" if dice is None else f"{dice[0]}{dice[1]}"


def _pick_row(legal: MoveList, rows: list[int], pairs: tuple[Move, ...]) -> int:
    """Among legal rows with the same board: the one whose moves are ``pairs``,
    else one with the extra roll (Acey-Deucey), else the first."""
    wanted = sorted(pairs)
    for row in rows:
        if sorted((int(a), int(b)) for a, b in legal.moves[row] if a >= 0) == wanted:
            return row
    for row in rows:
        if legal.extra_roll[row]:
            return row
    return rows[0]
