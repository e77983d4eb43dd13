"""The FastAPI application of ``tdgammon serve``: routes, limits, errors and the page.

- ``POST /api/moves``, ``/api/show``, ``/api/eval``, ``/api/hint``, ``/api/cube``,
  ``/api/rollout``: the body is one batch line of the CLI command (docs/formats.md)
  and the answer is the command's JSON (``serve_analysis``). Rollouts run on a
  pool of their own (``ROLLOUT_WORKERS`` threads, ``ROLLOUT_WAITING`` more
  queued, 503 past that), so that they never hold up the other requests. Those
  (and the bot's moves) run on at most ``ServeSettings.threads`` threads at once
  (``Workers``), the others waiting in line: more threads than cores only fight
  over the interpreter lock and starve the event loop that reads requests.
- ``POST /api/games``, ``GET /api/games/{id}``, ``POST /api/games/{id}/actions``,
  ``GET /api/games/{id}/mat``: game sessions (``serve_games``, ``serve_store``).
  ``GET /api/games/{id}/analysis[?plies=N]``: the analysis of the session's
  match so far (``tdgammon analyse --json``), on the same threads as the
  analyses; 400 for a game set up from a position (the analysis replays every
  game from the starting position).
- ``/`` the page, ``/static/...`` its files, ``/docs`` the API's documentation
  read from ``/openapi.json`` (all inside the package: nothing from the network).

Bodies are read as the CLI reads a batch line (``cli_positions.decode_line``
and ``parse_request``: UTF-8, strict JSON, one object) and may hold at most
``MAX_BODY_BYTES``. Errors answer ``{"error": "<the CLI's message>"}``: 400 for
bad input, 409 for an action the rules refuse now (``RuleError``) or one sent
for another version of the game (``StaleVersion``: reload the state; its answer
also holds the game's ``"version"``), 404 for an unknown game or path, 413 for
a body too large, 503 when the rollout pool is full. Anything else is a bug:
500 with the CLI's internal-error line.
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from tdgammon.engine.analysis.reports import load_search
from tdgammon.engine.interfaces.cli_positions import decode_line, parse_request
from tdgammon.engine.interfaces.serve_analysis import Analysis
from tdgammon.engine.interfaces.serve_games import StaleVersion, WebGame, new_game
from tdgammon.engine.interfaces.serve_store import GameStore, UnknownGame
from tdgammon.engine.rules.errors import RuleError, TdgammonError

STATIC = Path(__file__).with_name("static")
"""The page's HTML, JavaScript and CSS (package data)."""
MAX_BODY_BYTES = 64 * 1024
ROLLOUT_WORKERS = 1
ROLLOUT_WAITING = 4

OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
ANALYSIS_ROUTES = (
    ("moves", "Every legal play of a roll (tdgammon moves)", {"position": OPENING_XGID}),
    ("show", "IDs, board and SVG picture (tdgammon show)", {"position": OPENING_XGID}),
    ("eval", "Evaluation before rolling (tdgammon eval)", {"position": OPENING_XGID, "plies": 1}),
    ("hint", "The plays of a roll, best first (tdgammon hint)", {"position": OPENING_XGID}),
    ("cube", "The cube decision, explained (tdgammon cube)", {"position": OPENING_XGID}),
)


@dataclass(frozen=True)
class ServeSettings:
    """What ``tdgammon serve`` was started with.

    plies: depth of requests that name none and the most any may ask for.
    model: a model file for analysis and the bot (None: the shipped network).
    max_games, idle_seconds: the bounds of the games in memory (``serve_store``).
    threads: analyses (and bot moves) computed at once; the rest wait in line.
    """

    plies: int = 1
    model: str | None = None
    max_games: int = 256
    idle_seconds: float = 3600.0
    threads: int = os.cpu_count() or 2


class ServerBusy(TdgammonError):
    """The rollout pool is full: the API answers 503."""


class Workers:
    """At most ``count`` functions at once on the server's thread pool; the rest wait."""

    def __init__(self, count: int) -> None:
        self._slots = asyncio.Semaphore(count)

    async def run(self, function, *arguments):
        """``function(*arguments)`` on a thread, once a slot is free."""
        async with self._slots:
            return await run_in_threadpool(function, *arguments)


class RolloutPool:
    """A few threads for rollouts, and a bounded queue in front of them."""

    def __init__(self, workers: int = ROLLOUT_WORKERS, waiting: int = ROLLOUT_WAITING) -> None:
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="rollout")
        self._slots = threading.BoundedSemaphore(workers + waiting)
        self.capacity = workers + waiting

    async def run(self, function, request: dict) -> dict:
        """``function(request)`` on the pool; ServerBusy when it is full."""
        if not self._slots.acquire(blocking=False):
            raise ServerBusy(
                f"the server is running {self.capacity} rollouts already: try again later"
            )
        future = self._executor.submit(function, request)
        future.add_done_callback(lambda _: self._slots.release())
        return await asyncio.wrap_future(future)


async def read_json(request: Request) -> dict:
    """The body as the CLI reads one batch line; 413 past ``MAX_BODY_BYTES``."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise HTTPException(413, f"the request body is larger than {MAX_BODY_BYTES} bytes")
    return parse_request(decode_line(bytes(body)))


def _json_body(example: dict) -> dict:
    """The OpenAPI text of a JSON-object body (the handlers read it themselves)."""
    content = {"application/json": {"schema": {"type": "object"}, "example": example}}
    return {"requestBody": {"required": True, "content": content}}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _status(error: TdgammonError) -> int:
    if isinstance(error, UnknownGame):
        return 404
    if isinstance(error, ServerBusy):
        return 503
    return 409 if isinstance(error, (RuleError, StaleVersion)) else 400


def _add_error_handlers(app: FastAPI) -> None:
    async def bad_input(request: Request, error: TdgammonError) -> JSONResponse:
        if isinstance(error, StaleVersion):  # the version the game is at, for programs
            body = {"error": str(error), "version": error.version}
            return JSONResponse(body, status_code=_status(error))
        return _error(_status(error), str(error))

    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return _error(error.status_code, str(error.detail))

    async def internal_error(request: Request, error: Exception) -> JSONResponse:
        detail = " ".join(str(error).split())
        return _error(500, f"internal error (please report it): {type(error).__name__}: {detail}")

    app.add_exception_handler(TdgammonError, bad_input)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, internal_error)


def _add_analysis_routes(
    app: FastAPI, analysis: Analysis, workers: Workers, rollouts: RolloutPool
) -> None:
    def endpoint(answer):
        async def route(request: Request) -> dict:
            return await workers.run(answer, await read_json(request))

        return route

    for name, summary, example in ANALYSIS_ROUTES:
        app.add_api_route(
            f"/api/{name}",
            endpoint(getattr(analysis, name)),
            methods=["POST"],
            name=name,
            summary=summary,
            tags=["analysis"],
            openapi_extra=_json_body(example),
        )

    @app.post(
        "/api/rollout",
        summary="A bounded rollout (tdgammon rollout), on a pool of its own",
        tags=["analysis"],
        openapi_extra=_json_body({"position": OPENING_XGID, "dice": [5, 2], "trials": 72}),
    )
    async def rollout(request: Request) -> dict:
        return await rollouts.run(analysis.rollout, await read_json(request))


def _add_game_routes(
    app: FastAPI, games: GameStore, workers: Workers, analysis: Analysis, settings: ServeSettings
) -> None:
    def create(options: dict) -> dict:
        game = new_game(options, settings.plies, settings.model)
        games.add(game)
        return game.state()

    def analyse(game: WebGame, plies: str | None) -> dict:
        return analysis.match(game.match_so_far(), plies)

    @app.post(
        "/api/games",
        summary="A new game or match against the bot, with the options of tdgammon play",
        tags=["games"],
        openapi_extra=_json_body({"length": 3, "seat": 0, "opponent": "bot", "plies": 0}),
    )
    async def create_game(request: Request) -> dict:
        return await workers.run(create, await read_json(request))

    @app.get("/api/games/{game_id}", summary="The state of a game", tags=["games"])
    def get_game(game_id: str) -> dict:
        return games.get(game_id).state()

    @app.post(
        "/api/games/{game_id}/actions",
        summary="roll, double, take, pass, beaver, raccoon, move, resign or next; with the "
        "state's version, 409 if the game is at another",
        tags=["games"],
        description="An action may carry the version of the state it answers (the state's "
        "version); when the game is at another, it is refused with 409 and nothing is applied.",
        openapi_extra=_json_body({"action": "move", "move": "13/8 13/11", "version": 0}),
    )
    async def act(game_id: str, request: Request) -> dict:
        game = games.get(game_id)
        return await workers.run(game.act, await read_json(request))

    @app.get("/api/games/{game_id}/mat", summary="The match as a .mat file", tags=["games"])
    def download_mat(game_id: str) -> PlainTextResponse:
        game = games.get(game_id)
        return PlainTextResponse(
            game.mat(),
            headers={"Content-Disposition": f'attachment; filename="tdgammon-{game.id}.mat"'},
        )

    @app.get(
        "/api/games/{game_id}/analysis",
        summary="The analysis of the match so far (tdgammon analyse --json)",
        tags=["games"],
    )
    async def analyse_game(
        game_id: str,
        plies: str | None = Query(None, description="search depth, at most the server's"),
    ) -> dict:
        return await workers.run(analyse, games.get(game_id), plies)


def _add_page_routes(app: FastAPI) -> None:
    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/docs", include_in_schema=False)
    def docs() -> FileResponse:
        return FileResponse(STATIC / "docs.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")


def create_app(settings: ServeSettings | None = None) -> FastAPI:
    """The application (module docstring); loads the network first."""
    settings = settings or ServeSettings()
    app = FastAPI(
        title="tdgammon",
        summary="Backgammon analysis and games against the bot: the CLI's JSON over HTTP.",
        docs_url=None,
        redoc_url=None,
        # no 307 to a neighbouring route: an unknown path (a game id "/" reads as
        # /api/games//) is a 404, never a redirect to another endpoint
        redirect_slashes=False,
    )
    _add_error_handlers(app)
    analysis = Analysis(load_search(settings.model), settings.plies, settings.model)
    workers = Workers(settings.threads)
    _add_analysis_routes(app, analysis, workers, RolloutPool())
    games = GameStore(settings.max_games, settings.idle_seconds)
    _add_game_routes(app, games, workers, analysis, settings)
    _add_page_routes(app)
    return app
