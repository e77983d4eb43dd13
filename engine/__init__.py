"""tdgammon engine: rules, move generation, formats, evaluation and interfaces.

The rules core (board, dice, move generation, game end, formats) imports numpy only.
"""

__version__ = "0.1.0"
