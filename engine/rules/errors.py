"""Exception types. Every message names what is wrong, in words a player understands.

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


class IllegalMoveError(TdgammonError):
    """A move string that is well formed but is not a legal play of the position and roll."""


class RuleError(TdgammonError):
    """An action the rules do not allow in the current game or match state.

    Raised by the game and match state machines (``tdgammon.engine.flow.game``,
    ``tdgammon.engine.flow.match``) before anything changes: the state is left as it was.
    """
