"""Analysis reports: the answers of ``eval``, ``hint`` and ``cube`` as JSON-ready dicts.

The contract of each dict is in ``docs/formats.md`` ("The CLI's JSON"). The
command line (``tdgammon.engine.interfaces.cli_analysis``), the terminal
session's ``hint`` and the notebooks print them; this module only computes
them. ``load_search`` gives the shipped network of a variant, or a model file,
wrapped in an n-ply ``Search``.
"""

from __future__ import annotations

import numpy as np

from tdgammon.engine.evaluation.search import Search, probabilities_dict
from tdgammon.engine.formats.notation import format_move
from tdgammon.engine.formats.position_id import encode_position_id
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.outputs import equity
from tdgammon.engine.rules.position import Position

_SEARCHES: dict[tuple[str | None, str], Search] = {}


def load_search(model: str | None = None, variant: str = "standard") -> Search:
    """A ``Search`` around the model file ``model`` (which must be a ``variant``
    model: ModelFileError names the variant it was trained for), or (None) the
    shipped network of ``variant``
    (``tdgammon.engine.evaluation.evaluator.default_evaluator``; a FormatError
    names a missing file); cached."""
    key = (model, variant)
    if key not in _SEARCHES:
        from tdgammon.engine.evaluation.evaluator import default_evaluator, load_evaluator

        if model is not None:
            evaluator = load_evaluator(model, variant=variant)
        else:
            try:
                evaluator = default_evaluator(variant)
            except FormatError as error:
                raise FormatError(f"{error}; analysis commands take --model PATH") from None
        _SEARCHES[key] = Search(evaluator)
    return _SEARCHES[key]


def eval_report(search: Search, position: Position, plies: int) -> dict:
    """The docs/formats.md ``eval --json`` object for ``position`` (player on roll,
    before rolling)."""
    from tdgammon.engine.cube.theory import cube_decision

    probabilities = search.evaluate(position.board, plies)
    decision = cube_decision(probabilities, position)
    report = {
        "probabilities": probabilities_dict(probabilities),
        "equity": float(equity(probabilities.astype(np.float64))),
        "cubeful_equity": float(decision.cubeful_equity),
        "plies": plies,
        "position_id": encode_position_id(position.board),
    }
    if not position.is_money and decision.mwc is not None:
        report["mwc"] = float(decision.mwc["cubeful"])
        report["cubeless_mwc"] = float(decision.mwc["cubeless"])
    return report


def hint_report(search: Search, position: Position, dice: tuple[int, int], plies: int) -> dict:
    """The docs/formats.md ``hint --json`` object: every legal play, best first."""
    plays = search.analyse(position.board, dice, plies)
    best = plays[0].equity if plays else 0.0
    return {
        "position_id": encode_position_id(position.board),
        "dice": list(dice),
        "plies": plies,
        "moves": [
            {
                "move": format_move(position.board, play.moves),
                "position_id_after": encode_position_id(play.board_after),
                "equity": play.equity,
                "loss": best - play.equity,
                "probabilities": probabilities_dict(play.probabilities),
                "plies": play.plies,
            }
            for play in plays
        ],
    }


def cube_report(search: Search, position: Position, plies: int) -> dict:
    """The docs/formats.md ``cube --json`` object (``CubeDecision.to_json()``) plus ``plies``.

    ND / DT / DP come from the cubeful search at ``plies``
    (``tdgammon.engine.cube.cubeful_search.cubeful_decision``: the cube decided
    at every node, Janowski at the leaves); the probabilities, the market window
    and the explanation's walk from the 25% theory come from the cubeless
    ``plies`` evaluation, and the explanation ends with the cubeful figures.
    """
    from tdgammon.engine.cube.cubeful_search import cubeful_decision

    report = cubeful_decision(search, position, plies).to_json()
    report["plies"] = plies
    return report
