"""``tdgammon analyse``: match analysis of .mat files (docs/formats.md, "Match analysis").

Fixtures in tests/data:

- ``gnubg_export_7pt.mat``: a 7-point match exported by GNU Backgammon 1.07.001
  (``export match mat``) as it wrote it, two GNU Backgammon players at 0-ply
  (``set seed 4``): resignations (games 2, 4, 5), double/take/drop sequences and
  a redouble dropped (game 1), the Crawford game (game 5).
- ``analyse_mistakes.mat``: a 3-point match in tdgammon's own layout, written by
  hand with three planted mistakes (its comment lines say which), a take,
  resignations, a roll that cannot be played and the Crawford game.
- ``analyse_broken.mat``: the same match with an illegal play in game 3.

The analyses run at 0 or 1 ply, and one small case at 2 plies.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_runner import run

from tdgammon.engine.analysis.match_analysis import analyse_match, load_match
from tdgammon.engine.analysis.match_decisions import (
    CHECKER,
    CUBE,
    MISSED_DOUBLE,
    PR_SCALE,
    WRONG_PASS,
)
from tdgammon.engine.analysis.match_report import analysis_json, analysis_text
from tdgammon.engine.analysis.reports import load_search
from tdgammon.engine.cube.agent import CubeAgent
from tdgammon.engine.flow.game_records import ENDED_BY_DROP, ENDED_BY_RESIGNATION
from tdgammon.engine.flow.match import Match, MatchSettings
from tdgammon.engine.flow.matfile import format_mat, read_mat
from tdgammon.engine.players.agents import RandomAgent
from tdgammon.engine.players.cube_actions import play_match

DATA = Path(__file__).parent / "data"
GNUBG = DATA / "gnubg_export_7pt.mat"
MISTAKES = DATA / "analyse_mistakes.mat"
BROKEN = DATA / "analyse_broken.mat"
CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def search():
    return load_search()


@pytest.fixture(scope="module")
def mistakes(search):
    """The hand-made match analysed at 1 ply."""
    return analyse_match(load_match(MISTAKES)[0].match, search, 1)


@pytest.fixture(scope="module")
def gnubg_json(search):
    """The GNU Backgammon export analysed at 0 ply, as the JSON ``--json`` prints."""
    analysis = analyse_match(load_match(GNUBG)[0].match, search, 0)
    return json.loads(json.dumps(analysis_json(analysis)))


def test_fixtures_hold_what_they_should():
    gnubg = load_match(GNUBG)[0].match
    assert gnubg.settings.length == 7 and gnubg.winner == 0
    assert [g.settings.crawford for g in gnubg.games] == [False] * 4 + [True]
    ends = [g.result.ended_by for g in gnubg.games]
    assert ENDED_BY_RESIGNATION in ends and ENDED_BY_DROP in ends
    kinds = [a.kind for g in gnubg.games for a in g.history]
    assert {"double", "take", "drop"} <= set(kinds)
    hand_made = load_match(MISTAKES)[0].match
    assert hand_made.scores == (3, 2) and hand_made.games[2].settings.crawford
    assert "take" in [a.kind for a in hand_made.games[1].history]


def test_totals_add_up(mistakes):
    for player in mistakes.players:
        mine = [d for d in mistakes.decisions if d.seat == player.seat]
        checker = [d for d in mine if d.kind == CHECKER]
        cube = [d for d in mine if d.kind == CUBE]
        assert player.checker_decisions == len(checker)
        assert player.checker_unforced == sum(d.counted for d in checker)
        assert player.checker_error == pytest.approx(sum(d.error for d in checker))
        assert player.cube_decisions == len(cube)
        assert player.cube_error == pytest.approx(sum(d.error for d in cube))
        assert player.luck == pytest.approx(sum(d.luck for d in checker))
        assert player.checker_error_mwc == pytest.approx(sum(d.error_mwc for d in checker))
        counted = player.checker_unforced + player.cube_decisions
        total = player.checker_error + player.cube_error
        assert player.pr == pytest.approx(PR_SCALE * total / counted)
        assert all(d.error == 0 for d in checker if not d.counted)


def test_json_totals_add_up(gnubg_json):
    for player in gnubg_json["players"]:
        mine = [d for d in gnubg_json["decisions"] if d["seat"] == player["seat"]]
        for kind in ("checker", "cube"):
            listed = [d for d in mine if d["type"] == kind]
            assert player[kind]["decisions"] == len(listed)
            assert player[kind]["error_total"] == pytest.approx(sum(d["error"] for d in listed))
        luck = sum(d["luck"] for d in mine if d["type"] == "checker")
        assert player["luck"] == pytest.approx(luck)


@pytest.mark.parametrize("plies", [0, 1])
def test_planted_mistakes_are_flagged(search, plies):
    analysis = analyse_match(load_match(MISTAKES)[0].match, search, plies)
    found = {(d.game, d.ply, d.kind): d for d in analysis.decisions}
    blunder = found[(1, 1, CHECKER)]
    assert blunder.action == "8/3 8/2" and blunder.mark == "blunder"
    assert blunder.plays[0].move == "24/13"
    wrong_pass = found[(1, 3, CUBE)]
    assert wrong_pass.action == "pass" and wrong_pass.label == WRONG_PASS and wrong_pass.mark
    missed = found[(2, 5, CUBE)]
    assert missed.action == "no double" and missed.label == MISSED_DOUBLE and missed.mark
    assert all(
        any(d is w for w in analysis.players[0].worst) for d in (blunder, wrong_pass, missed)
    )


def test_two_plies_on_a_small_match(search):
    """The first game of the hand-made match (three decisions) at the default depth."""
    text = MISTAKES.read_text()
    match = read_mat(text[: text.index(" Game 2")]).match
    analysis = analyse_match(match, search)
    assert analysis.plies == 2 and analysis.games == 1
    blunder, double, drop = analysis.decisions
    assert blunder.mark == "blunder" and blunder.played.plies == 2
    assert double.action == "double" and drop.label == WRONG_PASS
    assert drop.cube.mwc is not None and drop.error_mwc > 0


def test_crawford_game_has_no_cube_decisions(gnubg_json):
    crawford = [d for d in gnubg_json["decisions"] if d["game"] == 5]
    assert crawford and all(d["type"] == "checker" for d in crawford)
    assert all(":1:7:" in d["xgid"] for d in crawford)  # XGID rules field 1: Crawford


def test_json_contract(gnubg_json):
    assert set(gnubg_json) == {"match", "warnings", "players", "decisions"}
    match = gnubg_json["match"]
    assert match["players"] == ["alice", "bob"] and match["length"] == 7
    assert match["score"] == [8, 5] and match["winner"] == "alice" and match["games"] == 5
    assert match["plies"] == 0 and match["luck_plies"] == 0
    for player in gnubg_json["players"]:
        assert {"name", "checker", "cube", "pr", "luck"} <= set(player)
        assert {"decisions", "unforced", "error_total", "error_rate"} <= set(player["checker"])
        assert {"decisions", "error_total"} <= set(player["cube"])
        for worst in player["worst"]:
            assert worst["xgid"].startswith("XGID=") and worst["error"] > 0
    common = {"game", "ply", "player", "seat", "type", "xgid", "action", "error", "mark"}
    checker = {"dice", "legal_plays", "luck", "played", "best"}
    for decision in gnubg_json["decisions"]:
        assert common <= set(decision)
        if decision["type"] == "checker":
            assert checker <= set(decision)
        else:
            cube = decision["cube"]
            assert {"proper", "no_double", "double_take", "double_pass", "mwc"} <= set(cube)
            assert decision["action"] in ("no double", "double", "take", "pass")


def test_text_report(capsys):
    status, out, err = run(capsys, "analyse", str(MISTAKES), "--plies", "0")
    assert status == 0 and err == ""
    assert out.startswith("alice vs bob: 3-point match, 4 games, score 3-2, alice wins")
    assert "Game 1, ply 1, alice, 65: 8/3 8/2  blunder" in out
    assert "wrong pass" in out and "missed double" in out
    assert "Worst mistakes of alice:" in out and "XGID=" in out


def test_progress_reaches_the_total(search):
    calls = []
    analyse_match(load_match(MISTAKES)[0].match, search, 0, lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1]
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_broken_file_analyses_the_complete_games(capsys):
    status, out, err = run(capsys, "analyse", str(BROKEN), "--plies", "0", "--json")
    assert status == 0
    assert err.startswith("tdgammon: warning: ") and "line 31: alice: '41: 24/20 8/1*'" in err
    assert "analysing the 2 complete games before it" in err
    report = json.loads(out)
    assert report["match"]["games"] == 2 and report["match"]["score"] == [2, 1]
    assert report["warnings"] == [err.removeprefix("tdgammon: warning: ").strip()]
    assert {d["game"] for d in report["decisions"]} == {1, 2}


@pytest.mark.parametrize(
    "text",
    [
        "this is not a match file\n",
        MISTAKES.read_text().replace("65: 8/3 8/2", "65: 8/3 8/1"),
    ],
    ids=["not-a-match", "broken-in-game-1"],
)
def test_bad_file_is_one_line_and_status_2(capsys, tmp_path, text):
    path = tmp_path / "bad.mat"
    path.write_text(text)
    status, out, err = run(capsys, "analyse", str(path))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"tdgammon: error: {path}: line ")


def test_missing_file_and_bad_options(capsys, tmp_path):
    status, _, err = run(capsys, "analyse", str(tmp_path / "none.mat"))
    assert status == 2 and "cannot read the file" in err
    status, _, err = run(capsys, "analyse", str(MISTAKES), "--plies", "7")
    assert status == 2 and "plies" in err
    status, _, err = run(capsys, "analyse", str(MISTAKES), "--html", "/no/such/dir/a.html")
    assert status == 2 and "no folder" in err


def test_html_never_overwrites_the_match_or_another_kind_of_file(capsys, tmp_path):
    """--html replaces an HTML page (an earlier report) only; checked before the analysis."""
    match = tmp_path / "m.mat"
    match.write_bytes(MISTAKES.read_bytes())
    kept = tmp_path / "notes.txt"
    kept.write_text("my notes")
    for target, reason in ((match, "is the match file"), (kept, "is not an HTML page")):
        status, out, err = run(capsys, "analyse", str(match), "--plies", "0", "--html", str(target))
        assert status == 2 and out == "" and reason in err and err.count("\n") == 1
    assert match.read_bytes() == MISTAKES.read_bytes() and kept.read_text() == "my notes"
    status, _, err = run(capsys, "analyse", str(match), "--html", str(tmp_path))
    assert status == 2 and "is a folder" in err
    page = tmp_path / "report.html"
    page.write_text("<!DOCTYPE html>\n<html><body>an older report</body></html>\n")
    status, _, _ = run(capsys, "analyse", str(match), "--plies", "0", "--html", str(page))
    assert status == 0 and "an older report" not in page.read_text()


def test_analysis_text_of_a_match_in_memory(mistakes):
    """The call ``tdgammon play`` can make after a game: same report, no file."""
    text = analysis_text(mistakes)
    assert text.splitlines()[0].startswith("alice vs bob")
    assert analysis_json(mistakes)["match"]["plies"] == 1


def test_money_session_with_jacoby_and_beavers(search):
    """Money play: no MWC figures; beavers are answers to a double, judged like takes."""
    match = Match(MatchSettings(max_games=1, beavers=True, jacoby=True), names=("a", "b"), seed=3)
    play_match(match, [CubeAgent(search, 0), RandomAgent(3, double_rate=0.3)])
    analysis = analyse_match(read_mat(format_mat(match)).match, search, 0)
    report = json.loads(json.dumps(analysis_json(analysis)))
    assert report["match"]["length"] == 0 and report["match"]["winner"] is None
    answers = [d for d in report["decisions"] if d["action"] in ("take", "pass", "beaver")]
    assert "beaver" in {d["action"] for d in answers}
    assert all(d["error_mwc"] is None and d["cube"]["mwc"] is None for d in answers)
    for player in report["players"]:
        assert player["luck_mwc"] is None and player["cube"]["error_total_mwc"] is None
    assert "MWC" not in analysis_text(analysis)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium")
def test_html_report_renders_its_boards_in_chromium(capsys, tmp_path):
    image = pytest.importorskip("PIL.Image")
    page = tmp_path / "report.html"
    status, _, err = run(capsys, "analyse", str(MISTAKES), "--plies", "0", "--html", str(page))
    assert status == 0, err
    html = page.read_text()
    assert "<script" not in html and "<link" not in html and " src=" not in html
    assert html.count("<svg") == html.count('<section class="mistake')
    shot = tmp_path / "shot.png"
    chromium = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}",
        "--window-size=1200,2000",
        page.as_uri(),
    ]
    subprocess.run(chromium, capture_output=True, timeout=120, check=False)
    assert shot.exists()
    pixels = image.open(shot).convert("RGB")
    colours = pixels.getcolors(maxcolors=1 << 20)
    assert len(colours) > 50  # not blank
    counts = {rgb: n for n, rgb in colours}
    frame, dark_point = (0x5B, 0x3A, 0x1E), (0x9C, 0x4A, 0x2F)  # svg.COLOURS
    assert counts.get(frame, 0) > 2000 and counts.get(dark_point, 0) > 2000


def test_html_without_chromium_is_self_contained(tmp_path, mistakes):
    from tdgammon.engine.display.analysis_html import analysis_html

    html = analysis_html(mistakes)
    assert html.startswith("<!DOCTYPE html>") and "http://www.w3.org/2000/svg" in html
    assert "https://" not in html and "<script" not in html
