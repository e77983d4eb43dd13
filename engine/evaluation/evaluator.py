"""Cubeless network evaluation and the network player.

Perspective (docs/architecture.md): a network evaluates a board from the view of
the player ABOUT TO ROLL. To rank the mover's plays, each resulting board is
flipped, evaluated for the opponent (who rolls next) and inverted; a resulting
board on which the mover has borne off every checker is terminal and gets its
exact outcome (docs/rules.md 4), never the network's guess
(``tdgammon.engine.evaluation.perspective.play_probabilities``, shared with the search).

This module imports torch (at import time): interface code should import it
inside the functions that need it, so commands that do not evaluate stay fast.
It knows nothing of the cube (cubeless probabilities only).

Variants (``tdgammon.engine.rules.variants``): an evaluator plays one variant (default
standard; a model's card names the variant it was trained for). Games end
when a side has borne off ``variant.checkers``; an Acey-Deucey play that earns
an extra roll (``MoveList.extra_roll``) is evaluated for the mover WITHOUT the
flip, since the mover rolls again. Acey-Deucey scores the loser's checkers not
borne off, so its five outputs mean (see ``tdgammon.engine.rules.outcome.terminal_probs``): win =
p(win),
win gammon = E[win * opponent's checkers left / 15], lose gammon =
E[loss * own checkers left / 15], the backgammon outputs 0; its equity
(``tdgammon.engine.rules.outcome.variant_equity``) is ``15 * (wg - lg)``, the expected stake
multiple.
Both reduce to the standard meaning and formula for every other variant.

Phase networks: an evaluator may carry a second evaluator for races
(``race``), chosen by a position classifier: a position with no contact
(``tdgammon.engine.rules.board.has_contact``: no checker of either side still
has to pass an opponent's checker) goes to the race evaluator, every other one
to the main (contact) net. The race evaluator is either another network of
five outputs or the one-sided race evaluator
(``tdgammon.engine.evaluation.one_sided_race``: each side's distributions of
rolls, combined). A model file names its race file in its card
(``race_model``: a file beside it), so a set of phase nets loads from one
model file; files without one load as a single net.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from tdgammon.engine.evaluation.one_sided_race import OneSidedRaceEvaluator
from tdgammon.engine.evaluation.perspective import play_probabilities
from tdgammon.engine.movegen.vectorized import MoveList, best_rows
from tdgammon.engine.rules.board import flip, has_contact
from tdgammon.engine.rules.errors import FormatError
from tdgammon.engine.rules.outcome import OPPONENT_WINS, terminal_probs, variant_equity, winner
from tdgammon.engine.rules.outputs import N_OUTPUTS, invert
from tdgammon.engine.rules.variants import Variant, get_variant
from tdgammon.models import shipped_model
from tdgammon.models.encoding import ENCODINGS
from tdgammon.models.network import (
    ModelFileError,
    Preset,
    TDNetwork,
    load_model,
    model_from_data,
    read_torch_file,
)
from tdgammon.models.race_distributions import is_race_file, race_net_from_record

CHUNK = 16384
"""Rows per network call when evaluating very large batches (bounds memory)."""


class NetworkEvaluator:
    """A network plus its encoding: boards -> cubeless probabilities."""

    def __init__(
        self,
        network: TDNetwork,
        preset: Preset,
        name: str = "network",
        variant: str | Variant | None = None,
        race: NetworkEvaluator | OneSidedRaceEvaluator | None = None,
    ) -> None:
        self.network = network
        self.preset = preset
        self.encoding = ENCODINGS[preset.encoding]
        self.name = name
        self.variant = get_variant(variant)
        self.race = race

    def raw_probabilities(self, boards: np.ndarray) -> np.ndarray:
        """Network output only. boards: ``(B, 30) int8``, view of the player about to
        roll (game not over). Returns ``(B, 5) float32`` for that player: the race
        net's for races when there is one (module docstring), else the network's."""
        boards = np.asarray(boards)
        if self.race is None:
            return self._network_probabilities(boards)
        racing = ~has_contact(boards)
        out = np.empty((len(boards), N_OUTPUTS), dtype=np.float32)
        if racing.any():
            out[racing] = self.race.raw_probabilities(boards[racing])
        if not racing.all():
            out[~racing] = self._network_probabilities(boards[~racing])
        return out

    def _network_probabilities(self, boards: np.ndarray) -> np.ndarray:
        out = np.empty((len(boards), N_OUTPUTS), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(boards), CHUNK):
                chunk = self.encoding.encode(boards[start : start + CHUNK])
                out[start : start + CHUNK] = self.network(torch.from_numpy(chunk)).numpy()
        return out

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        """``(B, 5) float32`` probabilities for the player about to roll.

        boards: ``(B, 30) int8`` or ``(30,)``, that player's view. A finished
        game (the opponent has borne off all 15) gets its exact result.
        """
        boards = np.asarray(boards)
        single = boards.ndim == 1
        boards = boards[None, :] if single else boards
        lost = winner(boards, self.variant.checkers) == OPPONENT_WINS
        probs = np.empty((len(boards), N_OUTPUTS), dtype=np.float32)
        if (~lost).any():
            probs[~lost] = self.raw_probabilities(boards[~lost])
        if lost.any():
            probs[lost] = invert(terminal_probs(flip(boards[lost]), self.variant))
        return probs[0] if single else probs

    def play_probabilities(self, moves: MoveList) -> np.ndarray:
        """``(M, 5) float32``: the mover's probabilities after each play of ``moves``.

        ``tdgammon.engine.evaluation.perspective.play_probabilities`` with the network
        (0-ply): flip, evaluate for the opponent, invert; terminal plays (mover has
        borne off all) get the exact outcome; plays that earn an extra roll
        (Acey-Deucey) are evaluated for the mover, unflipped.
        """
        return play_probabilities(
            moves.boards, self.raw_probabilities, self.variant, moves.extra_roll
        )

    def equity(self, boards: np.ndarray) -> np.ndarray:
        """Cubeless money equity of the player about to roll: ``(B,) float32``."""
        return variant_equity(self.evaluate(boards), self.variant)


class NetworkAgent:
    """Agent protocol (``tdgammon.engine.players.agents``): the play maximising the mover's equity,
    each play valued by the network at 0-ply (the position it leaves)."""

    def __init__(self, evaluator: NetworkEvaluator, name: str | None = None) -> None:
        self.evaluator = evaluator
        self.name = name or evaluator.name

    def choose_plays(self, boards: np.ndarray, dice: np.ndarray, moves: MoveList) -> np.ndarray:
        probs = self.evaluator.play_probabilities(moves)
        scores = variant_equity(probs, self.evaluator.variant)
        return best_rows(scores, moves.parents, len(boards))


def load_evaluator(
    path: str | Path, name: str | None = None, variant: str | Variant | None = None
) -> NetworkEvaluator:
    """A NetworkEvaluator from a model file or training checkpoint (ModelFileError if bad).

    variant: None = the variant named in the model's card (standard if none); a
    variant given must be that one (ModelFileError: the model was trained for another).
    """
    preset, network, card = load_model(path)
    trained = _trained_variant(path, card, variant)
    name = name or Path(path).stem
    race = _race_net(Path(path), card.get("race_model"), name, trained)
    return NetworkEvaluator(network, preset, name, trained, race)


def _trained_variant(path, card: dict, variant: str | Variant | None) -> str:
    """The variant a model's card names (standard if none); ModelFileError when
    ``variant`` is given and is another."""
    trained = card.get("variant") or "standard"
    if variant is not None and get_variant(variant).name != trained:
        raise ModelFileError(
            f"{path}: the model was trained for {trained}, not {get_variant(variant).name}"
        )
    return trained


def race_model_path(path: str | Path, race_file) -> Path:
    """The file a model's card names as ``race_model``: a plain file name, beside the
    model (``path``); ModelFileError otherwise, or when it names the model itself."""
    path = Path(path)
    if not isinstance(race_file, str) or Path(race_file).name != race_file or not race_file:
        raise ModelFileError(f"{path}: race_model must name a file beside the model")
    if race_file == path.name:
        raise ModelFileError(f"{path}: race_model names the model itself")
    return path.parent / race_file


def _race_net(path: Path, race_file, name: str, variant: str):
    """The race evaluator a model's card names (``race_model``, a file beside the
    model): a ``NetworkEvaluator`` for a network file, a ``OneSidedRaceEvaluator``
    for a one-sided race file (``tdgammon.models.race_distributions``); None when
    the card names none. ModelFileError when the name is not a plain file name,
    the file is bad or it names a race evaluator of its own."""
    if race_file is None:
        return None
    race_path = race_model_path(path, race_file)
    if not race_path.is_file():
        raise ModelFileError(f"{path}: its race net {race_path} is missing")
    data = read_torch_file(race_path)
    if is_race_file(data):
        if variant != "standard":
            raise ModelFileError(f"{race_path}: one-sided race nets play standard races only")
        return OneSidedRaceEvaluator(race_net_from_record(data, str(race_path))[0], f"{name}-race")
    preset, network, card = model_from_data(data, str(race_path))
    if card.get("race_model") is not None:
        raise ModelFileError(f"{race_path}: a race net cannot name a race net of its own")
    trained = _trained_variant(race_path, card, variant)
    return NetworkEvaluator(network, preset, f"{name}-race", trained)


def default_evaluator(variant: str | Variant | None = None) -> NetworkEvaluator:
    """The shipped network of ``variant`` (default standard), loaded once per process.

    The one loader of "the shipped network": its file is
    ``tdgammon.models.shipped_model(variant)``; it is named ``tdgammon`` (standard)
    or ``tdgammon-<variant>``. A missing file is a ``FormatError`` that names it
    and says what to do instead (no trained network for the variant).
    """
    name = get_variant(variant).name
    if name not in _SHIPPED:
        path = shipped_model(name)
        if not path.is_file():
            raise FormatError(
                f"no trained network for {name}: the shipped model {path} is missing "
                "(give a model file or training checkpoint instead)"
            )
        label = "tdgammon" if name == "standard" else f"tdgammon-{name}"
        evaluator = load_evaluator(path, label)
        if evaluator.variant.name != name:
            raise FormatError(f"{path}: the shipped {name} model plays {evaluator.variant.name}")
        _SHIPPED[name] = evaluator
    return _SHIPPED[name]


_SHIPPED: dict[str, NetworkEvaluator] = {}
"""default_evaluator's cache: variant name -> evaluator."""
