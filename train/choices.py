"""Per-decision strength: two players' checker plays on the same positions and
rolls, valued by a judge (``tdgammon bench choices``).

A duel measures strength in points per game, but its noise is large: 10,000
games give +/- 0.025 ppg. Most of that noise is the dice; the difference
between two players lies only in the decisions where they choose differently.
This benchmark asks both players for their play on the same ``decisions``
positions, each with its own random roll, and values the two plays by a
stronger search (the judge); a decision's figure is the judge's equity of
player A's play minus that of player B's (0 where they choose the same play).
The mean over the decisions is A's gain per decision in cubeless money
equity, with a 95% interval. On 6,000 positions the interval is near
+/- 0.0004 per decision (the shipped net at 1-ply against itself at 0-ply),
about +/- 0.01 ppg (its games hold about 53 plies, 23 unforced decisions a
side), which a duel reaches only after some 60,000 games.

- **Positions**: distinct pre-roll positions of 0-ply self-play of player
  B's network, or of the shipped network when B has none (pubeval, gnubg)
  (``tdgammon.train.refine.sample_positions``, no random plays): against one
  baseline, the same set for every player A at a given ``seed``; those
  where the network judges (not over, not a pure bear-off). Each gets one
  roll (``seed``); forced decisions (a single distinct legal play, or none)
  are left out, as in GNU Backgammon's error rates.
- **Players**: ``tdgammon.engine.players.factory.make_agent`` specs, player A
  at ``plies`` (0: its network at 0-ply; N: N-ply search with move filters),
  player B at ``opponent_plies`` the same way when it is a network (GNU
  Backgammon's depth is part of its name, ``gnubg:PLIES``), so two searching
  players can be compared on the same decisions.
- **Judge**: ``gnubg[:PLIES]`` (GNU Backgammon through its optional bindings,
  ``tdgammon.engine.players.gnubg_agent``; a benchmark only, never a training
  signal) or a network spec with ``:PLIES`` (``network:2``, ``FILE:1``), our
  own ``Search`` at that depth over the two plays. The judge values each play
  by the position it leaves (opponent to roll), the mover's cubeless money
  equity.
- **Classes**: decisions split by ``tdgammon.engine.cube.benchmark.phase`` of
  the position (contact, crashed, race; pure bear-offs are not sampled).
- **Kinds** (``position_kinds``, for ``scripts/choice_groups.py`` and
  ``scripts/select_positions.py``): finer, overlapping groups of positions
  named by what the position holds (checkers back, an anchor against a
  bear-in, the bar, the race lead, the opening, a double rolled).

A judge is not the truth: GNU Backgammon's deeper search shares its own
0-ply net's taste, so it favours plays of its 0-ply player; compare players
of this project with one another through it, and read a gain against GNU
Backgammon's own player as an upper bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.rules.board import flip, mover_pips
from tdgammon.engine.rules.errors import FormatError

DEFAULT_JUDGE = "gnubg:2"
"""The judge of ``tdgammon bench choices`` unless ``--judge`` says otherwise."""


def parse_judge(spec: str) -> tuple[str, int]:
    """``(player, plies)`` of a judge spec ``NAME[:PLIES]`` (plies default 0);
    FormatError when PLIES is not a whole number 0..MAX_PLIES."""
    from tdgammon.engine.evaluation.search import MAX_PLIES

    name, colon, tail = spec.rpartition(":")
    if not colon or not tail.isdigit():  # no depth given (a path may hold ':')
        return spec, 0
    plies = int(tail)
    if not 0 <= plies <= MAX_PLIES:
        raise FormatError(f"--judge {spec}: plies must be 0-{MAX_PLIES}")
    return name, plies


class Judge:
    """A judge spec (module docstring) that values plays: ``after (M, 30) int8``
    (mover's view after the play, not flipped) -> ``(M,) float64``, the mover's
    cubeless money equity."""

    def __init__(self, spec: str) -> None:
        name, self.plies = parse_judge(spec)
        if name.strip().lower() == "gnubg":
            from tdgammon.engine.players.gnubg_agent import GnubgAgent

            self._gnubg = GnubgAgent(self.plies)
            self.name = self._gnubg.name
            return
        from tdgammon.engine.evaluation.evaluator import default_evaluator, load_evaluator
        from tdgammon.engine.evaluation.search import Search
        from tdgammon.engine.players.factory import NETWORK_NAMES, is_player_name

        self._gnubg = None
        if name.strip().lower() in NETWORK_NAMES:
            evaluator = default_evaluator()
        elif is_player_name(name):
            raise FormatError(f"--judge {spec}: a judge is gnubg[:PLIES] or a network[:PLIES]")
        else:
            evaluator = load_evaluator(name)
        self._search = Search(evaluator)
        self.name = f"{evaluator.name}-{self.plies}ply"

    def equities(self, after: np.ndarray) -> np.ndarray:
        if self._gnubg is not None:
            return self._gnubg.play_equities(after, self.plies).astype(np.float64)
        values = self._search.play_probabilities(after, self.plies)
        return self._search.score(values).astype(np.float64)


def decision_sample(decisions: int, seed: int, evaluator=None) -> tuple[np.ndarray, np.ndarray]:
    """``(boards (N, 30) int8, dice (N, 2) int8)``: positions of 0-ply self-play of
    ``evaluator`` (None: the shipped network) and their rolls for ``seed``;
    N = ``decisions`` before the forced ones are dropped by ``compare_choices``."""
    from tdgammon.engine.evaluation.evaluator import default_evaluator
    from tdgammon.train.refine import sample_positions

    rng = np.random.default_rng(seed)
    boards = sample_positions(evaluator or default_evaluator(), decisions, rng, 0.0)
    dice = rng.integers(1, 7, size=(len(boards), 2)).astype(np.int8)
    return boards, dice


def compare_choices(
    model: str | None,
    opponent: str,
    judge: str = DEFAULT_JUDGE,
    decisions: int = 6000,
    seed: int = 1,
    plies: int = 0,
    threads: int = 1,
    opponent_plies: int = 0,
) -> tuple[dict, str]:
    """Player ``model`` (at ``plies``) against player ``opponent`` (at
    ``opponent_plies``) on the same decisions, judged by ``judge`` (module
    docstring). Returns (summary, text)."""
    from tdgammon.engine.cube.benchmark import phase

    sample = judged_sample(model, opponent, judge, decisions, seed, plies, threads, opponent_plies)
    classes = np.array([phase(b) for b in sample.boards])
    summary = {
        "model": sample.model,
        "opponent": sample.opponent,
        "judge": sample.judge,
        "seed": seed,
        "positions": len(sample.boards),
        **class_summary(sample.gain, sample.differ, sample.unforced, classes),
    }
    return summary, _text(summary)


@dataclass(frozen=True)
class JudgedSample:
    """The decisions of one comparison and the judge's verdict on each.

    model, opponent, judge: the players' and the judge's names.
    boards ``(N, 30) int8`` (mover's view before the roll), dice ``(N, 2)``:
    the decisions (``decision_sample``); gain, differ, unforced: ``judged_gains``.
    """

    model: str
    opponent: str
    judge: str
    boards: np.ndarray
    dice: np.ndarray
    gain: np.ndarray
    differ: np.ndarray
    unforced: np.ndarray


def judged_sample(
    model: str | None,
    opponent: str,
    judge: str = DEFAULT_JUDGE,
    decisions: int = 6000,
    seed: int = 1,
    plies: int = 0,
    threads: int = 1,
    opponent_plies: int = 0,
) -> JudgedSample:
    """The players and the judge of ``compare_choices`` (same arguments) on its
    decisions, each decision's gain kept (``JudgedSample``)."""
    import torch

    from tdgammon.engine.players.factory import make_agent

    if isinstance(decisions, bool) or not isinstance(decisions, int) or decisions < 1:
        raise FormatError(f"--sample (decisions) must be a whole number >= 1, got {decisions}")
    torch.set_num_threads(threads)
    player_a = make_agent(model or "network", plies=plies, seed=0)
    player_b = make_agent(opponent, plies=opponent_plies, seed=0)
    if opponent_plies and not hasattr(player_b, "evaluator"):
        raise FormatError(
            f"--opponent-plies is for a network opponent, not {opponent!r} "
            "(GNU Backgammon's depth goes in its name: gnubg:PLIES)"
        )
    referee = Judge(judge)
    boards, dice = decision_sample(decisions, seed, getattr(player_b, "evaluator", None))
    gain, differ, unforced = judged_gains(player_a, player_b, referee, boards, dice)
    return JudgedSample(
        player_a.name, player_b.name, referee.name, boards, dice, gain, differ, unforced
    )


def judged_gains(player_a, player_b, judge, boards: np.ndarray, dice: np.ndarray):
    """Per decision: ``(gain (N,) float64, differ (N,) bool, unforced (N,) bool)``.

    boards ``(N, 30) int8`` (mover's view, before the roll), dice ``(N, 2)``;
    players: the ``Agent`` protocol; judge: ``Judge``. ``gain`` is the judge's
    equity of A's play minus B's (0 where they choose the same play or the
    decision is forced); ``differ``: unforced and chosen differently."""
    from tdgammon.engine.movegen.vectorized import generate_moves

    moves = generate_moves(boards, dice)
    unforced = _unforced(moves, len(boards))
    choice_a = player_a.choose_plays(boards, dice, moves)
    choice_b = player_b.choose_plays(boards, dice, moves)
    differ = unforced & (choice_a != choice_b)
    gain = np.zeros(len(boards))
    if differ.any():
        count = int(differ.sum())
        values = judge.equities(moves.boards[np.concatenate([choice_a[differ], choice_b[differ]])])
        gain[differ] = values[:count] - values[count:]
    return gain, differ, unforced


def _unforced(moves, count: int) -> np.ndarray:
    """``(count,) bool``: positions with at least two distinct resulting boards
    (the move generator's rows are distinct per position; a pass is one row)."""
    return moves.counts(count) >= 2


def class_summary(gain, differ, unforced, classes) -> dict:
    """``summary_stats`` of the unforced decisions, and under ``"classes"`` of those of
    each position class. gain, differ, unforced: ``judged_gains``; classes: ``(N,)``
    class names (``tdgammon.engine.cube.benchmark.phase``)."""

    def of(rows: np.ndarray) -> dict:
        return summary_stats(gain[unforced & rows], differ[unforced & rows])

    return {
        **of(np.ones(len(gain), dtype=bool)),
        "classes": {name: of(classes == name) for name in ("contact", "crashed", "race")},
    }


OPENING_PIPS = 140
"""Both sides at least this many pips from home: the opening."""

BEARING_IN_PIPS = 100
"""An opponent with fewer pips than this is bearing in (against a holding anchor)."""


def position_kinds(boards: np.ndarray, dice: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """``{name: (N,) bool}``: kinds of position a decision may be (several at
    once) for ``boards (N, 30) int8`` (the mover's view before the play;
    docs/architecture.md's layout) and their ``dice (N, 2)`` (None: the kinds
    that do not depend on the roll)."""
    b = boards.astype(np.int64)
    mine = np.clip(b[:, 1:25], 0, None)
    theirs = np.clip(-b[:, 1:25], 0, None)
    my_bar, their_bar = b[:, 25], -b[:, 26]
    my_pips, their_pips = mover_pips(b), mover_pips(flip(b))
    my_back = mine[:, 18:24].sum(axis=1) + my_bar  # points 19-24: their home board
    their_back = theirs[:, 0:6].sum(axis=1) + their_bar
    my_anchor = (mine[:, 18:24] >= 2).any(axis=1)
    their_anchor = (theirs[:, 0:6] >= 2).any(axis=1)
    kinds = {
        "opening (both sides 140+ pips)": (my_pips >= OPENING_PIPS) & (their_pips >= OPENING_PIPS),
        "mover on the bar": my_bar > 0,
        "opponent on the bar": their_bar > 0,
        "mover 3+ checkers back": my_back >= 3,
        "opponent 3+ checkers back": their_back >= 3,
        "mover holds an anchor, opponent bearing in (under 100 pips)": my_anchor
        & (their_pips < BEARING_IN_PIPS),
        "opponent holds an anchor, mover bearing in (under 100 pips)": their_anchor
        & (my_pips < BEARING_IN_PIPS),
        "mover 20+ pips ahead": their_pips - my_pips >= 20,
        "mover 20+ pips behind": my_pips - their_pips >= 20,
    }
    if dice is not None:
        kinds["a double rolled"] = dice[:, 0] == dice[:, 1]
    return kinds


def summary_stats(gain: np.ndarray, differ: np.ndarray) -> dict:
    """``{"decisions", "gain", "ci95", "differ"}`` of per-decision gains (``judged_gains``):
    their count, mean and 95% interval half-width, and the share chosen differently."""
    n = len(gain)
    if n == 0:
        return {"decisions": 0, "gain": None, "ci95": None, "differ": None}
    sd = float(gain.std(ddof=1)) if n > 1 else 0.0
    return {
        "decisions": n,
        "gain": float(gain.mean()),
        "ci95": 1.96 * sd / math.sqrt(n),
        "differ": float(differ.mean()),
    }


def _text(s: dict) -> str:
    def line(stats: dict) -> str:
        if not stats["decisions"]:
            return "no decisions"
        return (
            f"{stats['gain']:+.5f} equity per decision (95% CI +/- {stats['ci95']:.5f}) over "
            f"{stats['decisions']} decisions, {100 * stats['differ']:.1f}% chosen differently"
        )

    head = f"{s['model']} vs {s['opponent']}, judged by {s['judge']}: {line(s)}"
    parts = [f"  {name}: {line(stats)}" for name, stats in s["classes"].items()]
    return "\n".join([head, *parts])
