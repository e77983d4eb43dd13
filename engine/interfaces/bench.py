"""Benchmarks behind ``tdgammon bench``.

``bench_movegen`` measures distinct resulting positions per second (legal
plays, passes not counted) on a fixed sample of (position, roll) pairs from
random games, at several batch sizes, on one core (numpy's elementwise code
is single-threaded), plus the peak memory numpy allocates inside one call
(tracemalloc sees numpy's buffers).
"""

from __future__ import annotations

import time
import tracemalloc
from dataclasses import dataclass

import numpy as np

from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.movegen import compiled
from tdgammon.engine.movegen.reference import legal_plays
from tdgammon.engine.movegen.vectorized import generate_moves, generate_moves_numpy
from tdgammon.engine.rules.variants import get_variant

SAMPLE_SEED = 12345


@dataclass(frozen=True)
class MovegenResult:
    """One row of the benchmark table."""

    generator: str
    batch_size: int
    positions: int
    plays: int
    seconds: float
    peak_bytes: int

    @property
    def plays_per_second(self) -> float:
        return self.plays / self.seconds


def movegen_sample(count: int) -> tuple[np.ndarray, np.ndarray]:
    """The fixed benchmark sample: ``(count, 30) int8`` boards and ``(count, 2)`` dice."""
    return random_game_positions(count, np.random.default_rng(SAMPLE_SEED))


def _time_vectorized(boards, dice, batch_size: int, min_seconds: float, generate=generate_moves):
    """Run ``generate`` (``generate_moves``' signature) over the sample in chunks, at
    least once through and for at least ``min_seconds``. Returns (positions, plays,
    seconds, peak bytes of one call)."""
    chunks = [
        (boards[i : i + batch_size], dice[i : i + batch_size])
        for i in range(0, len(boards) - batch_size + 1, batch_size)
    ]
    generate(*chunks[0])  # warm-up
    tracemalloc.start()
    generate(*chunks[0])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    positions, plays, elapsed, index = 0, 0, 0.0, 0
    start = time.perf_counter()
    while index < len(chunks) or elapsed < min_seconds:
        chunk_boards, chunk_dice = chunks[index % len(chunks)]
        result = generate(chunk_boards, chunk_dice)
        plays += int((~result.is_pass()).sum())
        positions += len(chunk_boards)
        index += 1
        elapsed = time.perf_counter() - start
    return positions, plays, elapsed, peak


def bench_movegen(
    batch_sizes=(1, 64, 4096), sample_size: int = 16384, min_seconds: float = 2.0
) -> list[MovegenResult]:
    """Throughput per batch size of the compiled generator (``generate_moves`` with
    numba) and of the numpy one, and of the reference."""
    boards, dice = movegen_sample(sample_size)
    generators = [("numpy", lambda b, d: generate_moves_numpy(b, d, get_variant(None)))]
    if compiled.available():
        generators.insert(0, ("compiled", generate_moves))
    results = []
    for name, generate in generators:
        for batch_size in batch_sizes:
            used = min(len(boards), max(batch_size, 2048 if batch_size < 64 else sample_size))
            positions, plays, seconds, peak = _time_vectorized(
                boards[:used], dice[:used], batch_size, min_seconds, generate
            )
            results.append(MovegenResult(name, batch_size, positions, plays, seconds, peak))
    reference_count = min(2000, len(boards))
    start = time.perf_counter()
    plays = sum(
        len(legal_plays(b, d))
        for b, d in zip(boards[:reference_count], dice[:reference_count], strict=True)
    )
    seconds = time.perf_counter() - start
    results.append(MovegenResult("reference", 1, reference_count, plays, seconds, 0))
    return results


def format_movegen(results: list[MovegenResult]) -> str:
    """A Markdown table of the results."""
    lines = [
        "| generator | batch size | plays/s | peak memory per call |",
        "| --- | ---: | ---: | ---: |",
    ]
    for r in results:
        memory = f"{r.peak_bytes / 2**20:.1f} MiB" if r.peak_bytes else "-"
        lines.append(f"| {r.generator} | {r.batch_size} | {r.plays_per_second:,.0f} | {memory} |")
    return "\n".join(lines)
