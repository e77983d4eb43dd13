"""The ship tool (train/ship.py): model file, measured figures and card, standard and variant."""

from __future__ import annotations

import re

import pytest

from tdgammon.engine.interfaces.cli import main
from tdgammon.models.network import load_model
from tdgammon.train import ship
from tdgammon.train.evaluate import strength


def _tiny_run(tmp_path, tiny_config, preset: str, variant: str):
    run_dir = tmp_path / "run"
    config = tiny_config(run_dir, model={"preset": preset, "variant": variant})
    assert main(["train", "--config", str(config)]) == 0
    return run_dir


@pytest.mark.parametrize(
    ("preset", "variant", "opponents", "name"),
    [
        ("tiny", "standard", [("pubeval", 4, 0), ("random", 2, 1)], "tdgammon-tiny"),
        ("tiny_hand", "dutch", [("heuristic", 4, 0)], "tdgammon-dutch"),
    ],
)
def test_ship_writes_a_model_whose_card_figures_reproduce(
    tmp_path, tiny_config, preset, variant, opponents, name
):
    run_dir = _tiny_run(tmp_path, tiny_config, preset, variant)
    out = tmp_path / "models"
    out.mkdir()
    path = ship.ship(run_dir, "best", opponents, out, note="a test run", echo=lambda _: None)
    assert path == out / f"{name}.pt"
    loaded_preset, _, card = load_model(path)
    assert loaded_preset.name == preset and card["variant"] == variant
    assert [(row["opponent"], row["games"], row["plies"]) for row in card["strength"]] == opponents
    text = (out / f"{name}.md").read_text()
    assert f"# Model card: {name}" in text and "a test run" in text
    assert f"| Variant | `{variant}` |" in text
    for opponent, games, plies in opponents:
        command = (
            f"tdgammon bench strength --model models/{name}.pt --opponent {opponent} "
            f"--games {games} --seed {ship.SHIP_SEED}" + (f" --plies {plies}" if plies else "")
        )
        assert command + "\n" in text
        row = re.search(
            rf"^\| {opponent} \| {plies} \| {games:,} \| \*\*([+-][0-9.]+)\*\*", text, re.M
        )
        summary, _ = strength(str(path), opponent, games, ship.SHIP_SEED, 1, plies=plies)
        assert row is not None and float(row.group(1)) == pytest.approx(summary["ppg"], abs=5e-4)


def test_ship_errors_are_one_line(tmp_path, capsys):
    assert ship.main([str(tmp_path / "missing")]) == 2
    assert "missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        ship.main([str(tmp_path), "--against", "heuristic"])
    assert exit_info.value.code == 2
    assert "OPPONENT:GAMES" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ship.main([str(tmp_path), "--against", "heuristic:40:7"])
    assert "plies must be 0-3" in capsys.readouterr().err


def test_ship_a_phase_set_with_its_race_net(tmp_path, tiny_config):
    from tdgammon.engine.evaluation.evaluator import load_evaluator
    from tdgammon.models.network import build_network, get_preset, save_model

    run_dir = _tiny_run(tmp_path, tiny_config, "tiny", "standard")
    race_file = tmp_path / "race.pt"
    tiny = get_preset("tiny")
    save_model(race_file, tiny, build_network(tiny, seed=9), {"variant": "standard"})
    out = tmp_path / "models"
    out.mkdir()
    path = ship.ship(
        run_dir,
        "best",
        [("pubeval", 2, 0)],
        out,
        echo=lambda _: None,
        weights=run_dir / "best.pt",
        race=race_file,
    )
    assert (out / "tdgammon-tiny-race.pt").is_file()
    assert load_model(path)[2]["race_model"] == "tdgammon-tiny-race.pt"
    assert load_evaluator(path).race is not None
    assert "| Phase nets | races" in (out / "tdgammon-tiny.md").read_text()


def test_ship_a_set_with_a_one_sided_race_file(tmp_path, tiny_config):
    from tdgammon.engine.evaluation.evaluator import load_evaluator
    from tdgammon.engine.evaluation.one_sided_race import OneSidedRaceEvaluator
    from tdgammon.models.race_distributions import build_race_net, load_race_net, save_race_net

    run_dir = _tiny_run(tmp_path, tiny_config, "tiny", "standard")
    race_file = tmp_path / "race.pt"
    save_race_net(race_file, build_race_net(8, seed=3), {"variant": "standard", "sides": 7})
    out = tmp_path / "models"
    out.mkdir()
    path = ship.ship(run_dir, "best", [("pubeval", 2, 0)], out, echo=lambda _: None, race=race_file)
    shipped = out / "tdgammon-tiny-race.pt"
    assert load_race_net(shipped)[1]["sides"] == 7
    assert load_model(path)[2]["race_model"] == shipped.name
    assert isinstance(load_evaluator(path).race, OneSidedRaceEvaluator)
    assert "one-sided race distributions, 8 hidden" in (out / "tdgammon-tiny.md").read_text()
