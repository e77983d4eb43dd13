"""The slow, obviously correct London Bridge move generator: one state, plain Python.

Written to read like docs/london_bridge.md 3 and 4, bead by bead round the
whole ring of 14 places, the opponent's goal included (and skipped, 3.4). The
vectorized generator (``tdgammon.engine.london_bridge.movegen``) is tested
against it; nothing fast depends on it.

A state is a tuple of ``STATE_SIZE`` ints (``tdgammon.engine.london_bridge.state``
layout, mover's view). ``reference_turns(state, rules)`` maps every distinct
position after the turn to one move text (clause 6) that makes it.
"""

from __future__ import annotations

from tdgammon.engine.london_bridge.rules import COLOUR_CYCLE, COLOURS, NUMBER_CYCLE, Rules
from tdgammon.engine.london_bridge.state import (
    COLOUR_PIN,
    MOVER_GOAL,
    N_POTS,
    NUMBER_PIN,
    OPPONENT,
    OWN,
    ROW,
    SEAT,
)

MOVERS_GOAL_PLACE = ROW
OPPONENTS_GOAL_PLACE = 13
RING = 14
"""2.2: "their six pots from left to right, their goal, the opponent's six pots ...,
the opponent's goal, and round to their own first pot"."""


def place_of_pot(pot: int) -> int:
    return pot if pot < ROW else pot + 1


def pot_of_place(place: int) -> int:
    return place if place < ROW else place - 1


def reference_turns(state: tuple[int, ...], rules: Rules) -> dict[tuple[int, ...], str]:
    """Every distinct position after a turn of ``state``, each with one move text that makes it."""
    results: dict[tuple[int, ...], str] = {}
    for after, bead_text in bead_moves(state, rules).items():
        if sum(after[OWN]) + sum(after[OPPONENT]) == 0:
            results.setdefault(after, bead_text)  # 4.1: no bead left, no dial
            continue
        for letter in "NC":
            results.setdefault(turn_dial(after, letter, rules), f"{bead_text}/{letter}")
    return results


def bead_moves(state: tuple[int, ...], rules: Rules) -> dict[tuple[int, ...], str]:
    """Positions after the bead move (3.1-3.7), each with its text (``''`` when skipped)."""
    if not any(state[OWN]):
        return {state: ""}  # 3.7: "A mover with none skips the bead move"
    results: dict[tuple[int, ...], str] = {}
    for pot in range(N_POTS):
        if state[OWN][pot] == 0:
            continue  # 3.1: a pot "that holds at least one bead of their own colour"
        for (after, last_in_goal), colours in sowings(state, pot, rules).items():
            text = f"{pot + 1}:{colours}"
            if last_in_goal and any(after[OWN]):
                # 3.6: the last bead in the goal: "the mover picks a pot again ... and sows again"
                for again, more in bead_moves(after, rules).items():
                    results.setdefault(again, f"{text}+{more}")
            else:
                results.setdefault(after, text)
    return results


def sowings(state: tuple[int, ...], pot: int, rules: Rules) -> dict[tuple, str]:
    """Every distinct sowing of ``pot``: ``(position after, last bead in the goal) -> colours``."""
    board = list(state)
    own, opponent = board[pot], board[N_POTS + pot]
    board[pot] = board[N_POTS + pot] = 0  # 3.1: "lift out all of its beads, both colours"
    # a partial sowing: (board, place of the last drop, own in hand, opponent in hand, passed)
    partial = {(tuple(board), place_of_pot(pot), own, opponent, False): ""}
    finished: dict[tuple, tuple[str, bool]] = {}
    while partial:
        following = {}
        for (board, place, own, opponent, passed), colours in partial.items():
            if own + opponent == 0:
                key = (board, place == MOVERS_GOAL_PLACE)
                if key not in finished or (finished[key][1] and not passed):
                    finished[key] = (colours, passed)
                continue
            for drop in _next_drops(board, place, own, opponent, passed, rules):
                following.setdefault(drop[0], colours + drop[1])
        partial = following
    if rules.goal_without_own == "reserve" and not all(p for _, p in finished.values()):
        # [choice] 3.3 reserve: keep an own bead for each goal, where some order can
        finished = {key: value for key, value in finished.items() if not value[1]}
    return {key: colours for key, (colours, _) in finished.items()}


def _next_drops(board, place, own, opponent, passed, rules: Rules):
    """The one-bead steps from a partial sowing: ``((board, place, own, opp, passed), letter)``."""
    place = (place + 1) % RING
    if place == OPPONENTS_GOAL_PLACE:
        place = 0  # 3.4: "The opponent's goal is skipped: nothing goes into it."
    if place == MOVERS_GOAL_PLACE:
        if own > 0:
            # 3.3: "the mover drops one of their own beads into the goal"
            after = list(board)
            after[MOVER_GOAL] += 1
            return [((tuple(after), place, own - 1, opponent, passed), "o")]
        # 3.3 [choice]: only opponent beads in hand: the goal is passed
        return _next_drops(board, place, own, opponent, True, rules)
    pot = pot_of_place(place)
    steps = []
    # 3.2: "A playing pot takes beads of either colour"; 3.5: the mover chooses which
    if own > 0 and (rules.sowing != "opponent-first" or opponent == 0):
        after = list(board)
        after[pot] += 1
        steps.append(((tuple(after), place, own - 1, opponent, passed), "o"))
    if opponent > 0 and (rules.sowing != "own-first" or own == 0):
        after = list(board)
        after[N_POTS + pot] += 1
        steps.append(((tuple(after), place, own, opponent - 1, passed), "x"))
    return steps


def turn_dial(state: tuple[int, ...], letter: str, rules: Rules) -> tuple[int, ...]:
    """4.1-4.2: turn the number (``N``) or colour (``C``) dial, then empty the matching pots."""
    after = list(state)
    if letter == "N":
        after[NUMBER_PIN] = (after[NUMBER_PIN] + 1) % len(NUMBER_CYCLE)
    else:
        after[COLOUR_PIN] = (after[COLOUR_PIN] + 1) % len(COLOUR_CYCLE)
    number = NUMBER_CYCLE[after[NUMBER_PIN]]
    colour = COLOUR_CYCLE[after[COLOUR_PIN]]
    # 1.2: the mover's ring starts with their own row of the layout
    ring = rules.layout if after[SEAT] == 0 else rules.layout[ROW:] + rules.layout[:ROW]
    for pot in range(N_POTS):
        if ring[pot] == COLOURS[colour] and after[pot] + after[N_POTS + pot] == number:
            after[MOVER_GOAL] += after[N_POTS + pot]  # opponent's beads: to the mover's goal
            after[pot] = after[N_POTS + pot] = 0  # own beads: discarded
    return tuple(after)
