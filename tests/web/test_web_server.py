"""The web server without a browser (FastAPI's TestClient): whole games over a seat's websocket
with every message checked against the hidden hands, malformed and out-of-turn messages, the turn
timer's automatic move, a closed tab, the lobby's checks and the replay endpoints."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]'")
from fastapi.testclient import TestClient  # noqa: E402

from domino_env.evaluation import GameSetup, evaluate  # noqa: E402
from domino_env.frontends.terminal import build_setup  # noqa: E402
from domino_env.frontends.web.protocol import ProtocolError, parse_client_message  # noqa: E402
from domino_env.frontends.web.server import create_app  # noqa: E402
from domino_env.frontends.web.server import main as server_main  # noqa: E402
from domino_env.frontends.web.store import Store  # noqa: E402
from domino_env.games import get_game  # noqa: E402
from domino_env.rules.line import LineGame  # noqa: E402
from domino_env.rules.texas42 import PLAY_PHASE, Texas42Game  # noqa: E402
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


def first_legal(message: dict[str, Any]) -> int:
    return message["legal"][0]["action"]


def play_through(
    client: TestClient,
    created: dict[str, Any],
    silent: bool = False,
    choose: Callable[[dict[str, Any]], int] = first_legal,
) -> list[dict[str, Any]]:
    """Every message the one person's page receives until the game ends; the person plays the move
    ``choose`` picks from the state (the first legal one unless told) once per state (or nothing,
    ``silent``). An error message fails the test."""
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
                page.send_text(json.dumps({"type": "move", "action": choose(message), "move_number": number}))
    raise AssertionError("the game did not end")


def record_of(client: TestClient, table: str) -> dict[str, Any]:
    response = client.get(f"/api/tables/{table}/record")
    assert response.status_code == 200, response.text
    return response.json()


# ----- the oracle: what a seat may know at each move number --------------------------------------------
def knowable(record: dict[str, Any], seat: int) -> tuple[list[tuple[set[int], set[int]]], Any]:
    """Per move number: (the seat's own hand, every tile it may see), replayed from the record
    independently of the server: its hand (and, as Texas 88's bid winner, its own discards), the tiles
    played this round or hand, and of the round or hand just ended its plays (public when made) and
    every hand left at its end (turned up to count, docs/web.md); never a stock, out-of-play or kitty
    tile, nor another seat's discard."""
    rules = get_game(record["game"])
    engine = rules.engine.from_json(record["start"])
    texas = isinstance(engine, Texas42Game)
    previous: set[int] = set()

    def played() -> set[int]:
        if texas:
            return {t for trick in (*engine.tricks, engine.trick) for _s, t in trick}
        if isinstance(engine, LineGame):
            return {t for t, _s, _side in engine.line}
        return set(iter_bits(rules.table_mask(engine)))  # the Fives layout, Mexican Train's hub and trains

    def snapshot() -> tuple[set[int], set[int]]:
        own = set(iter_bits(engine.hands[seat]))
        discarded = set(engine.discards) if texas and engine.bidder == seat else set()
        return own, own | discarded | played() | previous

    states = [snapshot()]
    for action in record["actions"]:
        before = played() | {t for hand in engine.hands for t in iter_bits(hand)}
        ended = engine.hands_scored if texas else len(engine.results)
        engine.apply(action)
        if (engine.hands_scored if texas else len(engine.results)) != ended:
            previous = before
        states.append(snapshot())
    return states, get_game(record["game"]).web_messages().tile_table(engine.config).names


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
        # a name as a whole word: Texas 88's second set is named "1-0'", which holds "1-0"
        named = [n for n in hidden if re.search(rf"(?<![\d-]){re.escape(n)}(?![\d'])", text)]
        assert not named, f"move {message['move_number']}: a hidden tile's name"


def check_round_ends(messages: list[dict[str, Any]], record: dict[str, Any]) -> None:
    """Every page gets the round or hand just ended, the last one too: every hand left (a line
    game's pips are its result's) and a 42 hand's deciding trick, the last plays of that hand."""
    engine = get_game(record["game"]).engine.from_json(record["start"])
    texas = isinstance(engine, Texas42Game)
    plays: list[int] = []
    finished: dict[int, list[int]] = {}
    for action in record["actions"]:
        if texas and engine.phase == PLAY_PHASE:
            plays.append(action - engine.variant.play)
        ended = engine.hands_scored if texas else len(engine.results)
        engine.apply(action)
        if (engine.hands_scored if texas else len(engine.results)) != ended:
            finished[ended + 1], plays = plays, []
    assert messages[-1]["previous"] is not None, "the last round or hand is shown at the end"
    for message in messages:
        previous = message["previous"]
        if previous is None:
            continue
        if texas:
            tiles = [p["tile"]["id"] for p in previous["trick"]["plays"]]
            assert len(tiles) >= 3 and tiles == finished[previous["hand"]][-len(tiles) :]
        else:
            pips = [sum(t["a"] + t["b"] for t in hand) for hand in previous["hands"]]
            assert pips == previous["result"]["pips"]


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
        {"game": "texas42", "seats": ["random", "person", "random"], "target": 2, "seed": 6},
        {
            "game": "texas42",
            "preset": "texas88",
            "seats": ["random", "random", "person", "random", "random", "random"],
            "target": 2,
            "seed": 7,
        },
        {
            "game": "texas42",
            "preset": "n42pa",
            "seats": ["heuristic", "heuristic", "person", "random"],
            "seed": 8,
        },
        {
            "game": "texas42",
            "seats": ["person", "random", "random", "random"],
            "options": ["follow_me_doubles=own_suit", "nello=own_suit"],
            "one_round": True,
            "seed": 9,
        },
    ],
    ids=[
        "block-2p-match",
        "draw-3p-boardpan",
        "block-teams",
        "texas42-game",
        "texas42-variants",
        "texas42-3p",
        "texas88",
        "texas42-n42pa",
        "texas42-follow-me",
    ],
)
def test_every_message_holds_only_what_the_seat_may_know(client, request_):
    created = open_table(client, **request_)
    messages = play_through(client, created)
    record = record_of(client, created["table"])
    assert messages[-1]["move_number"] == len(record["actions"])
    check_no_leak(messages, record)
    check_round_ends(messages, record)
    table = client.app.state.tables[created["table"]]
    final = messages[-1]
    if final["game"] == "texas42":
        assert final["marks"] == table.engine.marks
    else:
        assert final["scores"] == table.engine.scores
        assert len(final["results"]) == len(table.engine.results)


def replayed(record: dict[str, Any]) -> list[Any]:
    """The engine at every move number of a record (copies)."""
    engine = get_game(record["game"]).engine.from_json(record["start"])
    states = [engine.clone()]
    for action in record["actions"]:
        engine.apply(action)
        states.append(engine.clone())
    return states


def check_legal_and_scores(messages: list[dict[str, Any]], states: list[Any]) -> None:
    """At every state of the seat's turn the legal moves offered (ids and texts) are the engine's
    (``states``: the engine at every move number); in every state the scores are the engine's."""
    seat = messages[0]["seat"]
    turns = 0
    for message in messages:
        state = states[message["move_number"]]
        assert message["scores"] == state.scores
        if message["current_player"] == seat and not message["over"]:
            turns += 1
            offered = {m["action"]: m["text"] for m in message["legal"]}
            assert offered == {a: state.action_to_text(a) for a in state.legal_actions()}
        else:
            assert message["legal"] == []
    assert turns > 0


@pytest.mark.parametrize(
    "request_",
    [
        {"game": "all_fives", "seats": ["person", "greedy"], "one_round": True, "seed": 21},
        {"game": "all_fives", "seats": ["greedy", "person"], "target": 100, "seed": 22},  # a short match
        {
            "game": "all_fives",
            "seats": ["greedy", "random", "person", "greedy"],
            "teams": True,
            "preset": "classic",
            "one_round": True,
            "seed": 23,
        },
        {"game": "all_fives", "seats": ["person", "random", "greedy"], "target": 50, "seed": 24},
        {"game": "fives_and_threes", "seats": ["person", "greedy"], "one_round": True, "seed": 25},
        {"game": "fives_and_threes", "seats": ["random", "person"], "target": 40, "seed": 26},
    ],
    ids=["all-fives-hand", "all-fives-match", "all-fives-teams", "all-fives-3p-match", "fives-threes-hand",
         "fives-threes-match"],
)
def test_fives_games_over_the_websocket(client, request_):
    """Whole hands and short matches of All Fives and Fives and Threes with bots: no message holds a
    tile the seat may not know (the other hands, the stock, the tiles drawn by others), every hand
    ended is shown with every hand left, the legal moves offered are the engine's at every turn, the
    scores, the count and the points of every play are the engine's, and the table replays."""
    created = open_table(client, **request_)
    messages = play_through(client, created)
    record = record_of(client, created["table"])
    assert record["game"] == "fives" and messages[-1]["move_number"] == len(record["actions"])
    check_no_leak(messages, record)
    check_round_ends(messages, record)
    states = replayed(record)
    check_legal_and_scores(messages, states)
    for message in messages:  # the count and the points of every play this hand
        state = states[message["move_number"]]
        assert message["count"] == state.count
        assert [e["points"] for e in message["log"]] == [p for _s, _a, p, _ends in state.history]
    engine = client.app.state.tables[created["table"]].engine
    final = messages[-1]
    assert final["variant"] == request_["game"] and final["scores"] == engine.scores
    assert [r["round_points"] for r in final["results"]] == [list(r.points) for r in engine.results]
    assert (len(engine.results) > 1) == ("target" in request_)  # a match: several hands
    assert final["previous"]["layout"]["centre"] is not None
    events = [m["last_event"] for m in messages if m["last_event"]]
    drawers = {e["seat"] for e in events if e["text"] == "draw"}
    if request_["game"] == "all_fives" and request_.get("one_round"):  # these deals make others draw
        assert drawers - {final["seat"]}, "another seat draws: its tile must stay hidden"
    frames = client.post("/api/replay", json={"record": record}).json()["frames"]
    assert len(frames) == len(record["actions"]) + 1 and frames[-1]["scores"] == engine.scores


@pytest.mark.parametrize(
    "request_",
    [
        {"game": "mexican_train", "seats": ["person"] + ["greedy"] * 3, "one_round": True, "seed": 31},
        {"game": "mexican_train", "seats": ["greedy"] * 3 + ["person"] + ["random"] * 4, "one_round": True,
         "seed": 32},
        {"game": "mexican_train", "seats": ["random", "person", "greedy"], "options": ["rounds=2"],
         "seed": 33},
        {"game": "mexican_train", "seats": ["person", "greedy", "random", "greedy"], "preset": "cardinal",
         "one_round": True, "seed": 34},
    ],
    ids=["4p-round", "8p-round", "3p-two-rounds", "4p-cardinal"],
)
def test_mexican_train_over_the_websocket(client, request_):
    """Mexican Train rounds with bots, up to eight seats: no message holds a tile the seat may not
    know (other hands, the boneyard, the tiles others draw), every round ended is shown with every
    hand left, the legal moves offered are the engine's at every turn, every log line names the
    trains from the seat that moved, the trains, markers and open doubles are the engine's, and the
    totals are the engine's."""
    created = open_table(client, **request_)
    messages = play_through(client, created)
    record = record_of(client, created["table"])
    assert record["game"] == "mexican_train" and messages[-1]["move_number"] == len(record["actions"])
    check_no_leak(messages, record)
    check_round_ends(messages, record)
    states = replayed(record)
    check_legal_and_scores(messages, states)
    for message in messages:
        state = states[message["move_number"]]
        assert [e["text"] for e in message["log"]] == [state.action_to_text(a, s) for s, a in state.history]
        assert [[t["id"] for t in train["tiles"]] for train in message["trains"]] == [
            [t for t, _s, _end in train] for train in state.trains
        ]
        assert [train["marked"] for train in message["trains"]] == [*state.marked, False]
        assert [(d["train"], d["value"]) for d in message["open_doubles"]] == list(state.open_doubles)
    engine = client.app.state.tables[created["table"]].engine
    final = messages[-1]
    assert len(final["seats"]) == len(request_["seats"]) and final["scores"] == engine.scores
    assert len(final["results"]) == len(engine.results) == (2 if "options" in request_ else 1)
    assert final["previous"]["trains"] and any(m["last_event"]["text"] == "draw" for m in messages[1:])
    assert any(train["marked"] for m in messages for train in m["trains"]), "a pass marks a train"
    frames = client.post("/api/replay", json={"record": record}).json()["frames"]
    assert len(frames) == len(record["actions"]) + 1 and frames[-1]["scores"] == engine.scores


def bid_high_then_first_legal(message: dict[str, Any]) -> int:
    """The person's choice: the highest bid offered (so the person wins the bid and takes Texas 88's
    kitty), else the first legal move."""
    return message["legal"][-1 if message["phase"] == "bid" else 0]["action"]


@pytest.mark.parametrize(
    ("preset", "players", "top_bid", "too_high"),
    [("standard", 3, "bid 43", "bid 44"), ("texas88", 6, "bid 86", "bid 88")],
    ids=["three-player", "texas88"],
)
def test_a_variant_hand_is_built_as_the_terminal_builds_it_and_played_over_the_api(
    client, preset, players, top_bid, too_high
):
    """Three-player 42 and Texas 88 tables come from the registry's table path (the terminal's
    ``build_setup``: the same deal, seats and names for the same seed). A hand with the person bidding
    high: every message has the variant's seats, bids and marks; the point bids run to the variant's
    top; in Texas 88 the person takes the kitty (eleven tiles), discards two (every page told
    "discard", never the tile) and declares; the marks are the engine's."""
    seats = ["person"] + ["heuristic"] * (players - 1)
    created = open_table(client, game="texas42", preset=preset, seats=seats, one_round=True, seed=12)
    table = client.app.state.tables[created["table"]]
    twin = build_setup("texas42", preset=preset, players=players, bots=["heuristic"], one_round=True, seed=12)
    assert table.setup.names == twin.names and table.start == twin.game.to_json()
    messages = play_through(client, created, choose=bid_high_then_first_legal)
    record = record_of(client, created["table"])
    check_no_leak(messages, record)
    check_round_ends(messages, record)
    for message in messages:
        assert message["num_players"] == len(message["seats"]) == len(message["bids"]) == players
        assert len(message["marks"]) == (3 if players == 3 else 2)
    mine = [m for m in messages if m["current_player"] == 0 and not m["over"]]
    offered = [move["text"] for move in mine[0]["legal"]]
    assert mine[0]["phase"] == "bid" and top_bid in offered and too_high not in offered
    final = messages[-1]
    assert final["over"] and final["marks"] == table.engine.marks and final["previous"]["result"]
    assert final["bids"][0] == offered[-1] and table.engine.bidder == 0  # the person won the bid
    discarding = [m for m in mine if m["phase"] == "discard"]
    if players == 6:
        assert len({m["move_number"] for m in discarding}) == 2 and len(discarding[0]["hand"]) == 11
        assert all(move["text"].startswith("discard ") for m in discarding for move in m["legal"])
        told = {m["move_number"]: m["last_event"]["text"] for m in messages if m["last_event"]}
        assert list(told.values()).count("discard") == 2  # the person's two, without their tiles
    else:
        assert not discarding and len(mine[0]["hand"]) == 9


def test_malformed_and_out_of_turn_messages_get_an_error_and_change_nothing():
    with TestClient(create_app(bot_delay=0.0)) as client:
        created = open_table(client, game="block", seats=["person", "person"])
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
def test_the_timer_makes_the_automatic_move_of_rules_2_5():
    with TestClient(create_app(bot_delay=0.0, turn_seconds_range=(0.01, 600))) as client:
        _timer_game(client)


def _timer_game(client: TestClient) -> None:
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


@pytest.mark.parametrize(
    "game, seats",
    [
        ("block", ["person", "greedy"]),
        ("texas42", ["person", "heuristic", "heuristic", "heuristic"]),
        ("texas42", ["person", "random", "random"]),  # three-player 42
    ],
)
def test_a_closed_tab_lets_the_stand_in_finish_the_game(client, game, seats):
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
        ({"game": "block", "seats": ["greedy", "greedy"]}, "at least one person"),
        ({"game": "texas42", "seats": ["person", "trained", "heuristic"]}, "needs a task here"),
        ({"game": "texas42", "seats": ["person"] + ["random"] * 4}, "seat three or four"),
        ({"game": "texas42", "preset": "texas88", "seats": ["person"] + ["random"] * 3}, "seat six"),
        (
            {
                "game": "texas42",
                "seats": ["person", "random", "random", "random"],
                "options": ["num_players=3"],
            },
            "the number of seats",
        ),
        (
            {"game": "block", "seats": ["person", "greedy", "greedy"], "teams": True},
            "team game needs all four",
        ),
        ({"game": "block", "seats": ["person", "greedy"], "options": ["max_pips=99"]}, "max_pips"),
        ({"game": "block", "seats": ["person", "trained"], "target": 77}, "needs a task here"),
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
    assert "--" not in response.json()["detail"] and "make_bot" not in response.json()["detail"], (
        "the lobby speaks in its own words, not the terminal's flags or Python"
    )
    assert client.get("/api/tables").json() == []


def test_the_catalogue_offers_the_bots_a_table_can_seat_and_boardpan_first(client):
    catalogue = client.get("/api/catalogue").json()
    games = {g["name"]: g for g in catalogue["games"]}
    forms = {(t["preset"], t["players"]): t for t in games["texas42"]["tables"]}
    assert set(forms) == {("standard", 4), ("n42pa", 4), ("standard", 3), ("texas88", 6)}
    for form in (("standard", 3), ("texas88", 6)):  # the scripted bots play every form of 42
        assert {"random", "heuristic", "search"} <= set(forms[form]["bots"])
        assert forms[form]["default_bot"] == "heuristic"
    assert {"heuristic", "search"} <= set(forms[("n42pa", 4)]["bots"])
    for option in ("nello=", "plunge=", "sevens=", "forced_bid="):
        assert any(o.startswith(option) for o in games["texas42"]["options"])
    assert set(games) == {"block", "draw", "texas42", "all_fives", "fives_and_threes", "mexican_train"}
    assert games["mexican_train"]["players"] == list(range(2, 9)) and not games["mexican_train"]["teams"]
    assert games["all_fives"]["presets"] == ["standard", "classic"]
    assert games["all_fives"]["default_target"] == 100 and games["fives_and_threes"]["default_target"] == 61
    assert "greedy" in games["fives_and_threes"]["bots"]
    assert "checkpoint" in games["block"]["bots"] and "heuristic" in games["texas42"]["bots"]
    for game in games.values():
        assert not {"user", "rllib", "openspiel"} & set(game["bots"])
    assert games["block"]["presets"][0] == "boardpan" and games["block"]["default_target"] == 100
    assert catalogue["turn_seconds_range"] == [5, 600]
    assert catalogue["checkpoint_folders"] == ["baselines (shipped)", "runs"]
    assert client.get("/").status_code == 200 and "lobby" in client.get("/").text
    assert client.get("/static/common.js").status_code == 200
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")
    for page in ("/", "/table", "/replay"):
        assert 'rel="icon"' in client.get(page).text


# ----- security --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        "user:factory=os:getcwd",
        "openspiel:bot=os:getcwd",
        "rllib:path=runs",
    ],
)
def test_bots_that_run_code_named_in_the_request_are_not_seated(client, spec):
    response = client.post("/api/tables", json={"game": "block", "seats": ["person", spec]})
    assert response.status_code == 400 and "cannot sit at a browser table" in response.json()["detail"]
    assert client.get("/api/tables").json() == []


def test_checkpoints_open_only_from_the_operators_folders(tmp_path):
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    shipped = Path(__file__).resolve().parents[2] / "domino_env" / "baselines" / "Block2p.pt"
    (allowed / "Block2p.pt").write_bytes(shipped.read_bytes())
    (outside / "secret.pt").write_bytes(shipped.read_bytes())
    (allowed / "junk.pt").write_text("not a checkpoint")
    (allowed / "link.pt").symlink_to(outside / "secret.pt")
    refused = [
        f"checkpoint:path={outside / 'secret.pt'}",  # a file outside, absolute
        "checkpoint:path=../outside/secret.pt",  # a file outside, relative to the folder
        "checkpoint:path=link.pt",  # a link inside to a file outside
        "checkpoint:path=nosuch.pt",
        "checkpoint:path=/etc/passwd",
        "checkpoint:path=.",  # the folder itself
        "checkpoint:path=/nonexistent/dir/x.pt",
        "search:network=/etc/passwd",
    ]
    with TestClient(create_app(bot_delay=0.0, checkpoint_folders=[allowed])) as client:
        details = set()
        for spec in refused:
            response = client.post("/api/tables", json={"game": "block", "seats": ["person", spec]})
            assert response.status_code == 400, (spec, response.text)
            details.add(response.json()["detail"])
        assert len(details) == 1, "every refused path gets the same message"
        (detail,) = details
        assert str(allowed) in detail and "checkpoint folders" in detail
        for words in ("No such file", "Is a directory", "Errno", "Permission", "exist"):
            assert words not in detail
        junk = client.post(
            "/api/tables", json={"game": "block", "seats": ["person", "checkpoint:path=junk.pt"]}
        )
        assert junk.status_code == 400 and "checkpoint:path=junk.pt" in junk.json()["detail"]
        assert str(tmp_path) not in junk.json()["detail"], "the loader's message names the file as given"
        request = {"game": "block", "seats": ["person", "checkpoint:path=Block2p.pt"], "one_round": True}
        assert client.post("/api/tables", json=request).status_code == 200


@pytest.mark.parametrize("seconds", [0.01, 4.9, 600.5, 1e9])
def test_the_turn_timer_is_bounded(client, seconds):
    response = client.post(
        "/api/tables", json={"game": "block", "seats": ["person", "greedy"], "turn_seconds": seconds}
    )
    assert response.status_code == 400 and "0 (off) or 5 to 600 seconds" in response.json()["detail"]


def test_a_timer_in_range_or_off_is_accepted(client):
    for seconds in (0, 5, 600):
        open_table(client, game="block", seats=["person", "greedy"], turn_seconds=seconds, one_round=True)


def test_a_game_without_a_browser_module_is_refused_naming_the_games_offered(client, monkeypatch):
    """A game added to the registry without ``web_module`` plays at the terminal only: the lobby
    says so in one line instead of failing inside the table (every shipped game has one now)."""
    import dataclasses

    from domino_env.frontends.web import server

    def without_browser(name: str) -> Any:
        record = get_game(name)
        return dataclasses.replace(record, web_module=None) if record.name == "fives" else record

    monkeypatch.setattr(server, "get_game", without_browser)
    response = client.post("/api/tables", json={"game": "all_fives", "seats": ["person", "greedy"]})
    assert response.status_code == 400, response.text
    assert "has no browser table yet" in response.json()["detail"]
    assert "block" in response.json()["detail"]  # the games it does offer


def test_a_seed_needs_its_creator_to_be_the_only_person(client):
    response = client.post("/api/tables", json={"game": "block", "seats": ["person", "person"], "seed": 3})
    assert response.status_code == 400 and "only person" in response.json()["detail"]
    open_table(client, game="block", seats=["person", "greedy"], seed=3)  # alone with bots: allowed


def test_an_open_hands_table_says_so_and_sends_every_hand(client):
    created = open_table(client, game="block", seats=["person", "greedy"], options=["open_hands=true"])
    with client.websocket_connect(socket_path(created)) as page:
        message = page.receive_json()
    assert message["open_hands"] is True
    assert [len(h) for h in message["hands"]] == message["hand_sizes"]
    closed = open_table(client, game="block", seats=["person", "greedy"])
    with client.websocket_connect(socket_path(closed)) as page:
        message = page.receive_json()
    assert message["open_hands"] is False and "hands" not in message


def test_serve_listens_on_loopback_unless_told(monkeypatch, tmp_path):
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # the default database goes there
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: calls.append(kwargs))
    assert server_main([]) == 0
    assert server_main(["--host", "0.0.0.0", "--checkpoint-dir", "."]) == 0
    assert [c["host"] for c in calls] == ["127.0.0.1", "0.0.0.0"]
    assert (tmp_path / "domino-env" / "tables.sqlite3").is_file()
    with pytest.raises(SystemExit):
        server_main(["--checkpoint-dir", "/nonexistent/folder"])


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


# ----- persistence -------------------------------------------------------------------------------------
def test_a_restarted_server_resumes_every_table_and_record(tmp_path):
    """Tables are written as they are played: after a restart a finished table's record is the same,
    and a table in play resumes at its last move with the same seat link and plays on to the end."""
    db = tmp_path / "tables.sqlite3"
    with TestClient(create_app(bot_delay=0.0, away_seconds=60, db_path=db)) as client:
        finished = open_table(client, game="draw", seats=["person", "greedy"], one_round=True, seed=8)
        play_through(client, finished)
        record = record_of(client, finished["table"])
        live = open_table(client, game="block", seats=["person", "greedy"], seed=9)  # a match
        with client.websocket_connect(socket_path(live)) as page:
            answered: set[int] = set()
            while True:  # three moves, then stop on the person's turn: nothing moves across the restart
                message = page.receive_json()
                assert message["type"] == "state", message
                if message["current_player"] == message["seat"] and message["move_number"] not in answered:
                    if len(answered) == 3:
                        break
                    answered.add(message["move_number"])
                    action = message["legal"][0]["action"]
                    page.send_text(
                        json.dumps({"type": "move", "action": action, "move_number": message["move_number"]})
                    )
        before = client.app.state.tables[live["table"]]
    with TestClient(create_app(bot_delay=0.0, away_seconds=60, db_path=db)) as client:
        assert record_of(client, finished["table"]) == record
        table = client.app.state.tables[live["table"]]
        assert table.actions == before.actions and table.engine.to_json() == before.engine.to_json()
        assert table.tokens == before.tokens
        assert open_table(client, game="block", seats=["person", "greedy"])["table"] == "t3"
        messages = play_through(client, live)  # the same link
        assert messages[0]["move_number"] == len(before.actions)
        resumed = record_of(client, live["table"])
        assert resumed["actions"][: len(before.actions)] == before.actions
        assert (
            len(client.post("/api/replay", json={"record": resumed}).json()["frames"])
            == len(resumed["actions"]) + 1
        )


def test_a_killed_server_loses_no_move(tmp_path):
    """``domino-serve`` killed with SIGKILL mid-game: every move it had made is on disk, and a new
    server resumes the table at exactly that move (the person is away: the stand-in plays)."""
    db, port = tmp_path / "tables.sqlite3", free_port()
    command = [
        sys.executable,
        "-c",
        "import sys; from domino_env.frontends.web.server import main; main(sys.argv[1:])",
    ]
    args = ["--port", str(port), "--db", str(db), "--bot-delay", "0.01", "--away-seconds", "0.05"]
    server = subprocess.Popen([*command, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:  # up when it answers; then one request (a retried one could open a second table)
            assert time.monotonic() < deadline and server.poll() is None, "the server did not start"
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=5).read()
                break
            except OSError:
                time.sleep(0.2)
        request = json.dumps({"game": "block", "seats": ["person", "greedy"], "target": 500}).encode()
        post = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/tables", request, {"Content-Type": "application/json"}
        )
        table_id = json.loads(urllib.request.urlopen(post, timeout=60).read())["table"]
        while len(saved_table(db, table_id)["moves"]) < 8:
            assert time.monotonic() < deadline, "the table did not play"
            time.sleep(0.05)
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=20)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=20)
    saved = saved_table(db, table_id)
    stored = [action for _seat, action, _how in saved["moves"]]
    with TestClient(create_app(bot_delay=30, away_seconds=60, db_path=db)) as client:
        table = client.app.state.tables[table_id]
        assert table.actions == stored and not table.over
        engine = get_game("dominoes").engine.from_json(saved["start"])
        for action in stored:
            engine.apply(action)
        assert table.engine.to_json() == engine.to_json()


def saved_table(db: Path, table_id: str) -> dict[str, Any]:
    store = Store(db)
    try:
        return next(t for t in store.saved_tables() if t["id"] == table_id)
    finally:
        store.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
