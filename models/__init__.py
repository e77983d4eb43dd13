"""Networks, input encodings, presets and the shipped trained weights.

``models`` knows encodings and networks only: it never imports ``train``.
The shipped models live next to this file with their model cards;
``shipped_model(variant)`` is the one place their paths are written, and
``tdgammon.engine.evaluation.evaluator.default_evaluator(variant)`` the one
place they are loaded.
"""

from pathlib import Path

_STANDARD_FILE = "tdgammon-expert256.pt"
"""The standard network every command uses by default (model card: same name, ``.md``)."""


def shipped_model(variant: str = "standard") -> Path:
    """The shipped model file of a variant: standard ``tdgammon-expert256.pt``, any
    other ``tdgammon-<variant>.pt`` (the path, whether or not the file exists)."""
    name = _STANDARD_FILE if variant == "standard" else f"tdgammon-{variant}.pt"
    return Path(__file__).with_name(name)
