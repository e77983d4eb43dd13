"""``tdgammon serve`` and bad input: a misspelt key, a setting past what the formats
record, a rollout past its bound or a depth outside the server's gets a 4xx whose
message names what is wrong, never a default, a misleading error or hours of work;
and the game it was sent to stays as it was.

Asked in process through FastAPI's TestClient. Skipped without the ``web`` extra.
"""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette would rather test through httpx2; httpx works
    warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
    from fastapi.testclient import TestClient

from tdgammon.engine.interfaces.cli_play import MAX_CUBE  # noqa: E402
from tdgammon.engine.interfaces.serve_app import ServeSettings, create_app  # noqa: E402

OPENING = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def client():
    app = create_app(ServeSettings(plies=1, max_games=16, threads=1))
    with TestClient(app, raise_server_exceptions=False) as session:
        yield session


def new_game(client, **options) -> dict:
    answer = client.post("/api/games", json=options)
    assert answer.status_code == 200, answer.text
    return answer.json()


# ---------------------------------------------------------------- game actions


@pytest.mark.parametrize(
    "body, message",
    [
        # a misspelt "kind": once a single game resigned, whatever was meant
        ({"action": "resign", "knd": "gammon"}, "unknown key 'knd' (known: action, kind, version)"),
        (
            {"action": "move", "move": "13/7", "dice": [6, 2]},
            "unknown key 'dice' (known: action, move, version)",
        ),
        ({"action": "roll", "move": "13/7 13/11"}, "unknown key 'move' (known: action, version)"),
        ({"action": "next", "kind": "gammon"}, "unknown key 'kind' (known: action, version)"),
    ],
)
def test_an_unknown_key_in_an_action_is_refused(client, body, message):
    game = new_game(client, seed=2)
    assert game["actions"] == ["move", "resign"]
    answer = client.post(f"/api/games/{game['id']}/actions", json=body)
    assert answer.status_code == 400
    assert answer.json() == {"error": message}
    assert client.get(f"/api/games/{game['id']}").json() == game


def test_an_action_with_its_own_key_is_played(client):
    game = new_game(client, seed=2)
    answer = client.post(
        f"/api/games/{game['id']}/actions", json={"action": "resign", "kind": "gammon"}
    )
    assert answer.status_code == 200, answer.text
    assert "you: offers to resign for 2 x the cube" in answer.json()["log"]


# ---------------------------------------------------------------- game options


def test_a_cube_limit_past_what_an_xgid_records_is_refused(client):
    answer = client.post("/api/games", json={"cube_limit": 2 * MAX_CUBE})
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "cube_limit must be at most 32768 (the highest cube an XGID records), got 65536"
    }


def test_the_highest_cube_limit_keeps_the_ids_and_the_analysis(client):
    game = new_game(client, seed=1, cube_limit=MAX_CUBE)
    assert game["position"] is not None and game["position"]["xgid"].endswith(":15")
    assert client.get(f"/api/games/{game['id']}/analysis", params={"plies": 0}).status_code == 200


def test_a_seed_outside_the_command_lines_range_is_refused(client):
    answer = client.post("/api/games", json={"seed": 2**63})
    assert answer.status_code == 400
    assert answer.json() == {"error": f"seed must be 0-{2**63 - 1} on this server, got {2**63}"}
    assert new_game(client, seed=2**63 - 1)["id"]


@pytest.mark.parametrize("limit, message", [(0, "got 0"), (3, "got 3")])
def test_a_cube_limit_that_is_no_power_of_two_is_still_the_rules_error(client, limit, message):
    answer = client.post("/api/games", json={"cube_limit": limit})
    assert answer.status_code == 409
    assert answer.json() == {"error": f"the cube limit must be a power of two, {message}"}


# ---------------------------------------------------------------- analysis bounds


def test_a_rollout_of_every_play_is_refused(client):
    # "top": null is every play of the roll: 42 of 1-1 here, 42 x 1296 games
    body = {"position": OPENING, "dice": [1, 1], "top": None, "trials": 1296}
    answer = client.post("/api/rollout", json=body)
    assert answer.status_code == 400
    assert answer.json() == {
        "error": "top must be a whole number on this server, got null (every play of the "
        "roll): a rollout here plays at most 1296 games"
    }


@pytest.mark.parametrize("command", ["eval", "hint", "cube"])
def test_a_negative_depth_is_told_the_servers_bounds(client, command):
    body = {"position": OPENING, "dice": [5, 2], "plies": -1}
    answer = client.post(f"/api/{command}", json=body)
    assert answer.status_code == 400
    assert answer.json() == {"error": "plies must be 0-1 on this server, got -1"}


def test_a_rollout_at_a_negative_depth_is_told_it_plays_at_0_ply(client):
    answer = client.post("/api/rollout", json={"position": OPENING, "plies": -1})
    assert answer.status_code == 400
    assert answer.json() == {"error": "rollouts on this server play at 0-ply: plies must be 0"}
