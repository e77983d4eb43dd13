"""README.md's Python examples run as written and import through ``tdgammon.``.

Every ```python block of README.md is executed, each in a fresh namespace (the
blocks of the "Library" section stand alone: each does its own imports), in a
temporary working directory so that nothing is written into the repository.
A block that raises fails its test.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"

# The repository's top-level folders: importable only as tdgammon.engine etc.
FIRST_PARTY_FOLDERS = {"engine", "models", "train"}


def python_blocks() -> list[tuple[int, str]]:
    """(line number of the opening fence, code) of every ```python block."""
    blocks, code, start = [], None, 0
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        fence = re.match(r"\s*```\s*(\S*)", line)
        if code is None:
            if fence and fence.group(1).lower() in ("python", "py", "python3"):
                code, start = [], number
        elif fence:
            blocks.append((start, "\n".join(code) + "\n"))
            code = None
        else:
            code.append(line)
    assert code is None, f"README.md line {start}: ```python block never closed"
    return blocks


BLOCKS = python_blocks()


def test_readme_has_python_examples():
    assert len(BLOCKS) >= 2, "README.md's Library section lost its examples"


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"line{line}" for line, _ in BLOCKS])
def test_readme_block_runs(line, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    compiled = compile(code, f"README.md (block at line {line})", "exec")
    namespace = {"__name__": f"readme_block_{line}"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compiled, namespace)  # noqa: S102 - a failure here is the test failing


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"line{line}" for line, _ in BLOCKS])
def test_readme_block_imports_use_tdgammon_namespace(line, code):
    imported = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"README.md line {line}: relative import"
            imported.append(node.module)
    for name in imported:
        root = name.split(".")[0]
        assert root not in FIRST_PARTY_FOLDERS, (
            f"README.md block at line {line}: `{name}` must be imported as `tdgammon.{name}`"
        )
    assert any(name.split(".")[0] == "tdgammon" for name in imported), (
        f"README.md block at line {line} imports nothing from tdgammon"
    )


def test_library_example_shows_a_refused_action():
    """The game example's comment promises RuleError for refused actions: hold it to that."""
    from tdgammon.engine.flow.match import Match, MatchSettings
    from tdgammon.engine.rules.errors import IllegalMoveError, RuleError

    assert issubclass(IllegalMoveError, RuleError)
    game = Match(MatchSettings(length=5)).game
    assert game.opening_roll((5, 2))
    game.play_text("13/8 13/11")
    with pytest.raises(RuleError, match="cannot move"):
        game.play_text("13/8 13/11")  # seat 1 is to roll, not to move
    game.roll((6, 4))
    before = (game.board.copy(), game.phase, game.turn, game.dice)
    with pytest.raises(IllegalMoveError, match="cannot bear off"):
        game.play_text("6/off 4/off")
    assert (game.board == before[0]).all() and (game.phase, game.turn, game.dice) == before[1:]
