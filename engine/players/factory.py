"""The player factory: one name, one player, for every command.

``make_agent(spec, variant=..., plies=..., seed=...)`` builds the players of
``tdgammon play`` and ``tdgammon match`` (``tdgammon.engine.interfaces.cli_play``),
``tdgammon bench strength`` and the ship tool (``tdgammon.train.evaluate``), and
the training loop's evaluation opponent (``tdgammon.train.loop``).

Vocabulary (``spec``, case-insensitive names):

- ``pubeval``: Tesauro's pubeval (``tdgammon.engine.players.agents.PubevalAgent``),
  the standard-backgammon benchmark;
- ``random``: a uniformly random legal play (``RandomAgent(seed)``);
- ``heuristic``: the hand-written player of the variant
  (``tdgammon.engine.players.heuristic.HeuristicAgent``);
- ``gnubg`` or ``gnubg:PLIES``: GNU Backgammon at PLIES (default 0) through its
  optional Python bindings (``tdgammon.engine.players.gnubg_agent.GnubgAgent``,
  standard backgammon, a benchmark opponent; without the package a
  ``TdgammonError`` says how to install it);
- ``network``, and its aliases ``bot``, ``default``, ``shipped``: the shipped
  network of the variant (``tdgammon.engine.evaluation.evaluator.default_evaluator``,
  file ``tdgammon.models.shipped_model(variant)``). There is no fallback: when
  the file is missing the answer is a ``FormatError`` that names it;
- anything else that names an existing file, or ends in ``.pt``/``.pth``/``.ckpt``:
  that model file or training checkpoint (``ModelFileError`` when it cannot be
  read). The variant in its card must be the one asked for.

Plies (0..``tdgammon.engine.evaluation.search.MAX_PLIES``) are the search depth of
network players (``network_player``), the same for every command:

- 0: ``tdgammon.engine.evaluation.evaluator.NetworkAgent``, each play valued by the
  network at 0-ply (the position it leaves); the cube, where a driver asks, from
  0-ply (``tdgammon.engine.players.cube_actions``);
- N >= 1: ``tdgammon.engine.cube.agent.CubeAgent``, named ``<network>-Nply``: plays
  chosen by N-ply search with move filters (``Search.choose_rows``) and cube
  decisions from N-ply evaluations. In cubeless play (``bench strength``) only
  its plays count.

Other players have no search, or their own (``gnubg:PLIES``): they ignore
``plies`` (it is still checked).

``human`` is not a name here: a human player is an interface
(``tdgammon.engine.interfaces.terminal.HumanAgent``), so the commands that seat
one handle it before they call ``make_agent``.

The network modules (torch) are imported only when a network player is built.
"""

from __future__ import annotations

from pathlib import Path

from tdgammon.engine.rules.errors import FormatError, TdgammonError
from tdgammon.engine.rules.variants import Variant, get_variant

NETWORK_NAMES = ("network", "bot", "default", "shipped")
"""The names of the variant's shipped network (``network`` first; the rest are aliases)."""

PLAYER_NAMES = ("pubeval", "random", "heuristic", *NETWORK_NAMES)
"""Every built-in name of ``make_agent``; any other spec is a model file."""

MODEL_SUFFIXES = (".pt", ".pth", ".ckpt")
"""File endings that mark a spec as a model file even when the file does not exist."""


def is_player_name(spec: str | None) -> bool:
    """Is ``spec`` one of the built-in names (``PLAYER_NAMES``), not a model file?"""
    return spec is not None and spec.lower() in PLAYER_NAMES


def make_agent(
    spec: str,
    *,
    variant: str | Variant | None = None,
    plies: int = 0,
    seed: int | None = None,
):
    """The player named ``spec`` (module docstring) for ``variant`` (default standard).

    plies: search depth of a network player (``network_player``); seed: the
    random player's generator. Raises ``TdgammonError`` (``FormatError`` for an
    unknown name or a missing shipped network, ``ModelFileError`` for a bad file).
    """
    from tdgammon.engine.evaluation.search import check_plies

    check_plies(plies)
    variant = get_variant(variant)
    key = spec.strip().lower()
    if key == "pubeval":
        from tdgammon.engine.players.agents import PubevalAgent

        return PubevalAgent()
    if key == "random":
        from tdgammon.engine.players.agents import RandomAgent

        return RandomAgent(seed)
    if key == "heuristic":
        from tdgammon.engine.players.heuristic import HeuristicAgent

        return HeuristicAgent(variant)
    if key.partition(":")[0] == "gnubg":
        from tdgammon.engine.players.gnubg_agent import GnubgAgent, spec_plies

        return GnubgAgent(spec_plies(key), variant)
    if key in NETWORK_NAMES:
        from tdgammon.engine.evaluation.evaluator import default_evaluator

        try:
            evaluator = default_evaluator(variant)
        except FormatError as error:
            raise FormatError(f"{error}, or play pubeval, random or heuristic") from None
        return network_player(evaluator, plies)
    if Path(spec).is_file() or key.endswith(MODEL_SUFFIXES):
        from tdgammon.engine.evaluation.evaluator import load_evaluator

        evaluator = load_evaluator(spec)
        if evaluator.variant.name != variant.name:
            raise TdgammonError(
                f"{spec}: a {evaluator.variant.name} model cannot play {variant.name}"
            )
        return network_player(evaluator, plies)
    raise FormatError(
        f"unknown player {spec!r}: use one of pubeval, random, heuristic, gnubg[:PLIES], "
        "network (bot, default, shipped: the same) or a model file"
    )


def network_player(evaluator, plies: int = 0, name: str | None = None):
    """The player of a network at ``plies`` (module docstring): ``NetworkAgent`` at 0,
    else a ``CubeAgent`` named ``<name>-<plies>ply``. name: default the evaluator's."""
    from tdgammon.engine.evaluation.evaluator import NetworkAgent

    if plies == 0:
        return NetworkAgent(evaluator, name)
    from tdgammon.engine.cube.agent import CubeAgent

    return CubeAgent(evaluator, plies, name=f"{name or evaluator.name}-{plies}ply")
