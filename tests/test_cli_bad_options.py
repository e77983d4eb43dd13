"""Options a user can get wrong, found by a review of the command line (session 13):
each is one line on stderr and exit status 2, and JSON output stays valid JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run

from tdgammon.engine.evaluation.distributed import split_trials
from tdgammon.engine.evaluation.rollout import MAX_TRIALS, check_trials
from tdgammon.engine.rules.errors import TdgammonError

SEED_COMMANDS = [
    ["match", "--a", "pubeval", "--b", "random", "--games", "2"],
    ["play"],
    ["match", "--game", "london-bridge", "--a", "random", "--b", "greedy", "--games", "2"],
    ["bench", "strength", "--games", "2", "--opponent", "random"],
    ["bench", "choices", "--judge", "network:0", "--sample", "1"],
    ["train-race", "--out", "never-written.pt"],
    ["refine", "--model", "missing.pt", "--out", "never-written"],
]


@pytest.mark.parametrize("argv", SEED_COMMANDS, ids=lambda argv: " ".join(argv[:2]))
@pytest.mark.parametrize("seed", ["-1", "99999999999999999999999", "one"])
def test_a_bad_seed_is_one_line_before_anything_runs(capsys, tmp_path, monkeypatch, argv, seed):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *argv, "--seed", seed)
    assert status == 2 and out == ""
    expected = f"--seed must be a whole number from 0 to 2**63 - 1, got {seed!r}"
    assert err == f"tdgammon: error: {expected}\n"
    assert list(tmp_path.iterdir()) == []  # refine wrote no refine.json


def test_json_of_too_few_games_for_an_interval_is_valid_json(capsys):
    for argv in (
        ["match", "--a", "pubeval", "--b", "random", "--games", "1", "--json"],
        ["match", "--a", "pubeval", "--b", "random", "--games", "1", "--length", "1", "--json"],
        ["match", "--game", "london-bridge", "--a", "random", "--b", "greedy", "--games", "1",
         "--json"],
    ):  # fmt: skip
        status, out, _ = run(capsys, *argv)
        assert status == 0
        summary = json.loads(out, parse_constant=pytest.fail)  # NaN / Infinity are not JSON
        assert None in summary.values()
    status, out, _ = run(capsys, "match", "--a", "pubeval", "--b", "random", "--games", "1")
    assert status == 0 and "95% CI n/a" in out


def test_a_rollout_of_more_trials_than_can_be_played_is_refused(capsys):
    status, _, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--trials", str(10**20))
    assert status == 2 and "the number of trials must be 1 to 2**32" in err
    assert check_trials(MAX_TRIALS) == MAX_TRIALS
    with pytest.raises(TdgammonError, match="1 to 2"):
        split_trials(0, MAX_TRIALS + 1, 1296)


def test_svg_never_overwrites_another_kind_of_file(capsys, tmp_path):
    kept = tmp_path / "match.mat"
    kept.write_text("keep me")
    status, _, err = run(capsys, "show", "4HPwATDgc/ABMA", "--svg", str(kept))
    assert status == 2 and "exists and is not an SVG picture" in err and err.count("\n") == 1
    assert kept.read_text() == "keep me"
    picture = tmp_path / "board.svg"
    for _ in range(2):  # an earlier picture is replaced
        assert run(capsys, "show", "4HPwATDgc/ABMA", "--svg", str(picture))[0] == 0
    assert picture.read_text().startswith("<svg")


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_one_line_not_an_internal_error():
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "tdgammon", "show", "4HPwATDgc/ABMA"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == "tdgammon: error: cannot write: No space left on device\n"


def test_an_xgid_without_its_prefix_is_a_position_not_an_option(capsys):
    bare = "-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    status, out, err = run(capsys, "moves", bare, "--json")
    assert status == 0 and err == ""
    assert out == run(capsys, "moves", f"XGID={bare}", "--json")[1]


@pytest.mark.parametrize("length", ["-1", "32768", "99999999999"])
def test_a_match_length_no_id_can_record_is_refused(capsys, length):
    argv = ["match", "--a", "pubeval", "--b", "random", "--games", "2", "--length", length]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and "--length must be 0 (money) to 32767" in err


def test_rollout_top_without_dice_is_refused(capsys, monkeypatch):
    status, _, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--top", "3", "--trials", "2")
    assert status == 2 and "top picks the best plays of a roll" in err
    line = json.dumps({"position": "4HPwATDgc/ABMA", "top": 2, "trials": 2}) + "\n"
    status, out, _ = run(capsys, "rollout", "-", stdin=line, monkeypatch=monkeypatch)
    assert "top picks the best plays of a roll" in json.loads(out)["error"]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["analysis", "--plies", "2"], "bench analysis does not use --plies (an option of bench "
         "choices, cube, rollout, strength)"),
        (["movegen", "--games", "10"], "bench movegen does not use --games (an option of bench "
         "strength)"),
        (["strength", "--judge", "gnubg:1"], "bench strength does not use --judge (an option of "
         "bench choices)"),
        (["selfplay", "--opponent-plies", "1"], "bench selfplay does not use --opponent-plies"),
        (["race", "--truncate", "4"], "bench race does not use --truncate (an option of bench "
         "cube)"),
    ],
)  # fmt: skip
def test_a_bench_option_the_target_does_not_read_is_refused(capsys, argv, expected):
    status, out, err = run(capsys, "bench", *argv)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"tdgammon: error: {expected}")


def test_every_bench_option_is_read_by_some_target():
    from tdgammon.engine.interfaces import cli

    commands = cli.build_parser()._subparsers._group_actions[0]
    targets, defaults = commands.choices["bench"].get_default("run").args
    assert set(targets) == {"analysis", "choices", "cube", "match-analysis", "movegen", "race",
                            "rollout", "selfplay", "strength"}  # fmt: skip
    read = set().union(*(set(reads) for _, reads in targets.values()))
    assert read == set(defaults)


@pytest.mark.parametrize("command", ["play", "match"])
def test_a_cube_limit_no_id_can_record_is_refused(capsys, command):
    status, out, err = run(capsys, command, "--cube-limit", "65536")
    assert status == 2 and out == ""
    assert err == (
        "tdgammon: error: --cube-limit must be at most 32768 (the highest cube a Match ID or "
        "XGID records), got 65536\n"
    )


ODD_COUNTS = [
    (["bench", "strength", "--opponent", "random"], "3 games asked, 4 played"),
    (["match", "--a", "pubeval", "--b", "random"], "3 games asked, 4 played"),
    (["match", "--a", "pubeval", "--b", "random", "--length", "1"], "3 matches asked, 4 played"),
]


@pytest.mark.parametrize(("argv", "said"), ODD_COUNTS, ids=lambda v: " ".join(v[:3]))
def test_an_odd_count_says_it_was_rounded_up_to_duplicate_pairs(capsys, argv, said):
    status, out, _ = run(capsys, *argv, "--games", "3", "--seed", "1")
    assert status == 0
    result, note = out.splitlines()
    assert " 4 games" in result or "4 matches" in result
    assert note == (
        f"({said}: duplicate dice play them in pairs, the same dice with the seats swapped)"
    )
    status, out, _ = run(capsys, *argv, "--games", "3", "--seed", "1", "--json")
    assert status == 0 and json.loads(out)["games"] >= 4  # JSON states the games played
    if argv[0] == "match":  # bench strength asks for 2 or more
        status, out, _ = run(capsys, *argv, "--games", "1", "--seed", "1")
        unit = "match" if "--length" in argv else "game"
        assert f"(1 {unit} asked, 2 played" in out


@pytest.mark.parametrize(("argv", "said"), ODD_COUNTS, ids=lambda v: " ".join(v[:3]))
def test_an_even_count_has_no_rounding_note(capsys, argv, said):
    status, out, _ = run(capsys, *argv, "--games", "2", "--seed", "1")
    assert status == 0 and len(out.splitlines()) == 1 and "asked" not in out
