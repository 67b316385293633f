"""Load test of the browser server: many tables and websocket pages at once, on 127.0.0.1 only.

A ``domino-serve`` application (memory only, bots at zero delay) runs in a child process; this
process opens the tables through the HTTP API and connects every page as a browser would (one
websocket each). Each table seats two people and two ``greedy`` bots (Block, 2 v 2, to 100
points); every person has several pages open, the first of which plays the first legal move as
soon as a state asks it to. The child records the moment each move is applied
(``time.monotonic()``, one clock for both processes on Linux), so the figures are:

- moves per second: every table's moves over the wall time from the first table opened to the
  last one finished;
- the time from a move to every page's update: for each move, the last of that table's pages to
  receive the state of that move number, less the moment the server applied it (median, 99th
  percentile, worst);
- errors (an error message, a closed socket, a failed request) and lost moves (a page whose move
  numbers skip one, a table whose record has other moves than its pages saw), both must be 0.

    python scripts/speed_web.py --tables 50 --pages 200     # docs/web.md's figures
    python scripts/speed_web.py --tables 5 --pages 20       # what tests/web/test_web_load.py runs

Bounded: ``--timeout`` seconds in all (the child is killed on the way out, even on failure).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

REQUEST = {
    "game": "block",
    "seats": ["person", "greedy", "person", "greedy"],
    "teams": True,
    "preset": "boardpan",
    "turn_seconds": 0,
    "target": 100,
}
"""Each table: two people (the pages) and two bots, a team match to 100 points, no turn timer."""


def serve(port: int) -> None:
    """The child: the application with an endpoint giving the moment each move was applied."""
    import uvicorn

    from domino_env.frontends.web import server

    applied: dict[str, list[float]] = {}
    kinds: dict[str, list[str]] = {}
    apply = server.Table._apply

    def timed_apply(self: Any, seat: int, action: int, how: str) -> None:
        apply(self, seat, action, how)
        applied.setdefault(self.id, []).append(time.monotonic())
        kinds.setdefault(self.id, []).append(how)

    server.Table._apply = timed_apply  # type: ignore[method-assign]
    app = server.create_app(bot_delay=0.0, away_seconds=600.0)

    profile = None
    if os.environ.get("SPEED_WEB_PROFILE"):  # where the server's time goes: a cProfile file
        import cProfile

        profile = cProfile.Profile()
        profile.enable()

    @app.get("/speed/applied")
    async def moves_applied() -> dict[str, Any]:
        if profile is not None:
            profile.disable()
            profile.dump_stats(os.environ["SPEED_WEB_PROFILE"])
        return {"times": applied, "kinds": kinds}

    deflate = os.environ.get("SPEED_WEB_DEFLATE", "1") == "1"
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", ws_per_message_deflate=deflate)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _http(base: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


class Page:
    """One open page of a person's seat: what it received (move number -> first arrival)."""

    def __init__(self, table: str, url: str, plays: bool):
        self.table, self.url, self.plays = table, url, plays
        self.arrived: dict[int, float] = {}
        self.numbers: list[int] = []
        self.errors: list[str] = []
        self.over = False

    async def run(self, base: str) -> None:
        import websockets

        query = self.url.removeprefix("/table?table=").split("&", 1)
        path = f"ws://{base.removeprefix('http://')}/ws/{query[0]}?{query[1]}"
        answered: set[int] = set()
        try:
            async with websockets.connect(path, max_size=1 << 20) as socket_:
                async for text in socket_:
                    now = time.monotonic()
                    message = json.loads(text)
                    if message["type"] != "state":
                        self.errors.append(str(message.get("message", message)))
                        continue
                    number = message["move_number"]
                    self.arrived.setdefault(number, now)
                    if not self.numbers or self.numbers[-1] != number:
                        self.numbers.append(number)
                    if message["error"]:
                        self.errors.append(message["error"])
                    if message["over"]:
                        self.over = True
                        return
                    mine = message["current_player"] == message["seat"]
                    if self.plays and mine and number not in answered:
                        answered.add(number)
                        move = {
                            "type": "move",
                            "action": message["legal"][0]["action"],
                            "move_number": number,
                        }
                        await socket_.send(json.dumps(move))
        except Exception as err:  # a closed or broken socket is an error of the run
            self.errors.append(f"{type(err).__name__}: {err}")


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def _drive(base: str, tables: int, pages: int, timeout: float, target: int) -> dict[str, Any]:
    per_table = max(2, pages // tables)
    started = time.monotonic()
    opened = [_http(base, "/api/tables", {**REQUEST, "target": target}) for _ in range(tables)]
    all_pages: list[Page] = []
    for created in opened:
        people = created["people"]
        for k in range(per_table):
            person = people[k % len(people)]
            all_pages.append(Page(created["table"], person["url"], plays=k < len(people)))
    await asyncio.wait_for(asyncio.gather(*(p.run(base) for p in all_pages)), timeout)
    wall = time.monotonic() - started
    answer = _http(base, "/speed/applied")
    applied, kinds = answer["times"], answer["kinds"]
    latencies, lost = [], 0
    by_kind: dict[str, list[float]] = {}
    for created in opened:
        table = created["table"]
        mine = [p for p in all_pages if p.table == table]
        times = applied.get(table, [])
        record = _http(base, f"/api/tables/{table}/record")
        if len(record["actions"]) != len(times):
            lost += 1
        for page in mine:
            steps = [b - a for a, b in zip(page.numbers, page.numbers[1:], strict=False)]
            if any(step != 1 for step in steps) or page.numbers[-1] != len(times):
                lost += 1
        first = max(min(p.arrived) for p in mine)  # every page connected by then
        for number in range(first + 1, len(times) + 1):
            last = max(p.arrived.get(number, float("inf")) for p in mine)
            latencies.append(last - times[number - 1])
            by_kind.setdefault(kinds[table][number - 1], []).append(latencies[-1])
    moves = sum(len(t) for t in applied.values())
    return {
        "tables": tables,
        "pages": len(all_pages),
        "moves": moves,
        "seconds": round(wall, 2),
        "moves_per_second": round(moves / wall, 1),
        "latency_ms_median": round(1000 * _percentile(latencies, 0.5), 1),
        "latency_ms_p99": round(1000 * _percentile(latencies, 0.99), 1),
        "latency_ms_max": round(1000 * max(latencies, default=float("nan")), 1),
        "latency_ms_p99_by_mover": {k: round(1000 * _percentile(v, 0.99), 1) for k, v in by_kind.items()},
        "errors": sum(len(p.errors) for p in all_pages),
        "error_examples": [e for p in all_pages for e in p.errors][:3],
        "lost_moves": lost,
        "unfinished_pages": sum(not p.over for p in all_pages),
    }


def run_load(tables: int = 5, pages: int = 20, timeout: float = 120.0, target: int = 100) -> dict[str, Any]:
    """Serve in a child process on 127.0.0.1, play ``tables`` tables with ``pages`` pages in all
    (matches to ``target`` points), and return the figures; the child is stopped even on failure."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--serve", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _http(base, "/api/tables")
                break
            except OSError:
                if child.poll() is not None or time.monotonic() > deadline:
                    why = child.stderr.read() if child.stderr else ""
                    raise RuntimeError(f"the server did not start: {why}") from None
                time.sleep(0.1)
        return asyncio.run(_drive(base, tables, pages, timeout, target))
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument(
        "--pages", type=int, default=200, help="websocket pages in all (at least 2 per table)"
    )
    parser.add_argument("--target", type=int, default=100, help="points each table's match is played to")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds the whole run may take")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)  # the child
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    figures = run_load(args.tables, args.pages, args.timeout, args.target)
    print(json.dumps(figures, indent=2))
    ok = not figures["errors"] and not figures["lost_moves"] and not figures["unfinished_pages"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
