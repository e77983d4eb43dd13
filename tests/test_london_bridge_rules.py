"""One named test per rule clause of docs/london_bridge.md (London Bridge, sections 1-5).

Every position is drawn in the test as a diagram from the mover's seat, and
the state is built *from that drawing* (``diagram``), so the picture cannot
drift from the position tested. A diagram has the opponent's row on top (pots
12 to 7, left to right), the two goals (the opponent's on the left, the
mover's on the right: 1.1 "A player's goal is the one at that player's right"),
and the mover's row below (pots 1 to 6). A pot is ``own/opponent`` bead counts,
``.`` when empty. Sowing runs along the bottom row to the right, up through
the mover's goal, along the top row to the left, past the opponent's goal.
Unless a test says otherwise the pins are on 3 and the first red (``N3 R1``):
turning the number dial then empties red pots of 4 beads, turning the colour
dial yellow pots of 3 (pots 1, 4, 7, 10 are red, 2, 5, 8, 11 yellow, the
others blue), and the drawings avoid those counts where no capture is meant.

Expected results are written by hand in clause 6 notation, worked out from the
rules, not from a generator. ``turns`` checks that the fast and the reference
generators both give exactly the expected set; ``after`` plays one typed move
through ``tdgammon.engine.london_bridge.turn.play_move``.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tdgammon.engine.london_bridge.dials import COLOUR_DIAL, NUMBER_DIAL, turn_dials
from tdgammon.engine.london_bridge.game import Game
from tdgammon.engine.london_bridge.movegen import generate_turns
from tdgammon.engine.london_bridge.notation import (
    format_move,
    format_position,
    listed_move,
    parse_move,
    parse_position,
)
from tdgammon.engine.london_bridge.reference import reference_turns
from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge.state import (
    BEADS_PER_PLAYER,
    OPPONENT,
    OWN,
    check_states,
    pass_turn,
    pot_colours,
    start_state,
)
from tdgammon.engine.london_bridge.turn import play_move
from tdgammon.engine.rules.errors import IllegalMoveError, InvalidBoardError, RuleError

DEFAULT = Rules()


def diagram(text: str, dials: str = "N3 R1", player: str = "P1") -> np.ndarray:
    """A state from a drawing: header, top row (pots 12..7), goals (opponent, mover),
    bottom row (pots 1..6), header."""
    lines = [line.split() for line in text.strip().splitlines()]
    top, goals, bottom = lines[1], lines[2], lines[3]
    pots = [_pot(cell) for cell in bottom] + [_pot(cell) for cell in reversed(top)]
    assert len(pots) == 12 and len(goals) == 2, text
    return parse_position(f"{' '.join(pots)} {goals[1]}:{goals[0]} {dials} {player}")


def _pot(cell: str) -> str:
    return "0/0" if cell == "." else cell


def turns(state: np.ndarray, rules: Rules = DEFAULT) -> set[str]:
    """The positions after every distinct turn, as text; both generators must agree,
    and every listed move, replayed as typed, must give its row."""
    moves = generate_turns(state[None], rules)
    fast = [format_position(row) for row in moves.states]
    assert len(set(fast)) == len(fast), "a result listed twice"
    reference = {format_position(np.array(s)) for s in reference_turns(tuple(state), rules)}
    assert set(fast) == reference
    for row in range(len(moves)):
        replayed = play_move(state, listed_move(moves, row), rules)
        assert format_position(replayed) == fast[row]
    return set(fast)


def after(state: np.ndarray, move: str, rules: Rules = DEFAULT) -> str:
    return format_position(play_move(state, parse_move(move), rules))


def refused(state: np.ndarray, move: str, clause: str, rules: Rules = DEFAULT) -> None:
    with pytest.raises(IllegalMoveError, match=clause):
        play_move(state, parse_move(move), rules)


EMPTY = "0/0"


def pots(**counts: str) -> str:
    """The 12 pot fields with ``p<n>="own/opp"`` set, the rest empty."""
    return " ".join(counts.get(f"p{n}", EMPTY) for n in range(1, 13))


# --------------------------------------------------------------------------
# 1. Equipment
# --------------------------------------------------------------------------


def test_1_1_twelve_pots_and_the_goal_at_the_movers_right():
    """1.1: twelve pots in two rows, a goal at each end; the mover's goal is at their
    right, so a bead sown from pot 6 (the right end of the mover's row) goes into it.

         12  11  10   9   8   7
          .   .   .   .   .  0/1
      0                           0
          .   .   .   .   .  1/0
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .  0/1
      0                           0
          .   .   .   .   .  1/0
          1   2   3   4   5   6
        """
    )
    # the last bead is in the goal (3.6) but no own bead is left to sow again
    assert turns(state) == {
        f"{pots(p7='0/1')} 1:0 N4 R1 P1",
        f"{pots(p7='0/1')} 1:0 N3 Y1 P1",
    }


def test_1_2_pot_colours_from_the_layout_and_each_seat():
    """1.2: the layout names the first player's row, then the second player's, each
    left to right from its owner's seat; the default looks the same from both seats.
    With ``RRRRRRBBBBBB`` the first player's pot 1 is red, the second player's blue:

         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
         0/2  .   .   .   .   .
          1   2   3   4   5   6

    The mover has no bead to sow (3.7) and turns the number dial to 2: pot 1
    (2 beads) is emptied when it is red (seat P1), not when it is blue (seat P2).
    """
    codes = [0, 1, 2] * 4
    assert pot_colours(DEFAULT).tolist() == [codes, codes]
    split = Rules(layout="RRRRRRBBBBBB")
    assert pot_colours(split).tolist() == [[0] * 6 + [2] * 6, [2] * 6 + [0] * 6]
    drawing = """
         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
         0/2  .   .   .   .   .
          1   2   3   4   5   6
    """
    first = diagram(drawing, dials="N1 R1", player="P1")
    second = diagram(drawing, dials="N1 R1", player="P2")
    assert after(first, "/N", split) == f"{pots()} 2:0 N2 R1 P1"
    assert after(second, "/N", split) == f"{pots(p1='0/2')} 0:0 N2 R1 P2"


def test_1_3_eighteen_beads_each():
    """1.3: each player has 18 beads; a position with 19 of one colour in the pots
    cannot occur."""
    start = start_state(DEFAULT)
    assert start[OWN].sum() == start[OPPONENT].sum() == BEADS_PER_PLAYER
    bad = start.copy()
    bad[0] += 1
    with pytest.raises(InvalidBoardError, match="more than 18 beads of the mover"):
        check_states(bad[None])


def test_1_4_dial_cycles_and_where_the_pins_start():
    """1.4: number 1 -> 2 -> 3 -> 4 -> 1; colour red -> yellow -> blue -> red -> blue ->
    yellow -> red; the pins start on 1 and the first red unless the settings say otherwise."""
    state = start_state(DEFAULT)[None]
    numbers, colours = [], []
    for _ in range(4):
        state = turn_dials(state, np.array([NUMBER_DIAL]), DEFAULT)
        numbers.append(format_position(state[0]).split()[13])
    for _ in range(6):
        state = turn_dials(state, np.array([COLOUR_DIAL]), DEFAULT)
        colours.append(format_position(state[0]).split()[14])
    assert numbers == ["N2", "N3", "N4", "N1"]
    assert colours == ["Y1", "B1", "R2", "B2", "Y2", "R1"]
    assert format_position(start_state(DEFAULT)).split()[13:15] == ["N1", "R1"]
    moved = start_state(Rules(number_start=3, colour_start=4))
    assert format_position(moved).split()[13:15] == ["N3", "B2"]


# --------------------------------------------------------------------------
# 2. Setup and the ring
# --------------------------------------------------------------------------


def test_2_1_three_beads_in_each_pot_of_your_own_row():
    """2.1: 3 own beads in each pot in front of each player, the same from both seats.

       12  11  10   9   8   7
       0/3 0/3 0/3 0/3 0/3 0/3
    0                           0
       3/0 3/0 3/0 3/0 3/0 3/0
        1   2   3   4   5   6
    """
    text = "3/0 3/0 3/0 3/0 3/0 3/0 0/3 0/3 0/3 0/3 0/3 0/3 0:0 N1 R1"
    assert format_position(start_state(DEFAULT)) == f"{text} P1"
    assert format_position(pass_turn(start_state(DEFAULT)[None])[0]) == f"{text} P2"


def test_2_2_sowing_runs_round_the_ring():
    """2.2: own pots left to right, own goal, the opponent's pots, ... Ten beads from
    pot 3 fill pots 4-6, the goal, and pots 7-12:

         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   . 10/0  .   .   .
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   . 10/0  .   .   .
          1   2   3   4   5   6
        """
    )
    sown = " ".join(["0/0"] * 3 + ["1/0"] * 9)
    assert after(state, "3:oooooooooo/N") == f"{sown} 1:0 N4 R1 P1"


def test_2_3_the_first_player_moves_first_by_default():
    """2.3 [choice]: the first player of the layout moves first; the setting can give
    the first turn to the second."""
    assert Game().seat == 0
    assert Game(Rules(first_player=1)).seat == 1
    assert format_position(start_state(Rules(first_player=1))).endswith("P2")


# --------------------------------------------------------------------------
# 3. A turn
# --------------------------------------------------------------------------


def test_3_1_a_pot_with_an_own_bead_is_emptied_and_sown():
    """3.1: any playing pot holding an own bead, on either row; all its beads (both
    colours) are sown. Only pot 8 qualifies; pot 1 holds only the opponent's beads.

         12  11  10   9   8   7
          .   .   .   .  1/2  .
      0                           0
         0/3  .   .   .   .   .
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .  1/2  .
      0                           0
         0/3  .   .   .   .   .
          1   2   3   4   5   6
        """
    )
    orders = [("1/0", "0/1", "0/1"), ("0/1", "1/0", "0/1"), ("0/1", "0/1", "1/0")]
    assert turns(state) == {
        f"{pots(p1='0/3', p9=a, p10=b, p11=c)} 0:0 {dials} P1"
        for a, b, c in orders
        for dials in ("N4 R1", "N3 Y1")
    }
    refused(state, "1:xxx/N", "3.1: pot 1 holds no bead of your own")
    refused(state, "8:ox/N", "3.1: pot 8 holds 3 beads")


def test_3_2_playing_pots_accept_either_colour():
    """3.2: an opponent's bead may go into a pot of the mover's row (pot 6 here).

       12  11  10   9   8   7
        .   .   .   .   .  0/1
    0                           0
        .   .   .   .  1/1  .
        1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .  0/1
      0                           0
          .   .   .   .  1/1  .
          1   2   3   4   5   6
        """
    )
    assert after(state, "5:xo/N") == f"{pots(p6='0/1', p7='0/1')} 1:0 N4 R1 P1"


def test_3_3_the_goal_takes_only_an_own_bead():
    """3.3: reaching the goal with beads in hand, the mover drops an own bead into it;
    never an opponent's. From pot 6 the first bead goes into the goal.

         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .   .  1/1
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .   .  1/1
          1   2   3   4   5   6
        """
    )
    assert turns(state) == {f"{pots(p7='0/1')} 1:0 N4 R1 P1", f"{pots(p7='0/1')} 1:0 N3 Y1 P1"}
    refused(state, "6:xo/N", "3.3: bead 1 of pot 6 goes into your goal: it must be your own")


def test_3_3_a_goal_reached_with_only_opponent_beads_is_passed():
    """3.3 [choice] pass: dropping the own bead into pot 6 first leaves only the
    opponent's in hand at the goal: it is passed and that bead goes on to pot 7.
    Dropping the opponent's first keeps the own bead for the goal.

         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .  1/1  .
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .  1/1  .
          1   2   3   4   5   6
        """
    )
    passed = f"{pots(p6='1/0', p7='0/1')} 0:0"
    kept = f"{pots(p6='0/1')} 1:0"  # the last bead in the goal, no own bead left: no bonus
    assert after(state, "5:ox/N") == f"{passed} N4 R1 P1"
    assert after(state, "5:xo/N") == f"{kept} N4 R1 P1"
    assert turns(state) == {f"{p} {d} P1" for p in (passed, kept) for d in ("N4 R1", "N3 Y1")}


def test_3_3_reserve_setting_keeps_an_own_bead_for_the_goal():
    """3.3 [choice] reserve: the order that passes the goal is refused when another
    order keeps an own bead for it (same drawing as the test above); with one own bead
    and two goal visits (pot 6, 1 own + 13 opponent) nothing can, and the goal is passed.

         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .  1/1  .
          1   2   3   4   5   6
    """
    reserve = Rules(goal_without_own="reserve")
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .  1/1  .
          1   2   3   4   5   6
        """
    )
    refused(state, "5:ox/N", r"3.3 \(reserve\)", reserve)
    assert turns(state, reserve) == {f"{pots(p6='0/1')} 1:0 {d} P1" for d in ("N4 R1", "N3 Y1")}
    lap = parse_position(f"{pots(p6='1/13')} 0:0 N3 R1 P1")
    sown = " ".join(["0/1"] * 6 + ["0/2"] + ["0/1"] * 5)
    assert after(lap, "6:o" + "x" * 13 + "/N", reserve) == f"{sown} 1:0 N4 R1 P1"


def test_3_4_the_opponents_goal_is_skipped():
    """3.4: from pot 12 the next bead goes to pot 1, nothing into the opponent's goal.

       12  11  10   9   8   7
       2/0  .   .   .   .   .
    0                           0
        .   .   .   .   .   .
        1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
         2/0  .   .   .   .   .
      0                           0
          .   .   .   .   .   .
          1   2   3   4   5   6
        """
    )
    assert after(state, "12:oo/C") == f"{pots(p1='1/0', p2='1/0')} 0:0 N3 Y1 P1"


def test_3_5_the_mover_picks_each_bead_and_equal_boards_are_one_move():
    """3.5 [choice]: the mover chooses which bead goes into each pot (two results from
    pot 11); two sowings that leave the same board are the same move. Pot 12 (2 own,
    12 opponent) sows 14 beads: pots 1-6, the goal (own), 7-12, and pot 1 again; an own
    bead into pot 1 first or last leaves the same board.

         12  11  10   9   8   7
        2/12 1/1  .   .   .   .
      0                           0
          .   .   .   .   .   .
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
        2/12 1/1  .   .   .   .
      0                           0
          .   .   .   .   .   .
          1   2   3   4   5   6
        """
    )
    one = after(state, "11:ox/N")
    other = after(state, "11:xo/N")
    assert one != other
    first = after(state, "12:oxxxxxoxxxxxxx/N")
    assert first == after(state, "12:xxxxxxoxxxxxxo/N")
    results = turns(state)
    assert {one, other, first} <= results


def test_3_5_fixed_order_settings():
    """3.5 settings: ``own-first`` drops the mover's beads first, ``opponent-first`` the
    opponent's; each leaves one way to sow pot 11.

         12  11  10   9   8   7
          .  1/1  .   .   .   .
      0                           0
          .   .   .   .   .   .
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .  1/1  .   .   .   .
      0                           0
          .   .   .   .   .   .
          1   2   3   4   5   6
        """
    )
    own_first, opponent_first = Rules(sowing="own-first"), Rules(sowing="opponent-first")
    assert after(state, "11:ox/N", own_first) == f"{pots(p12='1/0', p1='0/1')} 0:0 N4 R1 P1"
    refused(state, "11:xo/N", r"3.5 \(own-first\)", own_first)
    refused(state, "11:ox/N", r"3.5 \(opponent-first\)", opponent_first)
    assert len(turns(state)) == 4
    assert len(turns(state, own_first)) == len(turns(state, opponent_first)) == 2


def test_3_6_bonus_moves_while_the_last_bead_lands_in_the_goal():
    """3.6: a last bead in the goal gives another sowing, as often as it happens.
    6:o ends in the goal, then 5:oo, then 6:o; or 5:oo ends in the goal, then 6:oo.

         12  11  10   9   8   7
          .   .   .   .   .  0/1
      0                           0
          .   .   .   .  2/0 1/0
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .  0/1
      0                           0
          .   .   .   .  2/0 1/0
          1   2   3   4   5   6
        """
    )
    chain = f"{pots(p7='0/1')} 3:0"
    short = f"{pots(p7='1/1')} 2:0"
    assert after(state, "6:o+5:oo+6:o/N") == f"{chain} N4 R1 P1"
    assert after(state, "5:oo+6:oo/C") == f"{short} N3 Y1 P1"
    assert turns(state) == {f"{p} {d} P1" for p in (chain, short) for d in ("N4 R1", "N3 Y1")}
    refused(state, "6:o/N", "3.6: your last bead landed in your goal: you must sow again")
    refused(state, "5:oo+6:oo+7:ox/N", "3.6: sowing 2 did not end in your goal")


def test_3_6_the_opening_bonus():
    """3.6 at the start: pot 4's three beads end in the goal, so the mover sows again."""
    game = Game()
    refused(game.state, "4:ooo/N", "3.6")
    assert game.play_text("4:ooo+1:ooo/N") == "4:ooo+1:ooo/N"
    moves = Game().legal()
    texts = {format_move(listed_move(moves, row)) for row in range(len(moves))}
    assert "4:ooo+1:ooo/N" in texts and "1:ooo/C" in texts


def test_3_7_no_own_bead_no_bead_move():
    """3.7: with no own bead in the pots the mover skips the bead move and only turns
    a dial.

         12  11  10   9   8   7
          .   .   .   .   .  0/2
      0                           0
         0/1  .   .   .   .   .
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .  0/2
      0                           0
         0/1  .   .   .   .   .
          1   2   3   4   5   6
        """
    )
    board = pots(p1="0/1", p7="0/2")
    assert turns(state) == {f"{board} 0:0 N4 R1 P1", f"{board} 0:0 N3 Y1 P1"}
    refused(state, "7:xx/N", "3.7: you have no bead of your own in the pots")
    with_own = parse_position(f"{pots(p1='1/0', p7='0/2')} 0:0 N3 R1 P1")
    refused(with_own, "/N", "3.7: you have beads of your own in the pots")


# --------------------------------------------------------------------------
# 4. The dial operation
# --------------------------------------------------------------------------


def test_4_1_a_dial_is_turned_while_beads_are_left():
    """4.1: beads left in the pots after the bead move: a dial must be turned; none
    left: no dial (the game is over, 5.1).

         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .   .  1/0
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .   .
      0                           0
          .   .   .   .   .  1/0
          1   2   3   4   5   6
        """
    )
    assert turns(state) == {f"{pots()} 1:0 N3 R1 P1"}
    refused(state, "6:o/N", "4.1: no bead is left in the pots")
    with_bead = parse_position(f"{pots(p6='1/0', p7='0/1')} 0:0 N3 R1 P1")
    refused(with_bead, "6:o", "4.1: beads are left in the pots: turn a dial")


def test_4_2_matching_pots_are_emptied():
    """4.2: turning the number dial from 1 to 2 with the colour pin on red empties
    every red pot of 2 beads: pot 4's opponent bead goes to the mover's goal, the
    mover's own bead is discarded (it scores for nobody). Pots 1, 4, 7, 10 are red.

         12  11  10   9   8   7
         1/0  .   .   .   .   .
      0                           0
          .   .   .  1/1  .   .
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
         1/0  .   .   .   .   .
      0                           0
          .   .   .  1/1  .   .
          1   2   3   4   5   6
        """,
        dials="N1 R1",
    )
    assert after(state, "12:o/N") == f"{pots(p1='1/0')} 1:0 N2 R1 P1"
    # the colour dial instead: yellow pots of 1 bead; none is yellow here
    assert after(state, "12:o/C") == f"{pots(p1='1/0', p4='1/1')} 0:0 N1 Y1 P1"


def test_4_3_the_turn_passes():
    """4.3: after the dial the other player moves; the board is then seen from their
    seat (their row is pots 1-6), and passing twice is the identity."""
    game = Game()
    game.play_text("1:ooo/C")
    assert game.seat == 1 and game.turns == 1
    text = "3/0 3/0 3/0 3/0 3/0 3/0 0/0 0/4 0/4 0/4 0/3 0/3 0:0 N1 Y1 P2"
    assert format_position(game.state) == text
    assert (pass_turn(pass_turn(game.state[None]))[0] == game.state).all()


# --------------------------------------------------------------------------
# 5. End and score
# --------------------------------------------------------------------------


def test_5_1_the_game_ends_when_the_pots_are_empty():
    """5.1: the last bead leaves the pots and the game is over.

       12  11  10   9   8   7
        .   .   .   .   .   .
    3                           2
        .   .   .   .   .  1/0
        1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .   .
      3                           2
          .   .   .   .   .  1/0
          1   2   3   4   5   6
        """
    )
    game = Game(state=state)
    assert not game.over
    game.play_text("6:o")
    assert game.over
    with pytest.raises(RuleError, match="the game is over"):
        game.legal()


def test_5_2_one_point_per_bead_in_the_goal_and_draws():
    """5.2: each goal bead is a point, whatever its colour; discarded beads score for
    nobody; equal points are a draw. The mover (P1) reaches 3:3 with the last bead.

         12  11  10   9   8   7
          .   .   .   .   .   .
      3                           2
          .   .   .   .   .  1/0
          1   2   3   4   5   6
    """
    state = diagram(
        """
         12  11  10   9   8   7
          .   .   .   .   .   .
      3                           2
          .   .   .   .   .  1/0
          1   2   3   4   5   6
        """
    )
    game = Game(state=state)
    game.play_text("6:o")
    assert game.points() == (3, 3) and game.winner() is None
    lost = Game(state=parse_position(f"{pots(p6='1/0')} 2:4 N3 R1 P2"))
    lost.play_text("6:o")
    assert lost.points() == (4, 3) and lost.winner() == 0


def test_5_3_the_turn_limit_ends_the_game():
    """5.3 [choice]: at the turn limit the game ends; beads still in play count for
    nobody."""
    game = Game(Rules(turn_limit=2))
    game.play_text("4:ooo+1:ooo/N")
    assert not game.over
    game.play_text("6:ooo/N")
    assert game.over and game.turns == 2
    assert sum(game.points()) < 36
    with pytest.raises(RuleError):
        game.play_text("1:ooo/N")


# --------------------------------------------------------------------------
# The code quotes the rules as written
# --------------------------------------------------------------------------


def test_every_rule_quoted_in_the_code_is_in_the_rule_book():
    """A clause quoted in the code (``3.6: "..."``) is the text of docs/london_bridge.md
    (pieces between ``...``, whitespace, comment marks and markup aside)."""
    root = Path(__file__).resolve().parents[1]
    book = _plain((root / "docs" / "london_bridge.md").read_text(encoding="utf-8"))
    quote = re.compile(r'\d\.\d:? "([^"]+)"')
    checked, missing = 0, []
    for folder in ("engine/london_bridge", "engine/london_bridge_players"):
        for path in sorted((root / folder).glob("*.py")):
            text = re.sub(r"\n\s*#", " ", path.read_text(encoding="utf-8"))
            for match in quote.finditer(text):
                for piece in _plain(match.group(1)).split("..."):
                    checked += 1
                    if piece.strip(" .,;") not in book:
                        missing.append(f"{path.name}: {piece.strip()!r}")
    assert checked >= 20
    assert not missing, "quoted but not in docs/london_bridge.md:\n" + "\n".join(missing)


def _plain(text: str) -> str:
    return " ".join(text.replace("**", "").replace("`", "").split())
