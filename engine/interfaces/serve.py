"""``tdgammon serve``: the HTTP API and the web page, on uvicorn (the ``web`` extra).

Thin wrapper: check the options, build the app (``serve_app.create_app``) and
run it. The app needs FastAPI and uvicorn, an optional extra (``pip install
'tdgammon[web]'``) so that the engine, the CLI and training install without a
web stack; without them the command says so on one line and exits with
status 2. It binds to 127.0.0.1 unless ``--host`` says otherwise: the API has
no authentication, so exposing it is a choice the user makes.
"""

from __future__ import annotations

import argparse
import importlib.util

from tdgammon.engine.evaluation.search import MAX_PLIES
from tdgammon.engine.rules.errors import FormatError, TdgammonError

WEB_EXTRA = ("fastapi", "uvicorn")
"""The packages of the ``web`` extra that ``tdgammon serve`` imports."""
KEEP_ALIVE_SECONDS = 30
"""How long an idle connection stays open (uvicorn's default, 5 s, is short enough that a
busy server can close a connection just as its client sends the next request on it)."""
DEFAULT_PLIES = 1
"""Depth of a request that names none, and the deepest a request may ask for: a
server answers many questions in a row (as UBGI's default), 1-ply in a fifth of a
second per hint."""


def require_web_extra() -> None:
    """TdgammonError (exit status 2) in one line when FastAPI or uvicorn is missing."""
    missing = [name for name in WEB_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise TdgammonError(
            f"tdgammon serve needs {' and '.join(missing)}: pip install 'tdgammon[web]'"
        )


def _check_options(args: argparse.Namespace) -> None:
    if not 0 <= args.plies <= MAX_PLIES:
        raise FormatError(f"--plies must be 0-{MAX_PLIES}, got {args.plies}")
    if not 1 <= args.port <= 65535:
        raise FormatError(f"--port must be 1-65535, got {args.port}")


def cmd_serve(args: argparse.Namespace) -> int:
    """``tdgammon serve``: answer HTTP until interrupted."""
    _check_options(args)
    require_web_extra()
    import uvicorn

    from tdgammon.engine.interfaces.serve_app import ServeSettings, create_app

    app = create_app(ServeSettings(plies=args.plies, model=args.model))
    print(f"tdgammon: serving on http://{args.host}:{args.port}/ (API docs at /docs)", flush=True)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
    )
    return 0


def register(commands, bench_targets: dict) -> None:
    """Add ``serve``."""
    serve = commands.add_parser(
        "serve",
        help="the HTTP API and a web page to play and analyse in a browser",
        description="Serve the JSON API of the analysis commands, game sessions against "
        "the bot and a web page (needs pip install 'tdgammon[web]').",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)"
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument(
        "--plies",
        type=int,
        default=DEFAULT_PLIES,
        help=f"search depth 0-{MAX_PLIES} of requests that name none, and the deepest "
        f"a request may ask for (default {DEFAULT_PLIES})",
    )
    serve.add_argument(
        "--model",
        default=None,
        help="a model file or checkpoint for analysis and the bot (default: the shipped network)",
    )
    serve.set_defaults(run=cmd_serve)
