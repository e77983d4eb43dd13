"""One named test per clause of docs/rules.md sections 1, 4 and 5 for the game state machine."""

from __future__ import annotations

import numpy as np
import pytest
from test_rules import diagram

from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import (
    BEAVERED,
    DOUBLED,
    ENDED_BY_BEAR_OFF,
    ENDED_BY_DROP,
    ENDED_BY_RESIGNATION,
    OPENING,
    OVER,
    RACCOONED,
    RESIGNING,
    TO_MOVE,
    TO_ROLL,
    GameSettings,
)
from tdgammon.engine.rules.board import board_from_points, flip, starting_board
from tdgammon.engine.rules.errors import IllegalMoveError, RuleError
from tdgammon.engine.rules.outcome import BACKGAMMON, GAMMON, SINGLE


def snapshot(game: Game) -> tuple:
    return (
        game.board.tobytes(),
        game.turn,
        game.phase,
        game.dice,
        game.cube_value,
        game.cube_owner,
        game.resign_offer,
        game.resigner,
        len(game.history),
        game.result,
        game.opening_ties,
        game.stake,
    )


def refused(game: Game, action, *args, match: str = "", **kwargs) -> None:
    """The action raises RuleError (or IllegalMoveError) and changes nothing."""
    before = snapshot(game)
    with pytest.raises((RuleError, IllegalMoveError), match=match):
        action(*args, **kwargs)
    assert snapshot(game) == before
    game.check_invariants()


def started(settings: GameSettings | None = None, first: int = 0) -> Game:
    """A game whose opening roll went to ``first`` with 3-1, already played 8/5 6/5."""
    game = Game(settings)
    game.opening_roll((3, 1) if first == 0 else (1, 3))
    game.play([(8, 5), (6, 5)])
    return game


# A race where the mover bears off the last checker with any roll:
#   mover: one checker on point 1; opponent: checkers as given.
def last_checker(opponent: dict[int, int]) -> np.ndarray:
    return board_from_points({1: 1}, opponent)


# ------------------------------------------------------------ docs/rules.md 1: opening roll


def test_opening_higher_die_moves_first_with_both_numbers():
    game = Game()
    assert game.phase == OPENING and game.decider is None
    assert game.opening_roll((2, 5)) is True
    assert game.turn == 1 and game.dice == (5, 2) and game.phase == TO_MOVE
    # seat 1 now sees the board from its side: the start is symmetric
    assert np.array_equal(game.board, starting_board())


def test_opening_tie_rolls_again_and_first_move_is_never_a_double():
    game = Game()
    assert game.opening_roll((4, 4)) is False
    assert game.phase == OPENING and game.opening_ties == 1 and game.cube_value == 1
    assert game.opening_roll((6, 1)) is True
    assert game.dice[0] != game.dice[1]


def test_random_opening_rolls_never_double():
    rng = np.random.default_rng(5)
    for _ in range(200):
        game = Game(rng=rng)
        while not game.opening_roll():
            pass
        assert game.dice[0] > game.dice[1]


def test_no_move_roll_or_double_before_the_opening_roll():
    game = Game()
    refused(game, game.play, [(13, 8)], match="opening roll")
    refused(game, game.roll, match="opening roll")
    refused(game, game.double, match="opening roll")


@pytest.mark.parametrize("answer", ["accept", "reject"])
def test_resignation_before_the_opening_roll_names_the_resigner(answer):
    # a game resigned before its first move, as a .mat record reads it back
    game = Game(GameSettings(auto_doubles=2))
    game.opening_roll((4, 4))  # a tie: an automatic double, the cube at 2
    refused(game, game.offer_resignation, GAMMON, match="say who resigns")
    game.offer_resignation(GAMMON, seat=1)
    assert game.phase == RESIGNING and game.decider == 0
    game.check_invariants()
    if answer == "reject":
        game.reject_resignation(seat=0)
        assert game.phase == OPENING and game.turn is None
        assert game.opening_roll((3, 1))
    else:
        game.accept_resignation(seat=0)
        assert game.result.winner == 0 and game.result.points == 4
        assert game.result.ended_by == ENDED_BY_RESIGNATION
    game.check_invariants()


def test_automatic_doubles_on_ties_up_to_their_limit():
    game = Game(GameSettings(auto_doubles=2))
    for expected in (2, 4, 4):
        assert game.opening_roll((3, 3)) is False
        assert game.cube_value == expected and game.cube_owner is None
    game.opening_roll((5, 3))
    game.check_invariants()
    assert game.cube_value == 4 and game.cube_owner is None


def test_automatic_doubles_respect_the_cube_limit():
    game = Game(GameSettings(auto_doubles=5, max_cube=2))
    for _ in range(3):
        game.opening_roll((1, 1))
    assert game.cube_value == 2


def test_automatic_doubles_are_money_play_only():
    with pytest.raises(RuleError, match="money play only"):
        Game(GameSettings(auto_doubles=1, match_length=5))


# ------------------------------------------------------------ turns and moves


def test_moving_before_rolling_is_refused():
    game = started()
    assert game.phase == TO_ROLL and game.turn == 1
    refused(game, game.play, [(13, 8)], match="to roll")
    refused(game, game.play_text, "13/8", match="to roll")


def test_illegal_move_refused_with_reason_and_state_unchanged():
    game = started()
    game.roll((6, 5))
    refused(game, game.play, [(24, 18)], match="not a legal play")
    refused(game, game.play, [(7, 1), (6, 1)], match="no checker")
    refused(game, game.play_text, "24/18 18/12", match="illegal play")
    refused(game, game.play, [], match="must play")
    game.play_text("24/13")
    assert game.turn == 0 and game.phase == TO_ROLL


def test_wrong_seat_is_refused():
    game = started()
    refused(game, game.roll, seat=0, match="decision is up to player 1")
    game.roll((2, 1), seat=1)
    refused(game, game.play, [(13, 11), (24, 23)], seat=0, match="decision is up to player 1")


def test_pass_only_when_nothing_can_be_played():
    # Mover on the bar against a closed board: no play with any roll.
    board = board_from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3})
    # mover's opponent points 19..24 = opponent's 1..6, all held
    game = Game.from_position(board)
    game.roll((6, 5))
    assert not game.can_play()
    game.play([])
    assert game.turn == 1 and game.history[-1].moves == ()


# ------------------------------------------------------------ docs/rules.md 4: scoring


@pytest.mark.parametrize(
    "opponent, kind",
    [
        ({6: 14}, SINGLE),  # loser has borne off one
        ({6: 15}, GAMMON),  # none off, none in the winner's home board
        ({6: 14, 20: 1}, BACKGAMMON),  # a checker in the winner home board
        ({6: 14, 25: 1}, BACKGAMMON),  # a checker on the bar
    ],
)
def test_game_result_single_gammon_backgammon_times_cube(opponent, kind):
    game = Game.from_position(last_checker(opponent), cube_value=2, cube_owner=0)
    game.roll((2, 1))
    game.play([(1, 0)])
    assert game.phase == OVER and game.result.ended_by == ENDED_BY_BEAR_OFF
    assert game.result.winner == 0 and game.result.kind == kind
    assert game.result.points == 2 * kind
    refused(game, game.roll, match="over")


# ------------------------------------------------------------ docs/rules.md 5: the cube


def test_cube_starts_centred_at_one_and_either_player_may_double():
    game = started()
    assert game.cube_value == 1 and game.cube_owner is None and game.may_double
    game.double()
    assert game.phase == DOUBLED and game.decider == 0


def test_double_only_before_rolling():
    game = started()
    game.roll((3, 2))
    refused(game, game.double, match="before rolling")


def test_take_doubles_stake_and_taker_owns_the_cube():
    game = started()  # seat 1 on turn
    game.double(seat=1)
    game.take(seat=0)
    assert game.cube_value == 2 and game.cube_owner == 0 and game.phase == TO_ROLL
    assert game.turn == 1
    # the doubler no longer owns the cube: "only the owner may redouble"
    refused(game, game.double, match="owned by player 0")
    game.roll((2, 1))
    game.play([(13, 11), (24, 23)])
    assert game.may_double
    game.double(seat=0)
    game.take(seat=1)
    assert game.cube_value == 4 and game.cube_owner == 1


def test_drop_loses_the_current_stake_at_once():
    game = started()
    game.double()
    game.take()
    game.roll((2, 1))
    game.play([(13, 11), (24, 23)])
    game.double(seat=0)  # redouble to 4
    game.drop(seat=1)
    assert game.phase == OVER and game.result.ended_by == ENDED_BY_DROP
    assert game.result.winner == 0 and game.result.points == 2 and game.result.kind == SINGLE


def test_take_and_drop_need_a_pending_double():
    game = started()
    refused(game, game.take, match="to roll")
    refused(game, game.drop, match="to roll")
    refused(game, game.beaver, match="to roll")


def test_roll_refused_while_double_pending():
    game = started()
    game.double()
    refused(game, game.roll, match="take or drop")


# docs/rules.md 5, Beaver: "the player being doubled may take and immediately
# redouble, keeping ownership of the cube. The original doubler may then refuse,
# as with any double, and loses the stake of the first double (the beaverer
# scores the doubled value: 2 on a cube of 1); or accept and play on at four
# times the stake. Raccoon: the original doubler may in turn re-redouble
# instead of accepting, and the beaverer accepts or refuses."
#
# The cube through each path, seat 1 doubling a centred cube of 1 (money):
#
#   action            phase      decides   cube (owner)   on refusal
#   seat 1 doubles    DOUBLED    seat 0    1 (centre)     seat 1 wins 1
#   seat 0 beavers    BEAVERED   seat 1    2 (seat 0)     seat 0 wins 2
#   seat 1 accepts    TO_ROLL    seat 1    4 (seat 0)
#   seat 1 raccoons   RACCOONED  seat 0    4 (seat 0)     seat 1 wins 4
#   seat 0 accepts    TO_ROLL    seat 1    8 (seat 1)
#
# While a beaver or raccoon waits, the cube holds what a refusal loses, owned
# by the beaverer (GNU Backgammon's match state); the .mat record says what an
# acceptance makes it (Beavers => 4, Raccoons => 8).

# The mover (X) bears off its last checker with any roll; all 15 of O are still
# on O's 6-point (X's 19): a gammon.
GAMMON_RACE = diagram(
    """
        1                                                      19
    X   1
    O                                                          15
    """
)


def beavered(settings: GameSettings | None = None) -> Game:
    """``started`` with seat 1 doubling and seat 0 beavering (money, beavers on)."""
    game = started(settings or GameSettings(beavers=True))
    game.double(seat=1)
    game.beaver(seat=0)
    return game


def test_beaver_is_a_take_and_an_immediate_redouble_the_doubler_answers():
    game = beavered()
    assert game.phase == BEAVERED and game.decider == 1 and game.turn == 1
    assert game.cube_value == 2 and game.cube_owner == 0  # the beaverer's take
    assert game.history[-1].kind == "beaver" and game.history[-1].value == 4
    position = game.position()  # the doubler's view: beaver stage 1
    assert position.double_offered and position.beaver_stage == 1
    assert position.cube_value == 2 and position.cube_owner == "opponent"
    assert not position.decision_swapped  # the doubler answering a beaver is usual
    refused(game, game.roll, match="take or drop the beaver")
    refused(game, game.double, match="take or drop the beaver")
    refused(game, game.take, seat=0, match="decision is up to player 1")
    refused(game, game.raccoon, match="not allowed")


def test_beaver_refused_the_beaverer_scores_the_doubled_value():
    game = beavered()
    game.drop(seat=1)
    assert game.phase == OVER and game.result.ended_by == ENDED_BY_DROP
    assert game.result.winner == 0 and game.result.points == 2 and game.result.kind == SINGLE
    assert game.history[-1].kind == "drop" and game.history[-1].seat == 1
    game.check_invariants()


def test_beaver_of_a_redouble_refused_scores_twice_the_first_stake():
    game = started(GameSettings(beavers=True))
    game.double(seat=1)
    game.take(seat=0)  # cube 2, seat 0's
    game.roll((2, 1))
    game.play([(13, 11), (24, 23)])
    game.double(seat=0)  # redouble to 4
    game.beaver(seat=1)  # seat 1 takes (4) and redoubles to 8
    assert game.cube_value == 4 and game.cube_owner == 1 and game.history[-1].value == 8
    game.drop(seat=0)
    assert game.result.winner == 1 and game.result.points == 4


def test_beaver_accepted_play_goes_on_at_four_times_the_stake():
    # X (seat 0) doubles in GAMMON_RACE, O beavers, X accepts and bears off: 4 x gammon.
    game = Game.from_position(GAMMON_RACE, settings=GameSettings(beavers=True, jacoby=True))
    game.double(seat=0)
    game.beaver(seat=1)
    game.take(seat=0)
    assert game.phase == TO_ROLL and game.turn == 0 and game.decider == 0
    assert game.cube_value == 4 and game.cube_owner == 1  # "keeping ownership of the cube"
    refused(game, game.double, match="owned by player 1")
    game.roll((2, 1))
    game.play([(1, 0)])
    # the cube was turned, so Jacoby counts the gammon
    assert game.result.kind == GAMMON and game.result.points == 8


def test_beaver_refused_unless_allowed():
    game = started()
    game.double()
    refused(game, game.beaver, match="not allowed")


def test_beaver_refused_in_a_match():
    with pytest.raises(RuleError, match="money play only"):
        GameSettings(beavers=True, match_length=5).check()


def test_raccoon_re_redoubles_and_the_beaverer_answers():
    game = beavered(GameSettings(beavers=True, raccoons=True))
    assert game.may_raccoon
    game.raccoon(seat=1)
    assert game.phase == RACCOONED and game.decider == 0 and game.turn == 1
    assert game.cube_value == 4 and game.cube_owner == 0
    assert game.history[-1].kind == "raccoon" and game.history[-1].value == 8
    position = game.position()
    assert position.double_offered and position.beaver_stage == 2
    assert position.cube_owner == "opponent" and not position.decision_swapped
    refused(game, game.raccoon, match="take or drop the raccoon")
    refused(game, game.beaver, match="take or drop the raccoon")
    refused(game, game.drop, seat=1, match="decision is up to player 0")


def test_raccoon_refused_the_doubler_scores_four_times_the_stake():
    game = beavered(GameSettings(beavers=True, raccoons=True))
    game.raccoon()
    game.drop(seat=0)
    assert game.result.winner == 1 and game.result.points == 4
    assert game.result.ended_by == ENDED_BY_DROP


def test_raccoon_accepted_eight_times_and_the_raccooner_keeps_the_cube():
    game = beavered(GameSettings(beavers=True, raccoons=True))
    game.raccoon(seat=1)
    game.take(seat=0)
    assert game.cube_value == 8 and game.cube_owner == 1 and game.phase == TO_ROLL
    assert game.turn == 1 and game.decider == 1


def test_after_a_raccoon_the_doubler_rolls_and_redoubles_only_on_a_later_turn():
    # docs/rules.md 5: "A double is offered only at the start of one's own turn,
    # before rolling": the raccooner owns the cube, still before his roll, but
    # his turn began with his double (the review's double-beaver-raccoon loop).
    game = beavered(GameSettings(beavers=True, raccoons=True))
    game.raccoon(seat=1)
    game.take(seat=0)
    assert not game.may_double
    refused(game, game.double, match="doubled this turn already")
    game.roll((2, 1))
    game.play([(13, 11), (6, 5)])
    game.roll((2, 1), seat=0)  # seat 0 has no cube: he rolls
    game.play([(13, 11), (6, 5)])
    assert game.turn == 1 and game.may_double  # the raccooner's next turn
    game.double(seat=1)
    assert game.history[-1].value == 16


def test_raccoon_needs_the_option_and_room_under_the_limit():
    game = beavered()
    refused(game, game.raccoon, match="not allowed")
    game = beavered(GameSettings(beavers=True, raccoons=True, max_cube=4))
    assert not game.may_raccoon  # eight times the stake is over the limit of 4
    refused(game, game.raccoon, match="limit")
    game.take()
    assert game.cube_value == 4
    with pytest.raises(RuleError, match="raccoons need beavers"):
        GameSettings(raccoons=True).check()


def test_take_and_drop_after_a_beaver_are_the_doublers():
    for seat, answer in ((0, "take"), (0, "drop")):
        game = beavered()
        refused(game, getattr(game, answer), seat=seat, match="decision is up to player 1")


def test_cube_limit():
    game = started(GameSettings(max_cube=2))
    game.double()
    game.take()
    game.roll((2, 1))
    game.play([(13, 11), (24, 23)])
    assert not game.may_double
    refused(game, game.double, match="limit of 2")


def test_beaver_needs_room_under_the_limit():
    game = started(GameSettings(beavers=True, max_cube=2))
    game.double()
    refused(game, game.beaver, match="limit")


def test_cubeless_game_refuses_doubles():
    game = started(GameSettings(cube=False))
    refused(game, game.double, match="not in use")


def test_crawford_game_refuses_doubles():
    game = started(GameSettings(crawford=True, match_length=5, scores=(4, 2)))
    refused(game, game.double, match="Crawford")


def test_jacoby_gammon_counts_single_with_centred_cube():
    settings = GameSettings(jacoby=True)
    game = Game.from_position(last_checker({6: 15}), settings=settings)
    game.roll((2, 1))
    game.play([(1, 0)])
    assert game.result.kind == GAMMON and game.result.points == 1


def test_jacoby_gammon_counts_after_the_cube_is_turned():
    settings = GameSettings(jacoby=True)
    game = Game.from_position(last_checker({6: 14, 20: 1}), settings=settings)
    game.double()
    game.take()
    game.roll((2, 1))
    game.play([(1, 0)])
    assert game.result.kind == BACKGAMMON and game.result.points == 6


def test_jacoby_automatic_double_does_not_turn_the_cube():
    settings = GameSettings(jacoby=True, auto_doubles=1)
    game = Game.from_position(last_checker({6: 15}), cube_value=2, settings=settings)
    game.roll((2, 1))
    game.play([(1, 0)])
    assert game.result.points == 2  # single game x cube 2


def test_without_jacoby_gammon_counts_with_centred_cube():
    game = Game.from_position(last_checker({6: 15}))
    game.roll((2, 1))
    game.play([(1, 0)])
    assert game.result.points == 2


# ------------------------------------------------------------ resignations


@pytest.mark.parametrize("kind", [SINGLE, GAMMON, BACKGAMMON])
def test_accepted_resignation_scores_kind_times_cube(kind):
    game = started()
    game.double()
    game.take()
    game.offer_resignation(kind)
    assert game.phase == RESIGNING and game.decider == 0
    assert game.position().resign_offered == kind
    refused(game, game.roll, match="resignation")
    game.accept_resignation(seat=0)
    assert game.result.ended_by == ENDED_BY_RESIGNATION
    assert game.result.winner == 0 and game.result.points == 2 * kind


def test_rejected_resignation_returns_to_the_same_phase():
    game = started()
    game.roll((5, 2))
    before_phase, dice = game.phase, game.dice
    game.offer_resignation(GAMMON)
    game.reject_resignation()
    assert game.phase == before_phase and game.dice == dice and game.resign_offer == 0
    game.play_text("13/8 13/11")


def test_resignation_kind_must_be_valid_and_answer_needs_an_offer():
    game = started()
    refused(game, game.offer_resignation, 4, match="resignation is 1")
    refused(game, game.accept_resignation, match="to roll")
    refused(game, game.reject_resignation, match="to roll")


def test_resignation_by_the_player_not_on_turn():
    game = started()  # seat 1 on turn
    game.offer_resignation(SINGLE, seat=0)
    assert game.decider == 1
    game.accept_resignation(seat=1)
    assert game.result.winner == 1 and game.result.points == 1


def test_jacoby_resigned_gammon_with_centred_cube_is_single():
    game = started(GameSettings(jacoby=True))
    game.offer_resignation(GAMMON)
    game.accept_resignation()
    assert game.result.points == 1


# ------------------------------------------------------------ positions


def test_position_is_seen_from_the_player_on_turn():
    game = started()
    position = game.position()
    assert position.mover_seat == 1 and position.dice is None
    assert np.array_equal(position.board, game.board)
    assert np.array_equal(flip(game.board_of(0)), game.board)
    game.double()
    assert game.position().double_offered


# ------------------------------------------------------------ play_text: the order kept


def test_play_text_keeps_the_written_order_when_it_can_be_played():
    game = started()
    game.roll((5, 2))
    assert game.play_text("13/11 13/8") == ((13, 11), (13, 8))


def test_play_text_written_in_an_unplayable_order_uses_the_generator_order():
    game, same = started(), started()
    game.roll((5, 2))
    same.roll((5, 2))
    same.play([(13, 11), (11, 6)])
    # 11/6 first is impossible (no checker on 11 yet): the play is still legal
    pairs = game.play_text("11/6 13/11")
    assert pairs != ((11, 6), (13, 11)) and sorted(pairs)[-1][0] == 13
    assert np.array_equal(game.board, same.board) and game.phase == TO_ROLL


def test_play_text_does_not_swallow_an_error_after_matching(monkeypatch):
    """An error while keeping the written order is a bug: it surfaces (it used to be
    caught and ignored with the control-flow exception)."""
    from tdgammon.engine.formats import notation
    from tdgammon.engine.rules.errors import FormatError

    def broken(text, variant=None):
        raise FormatError("parse_move broke")

    game = started()
    game.roll((5, 2))
    monkeypatch.setattr(notation, "parse_move", broken)
    with pytest.raises(FormatError, match="parse_move broke"):
        game.play_text("13/11 13/8")
