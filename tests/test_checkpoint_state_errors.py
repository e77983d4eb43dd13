"""A damaged training checkpoint (its checksum recomputed, so it passes the checksum)
is refused on ``--resume`` with one line naming the file and what is wrong (exit
status 2), never an internal error or a run from the wrong state: the optimizer's
state, the counters, the self-play games and the saved config are checked when
they are restored (``Trainer._restore``, ``SelfPlay.load_state``,
``config_from_dict``). Bad values of a ``--config`` file name the file.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from tdgammon.engine.evaluation.evaluator import NetworkEvaluator
from tdgammon.engine.interfaces.cli import main
from tdgammon.models.network import CHECKSUM_KEY, PRESETS, build_network, payload_sha256
from tdgammon.train.config import ADDED_SETTINGS, Config, ConfigError, load_config
from tdgammon.train.loop import Trainer, resolve_resume
from tdgammon.train.selfplay import SelfPlay, SelfPlayStateError

RUN = {"eval": {"every_games": 0}, "run": {"max_games": 20}}
"""A tiny run with no evaluation: one checkpoint at about game 20."""


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """The run folder of a tiny run (written once per module; copy it before damage)."""
    from conftest import tiny_training_config

    folder = tmp_path_factory.mktemp("pristine")
    config = folder / "tiny.toml"
    config.write_text(tiny_training_config(folder / "run", **RUN))
    assert main(["train", "--config", str(config)]) == 0
    return folder / "run"


@pytest.fixture
def damaged(pristine, tmp_path):
    """``damaged(change) -> checkpoint path``: a copy of the tiny run whose checkpoint
    ``change(data)`` altered in place, saved with its checksum recomputed."""

    def make(change) -> Path:
        run_dir = tmp_path / f"run{len(list(tmp_path.iterdir()))}"
        shutil.copytree(pristine, run_dir)
        path = run_dir / "checkpoint.pt"
        data = torch.load(path, weights_only=True)
        change(data)
        data[CHECKSUM_KEY] = payload_sha256(data)
        torch.save(data, path)
        return path

    return make


def refused(path: Path, capsys, *expected: str) -> str:
    """Resume from ``path``: exit status 2, one line naming the file and ``expected``."""
    capsys.readouterr()
    assert main(["train", "--resume", str(path), "--set", "run.max_games=40"]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("tdgammon: error: ") and err.count("\n") == 1, err
    assert str(path) in err, err
    for text in expected:
        assert text in err, (text, err)
    assert "training" not in captured.out  # refused before a game was played
    return err


# ------------------------------------------------------------ the optimizer's state


def _state(data: dict, index: int = 0) -> dict:
    return data["optimizer"]["state"][index]


OPTIMIZER_DAMAGE = {
    "reshaped": (
        lambda d: _state(d).update(exp_avg=torch.zeros(3, 3)),
        ["optimizer.state[0].exp_avg", "must be a (8, 198) torch.float32 tensor, got (3, 3)"],
    ),
    "entry deleted": (
        lambda d: _state(d).pop("exp_avg"),
        ["optimizer.state[0]", "holds ['exp_avg_sq', 'step']", "keeps ['exp_avg',"],
    ),
    "unknown entry": (
        lambda d: _state(d).update(momentum_buffer=torch.zeros(8, 198)),
        ["optimizer.state[0]", "momentum_buffer"],
    ),
    "wrong dtype": (
        lambda d: _state(d, 1).update(exp_avg=torch.zeros(8, dtype=torch.int64)),
        ["optimizer.state[1].exp_avg", "got (8,) torch.int64"],
    ),
    "not a tensor": (
        lambda d: _state(d, 2).update(exp_avg_sq="lots"),
        ["optimizer.state[2].exp_avg_sq", "got 'lots'"],
    ),
    "not finite": (
        lambda d: _state(d, 3)["exp_avg"].fill_(float("nan")),
        ["optimizer.state[3].exp_avg", "must hold finite numbers"],
    ),
    "negative square": (
        lambda d: _state(d, 3)["exp_avg_sq"].fill_(-1.0),
        ["optimizer.state[3].exp_avg_sq", "finite numbers >= 0"],
    ),
    "a parameter's state deleted": (
        lambda d: d["optimizer"]["state"].pop(2),
        ["optimizer.state holds parameters ['0', '1', '3']"],
    ),
    "parameter groups": (
        lambda d: d["optimizer"]["param_groups"][0].update(params=[0, 1]),
        ["optimizer.param_groups do not list the network's 4 parameters"],
    ),
}


@pytest.mark.parametrize("damage", OPTIMIZER_DAMAGE, ids=str)
def test_a_damaged_optimizer_state_is_refused(damaged, capsys, damage):
    change, expected = OPTIMIZER_DAMAGE[damage]
    refused(damaged(change), capsys, *expected)


def test_the_optimizer_settings_are_the_runs_own(damaged):
    # The saved hyperparameters (betas, eps, ...) are not settings of a run: a resume
    # keeps the state of each parameter and the optimizer's own settings.
    path = damaged(lambda d: d["optimizer"]["param_groups"][0].update(betas="lots"))
    config, data = resolve_resume(Config(), [], str(path))
    trainer = Trainer(config, data)
    assert trainer.optimizer.param_groups[0]["betas"] == (0.9, 0.999)
    saved = data["optimizer"]["state"][0]["exp_avg"]
    assert torch.equal(trainer.optimizer.state_dict()["state"][0]["exp_avg"], saved)


# ------------------------------------------------------------ counters


COUNTER_DAMAGE = {
    "not a number": ("games", "lots", "counters.games must be a whole number"),
    "negative": ("games", -5, "counters.games must be a whole number from 0"),
    "fraction": ("steps", 2.5, "counters.steps must be a whole number"),
    "bool": ("positions", True, "counters.positions must be a whole number"),
    "seconds not finite": ("seconds", float("nan"), "counters.seconds must be a finite number"),
    "seconds negative": ("seconds", -1.0, "counters.seconds must be a finite number >= 0"),
    "evaluation in the future": ("last_eval_games", 10**6, "counters.last_eval_games (1000000)"),
}


@pytest.mark.parametrize("damage", COUNTER_DAMAGE, ids=str)
def test_a_counter_that_is_not_a_count_is_refused(damaged, capsys, damage):
    key, value, expected = COUNTER_DAMAGE[damage]
    refused(damaged(lambda d: d["counters"].update({key: value})), capsys, expected)


def test_a_missing_or_unknown_counter_is_refused(damaged, capsys):
    refused(damaged(lambda d: d["counters"].pop("games")), capsys, "counters.games is missing")
    refused(
        damaged(lambda d: d["counters"].update(rounds=3)),
        capsys,
        "unknown counter counters.rounds",
    )


# ------------------------------------------------------------ self-play games


def _selfplay(data: dict) -> dict:
    return data["selfplay"]


def _finished_game(data: dict, columns: int = 30) -> None:
    """Append one finished game of 3 plies (the start position) to the saved state."""
    boards = data["selfplay"]["boards"][:1].repeat(3, 1)
    if columns != 30:
        boards = torch.zeros(3, columns, dtype=torch.int8)
    data["selfplay"]["finished_boards"].append(boards)
    data["selfplay"]["finished_values"].append(torch.full((3, 5), 0.5))
    data["selfplay"]["finished_same"].append(torch.zeros(3, dtype=torch.bool))


def _add_checker(data: dict) -> None:
    data["selfplay"]["boards"][2, 6] += 1


SELFPLAY_DAMAGE = {
    "history flattened": (
        lambda d: _selfplay(d).update(history_boards=_selfplay(d)["history_boards"].flatten()),
        ["selfplay.history_boards must have shape (16,"],
    ),
    "a finished game of 31 columns": (
        lambda d: _finished_game(d, columns=31),
        ["selfplay.finished_boards[0] must have shape (n, 30), got (3, 31)"],
    ),
    "plies past the limit": (
        lambda d: _selfplay(d)["plies"].__setitem__(3, 100000),
        ["selfplay.plies[3] must be from 0 to 10000, got 100000"],
    ),
    "boards 8 x 29": (
        lambda d: _selfplay(d).update(boards=torch.zeros(8, 29, dtype=torch.int8)),
        ["selfplay.boards must have shape (16, 30), got (8, 29)"],
    ),
    "boards of floats": (
        lambda d: _selfplay(d).update(boards=_selfplay(d)["boards"].float()),
        ["selfplay.boards must hold integers, got float32"],
    ),
    "a sixteenth checker": (_add_checker, ["selfplay.boards[2]: the mover has 16 checkers"]),
    "history values not probabilities": (
        lambda d: _selfplay(d)["history_values"][0, 0].fill_(float("nan")),
        ["selfplay.history_values[0, 0]: not probabilities from 0 to 1"],
    ),
    "history missing": (
        lambda d: _selfplay(d).pop("history_values"),
        ["selfplay.history_values is missing"],
    ),
    "finished values missing a game": (
        lambda d: (_finished_game(d), _selfplay(d)["finished_values"].pop()),
        ["selfplay.finished_values holds 0 games, selfplay.finished_boards 1"],
    ),
    "a count below zero": (
        lambda d: _selfplay(d).update(games_finished=-1),
        ["selfplay.games_finished must be a whole number >= 0, got -1"],
    ),
}


@pytest.mark.parametrize("damage", SELFPLAY_DAMAGE, ids=str)
def test_damaged_selfplay_games_are_refused(damaged, capsys, damage):
    change, expected = SELFPLAY_DAMAGE[damage]
    refused(damaged(change), capsys, *expected)


def test_history_rows_past_a_games_plies_are_not_checked(damaged):
    # Rows past a game's plies hold what earlier games left there: never read.
    def change(data):
        state = data["selfplay"]
        g = int(torch.argmin(state["plies"]))
        state["history_boards"][g, int(state["plies"][g]) :] = 99

    path = damaged(change)
    Trainer(*resolve_resume(Config(), [], str(path)))


@pytest.mark.parametrize(
    "variant", ["standard", "nackgammon", "hypergammon", "dutch", "acey-deucey"]
)
def test_the_state_of_real_games_loads_in_every_variant(variant):
    preset = PRESETS["tiny_hand"]
    evaluator = NetworkEvaluator(build_network(preset, seed=1), preset, "t", variant)
    play = SelfPlay(4, np.random.default_rng(1), exploration=0.2, variant=variant)
    for _ in range(40):
        play.step(evaluator)
    state = play.state()
    again = SelfPlay(4, np.random.default_rng(1), variant=variant)
    again.load_state(state)
    assert again.state().keys() == state.keys()
    for key, value in state.items():
        if isinstance(value, list):
            assert len(again.state()[key]) == len(value)
        else:
            np.testing.assert_array_equal(again.state()[key], value)
    # Written before variants: no extra-roll flags.
    older = {k: v for k, v in state.items() if k not in ("history_same", "finished_same")}
    SelfPlay(4, np.random.default_rng(1), variant=variant).load_state(older)
    with pytest.raises(SelfPlayStateError, match=r"selfplay.boards must have shape \(5, 30\)"):
        SelfPlay(5, np.random.default_rng(1), variant=variant).load_state(state)


# ------------------------------------------------------------ the saved config


def test_a_missing_config_section_or_setting_is_refused(damaged, capsys):
    refused(
        damaged(lambda d: d["config"].pop("td")),
        capsys,
        "(saved config): missing [td]",
    )
    refused(
        damaged(lambda d: d["config"]["td"].pop("learning_rate")),
        capsys,
        "(saved config): missing td.learning_rate",
    )


def test_settings_added_after_the_first_checkpoints_keep_their_defaults(damaged):
    def change(data):
        for key in ADDED_SETTINGS:
            section, name = key.split(".")
            data["config"][section].pop(name)

    config, data = resolve_resume(Config(), [], str(damaged(change)))
    assert (config.model.variant, config.selfplay.workers, config.selfplay.race_model) == (
        "standard",
        0,
        "",
    )
    Trainer(config, data)


def test_a_saved_config_of_the_wrong_type_names_the_checkpoint(damaged, capsys):
    path = damaged(lambda d: d["config"]["td"].update(learning_rate="fast"))
    refused(path, capsys, "(saved config): td.learning_rate must be a number, got 'fast'")


def test_a_bad_value_in_a_config_file_names_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[td]\nlearning_rate = "fast"\n')
    with pytest.raises(ConfigError) as error:
        load_config(bad)
    assert str(error.value) == f"{bad}: td.learning_rate must be a number, got 'fast'"
    assert main(["train", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: td.learning_rate must be a number" in err and err.count("\n") == 1
    # An override names itself: its message starts with the key.
    with pytest.raises(ConfigError, match="^td.learning_rate must be a number, got 'fast'$"):
        load_config(None, ['td.learning_rate="fast"'])
