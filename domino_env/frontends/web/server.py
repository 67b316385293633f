"""The web server: tables of people and bots, one websocket per browser seat, the replay viewer.

``create_app()`` builds the FastAPI application: thin routes over one ``TableManager`` (the tables,
their seats' tokens and pages, the limit on tables kept); ``domino-serve`` runs it with uvicorn.
A table is built by the terminal front end's ``build_setup`` (the same seating rules, options, bots
and turn timer, every form of 42 included) and played by one asyncio task (``Table.run``): bots
act in a worker thread; a person's turn waits for their move, for the turn timer (then
``engine.auto_move()``, docs/rules.md 2.5, as in ``play.Session``), or, in a game without a timer
whose person has no page open, for ``away_seconds`` (then the game's default bot moves for them).
Every page of a seat receives only ``Table.message(seat)``, built from that seat's view
(``protocol``). With a ``store`` (``domino-serve --db``) every table and move is written as it
happens and a restart resumes them.

What a table request may ask is bounded here, beyond the terminal's checks (docs/web.md,
Security): bots that import code named in the request are not seated, checkpoint files open only
from the operator's folders (``CheckpointFolders``; a refusal says nothing about the file system),
the turn timer is 0 or ``TURN_SECONDS_RANGE``, and a seed (which fixes every hand) needs its
creator to be the only person at the table.

Endpoints: ``GET /`` lobby, ``/table`` and ``/replay`` pages; ``GET /api/catalogue`` games, presets,
bots; ``POST /api/tables`` create a table; ``GET /api/tables`` list them; ``GET
/api/tables/{id}/record`` a finished table's game record; ``POST /api/replay`` frames of a game
record, an evaluation record or a playthrough; ``WS /ws/{id}?seat=&token=`` a seat's live table.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import logging
import re
import secrets
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from domino_env.bots import available_bots, make_bot
from domino_env.evaluation.tasks import available_tasks, task_of_config
from domino_env.frontends.terminal import (
    GAMES,
    Setup,
    build_setup,
    game_of_choice,
    parse_option,
)
from domino_env.frontends.web.fives import TITLES as FIVES_TITLES
from domino_env.frontends.web.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    RoundKeeper,
    parse_client_message,
    public_move_text,
    seat_message,
)
from domino_env.frontends.web.replay import (
    make_record,
    record_from_evaluation,
    record_from_playthrough,
    replay,
)
from domino_env.frontends.web.store import Store, default_db_path
from domino_env.games import BOARDPAN_TURN_SECONDS, game_of_config, get_game
from domino_env.rules.errors import IllegalActionError
from domino_env.rules.fives import PRESETS as FIVES_PRESETS
from domino_env.rules.fives import VARIANTS as FIVES_VARIANTS
from domino_env.rules.line import PRESETS as LINE_PRESETS
from domino_env.rules.mexican_train import PRESETS as MEXICAN_TRAIN_PRESETS
from domino_env.rules.texas42 import PRESETS as TEXAS42_PRESETS

STATIC = Path(__file__).resolve().parent / "static"
PERSON = "person"
MAX_TABLES = 100  # finished tables are kept for their replays; the oldest finished go first
TURN_SECONDS_RANGE = (5.0, 600.0)
"""A turn timer, when on, lasts this long: shorter is unplayable, longer leaves an absent person's
seat unplayed for good (the stand-in only moves in games without a timer)."""
BASELINES = Path(__file__).resolve().parents[2] / "baselines"
DEFAULT_CHECKPOINT_FOLDERS = (BASELINES, Path("runs"))
"""Where seat bots take checkpoints unless ``domino-serve --checkpoint-dir`` says otherwise: the
shipped baselines and the trainer's ``runs`` folder (relative to where the server starts)."""
NOT_AT_TABLES = {
    "user": "it imports and runs code named in the request",
    "openspiel": "it plays one round or hand only, and its bot= option imports code named in the request",
    "rllib": "it needs Ray and a run folder: play it from the command line",
}
"""Registered bots a browser table does not seat, and why."""
PATH_OPTIONS = ("path", "network")  # bot options naming a checkpoint file (checkpoint, search)
FLAG_WORDS = {
    "--players": "the number of players",
    "--teams": "2 v 2 teams",
    "--turn-seconds": "the turn timer",
    "--target": "'Play to'",
    "--bots": "the seats",
    "--you": "the seats",
    "--preset": "the preset",
    "--seed": "the seed",
    "--one-round": "'one round'",
}
"""The terminal's option names as the lobby calls them, for messages written for the command line."""
log = logging.getLogger("domino_env.frontends.web")
WEB_GAMES = tuple(choice for choice in GAMES if game_of_choice(choice).web_module is not None)
"""What a browser table plays: the terminal's games whose record names a browser module (``web_module``)."""


class TableRequest(BaseModel):
    """What the lobby sends to open a table; ``seats[i]`` is ``"person"`` or a bot spec
    (``NAME[:KEY=VALUE...]``, as ``domino-play --bots`` takes)."""

    game: str = Field(description=f"one of {WEB_GAMES}")
    seats: list[str] = Field(min_length=2, max_length=8)
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
        self,
        table_id: str,
        setup: Setup,
        seat_kinds: list[str],
        bot_delay: float,
        away_seconds: float,
        store: Store | None = None,
        saved: dict[str, Any] | None = None,
    ):
        """``store``: where each move is written; ``saved``: a stored table (``Store.saved_tables``)
        to play on from its last move, with its tokens, start and moves."""
        if saved is not None:
            engine = game_of_config(setup.game.config).engine.from_json(saved["start"])
            setup = dataclasses.replace(setup, game=engine)
        self.id, self.setup, self.engine = table_id, setup, setup.game
        self.family = game_of_config(self.engine.config)
        self.seat_kinds = seat_kinds
        self.bot_delay, self.away_seconds = bot_delay, away_seconds
        self.store = None  # set below, once the saved moves are replayed
        self.keeper = RoundKeeper(self.engine)
        self.start = self.engine.to_json()
        self.actions: list[int] = []
        self.last_event: dict[str, Any] | None = None
        self.error: str | None = None
        if saved is None:
            self.tokens = {s: secrets.token_urlsafe(12) for s, a in enumerate(setup.agents) if a is None}
        else:
            self.tokens = dict(saved["tokens"])
            for seat, action, how in saved["moves"]:
                self._apply(seat, action, how)
            self.error = saved["error"]
        self.store = store
        self.pages: dict[int, set[WebSocket]] = {s: set() for s in self.tokens}
        self.title = seat_message(self.engine.view(0), self.engine.action_to_text)["title"]
        self.turn_deadline: float | None = None
        self._stand_in = make_bot(self.family.name, stand_in_bot(self.engine.config))  # for an absent person
        self._changed = asyncio.Event()
        self._sending = asyncio.Lock()  # one broadcast at a time: every page gets the states in order
        self._told = -1  # the move number last sent to every page
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
            while not self.over:
                seat = self.engine.current_player
                agent = self.setup.agents[seat]
                if agent is None:
                    await self._person_turn(seat)
                else:
                    await asyncio.sleep(self.bot_delay)
                    view = self.engine.view(seat)
                    action = await asyncio.to_thread(agent.act, view, self.setup.bot_rng)
                    self._apply(seat, int(action), "bot")
                if self._told != len(self.actions):  # a person's move is sent by their page's handler
                    await self.broadcast()
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a bot's failure: say it on the table rather than hang
            log.exception("table %s stopped", self.id)
            self.error = f"the table stopped: {type(err).__name__}: {err}"
            await self.broadcast()
        if self.store is not None:
            self.store.finish(self.id, self.game_record() if self.engine.is_terminal else None, self.error)

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
        # The text before the move: Mexican Train's names the trains as the seat to act sees them.
        legal = action >= 0 and self.engine.legal_mask() >> action & 1
        text = public_move_text(self.engine, action) if legal else ""
        self.keeper.apply(action)  # an illegal action raises here, before anything changes
        if self.store is not None:  # committed with the move: a killed server loses none
            self.store.add_move(self.id, len(self.actions), seat, action, how)
        self.actions.append(action)
        self.last_event = {"seat": seat, "text": text, "how": how}

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
        self.turn_deadline = None  # the turn is over: no timer shows until the next one starts
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
        """Every page its seat's state; built and encoded once per seat, not per page, and built
        when sent, so that no page receives an older state after a newer one."""
        async with self._sending:
            self._told = len(self.actions)
            for seat, pages in self.pages.items():
                if not pages:
                    continue
                text = json.dumps(self.message(seat), separators=(",", ":"), ensure_ascii=False)
                for page in list(pages):
                    try:
                        await page.send_text(text)
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


def table_bots(family: str) -> list[str]:
    """The registered bots of ``family`` a browser table seats (not those of ``NOT_AT_TABLES``)."""
    return [b for b in available_bots(family) if b not in NOT_AT_TABLES]


TEXAS42_TABLES = (("standard", 4), ("n42pa", 4), ("standard", 3), ("texas88", 6))
"""The forms of 42 the lobby offers, as (preset, players): four-player 42 (standard rules and the
N42PA tournament rules), three-player 42 (docs/rules.md 3.7) and Texas 88 (3.8)."""
TEXAS42_OPTIONS = (
    "nello=low|high|own_suit",
    "plunge=true",
    "sevens=true",
    "forced_bid=true",
    "follow_me_doubles=high|own_suit",
)


def bots_for(family: str, config: Any) -> list[str]:
    """The bots a table of ``config`` can seat: those built without options that do not refuse
    the rules (``refuses``), ``trained`` only where a benchmark task plays them, and the bots that
    need options (a checkpoint's path) only where the trainer can train these rules."""
    record = get_game(family)
    hand = dataclasses.replace(config, episode=record.episodes[0]) if hasattr(config, "episode") else config
    offered = []
    for name in table_bots(family):
        try:
            agent = make_bot(family, name)
        except (TypeError, ValueError):
            if record.trainable(config) is None:
                offered.append(name)
            continue
        refuses = getattr(agent, "refuses", None)
        if callable(refuses) and refuses(config):
            continue
        if name == "trained":
            try:
                task_of_config(hand)
            except ValueError:
                continue
        offered.append(name)
    return offered


def stand_in_bot(config: Any) -> str:
    """The bot that moves for an absent person: the game's default bot, or ``random`` where the
    default refuses these rules (three-player 42, Texas 88)."""
    record = game_of_config(config)
    refuses = getattr(make_bot(record.name, record.default_bot), "refuses", None)
    return "random" if callable(refuses) and refuses(config) else record.default_bot


def texas42_tables() -> list[dict[str, Any]]:
    """Per form of 42 (``TEXAS42_TABLES``): its preset, players, the bots it seats and the default."""
    record = get_game("texas42")
    tables = []
    for preset, players in TEXAS42_TABLES:
        config = record.config(preset=preset, num_players=players)
        bots = bots_for("texas42", config)
        default = record.default_bot if record.default_bot in bots else "random"
        tables.append({"preset": preset, "players": players, "bots": bots, "default_bot": default})
    return tables


def fives_games() -> list[dict[str, Any]]:
    """All Fives and Fives and Threes as the lobby offers them: their presets, 2-4 players (four in
    two teams or alone), the bots their standard rules seat and the target of those rules."""
    record = get_game("fives")
    games = []
    for choice in FIVES_VARIANTS:
        config = record.config(variant=choice)
        games.append({
            "name": choice,
            "title": FIVES_TITLES[choice],
            "presets": list(FIVES_PRESETS) if choice == "all_fives" else ["standard"],
            "players": [2, 3, 4],
            "teams": True,
            "bots": bots_for("fives", config),
            "default_bot": record.default_bot,
            "target": "points",
            "default_target": config.target_score,
            "options_hint": "e.g. draw_policy=may_draw, score_unit=fives" if choice == "all_fives" else "",
        })
    return games


def mexican_train_game() -> dict[str, Any]:
    """Mexican Train as the lobby offers it: its presets, 2-8 players each for themselves, the bots
    its standard rules seat; a match is a number of rounds (``rounds=N``), not a target."""
    record = get_game("mexican_train")
    return {
        "name": "mexican_train",
        "title": "Mexican Train",
        "presets": list(MEXICAN_TRAIN_PRESETS),
        "players": list(range(2, 9)),
        "teams": False,
        "bots": bots_for("mexican_train", record.config()),
        "default_bot": record.default_bot,
        "target": "",
        "default_target": None,
        "options_hint": "e.g. rounds=13 (a match), opening=run",
    }


def catalogue(folders: CheckpointFolders | None = None) -> dict[str, Any]:
    """What the lobby offers: games, presets (the first is the default), seats, the bots a table
    seats, options, the turn timer's range and the checkpoint folders. Texas 42 lists its forms
    (``tables``: preset, players and the bots each seats)."""
    line_bots = table_bots("dominoes")
    tables = texas42_tables()
    line = {
        "presets": ["boardpan", *(p for p in LINE_PRESETS if p != "boardpan")],  # the service it mirrors
        "players": [2, 3, 4],
        "teams": True,
        "bots": line_bots,
        "default_bot": get_game("dominoes").default_bot,
        "target": "points",
        "default_target": 100,
    }
    return {
        "person": PERSON,
        "boardpan_turn_seconds": BOARDPAN_TURN_SECONDS,
        "turn_seconds_range": list(TURN_SECONDS_RANGE),
        "checkpoint_folders": (folders or CheckpointFolders()).labels,
        "games": [
            {"name": "block", "title": "Block", **line},
            {"name": "draw", "title": "Draw", **line},
            {
                "name": "texas42",
                "title": "Texas 42",
                "presets": list(TEXAS42_PRESETS),
                "players": [4, 3],
                "teams": False,
                "bots": tables[0]["bots"],
                "default_bot": tables[0]["default_bot"],
                "tables": tables,
                "target": "marks",
                "default_target": None,
                "options": list(TEXAS42_OPTIONS),
            },
            *fives_games(),
            mexican_train_game(),
        ],
    }


class Refused(Exception):
    """A request the server turns down: ``status`` is the HTTP status, the text says why."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class CheckpointFolders:
    """The folders seat bots may open checkpoints from. A bot's path is taken relative to where the
    server started, or to one of the folders, or absolute; it is opened only if it is a file inside
    a folder once links are followed. Any other path gets one fixed message naming the folders, so
    a request learns nothing of what exists elsewhere."""

    def __init__(self, folders: Sequence[str | Path] | None = None):
        given = DEFAULT_CHECKPOINT_FOLDERS if folders is None else tuple(Path(f) for f in folders)
        self.roots = tuple(f.resolve() for f in given)
        self.labels = ["baselines (shipped)" if f == BASELINES else str(f) for f in given]
        self.refusal = (
            "checkpoints open only from this server's checkpoint folders ("
            + ", ".join(self.labels)
            + "): give the path of a checkpoint file inside one of them, e.g. checkpoint:path=Block2p.pt"
        )

    def resolve(self, value: Any) -> Path:
        """The checkpoint file ``value`` names inside a folder; ``Refused`` (always the same text)."""
        raw = Path(str(value))
        candidates = [raw] if raw.is_absolute() else [Path.cwd() / raw, *(root / raw for root in self.roots)]
        for candidate in candidates:
            try:
                real = candidate.resolve()
                if any(real.is_relative_to(root) for root in self.roots) and real.is_file():
                    return real
            except (OSError, ValueError, RuntimeError):  # a NUL byte, a link loop: refused alike
                continue
        raise Refused(400, self.refusal)


class TableManager:
    """The server's state and its operations: every table by id (finished ones are kept for their
    records, up to ``MAX_TABLES``), the seats' tokens, the pages of each seat. The routes of
    ``create_app`` only call it; a refusal is ``Refused``."""

    def __init__(
        self,
        bot_delay: float,
        away_seconds: float,
        folders: CheckpointFolders | None = None,
        turn_seconds_range: tuple[float, float] = TURN_SECONDS_RANGE,
        store: Store | None = None,
    ):
        self.bot_delay, self.away_seconds = bot_delay, away_seconds
        self.folders = folders or CheckpointFolders()
        self.turn_seconds_range = turn_seconds_range
        self.store = store
        self.tables: dict[str, Table] = {}
        self._next_number = 1

    def open(self, request: TableRequest) -> dict[str, Any]:
        """A new table of the lobby's ``request`` (its play starts at once): its id and the link of
        every person's seat."""
        self._make_room()
        setup = _setup_of(request, self.folders, self.turn_seconds_range)
        number, self._next_number = self._next_number, self._next_number + 1
        table_id = f"t{number}"
        table = Table(table_id, setup, list(request.seats), self.bot_delay, self.away_seconds, self.store)
        if self.store is not None:  # before its first move: the task starts at the next await
            self.store.add_table(table_id, number, request.model_dump(), table.tokens, table.start)
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
            stored = None if self.store is None else self.store.record(table_id)
            if stored is None:
                raise Refused(404, f"no table {table_id!r}")
            return stored
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
                else:  # a move made: every page sees it now, not when the table's task next runs
                    await table.broadcast()
        except WebSocketDisconnect:
            pass
        finally:
            table.disconnect(seat, page)

    def resume(self) -> None:
        """Every stored table back in play where it stopped, with the same links (a restart). Every
        unfinished table and the newest finished ones, up to ``MAX_TABLES`` in all, are kept in memory;
        older finished ones keep their records on disk. A table whose seats can no longer be built (a
        bot or checkpoint gone) stays on disk only."""
        if self.store is None:
            return
        saved_tables = self.store.saved_tables()
        playing = [t for t in saved_tables if not t["over"] and t["error"] is None]
        finished = [t for t in saved_tables if t["over"] or t["error"] is not None]
        room = max(0, MAX_TABLES - len(playing))
        kept = {t["id"] for t in playing} | {t["id"] for t in finished[len(finished) - room :]}
        for saved in saved_tables:
            if saved["id"] not in kept:
                continue
            try:
                request = TableRequest(**saved["request"])
                setup = _setup_of(request, self.folders, self.turn_seconds_range)
                seats = list(request.seats)
                table = Table(saved["id"], setup, seats, self.bot_delay, self.away_seconds, self.store, saved)
            except (Refused, ValueError, TypeError, IllegalActionError) as err:
                log.warning("table %s could not be resumed: %s", saved["id"], err)
                continue
            self.tables[saved["id"]] = table
        if saved_tables:
            self._next_number = max(self._next_number, saved_tables[-1]["number"] + 1)

    def close(self) -> None:
        """Stop every table's play (the server shuts down)."""
        for table in self.tables.values():
            table.task.cancel()


def _setup_of(
    request: TableRequest, folders: CheckpointFolders, turn_seconds_range: tuple[float, float]
) -> Setup:
    """The lobby's request checked as the terminal's command line is (``build_setup``), after the
    browser's own bounds (``_check_request``); every message in the lobby's words."""
    bots = _check_request(request, folders, turn_seconds_range)
    try:
        setup = build_setup(
            request.game,
            humans=[s for s, kind in enumerate(request.seats) if kind == PERSON],
            bots=[spec for spec, _shown, _paths in bots],
            players=len(request.seats),
            teams=request.teams,
            preset=request.preset or None,
            target=request.target,
            one_round=request.one_round,
            turn_seconds=request.turn_seconds,
            seed=request.seed,
            options=dict(parse_option(o) for o in request.options),
        )
        _check_bots_play(setup, [shown for _spec, shown, _paths in bots])
        return setup
    except (ValueError, TypeError, argparse.ArgumentTypeError) as err:
        message = str(err)
        for spec, shown, paths in bots:  # the loader names the file as the lobby did, not where it lies
            message = message.replace(spec, shown)
            for real, given in paths:
                message = message.replace(real, given)
        raise Refused(400, page_words(message)) from None


def _check_bots_play(setup: Setup, specs: list[str]) -> None:
    """Refuse, before the table opens, a bot that says it cannot play these rules (``refuses``) or a
    ``trained`` bot with no task while no benchmark task plays them (it would fail at its first move)."""
    config = setup.game.config
    agents = [a for a in setup.agents if a is not None]
    for spec, agent in zip(specs, agents, strict=True):
        refuses = getattr(agent, "refuses", None)
        why = refuses(config) if callable(refuses) else None
        if why:
            raise ValueError(f"bot {spec!r} cannot play this table: {why}")
        if spec.split(":")[0] == "trained" and "task=" not in spec:
            try:
                task_of_config(config)
            except ValueError:
                raise ValueError(
                    f"bot {spec!r} needs a task here (trained:task=NAME, one of {available_tasks()}): "
                    "no benchmark task plays exactly these rules"
                ) from None


def _check_request(
    request: TableRequest, folders: CheckpointFolders, turn_seconds_range: tuple[float, float]
) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """What a browser table allows beyond the terminal's rules; the bots' specs with checkpoint
    paths resolved inside ``folders``, each with the spec as the request gave it and its paths
    (resolved, as given)."""
    try:
        family = game_of_choice(request.game).name
    except ValueError as err:
        raise Refused(400, str(err)) from None
    if get_game(family).web_module is None:
        raise Refused(
            400,
            f"{request.game} has no browser table yet (it plays at a terminal, in domino-play); "
            f"the browser offers {', '.join(WEB_GAMES)}",
        )
    people = sum(kind == PERSON for kind in request.seats)
    if not people:
        raise Refused(400, f"a table needs at least one person: make one seat {PERSON!r}")
    if request.seed is not None and people > 1:
        raise Refused(
            400,
            "a seed fixes the deal, so whoever sets it could know every hand: a seed is allowed only "
            "at a table where you are the only person (leave the seed empty)",
        )
    if family == "texas42":
        if any(o.split("=")[0].strip() == "num_players" for o in request.options):
            raise Refused(
                400, "Texas 42 takes the number of players from the number of seats: drop num_players"
            )
        players = 6 if request.preset == "texas88" else (3, 4)
        if len(request.seats) not in ((players,) if isinstance(players, int) else players) or request.teams:
            raise Refused(
                400,
                "Texas 42 is four players in two teams (seats 0+2 against 1+3) or three players each "
                "for themselves; Texas 88 is six in two teams (0+2+4 against 1+3+5): seat "
                + ("six" if request.preset == "texas88" else "three or four"),
            )
        if request.turn_seconds:
            raise Refused(
                400,
                "Texas 42 has no automatic move (docs/rules.md 2.5 is a line-game rule): "
                "leave the turn timer empty",
            )
    elif request.teams and len(request.seats) != 4:
        raise Refused(
            400,
            f"a team game needs all four seats filled (people and bots in any mix), not {len(request.seats)}",
        )
    low, high = turn_seconds_range
    seconds = request.turn_seconds
    if seconds is not None and seconds != 0 and not low <= seconds <= high:
        raise Refused(400, f"the turn timer is 0 (off) or {low:g} to {high:g} seconds, got {seconds:g}")
    return [_bot_spec(family, kind, folders) for kind in request.seats if kind != PERSON]


def _bot_spec(family: str, spec: str, folders: CheckpointFolders) -> tuple[str, str, list[tuple[str, str]]]:
    """A seat's bot spec with its checkpoint paths resolved (``CheckpointFolders``), the spec as
    given and its paths (resolved, as given)."""
    name, *pairs = spec.split(":")
    offered = table_bots(family)
    if name in NOT_AT_TABLES:
        why = NOT_AT_TABLES[name]
        raise Refused(400, f"bot {name!r} cannot sit at a browser table ({why}); choose one of {offered}")
    if name not in offered:
        raise Refused(400, f"unknown bot {name!r}: choose one of {offered}")
    resolved, paths = [], []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if sep and key in PATH_OPTIONS:
            real = str(folders.resolve(value))
            pair = f"{key}={real}"
            paths.append((real, value))
        resolved.append(pair)
    return ":".join([name, *resolved]), spec, paths


def page_words(message: str) -> str:
    """A message written for the terminal's command line in the lobby's words."""
    message = message.replace("the terminal front end", "a browser table")
    message = re.sub(r" \(make_bot\([^)]*\)\)", "", message)  # a Python call: the seat is just 'random'
    return re.sub(r"--[a-z][a-z-]*", lambda m: FLAG_WORDS.get(m[0], m[0][2:].replace("-", " ")), message)


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


def create_app(
    bot_delay: float = 0.6,
    away_seconds: float = 30.0,
    checkpoint_folders: Sequence[str | Path] | None = None,
    turn_seconds_range: tuple[float, float] = TURN_SECONDS_RANGE,
    db_path: str | Path | None = None,
) -> FastAPI:
    """The application. ``bot_delay``: seconds before each bot move (so people can follow);
    ``away_seconds``: how long a turn without a timer waits for a person with no page open;
    ``checkpoint_folders``: where seat bots may open checkpoints (``None``: the shipped baselines and
    ``runs``); ``turn_seconds_range``: the bounds of a turn timer that is on (tests shorten it);
    ``db_path``: the SQLite file tables are kept in and resumed from (``None``: memory only)."""
    folders = CheckpointFolders(checkpoint_folders)
    store = None if db_path is None else Store(db_path)
    manager = TableManager(bot_delay, away_seconds, folders, turn_seconds_range, store)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        manager.resume()
        yield
        manager.close()
        if store is not None:
            store.close()

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

    @app.get("/favicon.ico")
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/api/catalogue")
    async def get_catalogue() -> dict[str, Any]:
        return catalogue(folders)

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
    parser.add_argument(
        "--checkpoint-dir",
        action="append",
        metavar="DIR",
        help="a folder seat bots may open checkpoints from (repeat for more; default: the shipped "
        "baselines and ./runs); no other file is opened",
    )
    parser.add_argument(
        "--db",
        metavar="PATH",
        help=f"the SQLite file tables are kept in and resumed from after a restart (default "
        f"{default_db_path()}; 'none': memory only)",
    )
    args = parser.parse_args(argv)
    if args.bot_delay < 0 or args.away_seconds <= 0:
        parser.error("--bot-delay must be >= 0 and --away-seconds > 0")
    missing = [d for d in args.checkpoint_dir or () if not Path(d).is_dir()]
    if missing:
        parser.error(f"--checkpoint-dir must name folders: {missing}")
    print(f"domino-env: open http://{args.host}:{args.port}/ in a browser (Ctrl-C stops)")
    db = None if args.db == "none" else Path(args.db) if args.db else default_db_path()
    app = create_app(args.bot_delay, args.away_seconds, args.checkpoint_dir, db_path=db)
    if db is not None:
        print(f"domino-env: tables are kept in {db}")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0
