"""``scripts/choice_groups.py``: ``bench choices`` split by kinds of position
(``tdgammon.train.choices.position_kinds``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from script_loader import load_script

from tdgammon.engine.rules.board import board_from_points, starting_board
from tdgammon.models.network import build_network, get_preset, save_model
from tdgammon.train.choices import position_kinds

TINY = get_preset("tiny")


@pytest.fixture(scope="module")
def choice_groups():
    return load_script("choice_groups")


@pytest.fixture(scope="module")
def tiny_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("groups") / "tiny.pt"
    save_model(path, TINY, build_network(TINY, seed=4), {"variant": "standard"})
    return path


def test_groups_name_what_the_position_holds(choice_groups):
    # each side's points in its own numbering (25: the bar)
    holding = board_from_points(
        {20: 2, 21: 1, 6: 4, 5: 3, 4: 3}, {1: 5, 2: 4, 3: 3, 6: 2, 9: 1}
    )  # the mover's anchor on 20, the opponent bearing in with 43 pips
    on_bar = board_from_points({25: 1, 24: 2, 6: 5, 8: 3, 13: 4}, {24: 2, 6: 5, 8: 3, 13: 5})
    boards = np.stack([starting_board(), holding, on_bar])
    dice = np.array([[3, 1], [4, 4], [6, 5]], dtype=np.int8)
    groups = {name: rows.tolist() for name, rows in position_kinds(boards, dice).items()}
    assert groups["opening (both sides 140+ pips)"] == [True, False, True]
    assert groups["a double rolled"] == [False, True, False]
    assert groups["mover on the bar"] == [False, False, True]
    assert groups["opponent on the bar"] == [False, False, False]
    assert groups["mover 3+ checkers back"] == [False, True, True]
    assert groups["opponent 3+ checkers back"] == [False, False, False]
    assert groups["mover holds an anchor, opponent bearing in (under 100 pips)"] == [
        False,
        True,
        False,
    ]
    assert groups["mover 20+ pips behind"] == [False, True, False]
    assert "a double rolled" not in position_kinds(boards)  # without the rolls


def test_the_groups_split_the_benchmarks_decisions(choice_groups, tiny_file, capsys):
    judge = f"{tiny_file}:0"
    summary = choice_groups.grouped_gains(str(tiny_file), "pubeval", judge, 150, 3, 0, 0)
    phases = [summary["groups"][name]["decisions"] for name in ("contact", "crashed", "race")]
    assert sum(phases) == summary["decisions"] > 50
    assert summary["gain"] >= 0  # judged by its own evaluation, the tiny net never loses
    for stats in summary["groups"].values():
        assert stats["decisions"] == 0 or stats["gain"] >= -1e-6
    argv = ["--model", str(tiny_file), "--opponent", "pubeval", "--judge", judge]
    argv += ["--sample", "150", "--seed", "3"]
    choice_groups.main([*argv, "--json"])
    assert json.loads(capsys.readouterr().out) == summary
    choice_groups.main(argv)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "tiny vs pubeval, judged by tiny-0ply" and lines[1].startswith("all ")
    assert len(lines) == 2 + len(summary["groups"])


def test_a_bad_sample_size_is_an_error_message(choice_groups, tiny_file):
    with pytest.raises(SystemExit, match="choice_groups: --sample .* must be a whole number >= 1"):
        choice_groups.main(["--model", str(tiny_file), "--opponent", "pubeval", "--sample", "0"])
