"""London Bridge, the second game: its own rules, generators and notation.

A column of its own beside the backgammon layers (docs/architecture.md, "Where
a new module goes"): it imports ``tdgammon.engine.rules.errors`` and numpy
only, nothing else of backgammon. The rules are docs/london_bridge.md; the
modules, lowest first:

rules (the [choice] settings) -> state (the array layout, passing the turn,
score) -> sowing (one sowing, every distinct way) -> dials (clause 4) ->
movegen (every distinct turn of a batch, fast) | reference (the same, slow and
plain) -> turn (one written move, checked clause by clause) -> notation
(clause 6) -> game (a game to its end, the turn limit).
"""
