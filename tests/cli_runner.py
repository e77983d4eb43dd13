"""Run the ``tdgammon`` command in-process for the CLI tests."""

from __future__ import annotations

import io
import sys

from tdgammon.engine.interfaces.cli import main


def run(capsys, *argv, stdin: str | None = None, monkeypatch=None):
    """``main(argv)`` with ``stdin`` as standard input (needs ``monkeypatch``);
    returns (exit status, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
