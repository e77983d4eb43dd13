"""docs/rules.md 6 (match play) and random full matches with every invariant checked."""

from __future__ import annotations

import os

import numpy as np
import pytest
from test_game import snapshot

from tdgammon.engine.flow.game_records import (
    ACT_BEAVER,
    ACT_DROP,
    ACT_RACCOON,
    BEAVERED,
    DOUBLED,
    ENDED_BY_BEAR_OFF,
    ENDED_BY_DROP,
    OPENING,
    RACCOONED,
    RESIGNING,
    TO_MOVE,
    TO_ROLL,
)
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.flow.matfile import format_mat, read_mat
from tdgammon.engine.players.agents import PubevalAgent, RandomAgent
from tdgammon.engine.players.cube_actions import play_game, play_match
from tdgammon.engine.rules.errors import IllegalMoveError, RuleError, TdgammonError
from tdgammon.engine.rules.outcome import SINGLE


def win_game(match: Match, seat: int, points_kind: int = SINGLE, double: bool = False) -> None:
    """End the current game: ``seat``'s opponent resigns ``points_kind`` (after a double)."""
    game = match.game
    if game.phase == OPENING:
        game.opening_roll((3, 1) if seat == 0 else (1, 3))
        game.play([(8, 5), (6, 5)])
    if double:
        game.double()
        game.take()
    game.offer_resignation(points_kind, seat=1 - seat)
    game.accept_resignation()


def test_match_ends_when_a_player_reaches_n():
    match = Match(MatchSettings(length=3))
    win_game(match, 0)
    assert not match.is_over and match.scores == (1, 0)
    match.next_game()
    win_game(match, 0, double=True)
    assert match.scores == (3, 0) and match.is_over and match.winner == 0
    with pytest.raises(RuleError, match="match is over"):
        match.next_game()
    match.check_invariants()


def test_next_game_refused_while_game_runs():
    match = Match(MatchSettings(length=3))
    with pytest.raises(RuleError, match="not over"):
        match.next_game()


def test_crawford_game_follows_reaching_n_minus_one():
    match = Match(MatchSettings(length=5))
    win_game(match, 1, double=True)  # 0-2
    match.next_game()
    assert not match.game.settings.crawford
    win_game(match, 0, double=True)  # 2-2
    match.next_game()
    win_game(match, 1, double=True)  # 2-4: player 1 reaches N-1
    match.next_game()
    game = match.game
    assert game.settings.crawford
    game.opening_roll((3, 1))
    game.play([(8, 5), (6, 5)])
    before = snapshot(game)
    with pytest.raises(RuleError, match="Crawford"):
        game.double()
    assert snapshot(game) == before
    assert game.position().crawford
    game.offer_resignation(SINGLE)  # player 1 resigns the Crawford game: 3-4
    game.accept_resignation()
    match.next_game()
    # post-Crawford: the cube is used normally, and there is no second Crawford game
    assert not match.game.settings.crawford and match.post_crawford
    win_game(match, 1)
    assert match.scores == (3, 5) and match.winner == 1
    match.check_invariants()


def test_only_one_crawford_game_even_when_both_reach_n_minus_one():
    match = Match(MatchSettings(length=3))
    win_game(match, 0, double=True)  # 2-0 -> Crawford next
    match.next_game()
    assert match.game.settings.crawford
    win_game(match, 1)  # 2-1 (Crawford)
    match.next_game()
    assert not match.game.settings.crawford
    win_game(match, 1)  # 2-2
    match.next_game()
    assert not match.game.settings.crawford
    match.game.opening_roll((1, 3))
    match.game.play([(8, 5), (6, 5)])
    assert match.game.may_double
    match.check_invariants()


def test_no_crawford_rule_when_switched_off():
    match = Match(MatchSettings(length=3, crawford=False))
    win_game(match, 0, double=True)
    match.next_game()
    assert not match.game.settings.crawford


def test_no_crawford_game_when_the_cube_is_limited_to_1():
    """A cube that can never be turned is no cube: no Crawford game, as the .mat
    record (CubeLimit 1) reads back (found by tests/test_fuzz_play.py)."""
    match = Match(MatchSettings(length=2, max_cube=1), names=("ann", "bob"))
    win_game(match, 1)  # 0-1: bob reaches N-1
    match.next_game()
    assert not match.game.settings.crawford
    match.game.opening_roll((3, 1))
    match.game.play([(8, 5), (6, 5)])
    loaded = read_mat(format_mat(match)).match
    assert [g.settings.crawford for g in loaded.games] == [False, False]


def test_money_options_are_refused_in_a_match():
    for option in ({"jacoby": True}, {"beavers": True}, {"auto_doubles": 1}):
        with pytest.raises(RuleError, match="money play only"):
            Match(MatchSettings(length=5, **option))


def test_money_session_has_no_end_without_max_games():
    match = Match(MatchSettings(length=0))
    win_game(match, 0)
    assert not match.is_over and match.winner is None
    match.next_game()
    session = Match(MatchSettings(max_games=1))
    win_game(session, 1)
    assert session.is_over
    with pytest.raises(RuleError, match="session is over"):
        session.next_game()


def test_drop_scores_the_stake_before_the_double():
    match = Match(MatchSettings(length=7))
    game = match.game
    game.opening_roll((3, 1))
    game.play([(8, 5), (6, 5)])
    game.double()
    game.take()  # cube 2, owned by seat 0
    game.roll((2, 1))
    game.play([(13, 11), (24, 23)])
    game.double()  # seat 0 redoubles to 4
    game.drop()
    assert match.scores == (2, 0)


def test_bot_match_pubeval_beats_random():
    match = Match(MatchSettings(length=3), names=("pubeval", "random"), seed=1)
    play_match(match, [PubevalAgent(), RandomAgent(2)])
    match.check_invariants()
    assert match.is_over


# ------------------------------------------------------------ chaos: random actions


ACTION_WEIGHTS = {
    "roll": 30,
    "play_random": 30,
    "play_bad": 10,
    "opening": 5,
    "double": 2,
    "take": 5,
    "drop": 0.5,
    "beaver": 2,
    "raccoon": 2,
    "resign": 0.1,
    "accept": 2,
    "reject": 3,
}
ACTIONS = tuple(ACTION_WEIGHTS)
_P = np.array(list(ACTION_WEIGHTS.values()))
_P = _P / _P.sum()
# After a beaver or a raccoon (docs/rules.md 5) refusing is as likely as a
# raccoon, so that refused beavers and raccoons happen in every run.
_P_BEAVERED = np.array([ACTION_WEIGHTS[a] if a != "drop" else 2 for a in ACTIONS])
_P_BEAVERED = _P_BEAVERED / _P_BEAVERED.sum()


def chaos_step(game, rng) -> bool:
    """Try one random action (often an illegal one); True if it was accepted."""
    p = _P_BEAVERED if game.phase in (BEAVERED, RACCOONED) else _P
    name = ACTIONS[int(rng.choice(len(ACTIONS), p=p))]
    seat = int(rng.integers(2)) if rng.random() < 0.3 else None
    before = snapshot(game)
    try:
        if name == "roll":
            game.roll(seat=seat)
        elif name == "opening":
            game.opening_roll()
        elif name == "double":
            game.double(seat=seat)
        elif name in ("take", "drop", "beaver", "raccoon", "accept", "reject"):
            method = {"accept": "accept_resignation", "reject": "reject_resignation"}.get(
                name, name
            )
            getattr(game, method)(seat=seat)
        elif name == "resign":
            game.offer_resignation(int(rng.integers(1, 4)), seat=seat)
        elif name == "play_random":
            moves = game.legal_moves()
            game.play_row(int(rng.integers(len(moves))), seat=seat)
        else:
            game.play([(int(rng.integers(1, 26)), int(rng.integers(0, 25)))], seat=seat)
    except (RuleError, IllegalMoveError):
        assert snapshot(game) == before, f"refused {name} changed the state"
        return False
    return True


def test_random_matches_with_random_actions_keep_every_invariant():
    """Random matches where every step tries a random action (mostly illegal ones):
    refused actions leave the state unchanged, accepted ones keep the invariants."""
    games_wanted = int(os.environ.get("TDGAMMON_CHAOS_GAMES", "300"))
    seed = int(os.environ.get("TDGAMMON_SEED", "7"))
    rng = np.random.default_rng(seed)
    games = 0
    configs = [
        MatchSettings(length=5),
        MatchSettings(length=3, crawford=False),
        MatchSettings(beavers=True, raccoons=True, jacoby=True, auto_doubles=2, max_cube=64),
        MatchSettings(max_cube=8, max_games=3),
        MatchSettings(beavers=True, raccoons=True, max_cube=256, max_games=4),
        MatchSettings(length=3, variant="acey-deucey", acey_deucey_stakes=True),
    ]
    refused = {BEAVERED: 0, RACCOONED: 0}
    stakes = set()
    index = 0
    while games < games_wanted:
        settings = configs[index % len(configs)]
        index += 1
        match = Match(settings, rng=rng)
        for _ in range(12):
            steps = 0
            while not match.game.is_over:
                phase = match.game.phase
                if chaos_step(match.game, rng) and match.game.is_over and phase in refused:
                    refused[phase] += 1  # docs/rules.md 5: a beaver or raccoon refused
                    result, doubler = match.game.result, match.game.turn
                    assert result.ended_by == ENDED_BY_DROP
                    # the refusal scores what the cube holds for the other side
                    assert result.winner == (1 - doubler if phase == BEAVERED else doubler)
                    assert result.points == result.cube_value
                steps += 1
                assert steps < 20000, f"seed {seed}: game not finishing"
            match.game.check_invariants()
            match.check_invariants()
            stakes.add(match.game.stake)
            games += 1
            if match.is_over:
                break
            match.next_game()
        try:
            match.next_game()
        except RuleError:
            assert match.is_over or not match.game.is_over
        else:
            assert not match.is_over
    print(f"chaos: {games} games, seed {seed}, refused beavers/raccoons {refused}")
    if games_wanted >= 100:
        assert refused[BEAVERED] > 0 and refused[RACCOONED] > 0, refused
        assert max(stakes) >= 4, stakes  # Acey-Deucey stakes doubled on 1-2s


class BeaverAnsweringRandomAgent(RandomAgent):
    """RandomAgent that also answers a beaver of its double at random
    (docs/rules.md 5: accept, refuse or, where allowed, raccoon)."""

    def decide_beaver(self, position) -> str:
        options = ["take", "drop", "raccoon"] if position.raccoons else ["take", "drop"]
        return options[int(self.rng.integers(len(options)))]


def test_random_bot_games_with_random_cube_actions():
    """Many complete games by random bots (random doubles, takes, drops, beavers,
    refused and accepted beavers, raccoons)."""
    rng = np.random.default_rng(int(os.environ.get("TDGAMMON_SEED", "3")))
    agents = [
        BeaverAnsweringRandomAgent(1, double_rate=0.3),
        BeaverAnsweringRandomAgent(2, double_rate=0.3),
    ]
    settings = MatchSettings(beavers=True, raccoons=True, jacoby=True, max_cube=256, max_games=50)
    count = int(os.environ.get("TDGAMMON_BOT_GAMES", "2000"))
    wins = [0, 0]
    ends, cubes, games = set(), set(), 0
    refused = {ACT_BEAVER: 0, ACT_RACCOON: 0}
    for _ in range(max(1, count // 50)):
        match = Match(settings, rng=rng)
        play_match(match, agents)
        match.check_invariants()
        assert len(match.games) == 50
        for game in match.games:
            result = game.result
            assert result is not None and game.cube_value <= 256
            # points = cube x kind; a drop scores the cube; Jacoby: an unturned cube
            # scores gammons and backgammons as singles
            if result.ended_by == ENDED_BY_DROP:
                counted = SINGLE
            elif game.cube_owner is None:
                counted = SINGLE  # Jacoby
            else:
                counted = result.kind
            assert result.points == result.cube_value * counted
            kinds = [a.kind for a in game.history]
            if kinds[-2:] in ([ACT_BEAVER, ACT_DROP], [ACT_RACCOON, ACT_DROP]):
                # docs/rules.md 5: the beaver (raccoon) refused: the refuser loses
                # what the cube holds, 2 (4) times the stake of the first double
                before = game.history[-2]
                assert result.winner == before.seat and result.points == before.value // 2
                refused[kinds[-2]] += 1
            wins[result.winner] += 1
            ends.add(result.ended_by)
            cubes.add(result.cube_value)
            games += 1
    # the random cube actions really happen: drops, and cubes turned and beavered
    assert ENDED_BY_DROP in ends and ENDED_BY_BEAR_OFF in ends
    assert max(cubes) >= 4
    if count >= 500:
        assert refused[ACT_BEAVER] > 0 and refused[ACT_RACCOON] > 0, refused
    # the same bot in both seats: the seats win equally often (binomial, 5 sd)
    assert abs(wins[0] - games / 2) <= 5 * (games / 4) ** 0.5, wins


def test_phases_cover_everything():
    # every phase of the table is reachable in one money game with beavers and raccoons
    match = Match(MatchSettings(beavers=True, raccoons=True), seed=4)
    game = match.game
    seen = {game.phase}
    game.opening_roll((4, 2))
    seen.add(game.phase)
    game.play_text("8/4 6/4")
    seen.add(game.phase)
    game.double()
    seen.add(game.phase)
    game.beaver()
    seen.add(game.phase)
    game.raccoon()
    seen.add(game.phase)
    game.take()
    game.roll((2, 1))
    game.play_text("13/11 24/23")
    game.offer_resignation()
    seen.add(game.phase)
    game.accept_resignation()
    seen.add(game.phase)
    assert seen == {OPENING, TO_MOVE, TO_ROLL, DOUBLED, BEAVERED, RACCOONED, RESIGNING, "over"}
    assert isinstance(RuleError("x"), TdgammonError)


def test_play_game_helper_finishes():
    match = Match(MatchSettings(), seed=9)
    result = play_game(match.game, [PubevalAgent(), PubevalAgent()])
    assert result.points >= 1 and match.game.phase == "over"
    assert TO_ROLL != TO_MOVE


class ResignationAnswerer(PubevalAgent):
    """Pubeval that records the resignations it is asked to answer, and accepts."""

    def __init__(self) -> None:
        self.asked = []

    def decide_resignation(self, position) -> bool:
        self.asked.append(position.resign_offered)
        return True


@pytest.mark.parametrize("before_the_opening_roll", [False, True])
def test_bots_answer_a_resignation_by_the_player_not_on_turn(before_the_opening_roll):
    """The resigner's opponent answers, whoever is on turn (or nobody yet)."""
    from tdgammon.engine.players.cube_actions import bot_step

    match = Match(MatchSettings(max_games=1), seed=1)
    game = match.game
    if not before_the_opening_roll:
        game.opening_roll((3, 1))  # seat 0 on turn
        game.play_text("8/5 6/5")
        game.roll((6, 4))  # now seat 1 on turn
    agents = [ResignationAnswerer(), ResignationAnswerer()]
    game.offer_resignation(2, seat=0)
    bot_step(game, agents)
    assert agents[1].asked == [2] and agents[0].asked == []
    assert game.result.winner == 1 and game.result.points == 2
