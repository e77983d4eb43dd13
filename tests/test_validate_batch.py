"""``validate`` of a batch (vectorized checks, then the first bad board named) against
``validate`` of each board alone, on boards damaged at random."""

from __future__ import annotations

import numpy as np
import pytest

from tdgammon.engine.rules.board import starting_board, validate
from tdgammon.engine.rules.errors import InvalidBoardError


def first_bad_alone(boards: np.ndarray) -> tuple[int, str] | None:
    """The index and message of the first board that ``validate`` refuses alone."""
    for row, board in enumerate(boards):
        try:
            validate(board)
        except InvalidBoardError as error:
            return row, str(error)
    return None


@pytest.mark.parametrize("seed", range(200))
def test_a_batch_names_the_first_board_refused_alone(seed):
    rng = np.random.default_rng(seed)
    boards = np.repeat(np.asarray(starting_board(), dtype=np.int8)[None], 20, axis=0)
    for _ in range(rng.integers(0, 3)):  # zero to two slots damaged
        boards[rng.integers(20), rng.integers(boards.shape[1])] += rng.choice([-2, -1, 1, 2])
    expected = first_bad_alone(boards)
    if expected is None:
        validate(boards)
        return
    row, message = expected
    with pytest.raises(InvalidBoardError) as raised:
        validate(boards)
    assert str(raised.value) == f"{message} (board {row})"
