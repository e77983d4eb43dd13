"""Reading and writing the lines of a game at the terminal, for both games' sessions
(``terminal.py``: backgammon; ``cli_london_bridge.py``: London Bridge).

The rule for bad input: "a clear error message naming what is wrong, never a
traceback and never a silent wrong answer". So a line that is not UTF-8 text is
a bad line, not a crash; text the output's encoding cannot hold is written as
backslash escapes; and a command that takes nothing after it, typed with words
after it (``hint 3``, ``quit now``, ``drop 8/2``), is refused rather than carried
out with the words ignored; a typed number (a list entry, a resignation's
points) is read without ever handing ``int`` what it raises on.
"""

from __future__ import annotations

from typing import TextIO

from tdgammon.engine.rules.errors import TdgammonError, quoted


def write_text(output: TextIO, text: str) -> None:
    """Write ``text`` to ``output`` and flush; characters its encoding cannot hold (a
    typed ``é`` quoted back to an ASCII terminal, a file name's undecodable bytes)
    as backslash escapes, never an error."""
    encoding = getattr(output, "encoding", None) or "utf-8"
    output.write(text.encode(encoding, "backslashreplace").decode(encoding))
    output.flush()


def read_line(source: TextIO) -> str:
    """The next line of ``source`` ("" at its end). A byte stream's lines are decoded
    as UTF-8 one by one, whatever the locale: a line that is not UTF-8 text is a
    bad line (TdgammonError), and the next one is read as usual."""
    buffer = getattr(source, "buffer", None)
    if buffer is None:
        return source.readline()
    raw = buffer.readline()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TdgammonError(f"that line is not UTF-8 text: {raw.strip()[:40]!r}") from None


def refuse_words_after(line: str) -> None:
    """TdgammonError if ``line`` has words after its first (a command that takes
    nothing after it: ``hint 3`` is refused, naming the extra words)."""
    word, *extra = line.split(None, 1)
    if extra:
        word = word.lower()
        raise TdgammonError(
            f"{word} takes nothing after it, got {quoted(extra[0].strip())}: type {word} alone"
        )


def whole_number(text: str, highest: int) -> int | None:
    """``text`` as a whole number from 0 to ``highest``, or None if it is not one.

    The rule for bad input: "a clear error message naming what is wrong, never a
    traceback". ``int`` raises on a digit that is not a decimal one (``²``) and on
    a number of more than 4300 digits, so neither of those reaches it.
    """
    if not text.isdecimal():
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(highest)):
        return None
    value = int(digits)
    return value if value <= highest else None
