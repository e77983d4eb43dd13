"""``tdgammon serve`` and the versions of a game: an action sent for a state the game
has moved on from (a double click, a retried request, a second tab) is refused with
409 and nothing is applied, never played on the next turn or made the answer to
another cube decision; an action without a version is applied as before versions.

The app runs on uvicorn in a thread (``test_serve.running_server``) and is asked
through httpx, as a client would, two requests at once where that is the point.
Skipped without the ``web`` extra.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

from test_serve import BOT_DOUBLES, running_server  # noqa: E402

from tdgammon.engine.interfaces.serve_app import ServeSettings, create_app  # noqa: E402

SEEDS = 100
"""Seeds tried for a game whose first play is legal again at the person's next turn."""


@pytest.fixture(scope="module")
def client():
    app = create_app(ServeSettings(plies=0, max_games=64, threads=2))
    with running_server(app) as base, httpx.Client(base_url=base, timeout=300) as session:
        yield session


def new_game(client, **options) -> dict:
    answer = client.post("/api/games", json=options)
    assert answer.status_code == 200, answer.text
    return answer.json()


def send(client, game: dict, body: dict) -> httpx.Response:
    return client.post(f"/api/games/{game['id']}/actions", json=body)


def reloaded(client, game: dict) -> dict:
    return client.get(f"/api/games/{game['id']}").json()


def stale_message(game: dict, sent: int, current: int) -> str:
    return (
        f"this action answers version {sent} of the game, which is now at version {current}: "
        f"nothing was applied; reload the game state (GET /api/games/{game['id']}) and decide "
        "again"
    )


@pytest.fixture(scope="module")
def repeatable(client) -> tuple[int, str]:
    """A seed of a cubeless game against the 0-ply bot whose person's first play
    (the first legal one) is legal again at his next turn, and that play: sent twice,
    it could be played twice."""
    for seed in range(SEEDS):
        game = new_game(client, seed=seed, cubeless=True, plies=0)
        if "move" not in game["actions"]:
            continue
        move = game["legal_moves"][0]["move"]
        after = send(client, game, {"action": "move", "move": move}).json()
        if move in [play["move"] for play in after["legal_moves"]]:
            return seed, move
    pytest.fail(f"no seed below {SEEDS} repeats the person's first play")


def bot_raccoons(client) -> tuple[dict, dict]:
    """A money game with beavers and raccoons where the bot doubles (version 0) and,
    once the person beavers, raccoons (version 1): both states."""
    doubled = new_game(client, position=BOT_DOUBLES, beavers=True, raccoons=True, plies=0)
    assert doubled["version"] == 0 and doubled["actions"] == ["take", "pass", "beaver"]
    raccooned = send(client, doubled, {"action": "beaver", "version": 0}).json()
    assert raccooned["version"] == 1 and raccooned["log"][-1] == "tdgammon: raccoons to 8"
    assert raccooned["actions"] == ["take", "pass"]
    return doubled, raccooned


# ---------------------------------------------------------------- the version of a state


def test_a_new_game_is_at_version_0_and_each_applied_action_adds_1(client):
    game = new_game(client, seed=2)
    assert game["version"] == 0 and reloaded(client, game)["version"] == 0
    move = {"action": "move", "move": game["legal_moves"][0]["move"]}
    after = send(client, game, {**move, "version": 0})
    assert after.status_code == 200, after.text
    assert after.json()["version"] == 1


def test_an_action_the_rules_refuse_keeps_the_version(client):
    game = new_game(client, seed=2)
    refused = send(client, game, {"action": "move", "move": "24/1", "version": 0})
    assert refused.status_code == 409 and "illegal play" in refused.json()["error"]
    assert reloaded(client, game) == game
    played = send(client, game, {"action": "resign", "kind": "gammon", "version": 0})
    assert played.status_code == 200 and played.json()["version"] == 1


def test_the_version_survives_reloading_the_game_from_the_store(client):
    game = new_game(client, seed=2)
    move = {"action": "move", "move": game["legal_moves"][0]["move"], "version": 0}
    after = send(client, game, move).json()
    again = reloaded(client, after)
    assert again == after and again["version"] == 1
    next_action = {"action": again["actions"][0], "version": again["version"]}
    if next_action["action"] == "move":
        next_action["move"] = again["legal_moves"][0]["move"]
    answer = send(client, again, next_action)
    assert answer.status_code == 200 and answer.json()["version"] == 2, answer.text


# ---------------------------------------------------------------- stale actions


def test_a_move_sent_twice_is_played_once(client, repeatable):
    seed, move = repeatable
    game = new_game(client, seed=seed, cubeless=True, plies=0)
    body = {"action": "move", "move": move, "version": 0}
    first = send(client, game, body)
    assert first.status_code == 200, first.text
    assert move in [play["move"] for play in first.json()["legal_moves"]]
    second = send(client, game, body)
    assert second.status_code == 409
    assert second.json() == {"error": stale_message(game, 0, 1), "version": 1}
    assert reloaded(client, game) == first.json()


def test_a_move_sent_twice_at_once_is_played_once(client, repeatable):
    seed, move = repeatable
    game = new_game(client, seed=seed, cubeless=True, plies=0)
    body = {"action": "move", "move": move, "version": 0}
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: send(client, game, body), range(2)))
    assert sorted(answer.status_code for answer in answers) == [200, 409]
    played = next(answer.json() for answer in answers if answer.status_code == 200)
    assert reloaded(client, game) == played and played["version"] == 1


def test_a_stale_cube_answer_is_refused(client):
    """The take of the double to 2 (version 0), sent once the person has beavered and
    the bot raccooned to 8 (version 1), must not take the raccoon."""
    doubled, raccooned = bot_raccoons(client)
    answer = send(client, doubled, {"action": "take", "version": 0})
    assert answer.status_code == 409
    assert answer.json() == {"error": stale_message(doubled, 0, 1), "version": 1}
    assert reloaded(client, doubled) == raccooned
    taken = send(client, raccooned, {"action": "take", "version": 1})
    assert taken.status_code == 200, taken.text
    assert taken.json()["version"] == 2 and taken.json()["cube"]["value"] == 8


def test_a_version_from_the_future_is_refused(client):
    game = new_game(client, seed=2)
    answer = send(client, game, {"action": "resign", "version": 10**30})
    assert answer.status_code == 409
    assert answer.json() == {"error": stale_message(game, 10**30, 0), "version": 0}
    assert reloaded(client, game) == game


# ---------------------------------------------------------------- no version (optional)


def test_an_action_without_a_version_applies_to_the_game_as_it_is(client, repeatable):
    """Backward compatible, and why the page always sends one: the same move sent
    twice without a version is played at two turns."""
    seed, move = repeatable
    game = new_game(client, seed=seed, cubeless=True, plies=0)
    for version in (1, 2):
        answer = send(client, game, {"action": "move", "move": move})
        assert answer.status_code == 200 and answer.json()["version"] == version, answer.text


def test_a_cube_answer_without_a_version_answers_the_cube_as_it_is(client):
    doubled, _ = bot_raccoons(client)
    taken = send(client, doubled, {"action": "take"})
    assert taken.status_code == 200, taken.text
    assert taken.json()["cube"]["value"] == 8 and taken.json()["version"] == 2


# ---------------------------------------------------------------- bad versions


@pytest.mark.parametrize(
    "version, shown",
    [
        (True, "true"),
        (0.0, "0.0"),
        (1.5, "1.5"),
        ("0", '"0"'),
        (-1, "-1"),
        (None, "null"),
        ([0], "[0]"),
        ("x" * 100, '"' + "x" * 39),
    ],
)
def test_a_version_that_is_no_whole_number_from_0_is_refused(client, version, shown):
    game = new_game(client, seed=2)
    answer = send(client, game, {"action": "resign", "version": version})
    assert answer.status_code == 400
    assert answer.json() == {
        "error": '"version" must be a whole number, 0 or more (the "version" of the state '
        f"the action answers), got {shown}"
    }
    assert reloaded(client, game) == game


def test_a_misspelt_version_is_an_unknown_key(client):
    game = new_game(client, seed=2)
    answer = send(client, game, {"action": "resign", "verison": 0})
    assert answer.status_code == 400
    assert answer.json() == {"error": "unknown key 'verison' (known: action, kind, version)"}
    assert reloaded(client, game) == game
