"""Variants end to end (docs/rules.md 7): game flow, matches, records, duels and the CLI.

Random full games of every variant run through ``tdgammon.engine.flow.game.Game`` with the
invariants checked after every action; Acey-Deucey pays the stake times the
loser's checkers not borne off; ``.mat`` records name the variant and read
back identically; ``tdgammon play --variant`` completes and saves a game.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from tdgammon.engine.display.render import render_board
from tdgammon.engine.flow.game import Game
from tdgammon.engine.flow.game_records import OPENING, OVER, TO_MOVE, TO_ROLL, GameSettings
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.flow.matfile import format_mat, load_mat, position_ids, read_mat
from tdgammon.engine.formats.move_matching import match_move
from tdgammon.engine.formats.notation import format_move, parse_move
from tdgammon.engine.interfaces.cli import main
from tdgammon.engine.players.agents import PubevalAgent, RandomAgent
from tdgammon.engine.players.cube_actions import bot_step, play_match
from tdgammon.engine.players.duel import play_duel
from tdgammon.engine.rules.board import MOVER_HAND, OPPONENT_HAND, flip
from tdgammon.engine.rules.errors import RuleError, TdgammonError
from tdgammon.engine.rules.outcome import game_values
from tdgammon.engine.rules.variants import VARIANTS, get_variant

ALL = list(VARIANTS)


def _totals(game: Game) -> tuple[int, int]:
    board = game.board.astype(int)
    return int(board[board > 0].sum()), int(-board[board < 0].sum())


def _random_game(variant: str, seed: int, stakes: bool = False) -> tuple[Game, int]:
    """Play one game with uniformly random plays; check everything after every action.

    stakes: Acey-Deucey's optional rule (docs/rules.md 7), the stake doubling on
    each 1-2 thrown."""
    rng = np.random.default_rng(seed)
    settings = GameSettings(variant=variant, acey_deucey_stakes=stakes)
    game = Game(settings, rng=np.random.default_rng(seed))
    checkers = get_variant(variant).checkers
    extra_rolls = 0
    while not game.is_over:
        if game.phase == OPENING:
            game.opening_roll()
        elif game.phase == TO_ROLL:
            game.roll()
        else:
            legal = game.legal_moves()
            row = int(rng.integers(len(legal)))
            mover = game.turn
            game.play_row(row)
            if game.is_over:
                break
            if legal.extra_roll[row]:
                # docs/rules.md 7: the named double played in full: "then rolls again".
                extra_rolls += 1
                assert game.turn == mover and game.phase == TO_ROLL
            else:
                assert game.turn == 1 - mover and game.phase == TO_ROLL
        game.check_invariants()
        assert _totals(game) == (checkers, checkers)
    game.check_invariants()
    result = game.result
    winner_view = game.board  # the winner moved last and the board is its view
    value = abs(int(game_values(winner_view[None, :], variant)[0]))
    thrown = sum(1 for a in game.history if a.kind == "move" and sorted(a.dice) == [1, 2])
    assert game.stake == (2**thrown if stakes else 1) == result.stake
    assert result.points == game.stake * value
    return game, extra_rolls


@pytest.mark.parametrize("variant", ALL)
def test_random_full_games_complete_with_invariants(variant):
    extra = 0
    for seed in range(3):
        game, extra_rolls = _random_game(variant, seed)
        extra += extra_rolls
        assert game.phase == OVER and game.result.ended_by == "bear-off"
        most = 15 if variant == "acey-deucey" else 3
        assert 1 <= game.result.points <= most
    if variant != "acey-deucey":
        assert extra == 0


def test_variant_start_positions():
    assert Game(GameSettings(variant="hypergammon")).board[[22, 23, 24]].tolist() == [1, 1, 1]
    for name in ("dutch", "acey-deucey"):
        board = Game(GameSettings(variant=name)).board
        assert board[MOVER_HAND] == 15 and board[OPPONENT_HAND] == -15
    assert Game(GameSettings(variant="nackgammon")).board[23] == 2


def _acey_finish(off_for_loser: int) -> Game:
    """Acey-Deucey: the mover has one checker left on its 1-point; the loser has
    ``off_for_loser`` checkers off and the rest spread over its points and hand."""
    board = np.zeros(30, dtype=np.int8)
    board[1] = 1
    board[0] = 14
    left = 15 - off_for_loser
    board[27] = -off_for_loser
    board[12] = -min(left, 5)
    board[OPPONENT_HAND] = -(left - min(left, 5))
    return Game.from_position(board, settings=GameSettings(variant="acey-deucey"))


def test_random_acey_deucey_games_with_the_stakes_rule():
    """docs/rules.md 7, optional rule: random full games with the stake doubling."""
    stakes = []
    for seed in range(4):
        game, _ = _random_game("acey-deucey", seed, stakes=True)
        assert game.result.ended_by == "bear-off"
        stakes.append(game.stake)
    assert max(stakes) >= 2  # 1-2s were thrown (about one roll in 18)


# ---------------------------------------------------------------- Acey-Deucey stakes
#
# docs/rules.md 7, optional rule (off unless set): "the stake doubles each time a
# 1-2 is thrown". Thrown by either player, the opening roll and the extra roll
# after a named double included; the game is worth stake x checkers left.
#
#   roll                 stake
#   opening 2-1          1 -> 2
#   6-4                  2
#   1-2 (extra roll)     2 -> 4 -> 8 when the extra roll is a 1-2 again


def test_acey_deucey_stakes_are_off_by_default():
    game = Game(GameSettings(variant="acey-deucey"))
    game.opening_roll((2, 1))
    assert game.stake == 1
    game.play_text("hand/24 hand/23 6-6: hand/19(4)")
    game.roll((2, 1))
    assert game.stake == 1


def test_acey_deucey_stakes_double_on_each_one_two_thrown():
    game = Game(GameSettings(variant="acey-deucey", acey_deucey_stakes=True))
    game.opening_roll((2, 1))  # the opening 1-2 is thrown too
    assert game.stake == 2
    game.play_text("hand/24 hand/23 6-6: hand/19(4)")  # played in full: roll again
    mover = game.turn
    game.roll((1, 2))
    assert game.stake == 4 and game.turn == mover
    game.play_text("hand/24 hand/23 5-5: hand/20(4)")
    game.roll((6, 4))  # not a 1-2
    assert game.stake == 4
    game.play_row(0)
    game.roll((1, 2))  # the other player's 1-2 doubles it as well
    assert game.stake == 8
    game.check_invariants()


def test_acey_deucey_stakes_multiply_the_game_value():
    # the mover's last checker on its 1-point; the loser has 4 off, 11 left
    settings = GameSettings(variant="acey-deucey", acey_deucey_stakes=True)
    game = Game.from_position(_acey_finish(4).board, settings=settings)
    game.roll((1, 2))
    game.play_text("1/off")
    assert game.result.kind == 11 and game.result.stake == 2 and game.result.points == 22
    assert "at a stake of 2" in game.result.text()
    # a resignation offers checkers' worth, times the stake
    game = Game.from_position(_acey_finish(4).board, settings=settings)
    game.roll((2, 1))
    game.offer_resignation(3, seat=1)
    game.accept_resignation()
    assert game.result.points == 6


def test_acey_deucey_stakes_only_for_acey_deucey():
    with pytest.raises(RuleError, match="for acey-deucey only, not standard"):
        GameSettings(acey_deucey_stakes=True).check()
    with pytest.raises(RuleError, match="for acey-deucey only, not dutch"):
        Match(MatchSettings(variant="dutch", acey_deucey_stakes=True))


def test_acey_deucey_stakes_tag_round_trips_and_replays_the_stake():
    settings = MatchSettings(max_games=1, variant="acey-deucey", acey_deucey_stakes=True)
    agents = [PubevalAgent(), PubevalAgent()]
    match = Match(settings, names=("ann", "bob"), seed=1)
    play_match(match, agents)
    match.check_invariants()
    text = format_mat(match)
    assert '; [AceyDeuceyStakes "On"]' in text
    loaded = read_mat(text)
    assert loaded.match.settings.acey_deucey_stakes
    assert format_mat(loaded.match, loaded.headers) == text
    assert [g.stake for g in loaded.match.games] == [g.stake for g in match.games]
    assert loaded.match.scores == match.scores
    assert any(g.stake > 1 for g in match.games)
    # without the tag the same record is read with stake 1: its Wins lines disagree
    plain = text.replace('; [AceyDeuceyStakes "On"]\n', "")
    assert match.game.result.ended_by == "bear-off"
    with pytest.raises(TdgammonError, match="worth"):
        read_mat(plain)
    # the tag on a variant without the rule is refused with its line number
    standard = '; [AceyDeuceyStakes "On"]\n\n 0 point match\n'
    with pytest.raises(TdgammonError, match="^line 1: .*acey-deucey only"):
        read_mat(standard)


@pytest.mark.parametrize("off", [0, 4, 14])
def test_acey_deucey_scoring_counts_the_losers_checkers_left(off):
    game = _acey_finish(off)
    game.roll((6, 5))
    game.play_text("1/off")
    assert game.is_over
    assert game.result.points == 15 - off
    assert game.result.kind == 15 - off
    assert "not borne off" in game.result.text()
    assert "points" in render_board(game.position(), variant="acey-deucey") or off == 14


def test_acey_deucey_has_no_cube():
    game = Game(GameSettings(variant="acey-deucey"))
    game.opening_roll((4, 3))
    game.play_row(0)
    before = (game.phase, game.turn, game.board.copy(), game.cube_value)
    with pytest.raises(RuleError, match="no doubling cube in acey-deucey"):
        game.double()
    assert (game.phase, game.turn, game.cube_value) == before[::2][:1] + before[1:2] + (1,)
    assert np.array_equal(game.board, before[2])
    with pytest.raises(RuleError, match="needs the doubling cube"):
        GameSettings(variant="acey-deucey", jacoby=True).check()
    with pytest.raises(RuleError, match="unknown variant"):
        GameSettings(variant="chouette").check()


def test_acey_deucey_one_two_rolls_again():
    game = Game(GameSettings(variant="acey-deucey"))
    game.opening_roll((2, 1))
    mover = game.turn
    pairs = game.play_text("hand/24 hand/23 6-6: hand/19(4)")
    action = game.history[-1]
    assert action.named_double == 6 and action.extra_roll and len(pairs) == 6
    assert game.turn == mover and game.phase == TO_ROLL
    # without the token every double is tried; the same board with the extra roll
    game2 = Game(GameSettings(variant="acey-deucey"))
    game2.opening_roll((2, 1))
    game2.play_text("hand/24 hand/23 hand/19(4)")
    assert game2.history[-1].extra_roll and game2.history[-1].named_double == 6
    assert np.array_equal(game.board, game2.board)


def _acey_position(mover: dict[int, int], opponent: dict[int, int]) -> Game:
    """Acey-Deucey game, mover (seat 0) to roll; points in the mover's numbering,
    the mover's missing checkers borne off, the opponent's in hand."""
    board = np.zeros(30, dtype=np.int8)
    for point, count in mover.items():
        board[point] = count
    for point, count in opponent.items():
        board[point] = -count
    board[0] = 15 - sum(mover.values())
    board[OPPONENT_HAND] = -(15 - sum(opponent.values()))
    return Game.from_position(board, settings=GameSettings(variant="acey-deucey"))


def test_acey_deucey_named_double_not_played_in_full_passes_the_turn():
    # One checker on 24; the opponent holds 16-20. After 24/21 only a named 6-6
    # can be played in full (21/15/9/3/off); 1-1 .. 5-5 are blocked at once.
    game = _acey_position({24: 1}, {20: 2, 19: 2, 18: 2, 17: 2, 16: 2})
    game.roll((1, 2))
    legal = game.legal_moves()
    assert legal.extra_roll.any() and not legal.extra_roll.all()
    row = int(np.flatnonzero(~legal.extra_roll & (legal.named_double > 0))[0])
    game.play_row(row)
    assert game.turn == 1 and not game.history[-1].extra_roll and game.phase == TO_ROLL
    # the same with text: a named 5-5 that cannot move keeps no extra roll
    game = _acey_position({24: 1}, {20: 2, 19: 2, 18: 2, 17: 2, 16: 2})
    game.roll((2, 1))
    game.play_text("24/23 23/21 5-5:")
    assert game.turn == 1 and game.history[-1].named_double == 5
    game = _acey_position({24: 1}, {20: 2, 19: 2, 18: 2, 17: 2, 16: 2})
    game.roll((2, 1))
    game.play_text("24/21 6-6: 21/15/9/3/off")
    assert game.is_over and game.result.points == 15  # the opponent has none off


def test_acey_deucey_one_two_not_both_playable_ends_the_turn():
    # 23 and 21 held: only 24/22 can be played, then the 1 is blocked (22/21).
    game = _acey_position({24: 1}, {23: 2, 21: 2})
    game.roll((1, 2))
    legal = game.legal_moves()
    assert len(legal) == 1 and not legal.extra_roll[0] and legal.named_double[0] == 0
    game.play_text("24/22")
    assert game.turn == 1 and game.phase == TO_ROLL


def test_dutch_hand_must_enter_first_and_notation():
    entered = np.zeros(30, dtype=np.int8)
    entered[20], entered[MOVER_HAND], entered[OPPONENT_HAND] = 1, 14, -15
    game = Game.from_position(entered, settings=GameSettings(variant="dutch"))
    game.roll((5, 3))
    with pytest.raises(TdgammonError, match="all checkers in hand must enter first"):
        game.play_text("20/15 hand/22")
    assert np.array_equal(game.board, entered) and game.phase == TO_MOVE
    game = Game(GameSettings(variant="dutch"))
    game.opening_roll((5, 3))
    board = game.board.copy()
    pairs = game.play_text("hand/20 hand/22")
    assert sorted(pairs) == [(28, 20), (28, 22)]
    assert parse_move("hand/20 hand/22") == ((28, 20), (28, 22))
    assert format_move(board, [(28, 20), (28, 22)]) == "hand/22 hand/20"
    with pytest.raises(TdgammonError):
        parse_move("20/hand")
    play = match_move(board, (5, 3), "hand/20 hand/22", variant="dutch")
    assert play.board == tuple(int(x) for x in game.board_of(game.history[-1].seat))


@pytest.mark.parametrize("variant", ALL)
def test_match_sessions_and_records_round_trip(variant):
    settings = MatchSettings(length=3 if variant != "standard" else 0, max_games=2, variant=variant)
    if settings.length == 0:
        settings = MatchSettings(max_games=2, variant=variant)
    agents = [RandomAgent(1, double_rate=0.3), RandomAgent(2, double_rate=0.3)]
    match = Match(settings, names=("ann", "bob"), seed=5)
    play_match(match, agents)
    match.check_invariants()
    text = format_mat(match)
    if variant in ("standard",):
        assert "Variation" not in text
    else:
        assert "; [Variation " in text
    if variant == "acey-deucey":
        assert '; [CubeLimit "1"]' in text and "Doubles" not in text
    loaded = read_mat(text)
    assert loaded.match.settings.variant == variant
    assert format_mat(loaded.match, loaded.headers) == text
    assert loaded.match.scores == match.scores
    ids = position_ids(loaded.match)
    if variant in ("dutch", "acey-deucey"):
        assert ids[0]["xgid"] is None and ids[0]["gnubg"] is None
    else:
        assert ids[0]["xgid"].startswith("XGID=")


def test_money_sessions_with_refused_beavers_in_every_variant_with_a_cube():
    """docs/rules.md 5 in every variant that has the cube: random bots double,
    beaver, refuse or accept beavers and raccoon; the records read back."""
    from test_match import BeaverAnsweringRandomAgent

    refused = 0
    for variant in [name for name in ALL if get_variant(name).cube]:
        agents = [
            BeaverAnsweringRandomAgent(1, double_rate=0.5),
            BeaverAnsweringRandomAgent(2, double_rate=0.5),
        ]
        settings = MatchSettings(beavers=True, raccoons=True, max_games=4, variant=variant)
        match = Match(settings, names=("ann", "bob"), seed=6)
        play_match(match, agents)
        match.check_invariants()
        for game in match.games:
            kinds = [a.kind for a in game.history]
            if kinds[-2:] in (["beaver", "drop"], ["raccoon", "drop"]):
                refused += 1
                assert game.result.points == game.history[-2].value // 2
        text = format_mat(match)
        loaded = read_mat(text)
        assert format_mat(loaded.match, loaded.headers) == text
        assert loaded.match.scores == match.scores
    assert refused > 0


def test_gnubg_variation_tags_are_read():
    text = '; [Variation "NackGammon"]\n\n 0 point match\n'
    assert read_mat(text).match.settings.variant == "nackgammon"
    text = '; [Variation "HyperGammon (3)"]\n\n 0 point match\n'
    assert read_mat(text).match.settings.variant == "hypergammon"
    with pytest.raises(TdgammonError, match="line 1: unknown \\[Variation\\]"):
        read_mat('; [Variation "HyperGammon (2)"]\n\n 0 point match\n')


def test_duel_variants_and_default_unchanged():
    a, b = PubevalAgent(), RandomAgent(3)
    standard = play_duel(a, b, 8, seed=4)
    b2 = RandomAgent(3)
    same = play_duel(a, b2, 8, seed=4, variant="standard")
    assert np.array_equal(standard.points, same.points)
    hyper = play_duel(a, RandomAgent(3), 20, seed=4, variant="hypergammon")
    assert hyper.variant == "hypergammon" and set(np.abs(hyper.points)) <= {1, 2, 3}
    acey = play_duel(a, RandomAgent(3), 4, seed=4, variant="acey-deucey")
    assert ((np.abs(acey.points) >= 1) & (np.abs(acey.points) <= 15)).all()
    assert "acey-deucey" in acey.text()


def _script(seed: int, settings: MatchSettings) -> list[str]:
    """The moves pubeval would type for seat 0 in the game the CLI will deal."""
    match = Match(settings, seed=seed)
    agents = [PubevalAgent(), PubevalAgent()]
    lines = []
    game = match.game
    while not game.is_over:
        if game.phase == TO_MOVE and game.turn == 0 and game.can_play():
            board = game.board.copy()
            bot_step(game, agents)
            action = game.history[-1]
            lines.append(format_move(board, list(action.moves), action.named_double))
        else:
            bot_step(game, agents)
    return lines


@pytest.mark.parametrize("variant", ["dutch", "acey-deucey"])
def test_play_scripted_variant_game_is_completed_and_saved(monkeypatch, capsys, tmp_path, variant):
    seed = 3
    settings = MatchSettings(cube=variant != "dutch", max_games=1, variant=variant)
    if variant == "dutch":
        settings = MatchSettings(cube=False, max_games=1, variant=variant)
    script = _script(seed, settings)
    path = tmp_path / "game.mat"
    argv = ["play", "--variant", variant, "--opponent", "pubeval", "--seed", str(seed)]
    argv += ["--no-board", "--save", str(path)]
    if variant == "dutch":
        argv.append("--cubeless")
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(script) + "\n"))
    status = main(argv)
    out = capsys.readouterr().out
    assert status == 0
    assert "The session is over." in out, out[-2000:]
    loaded = load_mat(path)
    assert loaded.match.settings.variant == variant
    assert loaded.match.game.is_over
    assert format_mat(loaded.match, loaded.headers) == path.read_text()


def test_play_rejects_an_unknown_variant(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    status = main(["play", "--variant", "chouette", "--no-board"])
    err = capsys.readouterr().err
    assert status != 0 and "unknown variant" in err and len(err.strip().splitlines()) == 1


def test_render_shows_hand_and_variant():
    game = Game(GameSettings(variant="dutch"))
    text = render_board(game.position(), variant="dutch")
    assert "In hand     X:  15   O:  15" in text and "Variant: dutch" in text
    assert flip(game.board)[MOVER_HAND] == 15
