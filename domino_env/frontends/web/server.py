"""The web server: tables of people and bots, one websocket per browser seat, the replay viewer.

``create_app()`` builds the FastAPI application: thin routes over one ``TableManager`` (the tables,
their seats' tokens and pages, the limit on tables kept); ``domino-serve`` runs it with uvicorn.
A table is built by the terminal front end's ``build_setup`` (the same seating rules, options, bots
and turn timer) and played by one asyncio task (``Table.run``): bots act in a worker thread; a person's
turn waits for their move, for the turn timer (then ``engine.auto_move()``, docs/rules.md 2.5, as in
``play.Session``), or, in a game without a timer whose person has no page open, for
``away_seconds`` (then the game's default bot moves for them). Every page of a seat receives only
``Table.message(seat)``, built from that seat's view (``protocol``).

Endpoints: ``GET /`` lobby, ``/table`` and ``/replay`` pages; ``GET /api/catalogue`` games, presets,
bots; ``POST /api/tables`` create a table; ``GET /api/tables`` list them; ``GET
/api/tables/{id}/record`` a finished table's game record; ``POST /api/replay`` frames of a game
record, an evaluation record or a playthrough; ``WS /ws/{id}?seat=&token=`` a seat's live table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from domino_env.bots import available_bots, make_bot
from domino_env.frontends.terminal import GAMES, Setup, build_setup, parse_option
from domino_env.frontends.web.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    RoundKeeper,
    parse_client_message,
    seat_message,
)
from domino_env.frontends.web.replay import (
    make_record,
    record_from_evaluation,
    record_from_playthrough,
    replay,
)
from domino_env.games import BOARDPAN_TURN_SECONDS, game_of_config, get_game
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.line import PRESETS as LINE_PRESETS
from domino_env.rules.texas42 import PRESETS as TEXAS42_PRESETS

STATIC = Path(__file__).resolve().parent / "static"
PERSON = "person"
MAX_TABLES = 100  # finished tables are kept for their replays; the oldest finished go first
log = logging.getLogger("domino_env.frontends.web")


class TableRequest(BaseModel):
    """What the lobby sends to open a table; ``seats[i]`` is ``"person"`` or a bot spec
    (``NAME[:KEY=VALUE...]``, as ``domino-play --bots`` takes)."""

    game: str = Field(description=f"one of {GAMES}")
    seats: list[str] = Field(min_length=2, max_length=4)
    teams: bool = False
    preset: str | None = None
    target: int | None = None
    one_round: bool = False
    turn_seconds: float | None = None
    seed: int | None = None
    options: list[str] = Field(default_factory=list, description="rules options as KEY=VALUE")


class Table:
    """One game in progress (or finished): the engine, its seats, their pages, the timer."""

    def __init__(
        self, table_id: str, setup: Setup, seat_kinds: list[str], bot_delay: float, away_seconds: float
    ):
        self.id, self.setup, self.engine = table_id, setup, setup.game
        self.family = game_of_config(self.engine.config)
        self.seat_kinds = seat_kinds
        self.bot_delay, self.away_seconds = bot_delay, away_seconds
        self.keeper = RoundKeeper(self.engine)
        self.start = self.engine.to_json()
        self.actions: list[int] = []
        self.tokens = {s: secrets.token_urlsafe(12) for s, a in enumerate(setup.agents) if a is None}
        self.pages: dict[int, set[WebSocket]] = {s: set() for s in self.tokens}
        self.title = seat_message(self.engine.view(0), self.engine.action_to_text)["title"]
        self.turn_deadline: float | None = None
        self.last_event: dict[str, Any] | None = None
        self.error: str | None = None
        self._stand_in = make_bot(self.family.name, self.family.default_bot)  # plays for an absent person
        self._changed = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        now = self._loop.time()
        self.away_since = {s: now for s in self.tokens}  # seats with no page open, since when
        self.task = asyncio.create_task(self.run())

    # ----- playing ------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.engine.is_terminal or self.error is not None

    async def run(self) -> None:
        """Play to the end; a bot that fails stops the table with the error shown to everyone."""
        try:
            while not self.engine.is_terminal:
                seat = self.engine.current_player
                agent = self.setup.agents[seat]
                if agent is None:
                    await self._person_turn(seat)
                else:
                    await asyncio.sleep(self.bot_delay)
                    view = self.engine.view(seat)
                    action = await asyncio.to_thread(agent.act, view, self.setup.bot_rng)
                    self._apply(seat, int(action), "bot")
                await self.broadcast()
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a bot's failure: say it on the table rather than hang
            log.exception("table %s stopped", self.id)
            self.error = f"the table stopped: {type(err).__name__}: {err}"
            await self.broadcast()

    async def _person_turn(self, seat: int) -> None:
        """Wait for the person's move, the turn timer or the stand-in for an absent person."""
        moves = len(self.actions)
        seconds = self.setup.turn_seconds
        self.turn_deadline = self._loop.time() + seconds if seconds else None
        await self.broadcast()
        while len(self.actions) == moves:
            deadline = self._deadline(seat)
            timeout = None if deadline is None else deadline - self._loop.time()
            if timeout is not None and timeout <= 0:
                if self.turn_deadline is not None:
                    self._apply(seat, self.engine.auto_move(), "timer")
                else:
                    view = self.engine.view(seat)
                    self._apply(seat, int(self._stand_in.act(view, self.setup.bot_rng)), "stand-in")
                break
            self._changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout)
        self.turn_deadline = None

    def _deadline(self, seat: int) -> float | None:
        if self.turn_deadline is not None:
            return self.turn_deadline
        if seat in self.away_since:
            return self.away_since[seat] + self.away_seconds
        return None

    def _apply(self, seat: int, action: int, how: str) -> None:
        self.keeper.apply(action)  # an illegal action raises here, before anything changes
        self.actions.append(action)
        self.last_event = {"seat": seat, "text": self.engine.action_to_text(action), "how": how}

    def submit(self, seat: int, action: int, move_number: int) -> str | None:
        """A person's move answering state ``move_number``; why it is refused (the state
        unchanged), or ``None``."""
        if self.over:
            return "the game is over: no move is legal"
        if seat != self.engine.current_player:
            return f"it is not your turn: seat {self.engine.current_player} is to act"
        if move_number != len(self.actions):
            return (
                f"that move answers state {move_number}, but the table is at state {len(self.actions)}: "
                "choose again on the current table"
            )
        try:
            self._apply(seat, action, "person")
        except IllegalActionError as err:
            return str(err)
        self._changed.set()
        return None

    def reply(self, seat: int, text: str | bytes | None) -> dict[str, Any] | None:
        """The answer to one message from a page of ``seat``: a pong, an error saying what was wrong
        (the table unchanged), or nothing (a move made: every page gets the new state)."""
        try:
            message = parse_client_message(text)
        except ProtocolError as err:
            return {"type": "error", "message": str(err)}
        if message["type"] == "ping":
            return {"type": "pong"}
        problem = self.submit(seat, message["action"], message["move_number"])
        return None if problem is None else {"type": "error", "message": problem}

    # ----- pages --------------------------------------------------------------------------------
    def connect(self, seat: int, page: WebSocket) -> None:
        self.pages[seat].add(page)
        self.away_since.pop(seat, None)
        self._changed.set()

    def disconnect(self, seat: int, page: WebSocket) -> None:
        self.pages[seat].discard(page)
        if not self.pages[seat]:
            self.away_since[seat] = self._loop.time()
        self._changed.set()

    def message(self, seat: int) -> dict[str, Any]:
        """Everything seat ``seat``'s page shows: its view and public facts of the table."""
        engine = self.engine
        timer = None
        if self.turn_deadline is not None:
            timer = {
                "seat": engine.current_player,
                "seconds": self.setup.turn_seconds,
                "seconds_left": max(0.0, self.turn_deadline - self._loop.time()),
            }
        seats = [
            {"name": name, "kind": kind, "connected": bool(self.pages.get(s)) if kind == PERSON else None}
            for s, (name, kind) in enumerate(zip(self.setup.names, self.seat_kinds, strict=True))
        ]
        return {
            "type": "state",
            "protocol": PROTOCOL_VERSION,
            "table": self.id,
            "move_number": len(self.actions),
            **seat_message(engine.view(seat), engine.action_to_text),
            **self.keeper.public(),
            "seats": seats,
            "timer": timer,
            "last_event": self.last_event,
            "over": self.over,
            "error": self.error,
        }

    async def broadcast(self) -> None:
        for seat, pages in self.pages.items():
            if not pages:
                continue
            message = self.message(seat)
            for page in list(pages):
                try:
                    await page.send_json(message)
                except Exception:  # a page that closed meanwhile: its handler removes it
                    pages.discard(page)

    def game_record(self) -> dict[str, Any]:
        return make_record(self.family.name, self.setup.names, self.start, self.actions)

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "seats": list(self.setup.names),
            "moves": len(self.actions),
            "over": self.over,
        }


def catalogue() -> dict[str, Any]:
    """What the lobby offers: games, presets, seats, bots (every registered one) and options."""
    line_bots, texas_bots = available_bots("dominoes"), available_bots("texas42")
    line = {
        "presets": list(LINE_PRESETS),
        "players": [2, 3, 4],
        "teams": True,
        "bots": line_bots,
        "default_bot": get_game("dominoes").default_bot,
        "target": "points",
    }
    return {
        "person": PERSON,
        "boardpan_turn_seconds": BOARDPAN_TURN_SECONDS,
        "games": [
            {"name": "block", "title": "Block", **line},
            {"name": "draw", "title": "Draw", **line},
            {
                "name": "texas42",
                "title": "Texas 42",
                "presets": [p for p in TEXAS42_PRESETS if p != "texas88"],  # four-player 42 only
                "players": [4],
                "teams": False,
                "bots": texas_bots,
                "default_bot": get_game("texas42").default_bot,
                "target": "marks",
                "options": [
                    "nello=low|high|own_suit",
                    "plunge=true",
                    "sevens=true",
                    "forced_bid=true",
                    "follow_me_doubles=high|own_suit",
                ],
            },
        ],
    }


class Refused(Exception):
    """A request the server turns down: ``status`` is the HTTP status, the text says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class TableManager:
    """The server's state and its operations: every table by id (finished ones are kept for their
    records, up to ``MAX_TABLES``), the seats' tokens, the pages of each seat. The routes of
    ``create_app`` only call it; a refusal is ``Refused``."""

    def __init__(self, bot_delay: float, away_seconds: float):
        self.bot_delay, self.away_seconds = bot_delay, away_seconds
        self.tables: dict[str, Table] = {}
        self._numbers = itertools.count(1)

    def open(self, request: TableRequest) -> dict[str, Any]:
        """A new table of the lobby's ``request`` (its play starts at once): its id and the link of
        every person's seat."""
        self._make_room()
        setup = _setup_of(request)
        table_id = f"t{next(self._numbers)}"
        table = Table(table_id, setup, list(request.seats), self.bot_delay, self.away_seconds)
        self.tables[table_id] = table
        links = [
            {"seat": s, "name": setup.names[s], "url": f"/table?table={table_id}&seat={s}&token={token}"}
            for s, token in table.tokens.items()
        ]
        return {"table": table_id, "people": links}

    def _make_room(self) -> None:
        """Forget the oldest finished table when ``MAX_TABLES`` are kept; refuse when none has finished."""
        if len(self.tables) < MAX_TABLES:
            return
        finished = [t for t in self.tables.values() if t.over]
        if not finished:
            raise Refused(429, f"{MAX_TABLES} tables are in play: finish one first")
        del self.tables[finished[0].id]

    def summaries(self) -> list[dict[str, Any]]:
        return [t.summary() for t in self.tables.values()]

    def record(self, table_id: str) -> dict[str, Any]:
        """The game record of a finished table."""
        table = self.tables.get(table_id)
        if table is None:
            raise Refused(404, f"no table {table_id!r}")
        if not table.over:
            raise Refused(409, "the game is still being played: its record (every hand) opens when it ends")
        return table.game_record()

    def seated(self, table_id: str, seat: int, token: str) -> Table | None:
        """The table whose seat ``seat`` has this token, else ``None``."""
        table = self.tables.get(table_id)
        if table is None or not secrets.compare_digest(table.tokens.get(seat, ""), token):
            return None
        return table

    async def serve_page(self, page: WebSocket, table_id: str, seat: int, token: str) -> None:
        """One browser page of a seat, until it closes: the table's states out, the seat's moves in."""
        await page.accept()
        table = self.seated(table_id, seat, token)
        if table is None:
            await page.send_json(
                {"type": "error", "message": f"no seat {seat} with this token at table {table_id!r}"}
            )
            await page.close(code=4403)
            return
        table.connect(seat, page)
        try:
            await table.broadcast()  # this page's first state; the others see this seat connected
            while (received := await page.receive())["type"] != "websocket.disconnect":
                answer = table.reply(seat, received.get("text", received.get("bytes")))
                if answer is not None:
                    await page.send_json(answer)
        except WebSocketDisconnect:
            pass
        finally:
            table.disconnect(seat, page)

    def close(self) -> None:
        """Stop every table's play (the server shuts down)."""
        for table in self.tables.values():
            table.task.cancel()


def _setup_of(request: TableRequest) -> Setup:
    """The lobby's request checked as the terminal's command line is (``build_setup``)."""
    try:
        return build_setup(
            request.game,
            humans=[s for s, kind in enumerate(request.seats) if kind == PERSON],
            bots=[k for k in request.seats if k != PERSON],
            players=len(request.seats),
            teams=request.teams,
            preset=request.preset or None,
            target=request.target,
            one_round=request.one_round,
            turn_seconds=request.turn_seconds,
            seed=request.seed,
            options=dict(parse_option(o) for o in request.options),
        )
    except (ValueError, TypeError, argparse.ArgumentTypeError) as err:
        raise Refused(400, str(err)) from None


async def replay_frames(body: dict[str, Any]) -> dict[str, Any]:
    """``{"record": ...}``, ``{"evaluation": results.json, "index": n}`` or ``{"playthrough": text}``
    -> the game record and its frames."""
    try:
        if set(body) == {"record"}:
            record = body["record"]
        elif set(body) == {"evaluation", "index"}:
            record = await asyncio.to_thread(record_from_evaluation, body["evaluation"], body["index"])
        elif set(body) == {"playthrough"} and isinstance(body["playthrough"], str):
            record = record_from_playthrough(body["playthrough"])
        else:
            raise ValueError(
                'send {"record": game record}, {"evaluation": results.json, "index": n} '
                'or {"playthrough": text of a playthrough file}'
            )
        return {"record": record, "frames": await asyncio.to_thread(replay, record)}
    except (ValueError, TypeError, OSError) as err:
        raise Refused(400, str(err)) from None


def create_app(bot_delay: float = 0.6, away_seconds: float = 30.0) -> FastAPI:
    """The application. ``bot_delay``: seconds before each bot move (so people can follow);
    ``away_seconds``: how long a turn without a timer waits for a person with no page open."""
    manager = TableManager(bot_delay, away_seconds)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        manager.close()

    app = FastAPI(title="domino-env", lifespan=lifespan)
    app.state.manager, app.state.tables = manager, manager.tables

    @app.exception_handler(Refused)
    async def refused(request: Request, err: Refused) -> JSONResponse:
        return JSONResponse({"detail": str(err)}, status_code=err.status)

    @app.get("/")
    async def lobby() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/table")
    async def table_page() -> FileResponse:
        return FileResponse(STATIC / "table.html")

    @app.get("/replay")
    async def replay_page() -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    @app.get("/api/catalogue")
    async def get_catalogue() -> dict[str, Any]:
        return catalogue()

    @app.post("/api/tables")
    async def create_table(request: TableRequest) -> dict[str, Any]:
        return manager.open(request)

    @app.get("/api/tables")
    async def list_tables() -> list[dict[str, Any]]:
        return manager.summaries()

    @app.get("/api/tables/{table_id}/record")
    async def table_record(table_id: str) -> dict[str, Any]:
        return manager.record(table_id)

    @app.post("/api/replay")
    async def replay_route(body: dict[str, Any]) -> dict[str, Any]:
        """``{"record": ...}``, ``{"evaluation": results.json, "index": n}`` or ``{"playthrough": text}``."""
        return await replay_frames(body)

    @app.websocket("/ws/{table_id}")
    async def seat_socket(page: WebSocket, table_id: str, seat: int = -1, token: str = "") -> None:
        await manager.serve_page(page, table_id, seat, token)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def main(argv: list[str] | None = None) -> int:
    """``domino-serve``: run the server until Ctrl-C."""
    import uvicorn

    parser = argparse.ArgumentParser(
        description="Play dominoes in the browser against bots, and replay games."
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this "
        "machine only; 0.0.0.0 lets others on the network join)",
    )
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--bot-delay", type=float, default=0.6, help="seconds before each bot move")
    parser.add_argument(
        "--away-seconds",
        type=float,
        default=30.0,
        help="a turn without a timer waits this "
        "long for a person with no page open, then the default bot moves for them",
    )
    args = parser.parse_args(argv)
    if args.bot_delay < 0 or args.away_seconds <= 0:
        parser.error("--bot-delay must be >= 0 and --away-seconds > 0")
    print(f"domino-env: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)")
    uvicorn.run(
        create_app(args.bot_delay, args.away_seconds), host=args.host, port=args.port, log_level="warning"
    )
    return 0
