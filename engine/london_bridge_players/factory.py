"""The player names of ``tdgammon play/match --game london-bridge``.

=========================  ==================================================
name                       player
=========================  ==================================================
``random``                 a uniformly random distinct turn
``greedy``                 the best score margin after its own turn (depth 1)
``alphabeta[:D[:W]]``      alpha-beta on the score margin to depth D (4),
                           W turns per inner node (16; 0 = all)
``network[:D[:W]]``        the shipped network (``models/london-bridge.pt``),
``bot``                    searching D plies (``NETWORK_DEPTH``) with width W
``PATH[:D[:W]]``           a model file, the same way
=========================  ==================================================
"""

from __future__ import annotations

from pathlib import Path

from tdgammon.engine.london_bridge.rules import Rules
from tdgammon.engine.london_bridge_players.agents import RandomPlayer, SearchPlayer
from tdgammon.engine.london_bridge_players.search import DEFAULT_WIDTH
from tdgammon.engine.rules.errors import FormatError

SHIPPED_MODEL = Path(__file__).resolve().parents[2] / "models" / "london-bridge.pt"
"""The shipped network: ``models/london-bridge.pt`` (its card: ``models/london-bridge.md``)."""
ALPHABETA_DEPTH = 4
NETWORK_DEPTH = 3
PLAYER_NAMES = ("random", "greedy", "alphabeta[:D[:W]]", "network[:D[:W]]", "bot", "PATH[:D[:W]]")


def make_player(spec: str, rules: Rules, seed: int | None = None):
    """The player named ``spec`` (module table); ``FormatError`` for a name it does not know."""
    text = spec.strip()
    name, depth, width = _split(text)
    lowered = name.lower()
    if lowered in ("random", "greedy") and (depth is not None or width is not None):
        raise FormatError(f"player {spec!r}: {lowered} takes no depth")
    if lowered == "random":
        return RandomPlayer(seed)
    if lowered == "greedy":
        return SearchPlayer(rules, 1, "greedy", seed)
    width = DEFAULT_WIDTH if width is None else width
    if lowered == "alphabeta":
        depth = ALPHABETA_DEPTH if depth is None else depth
        return SearchPlayer(rules, depth, _label("alphabeta", depth, width), seed, width=width)
    if lowered in ("network", "bot"):
        path, label = SHIPPED_MODEL, "network"
    elif name.endswith(".pt"):
        path, label = Path(name), Path(name).stem
    else:
        raise FormatError(
            f"unknown London Bridge player {spec!r}: expected one of {', '.join(PLAYER_NAMES)}"
        )
    from tdgammon.engine.london_bridge_players.network import NetworkEvaluator, load_model

    network, _ = load_model(path, rules)
    evaluator = NetworkEvaluator(network, rules)
    depth = NETWORK_DEPTH if depth is None else depth
    return SearchPlayer(
        rules,
        depth,
        _label(label, depth, width),
        seed,
        evaluate=evaluator.evaluate,
        terminal=evaluator.terminal,
        width=width,
    )


def _split(text: str) -> tuple[str, int | None, int | None]:
    """``"alphabeta:4:16"`` -> ("alphabeta", 4, 16); trailing numbers only, so paths keep
    their own colons."""
    parts = text.split(":")
    numbers: list[int] = []
    while len(parts) > 1 and parts[-1].strip().isdecimal() and len(numbers) < 2:
        numbers.insert(0, int(parts.pop()))
    depth = numbers[0] if numbers else None
    width = numbers[1] if len(numbers) > 1 else None
    if depth is not None and not 1 <= depth <= 8:
        raise FormatError(f"player {text!r}: depth must be 1-8, got {depth}")
    if width is not None and not 0 <= width <= 1000:
        raise FormatError(f"player {text!r}: width must be 0 (all) to 1000, got {width}")
    return ":".join(parts), depth, width


def _label(name: str, depth: int, width: int) -> str:
    return f"{name}:{depth}" if width == DEFAULT_WIDTH else f"{name}:{depth}:{width}"
