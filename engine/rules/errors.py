"""Exception types. Every message names what is wrong, in words a player understands.

The hierarchy::

    TdgammonError               every error the engine reports to a user
    ├── InvalidBoardError       a board that cannot occur
    ├── FormatError             malformed text: Position ID, Match ID, XGID, dice, move...
    └── RuleError               an action the rules do not allow now (a refused action)
        └── IllegalMoveError    a well-formed play that is not legal for the position and roll

So ``except RuleError`` catches every refused action, an illegal play included;
a play *text* that cannot even be read raises ``FormatError`` instead.

The CLI catches ``TdgammonError`` and prints its message on one line (exit 2),
so any bad input reaching the library must raise one of these, never a bare
IndexError or ValueError.
"""


class TdgammonError(Exception):
    """Base class of every error the engine reports to a user."""


class InvalidBoardError(TdgammonError):
    """A board that cannot occur: wrong totals, negative counts, both colours on a point."""


class FormatError(TdgammonError):
    """A malformed Position ID, Match ID, XGID, FIBS string, dice or move string."""


class RuleError(TdgammonError):
    """An action the rules do not allow in the current game or match state.

    Raised by the game and match state machines (``tdgammon.engine.flow.game``,
    ``tdgammon.engine.flow.match``) before anything changes: the state is left as it was.
    ``IllegalMoveError`` is the kind raised for a play that is not legal.
    """


class IllegalMoveError(RuleError):
    """A move string that is well formed but is not a legal play of the position and roll.

    A ``RuleError``: playing it is an action the rules refuse (``Game.play_text``
    raises it before anything changes). ``match_move`` raises it on its own too.
    """


QUOTE_LIMIT = 60
"""Characters of refused text a message quotes back (a pasted megabyte is not echoed)."""


def quoted(text: str) -> str:
    """``repr`` of ``text``, cut to ``QUOTE_LIMIT`` characters with ``...`` after.

    The rule for bad input: "a clear error message naming what is wrong"; a
    message that repeats a pasted page names nothing.
    """
    return repr(text) if len(text) <= QUOTE_LIMIT else f"{text[:QUOTE_LIMIT]!r}..."
