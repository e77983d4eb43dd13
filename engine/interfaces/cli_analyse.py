"""``tdgammon analyse FILE.mat`` and ``tdgammon bench match-analysis``.

Thin wrapper (docs/architecture.md): read the file (``match_analysis.load_match``:
a broken file's complete games, with a warning on stderr), analyse it
(``match_analysis.analyse_match``), print the text report or the JSON of
docs/formats.md ("Match analysis"), and write the HTML page with ``--html``.
A tqdm bar on stderr shows the progress when stderr is a terminal (or with
``--progress``). A file that cannot be read at all is one line on stderr and
exit status 2 (``tdgammon.engine.interfaces.cli``).

``--threads`` sets torch's threads (default 1, as ``tdgammon rollout``: with
the second core busy, two threads are much slower than one).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tdgammon.engine.analysis.match_analysis import DEFAULT_PLIES, analyse_match, load_match
from tdgammon.engine.analysis.match_decisions import MatchAnalysis
from tdgammon.engine.analysis.match_report import analysis_json, analysis_text
from tdgammon.engine.analysis.reports import load_search
from tdgammon.engine.display.analysis_html import analysis_html
from tdgammon.engine.evaluation.search import MAX_PLIES, check_plies
from tdgammon.engine.rules.errors import FormatError

BENCH_LENGTH = 7
"""``bench match-analysis``: the length of the match it plays and analyses."""
BENCH_PLIES = (0, 1, 2)


class _ProgressBar:
    """``progress(done, total)`` for ``analyse_match``: a tqdm bar on stderr, made at
    the first call (when the total is known)."""

    def __init__(self) -> None:
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=total,
                unit="pos",
                desc="analysing",
                file=sys.stderr,
                dynamic_ncols=True,
                mininterval=0.5,
                leave=False,
            )
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _set_threads(threads: int) -> None:
    if threads < 1:
        raise FormatError(f"--threads must be at least 1, got {threads}")
    import torch

    torch.set_num_threads(threads)


def _check_html_path(path: str, source: str) -> Path:
    """``--html``'s path, refused before the analysis when its folder does not exist,
    when it is the match file ``source`` itself, or when it exists and is not an HTML
    page (a report written before may be replaced; nothing else is overwritten)."""
    target = Path(path)
    if not target.parent.is_dir():
        raise FormatError(f"--html {path}: no folder {str(target.parent)!r}")
    if target.is_dir():
        raise FormatError(f"--html {path} is a folder; give a file name such as report.html")
    if target.exists():
        if Path(source).exists() and target.samefile(source):
            raise FormatError(f"--html {path} is the match file being analysed")
        try:
            with open(target, "rb") as existing:
                head = existing.read(64).lstrip(b"\xef\xbb\xbf \t\r\n").lower()
        except OSError as error:
            raise FormatError(f"--html {path}: cannot read it ({error.strerror})") from None
        if not head.startswith((b"<!doctype html", b"<html")):
            raise FormatError(
                f"--html {path} exists and is not an HTML page; it is left as it is "
                "(give another name)"
            )
    return target


def write_html(analysis: MatchAnalysis, target: Path) -> None:
    """The HTML page, written atomically; FormatError naming why it could not be."""
    from tdgammon.models.atomic import atomic_write_bytes

    try:
        atomic_write_bytes(target, analysis_html(analysis).encode("utf-8"))
    except OSError as error:
        raise FormatError(f"cannot write {str(target)!r}: {error.strerror}") from None


def cmd_analyse(args: argparse.Namespace) -> int:
    plies = DEFAULT_PLIES if args.plies is None else args.plies
    check_plies(plies)
    _set_threads(args.threads)
    html = _check_html_path(args.html, args.file) if args.html else None
    loaded, warnings = load_match(args.file)
    for warning in warnings:
        print(f"tdgammon: warning: {warning}", file=sys.stderr)
    search = load_search(args.model, loaded.match.settings.variant)
    bar = _ProgressBar() if args.progress or sys.stderr.isatty() else None
    try:
        analysis = analyse_match(loaded.match, search, plies, bar, warnings)
    finally:
        if bar is not None:
            bar.close()
    if html is not None:
        write_html(analysis, html)
    print(json.dumps(analysis_json(analysis)) if args.json else analysis_text(analysis))
    return 0


# ---------------------------------------------------------------- bench


def bench_match(seed: int):
    """A ``BENCH_LENGTH``-point match pubeval plays against itself from ``seed``: the
    length of a real match (seed 1: 7 games, 413 actions), cube decisions where the
    cube is available (pubeval never doubles)."""
    from tdgammon.engine.flow.match import Match, MatchSettings
    from tdgammon.engine.players.agents import PubevalAgent
    from tdgammon.engine.players.cube_actions import play_match

    match = Match(MatchSettings(length=BENCH_LENGTH), names=("first", "second"), seed=seed)
    return play_match(match, [PubevalAgent(), PubevalAgent()])


def bench_match_analysis(search, seed: int = 1, plies=BENCH_PLIES) -> dict:
    """Seconds to analyse the bench match at each depth: ``{"decisions", "games",
    "seconds": {plies: s}}``; the same match at every depth."""
    match = bench_match(seed)
    out = {"games": len(match.games), "seconds": {}}
    for depth in plies:
        start = time.perf_counter()
        analysis = analyse_match(match, search, depth)
        out["seconds"][depth] = time.perf_counter() - start
        out["decisions"] = len(analysis.decisions)
    return out


def bench_match_analysis_command(args: argparse.Namespace) -> int:
    """``tdgammon bench match-analysis``: a 7-point match analysed at 0, 1 and 2 plies."""
    _set_threads(args.threads)
    search = load_search(getattr(args, "model", None))
    result = bench_match_analysis(search, args.seed)
    if args.json:
        seconds = {str(k): v for k, v in result["seconds"].items()}
        print(json.dumps({**result, "seconds": seconds, "threads": args.threads}))
        return 0
    print(
        f"Analysis of a {BENCH_LENGTH}-point match ({result['games']} games, "
        f"{result['decisions']} decisions) with {search.name}, {args.threads} torch thread(s):"
    )
    for depth, seconds in result["seconds"].items():
        print(f"  {depth}-ply  {seconds:7.1f} s")
    return 0


# ---------------------------------------------------------------- register


def register(commands, bench_targets: dict) -> None:
    """Add ``analyse`` (alias ``analyze``) and ``bench match-analysis``."""
    parser = commands.add_parser(
        "analyse",
        aliases=["analyze"],
        help="analyse every checker play and cube decision of a .mat match file",
    )
    parser.add_argument("file", metavar="FILE.mat", help="a match file (GNU Backgammon .mat)")
    parser.add_argument(
        "--plies",
        type=int,
        default=None,
        help=f"search depth 0-{MAX_PLIES} (default {DEFAULT_PLIES})",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--html", metavar="OUT.html", help="also write the report as a web page")
    parser.add_argument(
        "--progress", action="store_true", help="show the progress bar even when not a terminal"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument(
        "--model", default=None, help="a model file or checkpoint (default: the shipped network)"
    )
    parser.set_defaults(run=cmd_analyse)
    bench_targets["match-analysis"] = (bench_match_analysis_command, ("model", "seed", "threads"))
