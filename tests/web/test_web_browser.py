"""The web pages in a real headless browser (Debian's chromium driven by Playwright): the lobby
opens a Block table against ``greedy``, a whole round is played by clicks, the scores shown are the
engine's, and the replay steps through the game with every hand shown, exported and imported again.

Screenshots of the table go to the test's temporary folder; with ``DOMINO_WEB_SCREENSHOTS=<dir>``
the one of the table in play is also copied there as ``table.png`` (docs/img/table.png is made so).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the web extra is not installed: pip install -e '.[web]'")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install -e '.[web]'"
)
import uvicorn  # noqa: E402

from domino_env.frontends.web.server import create_app  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip(
        "no chromium on PATH: install it with 'apt-get install -y chromium' (scripts/setup.sh does)",
        allow_module_level=True,
    )
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
TIMEOUT_MS = 20_000


@pytest.fixture
def server():
    """The app served by uvicorn on 127.0.0.1 at a free port, in a thread stopped even on failure."""
    app = create_app(bot_delay=0.05, away_seconds=120)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    uvicorn_server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uvicorn_server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while not uvicorn_server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", app
    finally:
        uvicorn_server.should_exit = True
        thread.join(timeout=20)


@pytest.fixture
def page():
    """A chromium tab; a script error on any page fails the test."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1100, "height": 900}, accept_downloads=True)
            tab = context.new_page()
            tab.set_default_timeout(TIMEOUT_MS)
            errors: list[str] = []
            tab.on("pageerror", lambda error: errors.append(str(error)))
            yield tab
            assert not errors, errors
        finally:
            browser.close()


def open_table(tab, base: str, game: str, seed: int, seats: list[str]) -> None:
    """One round or hand with the lobby's default seats, which must be ``seats``."""
    tab.goto(base + "/")
    tab.select_option("#game", game)
    tab.check("#one-round")
    tab.fill("#seed", str(seed))
    assert tab.locator(".seat-input").evaluate_all("xs => xs.map(x => x.value)") == seats
    tab.click("#create")
    tab.wait_for_url("**/table?**")


def play_by_clicks(tab, screenshot: Path | None = None) -> tuple[int, int]:
    """Play to the end by clicks: the first highlighted tile (its first end when it fits both),
    else the last button (pass, draw, the highest bid, a trump). Returns the number of moves and
    of choices between two ends. ``screenshot``: the table after three moves."""
    clicks = choices = 0
    while True:
        tab.wait_for_function("() => state && (state.over || state.current_player === state.seat)")
        if tab.evaluate("state.over"):
            return clicks, choices
        number = tab.evaluate("state.move_number")
        tiles = tab.locator("#hand .tile.legal")
        if tiles.count():
            tiles.first.click()
            if tab.locator("#choice button").count():  # the tile fits both ends: choose one
                assert tab.locator("#choice button").all_inner_texts()[1].startswith("right")
                tab.locator("#choice button").first.click()
                choices += 1
        else:
            tab.locator("#buttons button").last.click()
        clicks += 1
        tab.wait_for_function("n => state.move_number > n", arg=number)
        if clicks == 3 and screenshot is not None:
            tab.screenshot(path=str(screenshot), full_page=True)


def shown_scores(tab) -> list[int]:
    return [int(x) for x in tab.locator("#board .score[data-side]").all_inner_texts()]


def test_play_a_round_by_clicks_then_replay_it(server, page, tmp_path):
    base, app = server
    open_table(page, base, "block", seed=11, seats=["person", "greedy"])
    mid_screenshot = tmp_path / "table.png"
    clicks, choices = play_by_clicks(page, mid_screenshot)
    assert choices == 1  # seed 11 deals the person one tile that fits both ends
    page.screenshot(path=str(tmp_path / "table_end.png"), full_page=True)

    table = next(iter(app.state.tables.values()))
    engine = table.engine
    assert engine.is_terminal and clicks == sum(1 for s, *_ in engine.history if s == 0)
    assert shown_scores(page) == engine.scores
    assert engine.results[-1].describe() in page.inner_text("#board .previous")
    assert [int(x) for x in page.locator("#over .score").all_inner_texts()] == engine.scores
    if os.environ.get("DOMINO_WEB_SCREENSHOTS") and mid_screenshot.exists():
        shutil.copy(mid_screenshot, Path(os.environ["DOMINO_WEB_SCREENSHOTS"]) / "table.png")

    page.click("#open-replay")
    page.wait_for_url("**/replay?table=**")
    moves = len(table.actions)
    page.wait_for_function(f"() => document.getElementById('position').textContent === 'move 0 of {moves}'")
    for step in range(1, moves + 1):
        page.click("#forward")
        assert page.inner_text("#position") == f"move {step} of {moves}"
        hand_sizes = page.evaluate("replay.frames[index].hand_sizes")
        for seat, size in enumerate(hand_sizes):  # every hand face up
            assert page.locator(f"#board .seat[data-seat='{seat}'] svg.tile:not(.back)").count() == size
    assert shown_scores(page) == engine.scores
    page.screenshot(path=str(tmp_path / "replay.png"), full_page=True)
    page.click("#back")
    assert page.inner_text("#position") == f"move {moves - 1} of {moves}"

    with page.expect_download() as download:
        page.click("#export")
    exported = tmp_path / "game.json"
    download.value.save_as(exported)
    assert json.loads(exported.read_text()) == table.game_record()
    page.click("#last")
    page.set_input_files("#file", str(exported))
    page.wait_for_function(f"() => document.getElementById('position').textContent === 'move 0 of {moves}'")
    assert page.inner_text("#replay-error") == ""


def test_texas42_hand_by_clicks_shows_the_engine_marks(server, page):
    base, app = server
    open_table(page, base, "texas42", seed=3, seats=["person"] + ["heuristic"] * 3)
    clicks, _ = play_by_clicks(page)
    engine = next(iter(app.state.tables.values())).engine
    assert engine.is_terminal and clicks > 0
    assert shown_scores(page) == engine.marks
