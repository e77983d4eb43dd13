"""The backgammon engine, in layers (lowest first; each imports only from below):

rules -> movegen -> formats -> flow -> evaluation -> cube -> players ->
analysis -> display -> interfaces.

``rules`` and ``movegen``, ``formats`` and ``flow`` import numpy only. The
layers are import-linter contracts in ``pyproject.toml``; the picture and the
rule for where a new module goes are in ``docs/architecture.md``.
"""
