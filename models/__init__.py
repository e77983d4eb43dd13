"""Networks, input encodings, presets and the shipped trained weights.

``models`` knows encodings and networks only: it never imports ``train``.
The shipped model lives next to this file (``SHIPPED_MODEL``) with its model
card; ``tdgammon.engine.evaluation.evaluator.default_evaluator()`` loads it.
"""

from pathlib import Path

SHIPPED_MODEL = Path(__file__).with_name("tdgammon-tesauro80.pt")
"""The trained network every command uses by default (model card: same name, ``.md``)."""


def shipped_model(variant: str = "standard") -> Path:
    """The shipped model file of a variant (``tdgammon-<variant>.pt``; standard: SHIPPED_MODEL)."""
    if variant == "standard":
        return SHIPPED_MODEL
    return Path(__file__).with_name(f"tdgammon-{variant}.pt")
