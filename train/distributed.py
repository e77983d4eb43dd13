"""Self-play on Ray actors: ``tdgammon train --workers N`` (the ``distributed`` extra).

Install with ``pip install 'tdgammon[distributed]'`` (Ray); without it,
``--workers`` is a one-line error saying so. Ray is imported inside the
functions only, so importing this module never needs it.

Who owns what
-------------
The learner (this process, a ``DistributedTrainer``: the single-process
``tdgammon.train.loop.Trainer`` with another ``cycle``) owns everything it
owned before: the weights, the optimizer, the counters, its random generator
(the minibatch order), evaluation and ``best.pt``, checkpoints, logs.
``train`` in ``tdgammon.train.loop`` runs the same loop around it. ``N``
Ray actors (``SelfPlayWorker``: one Ray CPU and one torch thread each) own
self-play only: a ``tdgammon.train.selfplay.SelfPlay`` batch of
``selfplay.parallel_games`` games in flight, its random generator and a copy
of the network.

How games flow: one cycle, in lock-step
---------------------------------------
1. The learner takes the chunks the actors played during the previous cycle
   (``ray.get`` in actor order, whichever actor finished first).
2. It puts its current weights in Ray's object store once (``ray.put`` of the
   state_dict) and asks every actor for its next chunk: load those weights,
   play until finished games hold ``ceil(td.update_positions / N)``
   positions, return their boards ``(n, 30) int8`` and lambda-return targets
   ``(n, 5) float32`` (``SelfPlay.take_finished``, computed on the actor),
   the number of games and of plies played.
3. It trains on the chunks of step 1, concatenated in actor order, exactly as
   the single-process trainer (``Trainer.update``): one pass of minibatches
   over about ``td.update_positions`` positions.

So the actors play while the learner trains and evaluates. The weights are
broadcast every cycle, not every K games: a ``tesauro80`` state_dict is 65 KB
(``extended128`` 114 KB), less than the chunk of games that comes back
(about 200 KB per 4,096 positions), and a broadcast per cycle keeps self-play
as fresh as the pipeline allows: a chunk is played with the weights of two
updates before the one that trains on it (the single-process trainer: one),
about 70 games more lag at the defaults.

Reproducibility
---------------
Actor ``i``'s generator is ``SeedSequence(selfplay.seed, spawn_key=(i,
games))``, ``games`` being the training games at the start of the run (0 for
a fresh one): it depends on the run's seed and the actor's index only, not on
the number of actors or on timing. Chunks are requested and consumed in a
fixed order, so the actors' speed (which finishes first) changes nothing: a
run with the same config, seed and number of workers is bit-identical
(weights, counters, checkpoints), like the single-process trainer. Not the
same: runs with another number of workers (other streams, other chunks), the
single-process trainer (its own stream, one cycle less lag), and whatever
depends on wall time (``run.max_minutes``, ``run.checkpoint_minutes``, games/s).

Resume
------
A checkpoint of a distributed run also holds each actor's games in flight and
generator, and the chunks already played for the next cycle (the learner
waits for them before writing). ``--resume`` with the same number of workers
continues exactly (a run split in two gives the same weights as one run).
With another number of workers, or from a single-process checkpoint, the
learner's state is restored as usual and the actors start new games with
generators keyed by the games trained so far (the in-flight games of the
checkpoint are dropped). A single-process resume of a distributed checkpoint
ignores the actors' section.
"""

from __future__ import annotations

import json
import math
import time

import numpy as np
import torch

from tdgammon.engine.evaluation.distributed import DistributedError, connect, require_ray
from tdgammon.engine.evaluation.evaluator import NetworkEvaluator
from tdgammon.models.network import build_network, get_preset
from tdgammon.train.checkpoint import to_arrays
from tdgammon.train.config import Config, config_from_dict, config_to_dict
from tdgammon.train.loop import Trainer, train
from tdgammon.train.selfplay import SelfPlay, race_evaluator


def _echo(text: str) -> None:
    print(text, flush=True)


def actor_seed(seed: int, index: int, games: int = 0) -> np.random.SeedSequence:
    """Seed of actor ``index``'s generator: the run's seed, the actor's index and the
    training games at the start of the run (0 for a fresh run)."""
    return np.random.SeedSequence(seed, spawn_key=(index, games))


class SelfPlayWorker:
    """One self-play actor (wrapped by ``ray.remote`` in ``DistributedTrainer``): a
    ``SelfPlay`` batch with its own generator and a copy of the network."""

    def __init__(self, config: dict, index: int, games: int) -> None:
        torch.set_num_threads(1)
        self.config = config_from_dict(config, f"actor {index} config")
        self.index = index
        preset = get_preset(self.config.model.preset)
        self.network = build_network(preset, seed=self.config.model.init_seed)
        self.network.eval()
        variant = self.config.model.variant
        race = race_evaluator(self.config)
        self.evaluator = NetworkEvaluator(self.network, preset, f"actor{index}", variant, race)
        self.rng = np.random.default_rng(actor_seed(self.config.selfplay.seed, index, games))
        sp = self.config.selfplay
        self.selfplay = SelfPlay(
            sp.parallel_games, self.rng, sp.exploration, variant, stop_at_race=race is not None
        )

    def play(self, weights: dict, positions: int) -> dict:
        """Load ``weights`` (a state_dict), play until finished games hold ``positions``
        positions; their boards ``(n, 30) int8``, targets ``(n, 5) float32``, games, plies."""
        self.network.load_state_dict(weights)
        self.network.eval()
        start = time.perf_counter()
        plies = self.selfplay.plies_played
        while self.selfplay.finished_positions < positions:
            self.selfplay.step(self.evaluator)
        boards, targets, games = self.selfplay.take_finished(self.config.td.td_lambda)
        return {
            "index": self.index,
            "boards": boards,
            "targets": targets,
            "games": games,
            "plies": self.selfplay.plies_played - plies,
            "seconds": time.perf_counter() - start,
        }

    def state(self) -> dict:
        """Games in flight and the generator, for checkpoints."""
        return {
            "selfplay": self.selfplay.state(),
            "numpy": json.dumps(self.rng.bit_generator.state),
        }

    def load_state(self, state: dict) -> None:
        self.selfplay.load_state(state["selfplay"])
        self.rng.bit_generator.state = json.loads(state["numpy"])
        self.selfplay.rng = self.rng


def _own(obj):
    """Writable copies of the (read-only, shared) numpy arrays Ray hands back."""
    if isinstance(obj, np.ndarray):
        return obj.copy()
    if isinstance(obj, dict):
        return {k: _own(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_own(v) for v in obj]
    return obj


class DistributedTrainer(Trainer):
    """The learner of a distributed run: a ``Trainer`` whose games come from
    ``config.selfplay.workers`` Ray actors (module docstring)."""

    def __init__(
        self,
        config: Config,
        resume_from: dict | None = None,
        address: str | None = None,
        echo=_echo,
    ) -> None:
        ray = require_ray()
        super().__init__(config, resume_from)
        self.workers = config.selfplay.workers
        if self.workers < 1:
            raise DistributedError("a distributed run needs selfplay.workers >= 1")
        self.chunk_positions = math.ceil(config.td.update_positions / self.workers)
        self.games_by_actor = [0] * self.workers
        self.plies_played = 0
        self._pending: list | None = None
        self._ready: list[dict] | None = None
        self._started_ray = connect(self.workers, address, echo, what="self-play actors")
        self.actors = []
        try:
            remote = ray.remote(num_cpus=1, max_restarts=0)(SelfPlayWorker)
            saved = (resume_from or {}).get("distributed")
            exact = bool(saved) and int(saved["workers"]) == self.workers
            settings, games = config_to_dict(config), self.counters.games
            self.actors = [remote.remote(settings, i, games) for i in range(self.workers)]
            if exact:
                states = to_arrays(saved["actors"])
                ray.get([a.load_state.remote(s) for a, s in zip(self.actors, states, strict=True)])
                self.games_by_actor = [int(g) for g in saved["games_by_actor"]]
                if "ready" in saved:
                    self._ready = to_arrays(saved["ready"])
            elif resume_from is not None:
                writer = f"{saved['workers']} actors" if saved else "one process"
                echo(f"the checkpoint was written by {writer}: the actors start new games")
            echo(
                f"self-play on {self.workers} Ray actors x {config.selfplay.parallel_games} "
                f"games, {self.chunk_positions} positions per actor per cycle"
            )
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ games

    def _submit(self) -> None:
        """Ask every actor for its next chunk, played with the current weights."""
        ray = require_ray()
        weights = ray.put({k: v.detach().clone() for k, v in self.network.state_dict().items()})
        self._pending = [a.play.remote(weights, self.chunk_positions) for a in self.actors]

    def _collect(self) -> list[dict]:
        """The chunks for this cycle, in actor order."""
        if self._ready is not None:
            ready, self._ready = self._ready, None
            return ready
        if self._pending is None:
            self._submit()
        ray = require_ray()
        chunks = ray.get(self._pending)
        self._pending = None
        return chunks

    def cycle(self) -> dict:
        """Take the actors' chunks, ask for the next ones, train on these (module docstring)."""
        chunks = self._collect()
        self._submit()
        for chunk in chunks:
            self.games_by_actor[int(chunk["index"])] += int(chunk["games"])
            self.plies_played += int(chunk["plies"])
        boards = np.concatenate([c["boards"] for c in chunks])
        targets = np.concatenate([c["targets"] for c in chunks])
        games = sum(int(c["games"]) for c in chunks)
        return self.update(boards, targets, games)

    # ------------------------------------------------------------ state

    def checkpoint_data(self) -> dict:
        """The single-process checkpoint plus the actors' games in flight and generators
        and the chunks already played for the next cycle (waits for them)."""
        data = super().checkpoint_data()
        ray = require_ray()
        try:
            if self._pending is not None:
                self._ready = _own(ray.get(self._pending))
                self._pending = None
            states = _own(ray.get([a.state.remote() for a in self.actors]))
        except ray.exceptions.RayError as error:
            print(
                f"warning: actors unreachable ({type(error).__name__}); the checkpoint holds "
                "no in-flight games and a resume starts new ones",
                flush=True,
            )
            return data
        section = {
            "workers": self.workers,
            "games_by_actor": list(self.games_by_actor),
            "actors": states,
        }
        if self._ready is not None:
            section["ready"] = self._ready
        data["distributed"] = section
        return data

    def close(self) -> None:
        super().close()
        ray = require_ray()
        for actor in getattr(self, "actors", []):
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors = []
        self._pending = None
        if getattr(self, "_started_ray", False):
            ray.shutdown()
            self._started_ray = False


def train_distributed(
    config: Config,
    resume_data: dict | None = None,
    address: str | None = None,
    echo=_echo,
) -> DistributedTrainer:
    """``tdgammon train --workers N``: ``tdgammon.train.loop.train`` with the learner
    taking its games from ``config.selfplay.workers`` Ray actors."""
    require_ray()

    def make(config: Config, data: dict | None) -> DistributedTrainer:
        return DistributedTrainer(config, data, address, echo)

    trainer = train(config, resume_data, echo, make_trainer=make)
    echo(f"games by actor: {', '.join(str(g) for g in trainer.games_by_actor)}")
    return trainer
