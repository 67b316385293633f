"""The messages between the server and a browser, and the checks on what a browser sends.

**Server to browser.** Everything a seat's page shows is built by ``seat_message`` from that
seat's view (``engine.view(seat)``, docs/rules.md 4) and nothing else of the engine, so a hidden tile
cannot reach a browser by accident. The table adds only public facts: seat names, the turn timer,
the results of finished rounds or hands, and the line of the round that just ended (its plays were
public when made). The replay viewer's frames (``full_frame``) add every hand: they are built only
for finished or imported games. What differs between games (the fields of a view, what a finished
round or hand makes public) lives in the game's module of messages, named by its record's
``web_module`` (``web/line.py``, ``web/texas42.py``, ``web/fives.py``, ``web/mexican_train.py``);
this module holds what they share.

**Browser to server.** ``parse_client_message`` accepts ``{"type": "move", "action": <id>,
"move_number": <n>}`` (an action id from the ``legal`` list of the state message numbered ``n``)
and ``{"type": "ping"}``; anything else raises ``ProtocolError`` naming what was wrong and what is
allowed. The move number makes a move meant for an older state (a double click, a message crossing
a bot's move) an error instead of a move in the new state. Whether a well-formed move is legal, and
whether it is the seat's turn, is the table's check (``server.Table.submit``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from domino_env.games import game_of_config
from domino_env.rules.tiles import iter_bits

PROTOCOL_VERSION = 1
MAX_MESSAGE_CHARS = 1000
CLIENT_MESSAGE_TYPES = ("move", "ping")

ActionText = Callable[[int], str]


class ProtocolError(ValueError):
    """A browser message the server refuses; the text goes back to that browser."""


def parse_client_message(text: str | bytes) -> dict[str, Any]:
    """A checked client message: ``{"type": "move", "action": int, "move_number": int}`` or
    ``{"type": "ping"}``."""
    if isinstance(text, bytes):
        raise ProtocolError("messages are JSON text, not binary frames")
    if len(text) > MAX_MESSAGE_CHARS:
        raise ProtocolError(f"message longer than {MAX_MESSAGE_CHARS} characters")
    try:
        message = json.loads(text)
    except json.JSONDecodeError as err:
        raise ProtocolError(
            f'message is not JSON ({err.msg}); send e.g. {{"type": "move", "action": 12, "move_number": 3}}'
        ) from None
    if not isinstance(message, dict) or message.get("type") not in CLIENT_MESSAGE_TYPES:
        raise ProtocolError(f"a message is a JSON object whose 'type' is one of {list(CLIENT_MESSAGE_TYPES)}")
    fields = {"type", "action", "move_number"} if message["type"] == "move" else {"type"}
    if set(message) != fields:
        raise ProtocolError(
            f"a {message['type']!r} message has exactly the fields {sorted(fields)}, got {sorted(message)}"
        )
    for field in fields - {"type"}:
        if type(message[field]) is not int:
            raise ProtocolError(
                f"a move's {field!r} must be an integer (an action id from 'legal' and the "
                f"'move_number' of the state it answers), got {message[field]!r}"
            )
    return message


# ----- tiles ---------------------------------------------------------------------------------------
class TileTable(NamedTuple):
    """A tile set as the pages draw it, per tile id: the halves ``low`` <= ``high`` and the ``name``
    (as in the move notation). A game's ``tile_table(config)`` builds it."""

    low: Sequence[int]
    high: Sequence[int]
    names: Sequence[str]


def tile_json(tiles: TileTable, t: int) -> dict[str, Any]:
    """One tile as the page draws it: ``id``, halves ``a`` <= ``b``, ``name`` (as in the move notation)."""
    return {"id": t, "a": tiles.low[t], "b": tiles.high[t], "name": tiles.names[t]}


def tiles_json(tiles: TileTable, mask: int) -> list[dict[str, Any]]:
    return [tile_json(tiles, t) for t in iter_bits(mask)]


# ----- one seat's view -----------------------------------------------------------------------------
def seat_message(view: Any, action_text: ActionText) -> dict[str, Any]:
    """What the page of ``view.seat`` shows, from the view alone (``action_text``: the engine's
    ``action_to_text``, which depends only on the rules)."""
    record = game_of_config(view.config)
    messages = record.web_messages()
    message = {"game": record.name, **messages.seat_message(view, action_text), "open_hands": False}
    if view.hands is not None:  # open_hands: the practice option that shows every hand to all
        message["open_hands"] = True  # the page says so and shows them: nothing is sent unseen
        tiles = messages.tile_table(view.config)
        message["hands"] = [tiles_json(tiles, h) for h in view.hands]
    return message


def public_move_text(engine: Any, action: int) -> str:
    """A move as every seat may read it, for the browser's last-event line and the terminal's
    announcements: the game's ``public_text`` where its module of messages has one (a Texas 88 discard
    hides its tile), else the move's text."""
    record = game_of_config(engine.config)
    public = getattr(record.web_messages(), "public_text", None) if record.web_module else None
    return public(engine.config, action) if public else engine.action_to_text(action)


# ----- the table's public record of finished rounds -------------------------------------------------
class RoundKeeper:
    """Applies moves to an engine and keeps what finished rounds made public: the round or hand just
    ended (the engine deals the next at once) with its result, its last line or deciding trick, and
    every hand as it was at the end (turned up to count, docs/web.md). Used by the tables and the
    replay viewer alike."""

    def __init__(self, engine: Any):
        self.engine = engine
        self.previous: dict[str, Any] | None = None
        self._messages = game_of_config(engine.config).web_messages()

    def apply(self, action: int) -> None:
        """``engine.apply(action)`` (raises ``IllegalActionError``, changing nothing), then note a
        finished round or hand."""
        finished = self._messages.apply(self.engine, action)
        if finished is not None:
            self.previous = finished

    def public(self) -> dict[str, Any]:
        """Public facts of the match so far, for every seat's message."""
        return {"previous": self.previous, **self._messages.match_facts(self.engine)}


def full_frame(engine: Any, keeper: RoundKeeper) -> dict[str, Any]:
    """A replay frame: the view of the seat to act (or seat 0 at the end) with every hand added.
    Only for finished or imported games: it shows what no seat may see during play."""
    seat = engine.current_player if engine.current_player is not None else 0
    frame = seat_message(engine.view(seat), engine.action_to_text)
    tiles = game_of_config(engine.config).web_messages().tile_table(engine.config)
    frame["hands"] = [tiles_json(tiles, h) for h in engine.hands]
    frame.update(keeper.public())
    return frame
