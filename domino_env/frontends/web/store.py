"""The server's tables on disk: SQLite from the standard library, written as play happens.

A table is stored when it opens (the lobby's request, seat names and kinds, the seats' tokens, the
engine's save at the first move), each move as it is made (one committed row: a server killed at
any moment loses at most the move being written), and its game record when it ends. A restarted
server reads them back (``saved_tables``) and plays every unfinished table on from its last move,
with the same links; a finished table's record stays available after it leaves the server's memory.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    number INTEGER NOT NULL,
    request TEXT NOT NULL,
    tokens TEXT NOT NULL,
    start TEXT NOT NULL,
    error TEXT,
    record TEXT
);
CREATE TABLE IF NOT EXISTS moves (
    table_id TEXT NOT NULL REFERENCES tables(id),
    n INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action INTEGER NOT NULL,
    how TEXT NOT NULL,
    PRIMARY KEY (table_id, n)
);
"""


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/domino-env/tables.sqlite3`` (``~/.local/share`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "domino-env" / "tables.sqlite3"


class Store:
    """One SQLite file; every call is made from the server's event loop thread and commits at once."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(SCHEMA)

    def add_table(
        self, table_id: str, number: int, request: dict[str, Any], tokens: dict[int, str], start: str
    ) -> None:
        self.db.execute(
            "INSERT INTO tables (id, number, request, tokens, start) VALUES (?, ?, ?, ?, ?)",
            (table_id, number, json.dumps(request), json.dumps(tokens), start),
        )

    def add_move(self, table_id: str, n: int, seat: int, action: int, how: str) -> None:
        self.db.execute(
            "INSERT INTO moves (table_id, n, seat, action, how) VALUES (?, ?, ?, ?, ?)",
            (table_id, n, seat, action, how),
        )

    def finish(self, table_id: str, record: dict[str, Any] | None, error: str | None) -> None:
        self.db.execute(
            "UPDATE tables SET record = ?, error = ? WHERE id = ?",
            (None if record is None else json.dumps(record), error, table_id),
        )

    def saved_tables(self) -> list[dict[str, Any]]:
        """Every stored table in the order opened: ``id``, ``number``, ``request``, ``tokens`` (by
        seat), ``start``, ``error``, ``over`` and ``moves`` as ``(seat, action, how)``."""
        tables = []
        rows = self.db.execute(
            "SELECT id, number, request, tokens, start, error, record IS NOT NULL FROM tables ORDER BY number"
        ).fetchall()
        for table_id, number, request, tokens, start, error, over in rows:
            moves = self.db.execute(
                "SELECT seat, action, how FROM moves WHERE table_id = ? ORDER BY n", (table_id,)
            ).fetchall()
            tables.append(
                {
                    "id": table_id,
                    "number": number,
                    "request": json.loads(request),
                    "tokens": {int(s): t for s, t in json.loads(tokens).items()},
                    "start": start,
                    "error": error,
                    "over": bool(over),
                    "moves": [tuple(m) for m in moves],
                }
            )
        return tables

    def record(self, table_id: str) -> dict[str, Any] | None:
        """The game record of a finished table, else ``None``."""
        row = self.db.execute("SELECT record FROM tables WHERE id = ?", (table_id,)).fetchone()
        return None if row is None or row[0] is None else json.loads(row[0])

    def close(self) -> None:
        self.db.close()
