"""Ray for the work that outgrows one process (the ``distributed`` extra).

Rollouts (``tdgammon rollout --workers N``) and self-play training
(``tdgammon train --workers N``, ``tdgammon.train.distributed``) run on Ray,
an existing distributed engine, not a home-made process pool. Install it with
``pip install 'tdgammon[distributed]'``; without it, ``--workers`` is a
one-line error saying so. Ray is imported inside the functions only, so
importing this module never needs it.

- ``require_ray`` / ``connect`` / ``ray_session``: a local Ray instance with
  one CPU per worker (plus the driver's, when it works too), or an existing
  cluster joined with ``--ray-address``.
- ``map_trial_chunks``: run a rollout's trial ranges as Ray tasks and yield
  their results in range order; ``map_trial_chunks_threaded`` the same on
  threads of this process (``--threads``; no Ray needed). Trials are keyed
  by (seed, trial index), not by the process that plays them
  (``tdgammon.engine.evaluation.rollout``), so any split over any number of
  workers or threads combines into exactly the one-process result.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from tdgammon.engine.evaluation.rollout import check_trials
from tdgammon.engine.rules.errors import FormatError, TdgammonError


class DistributedError(TdgammonError):
    """Ray is missing or cannot run the workers asked for; the message says what to do."""


@dataclass(frozen=True)
class Workers:
    """``--workers N`` (Ray workers, N >= 1) and ``--ray-address`` (None: a local Ray)."""

    count: int
    address: str | None = None


def workers_option(args) -> Workers | None:
    """The ``--workers N`` / ``--ray-address ADDR`` options of ``args`` (an argparse
    namespace) as ``Workers``; None for 0 workers (this process). Ray must be
    installed when N >= 1."""
    count = getattr(args, "workers", 0) or 0
    address = getattr(args, "ray_address", None)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise FormatError(f"--workers must be a whole number >= 0, got {count}")
    if count == 0:
        if address:
            raise FormatError("--ray-address needs --workers N (N >= 1)")
        return None
    require_ray("--workers")
    return Workers(count, address)


def require_ray(command: str = "--workers"):
    """The ``ray`` module, or DistributedError telling how to install it."""
    try:
        import ray
    except ImportError:
        raise DistributedError(
            f"{command} needs Ray: pip install 'tdgammon[distributed]'"
        ) from None
    return ray


def connect(
    workers: int,
    address: str | None = None,
    echo: Callable[[str], None] = print,
    driver_cpus: int = 1,
    what: str = "self-play actors",
) -> bool:
    """Make Ray ready for ``workers`` one-CPU workers; True if this call started a
    local instance (the caller shuts it down).

    Ray already initialised in this process (a test, a notebook): used as it is.
    ``address``: join that cluster (``ray.init(address=...)``, e.g. ``auto`` or
    ``ray://host:10001``). Otherwise a local instance with ``workers +
    driver_cpus`` CPUs (the driver: the learner of a training run; 0 for a
    rollout, whose driver only waits), without the dashboard, its workers at
    normal priority.
    """
    if workers < 1:
        raise DistributedError(f"--workers must be >= 1 to use Ray, got {workers}")
    ray = require_ray()
    if ray.is_initialized():
        started = False
    elif address:
        ray.init(address=address, logging_level=logging.WARNING)
        started = True
    else:
        cores = os.cpu_count() or 1
        if workers + driver_cpus > cores:
            echo(f"note: {workers} Ray workers share {cores} cores")
        # Ray starts its workers at nice 15; here they do the work, so they run at
        # the driver's priority (a user's setting of the variable wins)
        os.environ.setdefault("RAY_worker_niceness", "0")
        ray.init(
            num_cpus=workers + driver_cpus, include_dashboard=False, logging_level=logging.WARNING
        )
        started = True
    cpus = ray.cluster_resources().get("CPU", 0)
    if not address and cpus < workers:
        if started:
            ray.shutdown()
        raise DistributedError(
            f"the Ray instance has {cpus:g} CPUs; {workers} {what} need one each"
        )
    return started


@contextmanager
def ray_session(workers: int, address: str | None = None, what: str = "rollout workers"):
    """``connect`` for a rollout's ``workers`` (no CPU for the driver), shut down on
    exit when this session started Ray."""
    started = connect(workers, address, echo=lambda text: None, driver_cpus=0, what=what)
    try:
        yield require_ray()
    finally:
        if started:
            require_ray().shutdown()


def _run_chunk(function, shared: tuple, trials: range, options: dict):
    """One Ray task: ``function(*shared, trials, **options)`` on one torch thread."""
    import torch

    torch.set_num_threads(1)
    return function(*shared, trials, **options)


def map_trial_chunks(
    function: Callable,
    shared: tuple,
    chunks: Sequence[range],
    *,
    options: dict | None = None,
    rows_per_trial: int = 1,
    progress: Callable[[int], None] | None = None,
) -> Iterator:
    """Run ``function(*shared, chunk, **options)`` for every trial range of ``chunks``
    as Ray tasks (one CPU each; Ray must be connected: ``ray_session``) and yield
    the results in the order of ``chunks``.

    function: a module-level trial function (``rollout_trials``,
    ``cubeful_rollout_trials``); shared: its leading arguments (the search,
    roots, settings), put in Ray's object store once. progress: called with
    ``len(chunk) * rows_per_trial`` games as each task finishes (in any order).
    Tasks not yet finished are cancelled when the caller stops early (Ctrl-C).
    """
    ray = require_ray()
    task = ray.remote(num_cpus=1)(_run_chunk)
    shared_ref = ray.put(shared)
    refs = [task.remote(function, shared_ref, chunk, options or {}) for chunk in chunks]
    index_of = {ref: i for i, ref in enumerate(refs)}
    pending, finished, next_index = list(refs), {}, 0
    try:
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                i = index_of[ref]
                finished[i] = ref
                if progress:
                    progress(len(chunks[i]) * rows_per_trial)
            while next_index in finished:
                yield ray.get(finished.pop(next_index))
                next_index += 1
    finally:
        for ref in pending:
            ray.cancel(ref)


class _Stopped(Exception):
    """Raised inside a trial thread when the caller has gone (Ctrl-C)."""


def map_trial_chunks_threaded(
    function: Callable,
    shared: tuple,
    chunks: Sequence[range],
    threads: int,
    options: dict | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator:
    """``function(*shared, chunk, progress=..., **options)`` for every trial range of
    ``chunks`` on ``threads`` threads of this process, the results yielded in the
    order of ``chunks`` (``function`` takes a ``progress`` callback, called with
    the games it finishes, as ``rollout_trials`` does).

    The move generator (a numba kernel without the GIL), numpy's array loops
    and torch's network passes release the GIL, so the threads use that many
    cores; every trial is played exactly as in one thread (a trial's dice and
    the batch-invariant network do not depend on its neighbours). When the
    caller stops early (Ctrl-C) the threads stop at their next finished game
    and the chunks not started are dropped."""
    stop = threading.Event()
    lock = threading.Lock()

    def finished(games: int) -> None:
        if stop.is_set():
            raise _Stopped
        if progress is not None:
            with lock:
                progress(games)

    pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="rollout")
    try:
        futures = [
            pool.submit(function, *shared, chunk, progress=finished, **(options or {}))
            for chunk in chunks
        ]
        for future in futures:
            yield future.result()
    finally:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)


def default_threads() -> int:
    """The CPUs this process may run on (the default of ``--threads``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def split_trials(first: int, trials: int, chunk_trials: int) -> list[range]:
    """Trials ``first .. first + trials - 1`` as consecutive ranges of at most
    ``chunk_trials`` (the last may be shorter)."""
    if chunk_trials < 1:
        raise TdgammonError("chunk_trials must be >= 1")
    check_trials(trials)
    end = first + trials
    return [
        range(start, min(start + chunk_trials, end)) for start in range(first, end, chunk_trials)
    ]
