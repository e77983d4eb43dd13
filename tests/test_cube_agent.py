"""tdgammon.engine.cube.agent: doubling, taking, beavers from the evaluation; games with the
cube."""

from __future__ import annotations

import numpy as np
import pytest
from evaluators import FixedEvaluator

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.cube.theory import (
    BEAVER,
    DROP,
    RACCOON,
    TAKE,
    beaver_reply,
    cube_decision,
    raccoon_answer,
)
from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import GameSettings
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.players.cube_actions import play_game, play_match
from tdgammon.engine.rules.board import starting_board
from tdgammon.engine.rules.position import CUBE_MOVER, CUBE_OPPONENT, Position


def agent(probabilities) -> CubeAgent:
    return CubeAgent(FixedEvaluator(probabilities), plies=0)


MONEY = Position(board=starting_board())


def test_double_take_position():
    a = agent([0.72, 0.0, 0.0, 0.0, 0.0])  # gammonless: the taker has 28%
    assert cube_decision(a.search.evaluate(MONEY.board), MONEY).action == "Double, take"
    assert a.decide_double(MONEY) is True
    assert a.decide_take(MONEY.with_changes(double_offered=True)) == TAKE


def test_double_pass_position():
    a = agent([0.85, 0.0, 0.0, 0.0, 0.0])
    assert a.decide_double(MONEY) is True
    assert a.decide_take(MONEY.with_changes(double_offered=True)) == DROP


def test_no_double_when_even():
    assert agent([0.5, 0.1, 0.0, 0.1, 0.0]).decide_double(MONEY) is False


def test_too_good_to_double():
    a = agent([0.9, 0.7, 0.0, 0.0, 0.0])  # plays on for the gammon
    assert a.cube_analysis(MONEY).action.startswith("Too good")
    assert a.decide_double(MONEY) is False


def test_no_double_without_access_to_the_cube():
    a = agent([0.8, 0.0, 0.0, 0.0, 0.0])
    assert a.decide_double(MONEY.with_changes(cube_value=2, cube_owner=CUBE_OPPONENT)) is False
    crawford = Position(
        board=starting_board(), match_length=5, mover_score=2, opponent_score=4, crawford=True
    )
    assert a.decide_double(crawford) is False
    assert a.decide_double(MONEY.with_changes(cube_value=2, cube_owner=CUBE_MOVER)) is True


def test_beaver_only_where_allowed():
    a = agent([0.3, 0.0, 0.0, 0.0, 0.0])  # a bad double: the taker is the favourite
    offered = MONEY.with_changes(double_offered=True)
    assert a.decide_take(offered) == TAKE
    assert a.decide_take(offered.with_changes(beavers=True)) == BEAVER
    assert a.decide_take(offered.with_changes(beavers=True, max_cube=2)) == TAKE


def test_no_beaver_of_a_double_the_doubler_would_rather_refuse():
    # DT = -2.76: beavered, the doubler refuses and loses only 2; taking wins 2.76
    a = agent([0.1, 0.03, 0.0, 0.5, 0.04])
    offered = MONEY.with_changes(double_offered=True, beavers=True)
    assert a.cube_analysis(offered).double_take < -2
    assert a.decide_take(offered) == TAKE


# docs/rules.md 5, the beavered doubler's answer. X (seat 0) doubled from the
# starting position, O beavered; X sees (beaver stage 1):
#
#   cube 2, O's (the beaverer's take)    pending: 4, O's cube if X accepts
#   X refuses: -1    accepts: DT    raccoons: min(+2, 2 x KEEP)   (units of 2)
#
# probabilities (X's, gammonless, contact)   DT       KEEP     answer (raccoons?)
#   0.2                                       -1.744   -1.064   drop (drop)
#   0.4                                       -0.808   -0.128   take (raccoon)
#   0.6                                       +0.128   +0.808   take (raccoon)


def beavered_position(raccoons: bool = False, max_cube: int = 1024) -> Position:
    settings = GameSettings(beavers=True, raccoons=raccoons, max_cube=max_cube)
    game = Game.from_position(starting_board(), settings=settings)
    game.double(seat=0)
    game.beaver(seat=1)
    position = game.position()
    assert position.beaver_stage == 1 and position.mover_seat == 0
    return position


@pytest.mark.parametrize(
    "win, plain, with_raccoons",
    [(0.2, DROP, DROP), (0.4, TAKE, RACCOON), (0.6, TAKE, RACCOON)],
)
def test_beavered_doubler_accepts_refuses_or_raccoons_on_the_equities(win, plain, with_raccoons):
    a = agent([win, 0.0, 0.0, 0.0, 0.0])
    for raccoons, expected in ((False, plain), (True, with_raccoons)):
        position = beavered_position(raccoons)
        assert a.decide_beaver(position) == expected
        # derived from the cube theory's numbers, not decided apart from them
        decision = a.cube_analysis(position)
        assert decision.action == "No cube action"  # the beaverer owns the cube
        reply = beaver_reply(decision.double_take, decision.double_keep, raccoons)
        assert reply[0] == expected


def test_beavered_doubler_raccoons_only_under_the_cube_limit():
    a = agent([0.6, 0.0, 0.0, 0.0, 0.0])
    assert a.decide_beaver(beavered_position(raccoons=True, max_cube=8)) == RACCOON
    assert a.decide_beaver(beavered_position(raccoons=True, max_cube=4)) == TAKE


@pytest.mark.parametrize("win, answer", [(0.6, TAKE), (0.7, DROP)])
def test_raccooned_beaverer_takes_unless_keep_reaches_one(win, answer):
    # beaver stage 2, the doubler's view: the beaverer refuses (+1 to X) or
    # accepts (KEEP: X owns the cube at eight times the first stake)
    game = Game.from_position(starting_board(), settings=GameSettings(beavers=True, raccoons=True))
    game.double(seat=0)
    game.beaver(seat=1)
    game.raccoon(seat=0)
    position = game.position()
    assert position.beaver_stage == 2 and position.cube_value == 4
    a = agent([win, 0.0, 0.0, 0.0, 0.0])
    assert a.decide_take(position) == answer
    assert raccoon_answer(a.cube_analysis(position).double_keep) == answer


def test_match_play_take_uses_the_match_equity_table():
    # 2-away/2-away: the doubled cube is dead and the game decides the match; the
    # taker needs what a pass leaves him (2-away/1-away Crawford, about 30%)
    pos = Position(
        board=starting_board(), match_length=5, mover_score=3, opponent_score=3, double_offered=True
    )
    assert agent([0.66, 0.0, 0.0, 0.0, 0.0]).decide_take(pos) == TAKE
    assert agent([0.75, 0.0, 0.0, 0.0, 0.0]).decide_take(pos) == DROP  # money: a take


def test_plays_like_the_search():
    search = Search(PipCountEvaluator())
    a = CubeAgent(search, plies=1)
    from tdgammon.engine.movegen.vectorized import generate_moves

    board = starting_board()
    moves = generate_moves(board[None, :], np.array([[6, 4]]))
    row = a.choose_plays(board[None, :], np.array([[6, 4]]), moves)[0]
    np.testing.assert_array_equal(
        moves.boards[row], search.analyse(board, (6, 4), 1)[0].board_after
    )


def test_bot_money_game_with_the_cube_finishes():
    agents = [CubeAgent(PipCountEvaluator(), name="a"), CubeAgent(PipCountEvaluator(), name="b")]
    for seed in range(3):
        settings = GameSettings(beavers=True, raccoons=seed == 2)
        game = Game(settings, rng=np.random.default_rng(seed))
        result = play_game(game, agents)
        assert result.points >= 1
        game.check_invariants()


def test_bot_match_with_the_cube_finishes():
    agents = [CubeAgent(PipCountEvaluator(), name="a"), CubeAgent(PipCountEvaluator(), name="b")]
    match = Match(MatchSettings(length=3), rng=np.random.default_rng(1))
    play_match(match, agents)
    assert match.is_over and max(match.scores) >= 3


@pytest.mark.parametrize("plies", [-1, 9])
def test_bad_plies(plies):
    from tdgammon.engine.rules.errors import TdgammonError

    with pytest.raises(TdgammonError):
        CubeAgent(PipCountEvaluator(), plies=plies)


class RecordingEvaluator(FixedEvaluator):
    """A FixedEvaluator that remembers the boards it was asked about."""

    def __init__(self, probabilities, variant) -> None:
        super().__init__(probabilities)
        self.variant = variant
        self.seen: list[np.ndarray] = []

    def evaluate(self, boards):
        self.seen.append(np.asarray(boards).copy())
        return super().evaluate(boards)


def test_a_network_player_without_cube_methods_gets_the_cube_agents_decisions():
    """tdgammon.engine.players.cube_actions: a plain network player (an agent with an evaluator)
    doubles and answers doubles exactly as a CubeAgent on the same evaluator."""
    from tdgammon.engine.players.agents import PubevalAgent
    from tdgammon.engine.players.cube_actions import ask_beaver, ask_double, ask_take

    class NetworkPlayer:
        name = "net"

        def __init__(self, evaluator) -> None:
            self.evaluator = evaluator

    for p in ([0.72, 0, 0, 0, 0], [0.8, 0.1, 0, 0, 0], [0.5, 0.1, 0, 0.1, 0], [0.95, 0, 0, 0, 0]):
        cube_agent = agent(p)
        player = NetworkPlayer(FixedEvaluator(p))
        assert ask_double(player, MONEY) == cube_agent.decide_double(MONEY)
        offered = Position(board=starting_board(), double_offered=True)
        assert ask_take(player, offered) == cube_agent.decide_take(offered)
    for win in (0.2, 0.4, 0.6):
        beavered = beavered_position(raccoons=True)
        player = NetworkPlayer(FixedEvaluator([win, 0, 0, 0, 0]))
        assert ask_beaver(player, beavered) == agent([win, 0, 0, 0, 0]).decide_beaver(beavered)
    # an agent without decide_beaver accepts the beaver
    assert ask_beaver(PubevalAgent(), beavered_position(raccoons=True)) == TAKE


def test_hypergammon_cube_decisions_see_the_three_checkers_in_play():
    """Game.position() counts Hypergammon's 12 unused checkers a side as borne
    off (Position holds 15); the cube player evaluates the board in play."""
    from tdgammon.engine.rules.variants import get_variant

    hyper = get_variant("hypergammon")
    game = Game(GameSettings(variant="hypergammon"))
    game.opening_roll()
    position = game.position()
    assert position.board[0] == 12  # the Position convention
    evaluator = RecordingEvaluator([0.6, 0.1, 0, 0.05, 0], hyper)
    CubeAgent(evaluator).cube_analysis(position)
    seen = np.concatenate(evaluator.seen)
    np.testing.assert_array_equal(seen[0], game.board)
    np.testing.assert_array_equal(hyper.board_in_play(position.board), game.board)
    np.testing.assert_array_equal(hyper.position_board(game.board), position.board)
    np.testing.assert_array_equal(hyper.board_in_play(game.board), game.board)  # already in play
