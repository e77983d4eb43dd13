"""Load test of ``tdgammon serve``: many concurrent clients asking ``POST /api/hint``.

Usage: python scripts/load_serve.py [--clients 50] [--seconds 30] [--plies 1]
       [--url http://127.0.0.1:8000] [--json]

Without ``--url`` it starts ``tdgammon serve --plies N`` on a free localhost
port, waits for it, and stops it at the end. Each client (an asyncio task with
httpx) asks for the hint of one position after another, from a fixed sample of
positions of random games with their rolls, until the time is up; then the
script reports requests per second, the 50th and 99th percentile latency and
the errors (any answer but 200, and any failed request). Bounded: at most
``MAX_CLIENTS`` clients for at most ``MAX_SECONDS`` seconds, and localhost only.
Needs the ``web`` extra (httpx).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import time
import urllib.parse
from collections import Counter

import httpx
import numpy as np

from tdgammon.engine.flow.random_play import random_game_positions
from tdgammon.engine.formats.parse import format_ids
from tdgammon.engine.rules.position import Position

MAX_CLIENTS = 200
MAX_SECONDS = 300.0
SAMPLE = 64
"""Positions the clients ask about (from random games, each with its roll)."""
REQUEST_TIMEOUT = 120.0
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def sample_positions(count: int = SAMPLE, seed: int = 11) -> list[str]:
    """XGIDs of ``count`` positions of random games, the player on roll with his dice."""
    boards, dice = random_game_positions(count, np.random.default_rng(seed))
    return [
        format_ids(Position(board=b, dice=(int(d[0]), int(d[1]))))["xgid"]
        for b, d in zip(boards, dice, strict=True)
    ]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(plies: int) -> tuple[subprocess.Popen, str]:
    """``tdgammon serve`` on a free localhost port; its process and URL once it answers."""
    port = free_port()
    command = [sys.executable, "-m", "tdgammon", "serve", "--port", str(port)]
    process = subprocess.Popen([*command, "--plies", str(plies)], stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{url}/openapi.json", timeout=2).raise_for_status()
            return process, url
        except httpx.HTTPError:
            if process.poll() is not None:
                message = f"tdgammon serve exited with status {process.returncode}"
                raise SystemExit(message) from None
            time.sleep(0.5)
    process.terminate()
    raise SystemExit("tdgammon serve did not answer within 120 s")


async def client(
    session: httpx.AsyncClient, positions: list[str], start: int, deadline: float, out: dict
) -> None:
    """Ask hints until ``deadline``: latencies of 200 answers and a count of the rest."""
    index = start
    while time.monotonic() < deadline:
        body = {"position": positions[index % len(positions)]}
        index += 1
        began = time.monotonic()
        try:
            answer = await session.post("/api/hint", json=body)
        except httpx.HTTPError as error:
            out["errors"][type(error).__name__] += 1
            continue
        if answer.status_code == 200:
            out["latencies"].append(time.monotonic() - began)
        else:
            out["errors"][f"HTTP {answer.status_code}"] += 1


async def load(url: str, clients: int, seconds: float, positions: list[str]) -> dict:
    """Run ``clients`` clients for ``seconds``; the figures of the run."""
    out = {"latencies": [], "errors": Counter()}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=REQUEST_TIMEOUT) as session:
        began = time.monotonic()
        deadline = began + seconds
        await asyncio.gather(
            *(client(session, positions, i, deadline, out) for i in range(clients))
        )
        elapsed = time.monotonic() - began
    latencies = np.array(out["latencies"]) * 1000
    done = len(latencies)
    return {
        "url": url,
        "clients": clients,
        "seconds": elapsed,
        "requests": done,
        "requests_per_second": done / elapsed,
        "p50_ms": float(np.percentile(latencies, 50)) if done else None,
        "p99_ms": float(np.percentile(latencies, 99)) if done else None,
        "max_ms": float(latencies.max()) if done else None,
        "errors": sum(out["errors"].values()),
        "error_kinds": dict(out["errors"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--plies", type=int, default=1, help="the server's --plies (default 1)")
    parser.add_argument("--url", default=None, help="a running server on localhost")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not 1 <= args.clients <= MAX_CLIENTS or not 0 < args.seconds <= MAX_SECONDS:
        raise SystemExit(f"at most {MAX_CLIENTS} clients for at most {MAX_SECONDS:.0f} s")
    if args.url and urllib.parse.urlsplit(args.url).hostname not in LOCAL_HOSTS:
        raise SystemExit("the load test asks a server on this machine only (localhost)")
    positions = sample_positions()
    process, url = (None, args.url) if args.url else start_server(args.plies)
    try:
        report = asyncio.run(load(url, args.clients, args.seconds, positions))
    finally:
        if process is not None:
            process.terminate()
            process.wait(30)
    report["plies"] = args.plies if process is not None else None
    if args.json:
        print(json.dumps(report))
        return
    print(
        f"{report['clients']} clients for {report['seconds']:.0f} s on POST /api/hint "
        f"({url}): {report['requests']} answers, {report['requests_per_second']:.1f} requests/s, "
        f"p50 {report['p50_ms']:.0f} ms, p99 {report['p99_ms']:.0f} ms, max "
        f"{report['max_ms']:.0f} ms, {report['errors']} errors {report['error_kinds'] or ''}"
    )


if __name__ == "__main__":
    main()
