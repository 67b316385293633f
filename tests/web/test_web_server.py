"""The web server without a browser (FastAPI's TestClient): whole games over a seat's websocket
with every message checked against the hidden hands, malformed and out-of-turn messages, the turn
timer's automatic move, a closed tab, the lobby's checks and the replay endpoints."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]'")
from fastapi.testclient import TestClient  # noqa: E402

from domino_env.evaluation import GameSetup, evaluate  # noqa: E402
from domino_env.frontends.web.protocol import ProtocolError, parse_client_message  # noqa: E402
from domino_env.frontends.web.server import create_app  # noqa: E402
from domino_env.frontends.web.server import main as server_main  # noqa: E402
from domino_env.games import get_game  # noqa: E402
from domino_env.rules.texas42 import Texas42Game  # noqa: E402
from domino_env.rules.tiles import iter_bits  # noqa: E402

PLAYTHROUGHS = Path(__file__).resolve().parents[1] / "playthroughs"


@pytest.fixture
def client():
    with TestClient(create_app(bot_delay=0.0, away_seconds=0.2)) as test_client:
        yield test_client


def open_table(client: TestClient, **request: Any) -> dict[str, Any]:
    response = client.post("/api/tables", json=request)
    assert response.status_code == 200, response.text
    return response.json()


def socket_path(created: dict[str, Any], person: int = 0) -> str:
    return "/ws" + created["people"][person]["url"].removeprefix("/table").replace("?table=", "/", 1).replace(
        "&seat=", "?seat=", 1
    )


def play_through(client: TestClient, created: dict[str, Any], silent: bool = False) -> list[dict[str, Any]]:
    """Every message the one person's page receives until the game ends; the person plays the first
    legal move once per state (or nothing, ``silent``). An error message fails the test."""
    received, answered = [], set()
    with client.websocket_connect(socket_path(created)) as page:
        for _ in range(5000):
            message = page.receive_json()
            assert message["type"] == "state", message
            received.append(message)
            if message["over"]:
                return received
            number = message["move_number"]
            if not silent and message["current_player"] == message["seat"] and number not in answered:
                answered.add(number)
                page.send_text(
                    json.dumps(
                        {"type": "move", "action": message["legal"][0]["action"], "move_number": number}
                    )
                )
    raise AssertionError("the game did not end")


def record_of(client: TestClient, table: str) -> dict[str, Any]:
    response = client.get(f"/api/tables/{table}/record")
    assert response.status_code == 200, response.text
    return response.json()


# ----- the oracle: what a seat may know at each move number --------------------------------------------
def knowable(record: dict[str, Any], seat: int) -> tuple[list[tuple[set[int], set[int]]], Any]:
    """Per move number: (the seat's own hand, every tile it may see), replayed from the record
    independently of the server: its hand, the tiles played this round or hand, and the tiles
    played in the round or hand just ended (their plays were public when made)."""
    engine = get_game(record["game"]).engine.from_json(record["start"])
    texas = isinstance(engine, Texas42Game)
    previous: set[int] = set()

    def played() -> set[int]:
        if texas:
            return {t for trick in (*engine.tricks, engine.trick) for _s, t in trick}
        return {t for t, _s, _side in engine.line}

    def snapshot() -> tuple[set[int], set[int]]:
        own = set(iter_bits(engine.hands[seat]))
        return own, own | played() | previous

    states = [snapshot()]
    for action in record["actions"]:
        before = played()
        deal = engine.deals if texas else len(engine.results)
        engine.apply(action)
        if texas and engine.deals != deal:
            previous = before | ({action - engine.variant.play} if action >= engine.variant.play else set())
        if not texas and len(engine.results) != deal and not engine.is_terminal:
            previous = before | ({action >> 1} if action < engine.draw_action else set())
        states.append(snapshot())
    names = engine.variant.names if texas else [engine.tiles.name(t) for t in range(engine.tiles.num_tiles)]
    return states, names


def tiles_in(message: Any) -> list[int]:
    """Every tile object ({"id", "a", "b", "name"}) anywhere in a message."""
    if isinstance(message, dict):
        found = [message["id"]] if {"id", "a", "b", "name"} <= set(message) else []
        return found + [t for value in message.values() for t in tiles_in(value)]
    if isinstance(message, list):
        return [t for value in message for t in tiles_in(value)]
    return []


def check_no_leak(messages: list[dict[str, Any]], record: dict[str, Any]) -> None:
    seat = messages[0]["seat"]
    states, names = knowable(record, seat)
    for message in messages:
        own, visible = states[message["move_number"]]
        assert {t["id"] for t in message["hand"]} == own
        assert "hands" not in message
        assert set(tiles_in(message)) <= visible, f"move {message['move_number']}: hidden tile sent"
        text = json.dumps(message)
        hidden = [names[t] for t in range(len(names)) if t not in visible]
        assert not [n for n in hidden if n in text], f"move {message['move_number']}: a hidden tile's name"


# ----- whole games, hidden information -------------------------------------------------------------------
@pytest.mark.parametrize(
    "request_",
    [
        {"game": "block", "seats": ["person", "greedy"], "seed": 1},  # a match to 100: several rounds
        {
            "game": "draw",
            "seats": ["greedy", "person", "random"],
            "preset": "boardpan",
            "turn_seconds": 0,
            "one_round": True,
            "seed": 2,
        },
        {
            "game": "block",
            "seats": ["random", "greedy", "person", "greedy"],
            "teams": True,
            "preset": "boardpan",
            "turn_seconds": 0,
            "target": 40,
            "seed": 3,
        },
        {"game": "texas42", "seats": ["heuristic", "person", "heuristic", "random"], "seed": 4},
        {
            "game": "texas42",
            "seats": ["person", "heuristic", "random", "heuristic"],
            "options": ["nello=low", "plunge=true", "sevens=true", "forced_bid=true"],
            "target": 3,
            "seed": 5,
        },
    ],
    ids=["block-2p-match", "draw-3p-boardpan", "block-teams", "texas42-game", "texas42-variants"],
)
def test_every_message_holds_only_what_the_seat_may_know(client, request_):
    created = open_table(client, **request_)
    messages = play_through(client, created)
    record = record_of(client, created["table"])
    assert messages[-1]["move_number"] == len(record["actions"])
    check_no_leak(messages, record)
    table = client.app.state.tables[created["table"]]
    final = messages[-1]
    if final["game"] == "texas42":
        assert final["marks"] == table.engine.marks
    else:
        assert final["scores"] == table.engine.scores
        assert len(final["results"]) == len(table.engine.results)


def test_malformed_and_out_of_turn_messages_get_an_error_and_change_nothing():
    with TestClient(create_app(bot_delay=0.0)) as client:
        created = open_table(client, game="block", seats=["person", "person"], seed=5)
        states = {}
        bad = [
            "not json",
            "[1, 2]",
            json.dumps({"type": "resign"}),
            json.dumps({"type": "move"}),
            json.dumps({"type": "move", "action": "play 6-6 left", "move_number": 0}),
            json.dumps({"type": "move", "action": True, "move_number": 0}),
            json.dumps({"type": "move", "action": 0, "move_number": 0, "extra": 1}),
            json.dumps({"type": "move", "action": 10**6, "move_number": 0}),
            json.dumps({"type": "move", "action": -1, "move_number": 0}),
            json.dumps({"type": "move", "action": 0, "move_number": 7}),  # answers a state not yet reached
            "x" * 5000,
        ]
        with (
            client.websocket_connect(socket_path(created, 0)) as page0,
            client.websocket_connect(socket_path(created, 1)) as page1,
        ):
            pages = {0: page0, 1: page1}
            for seat, page in pages.items():
                states[seat] = page.receive_json()
            to_act = states[0]["current_player"]
            waiting = 1 - to_act
            legal = client.app.state.tables[created["table"]].engine.legal_actions()
            errors = []
            for text in bad:
                pages[to_act].send_text(text)
                errors.append(next_error(pages[to_act]))
            pages[to_act].send_bytes(b"\x00\x01")
            errors.append(next_error(pages[to_act]))
            pages[waiting].send_text(json.dumps({"type": "move", "action": legal[0], "move_number": 0}))
            errors.append(next_error(pages[waiting]))
            assert "not JSON" in errors[0] and "answers state 7" in errors[9] and "binary" in errors[-2]
            assert "not your turn" in errors[-1]
            assert all(errors), errors
            assert client.get("/api/tables").json()[0]["moves"] == 0  # nothing changed
            pages[to_act].send_text(json.dumps({"type": "move", "action": legal[0], "move_number": 0}))
            while (message := pages[to_act].receive_json())["move_number"] == 0:
                assert message["type"] == "state"
            assert client.get("/api/tables").json()[0]["moves"] == 1


def next_error(page: Any) -> str:
    """The text of the next error message (state messages before it are skipped)."""
    for _ in range(20):
        message = page.receive_json()
        if message["type"] == "error":
            return message["message"]
    raise AssertionError("no error message")


def test_parse_client_message_names_what_is_allowed():
    assert parse_client_message('{"type": "ping"}') == {"type": "ping"}
    move = {"type": "move", "action": 3, "move_number": 0}
    assert parse_client_message(json.dumps(move)) == move
    for text, words in [
        ("{", "not JSON"),
        ('{"type": 1}', "'type' is one of"),
        (b"{}", "binary"),
        ('{"type": "ping", "x": 1}', "exactly the fields"),
    ]:
        with pytest.raises(ProtocolError, match=words):
            parse_client_message(text)


def test_a_wrong_token_or_table_is_refused(client):
    created = open_table(client, game="block", seats=["person", "greedy"])
    for path in (socket_path(created).replace("token=", "token=x"), "/ws/nosuch?seat=0&token=abc"):
        with client.websocket_connect(path) as page:
            assert page.receive_json()["type"] == "error"


# ----- the timer and absent people ------------------------------------------------------------------------
def test_the_timer_makes_the_automatic_move_of_rules_2_5(client):
    created = open_table(
        client,
        game="block",
        seats=["person", "greedy"],
        preset="boardpan",
        turn_seconds=0.05,
        one_round=True,
        seed=6,
    )
    messages = play_through(client, created, silent=True)
    record = record_of(client, created["table"])
    engine = get_game("dominoes").engine.from_json(record["start"])
    person_moves = 0
    for action in record["actions"]:
        if engine.current_player == 0:
            assert action == engine.auto_move()
            person_moves += 1
        engine.apply(action)
    assert person_moves > 0 and engine.is_terminal
    assert any(m["last_event"] and m["last_event"]["how"] == "timer" for m in messages)
    assert any(m["timer"] and m["timer"]["seconds"] == 0.05 for m in messages)


@pytest.mark.parametrize("game, bot", [("block", "greedy"), ("texas42", "heuristic")])
def test_a_closed_tab_lets_the_stand_in_finish_the_game(client, game, bot):
    seats = ["person", bot] if game == "block" else ["person", bot, bot, bot]
    created = open_table(client, game=game, seats=seats, one_round=True, seed=7)
    with client.websocket_connect(socket_path(created)) as page:
        assert page.receive_json()["type"] == "state"
    deadline = time.monotonic() + 30
    while not client.get("/api/tables").json()[0]["over"]:
        assert time.monotonic() < deadline, "the table did not finish without its person"
        time.sleep(0.05)
    get_game(record_of(client, created["table"])["game"])  # the record is complete and readable


# ----- the lobby ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "request_, words",
    [
        ({"game": "chess", "seats": ["person", "greedy"]}, "game must be one of"),
        ({"game": "block", "seats": ["person", "nosuch"]}, "unknown bot 'nosuch'"),
        ({"game": "block", "seats": ["greedy", "greedy"]}, "people sit on distinct seats"),
        (
            {"game": "block", "seats": ["person", "greedy", "greedy"], "teams": True},
            "team game needs all four",
        ),
        ({"game": "block", "seats": ["person", "greedy"], "options": ["max_pips=99"]}, "max_pips"),
        ({"game": "block", "seats": ["person", "greedy"], "options": ["nonsense"]}, "KEY=VALUE"),
        (
            {
                "game": "texas42",
                "seats": ["person", "heuristic", "heuristic", "heuristic"],
                "turn_seconds": 30,
            },
            "no automatic move",
        ),
    ],
)
def test_the_lobby_refuses_bad_tables_saying_why(client, request_, words):
    response = client.post("/api/tables", json=request_)
    assert response.status_code == 400 and words in response.json()["detail"], response.text
    assert client.get("/api/tables").json() == []


def test_the_catalogue_lists_every_registered_bot(client):
    catalogue = client.get("/api/catalogue").json()
    games = {g["name"]: g for g in catalogue["games"]}
    assert set(games) == {"block", "draw", "texas42"}
    assert "checkpoint" in games["block"]["bots"] and "heuristic" in games["texas42"]["bots"]
    assert client.get("/").status_code == 200 and "lobby" in client.get("/").text
    assert client.get("/static/common.js").status_code == 200


# ----- replays -----------------------------------------------------------------------------------------
def test_a_finished_table_replays_with_every_hand(client):
    created = open_table(client, game="draw", seats=["person", "greedy"], one_round=True, seed=8)
    assert client.get(f"/api/tables/{created['table']}/record").status_code in (200, 409)
    messages = play_through(client, created)
    record = record_of(client, created["table"])
    frames = client.post("/api/replay", json={"record": record}).json()["frames"]
    assert len(frames) == len(record["actions"]) + 1
    assert frames[-1]["scores"] == messages[-1]["scores"]
    engine = get_game("dominoes").engine.from_json(record["start"])
    for frame, action in zip(frames[1:], record["actions"], strict=True):
        assert frame["move"]["text"] == engine.action_to_text(action)
        engine.apply(action)
        assert [[t["id"] for t in h] for h in frame["hands"]] == [list(iter_bits(h)) for h in engine.hands]


def test_a_table_in_play_keeps_its_record_closed():
    with TestClient(create_app(bot_delay=0.0)) as client:
        created = open_table(client, game="block", seats=["person", "greedy"])
        assert client.get(f"/api/tables/{created['table']}/record").status_code == 409
        assert client.get("/api/tables/nosuch/record").status_code == 404


def test_bad_records_are_refused_naming_the_problem(client):
    created = open_table(client, game="block", seats=["person", "greedy"], one_round=True, seed=9)
    play_through(client, created)
    record = record_of(client, created["table"])
    cases = [
        ({**record, "actions": [*record["actions"], 0]}, "move"),
        ({**record, "actions": [record["actions"][1], *record["actions"]]}, "move 0"),
        ({**record, "format": "other"}, "not a game record"),
        ({**record, "version": 9}, "version"),
        ({**record, "seats": ["one"]}, "seats"),
        ({**record, "start": '{"format": "domino-env/line", "version": 1}'}, "malformed"),
        ({**record, "start": {"format": "domino-env/line"}}, "JSON text"),
    ]
    for bad, words in cases:
        response = client.post("/api/replay", json={"record": bad})
        assert response.status_code == 400 and words in response.json()["detail"], (words, response.text)
    assert client.post("/api/replay", json={"what": 1}).status_code == 400


def test_a_playthrough_replays_to_its_recorded_end(client):
    text = (PLAYTHROUGHS / "block_2p_pagat.txt").read_text()
    frames = client.post("/api/replay", json={"playthrough": text}).json()["frames"]
    assert len(frames) == text.count("\naction: ") + 1
    assert frames[-1]["scores"] == [4, 0]  # the file's final "scores [4, 0]"
    assert client.post("/api/replay", json={"playthrough": "hello"}).status_code == 400


def test_an_evaluation_record_is_played_again_and_must_match(client):
    results = json.loads(
        evaluate(GameSetup("dominoes", {"variant": "block"}), ["greedy", "random"], 2, seed=3).to_json()
    )
    for index, saved in enumerate(results["records"]):
        answer = client.post("/api/replay", json={"evaluation": results, "index": index}).json()
        assert answer["frames"][-1]["scores"] == [int(p) for p in saved["points"]]
        assert answer["record"]["seats"] == [["greedy", "random"][a] for a in saved["lineup"]]
    results["records"][0]["points"] = [99.0, 0.0]
    response = client.post("/api/replay", json={"evaluation": results, "index": 0})
    assert response.status_code == 400 and "not the recorded" in response.json()["detail"]
    assert client.post("/api/replay", json={"evaluation": results, "index": 99}).status_code == 400


@pytest.mark.parametrize("argv", [["--bot-delay", "-1"], ["--away-seconds", "0"], ["--port", "http"]])
def test_serve_refuses_bad_arguments_before_listening(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        server_main(argv)
    assert exit_info.value.code == 2 and "error:" in capsys.readouterr().err
