"""tdgammon.engine.cube.agent: doubling, taking, beavers from the evaluation; games with the
cube."""

from __future__ import annotations

import numpy as np
import pytest
from evaluators import FixedEvaluator

from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.cube.theory import BEAVER, DROP, TAKE, cube_decision
from tdgammon.engine.evaluation.search import PipCountEvaluator, Search
from tdgammon.engine.flow.game import Game, GameSettings
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
        game = Game(GameSettings(beavers=True), rng=np.random.default_rng(seed))
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
    from tdgammon.engine.players.cube_actions import ask_double, ask_take

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
