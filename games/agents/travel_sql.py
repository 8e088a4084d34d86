"""The TDAG sub-agents' read-only SQL tool over the travel data of one itinerary brief.

The brief's world (trains, places, in-city transfers) is loaded into a private in-memory SQLite
database with the ItineraryBench table names. Queries are guarded three ways, because the SQL text
comes from a model: an authorizer allows reading only (no writes, no ATTACH, no PRAGMA), a
progress handler aborts long queries, and results are cut to a few rows.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

MAX_ROWS = 20
MAX_STEPS = 200_000  # SQLite VM instructions before a query is aborted

SCHEMA = """\
railway(number, origin, destination, departure 'YYYY-MM-DD HH:MM', arrival 'YYYY-MM-DD HH:MM', price)
place(name, city, kind 'hotel'|'spot', opens hour, closes hour)
in_city_transport(origin, destination, minutes)"""

_READ_ONLY = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION}


class TravelDatabase:
    def __init__(self, world: Mapping[str, Any]) -> None:
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.executescript(
            "create table railway(number text, origin text, destination text, departure text, arrival text,"
            " price real);"
            "create table place(name text, city text, kind text, opens integer, closes integer);"
            "create table in_city_transport(origin text, destination text, minutes integer);"
        )
        self.db.executemany("insert into railway values (?,?,?,?,?,?)", [tuple(t) for t in world.get("trains", [])])
        self.db.executemany(
            "insert into place values (?,?,?,?,?)",
            [(p["name"], p["city"], p["kind"], p["opens"], p["closes"]) for p in world.get("places", [])],
        )
        self.db.executemany(
            "insert into in_city_transport values (?,?,?)", [tuple(t) for t in world.get("transfers", [])]
        )
        self.db.commit()
        self.db.set_authorizer(self._authorize)

    @staticmethod
    def _authorize(action: int, *args: Any) -> int:
        return sqlite3.SQLITE_OK if action in _READ_ONLY else sqlite3.SQLITE_DENY

    def query(self, sql: str) -> str:
        """The result as text (header + rows), or an error that says what is allowed."""
        sql = sql.strip().rstrip(";")
        if ";" in sql:
            return "error: one SELECT statement at a time"
        steps = 0

        def budget() -> int:
            nonlocal steps
            steps += 1000
            return 1 if steps > MAX_STEPS else 0

        self.db.set_progress_handler(budget, 1000)
        try:
            cursor = self.db.execute(sql)
            rows = cursor.fetchmany(MAX_ROWS + 1)
        except sqlite3.Error as error:
            return f"error: {error}. Only SELECT queries over: {SCHEMA}"
        finally:
            self.db.set_progress_handler(None, 0)
        header = " | ".join(d[0] for d in cursor.description or [])
        lines = [header] + [" | ".join(str(v) for v in row) for row in rows[:MAX_ROWS]]
        if len(rows) > MAX_ROWS:
            lines.append(f"... (more than {MAX_ROWS} rows; narrow the query)")
        if not rows:
            lines.append("(no rows)")
        return "\n".join(lines)
