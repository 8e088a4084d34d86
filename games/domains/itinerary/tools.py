"""Tools for LLM agents (the TDAG-style travel agent of SPEC section 7): read-only SQL over the
brief's travel data, and "check this plan".

``TravelDatabase(definition)`` builds an in-memory SQLite database from the definition's world with
the published schema (``railway``, ``place``, ``in_city_transport``, as in travel.db), so prompts
written for the benchmark work unchanged. It is the one SQL tool of the site (the TDAG agent's
``SQL:`` lines use it too). The SQL comes from a model, so it is bounded every way: an authorizer
refuses every statement but SELECT (and the functions it calls), ``PRAGMA query_only`` is on, a
progress handler stops a query after ``MAX_SECONDS`` of wall-clock time or ``MAX_STEPS`` VM steps,
SQLite's own limits cap the size of any string or blob (``randomblob(10**9)``), the SQL text and
the expression depth, and results are capped in rows and characters. Every error (SQLite's, a
memory or overflow error, anything) comes back as data with a message saying what to do; nothing
raises into the agent loop.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from typing import Any

from games.domains.itinerary.actions import parse_plan
from games.domains.itinerary.rules import RULES
from games.domains.itinerary.scoring import score
from games.domains.itinerary.world import parse_clock

MAX_ROWS = 200
MAX_STEPS = 2_000_000  # SQLite VM steps (x 1000 via the progress handler) before a query is stopped
MAX_SECONDS = 2.0  # wall-clock time of one query
MAX_VALUE_CHARS = 500  # one value as shown to the model
MAX_TEXT_CHARS = 8000  # one rendered result as shown to the model
LIMITS = {  # SQLite's own limits, so no query can build a huge value or parse a huge text
    sqlite3.SQLITE_LIMIT_LENGTH: 1_000_000,  # bytes in one string or blob
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 10_000,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 100,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 20,
    sqlite3.SQLITE_LIMIT_FUNCTION_ARG: 20,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 200,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
}
SCHEMA = """
CREATE TABLE place(name TEXT, city TEXT, type TEXT, opening_hours_begin INTEGER, opening_hours_end INTEGER);
CREATE TABLE railway(number TEXT, origin TEXT, destination TEXT, departure_time DATETIME,
                     arrival_time DATETIME, duration INTEGER, price REAL);
CREATE TABLE in_city_transport(origin TEXT, destination TEXT, duration INTEGER, city TEXT);
"""
_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
TABLES_HELP = (
    "Tables: place(name, city, type 'hotel'|'spot', opening_hours_begin, opening_hours_end), "
    "railway(number, origin, destination, departure_time, arrival_time, duration minutes, price), "
    "in_city_transport(origin, destination, duration minutes, city)."
)


# printf('%.*c', 2000000000, 'x') spends seconds in C before SQLite's length limit ends it, and
# no progress handler runs meanwhile; the travel data never needs formatting.
_DENIED_FUNCTIONS = {"printf", "format"}


def _authorize(action: int, arg1: Any = None, arg2: Any = None, *_args: Any) -> int:
    if action == sqlite3.SQLITE_FUNCTION and str(arg2 or "").lower() in _DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK if action in _ALLOWED else sqlite3.SQLITE_DENY


class TravelDatabase:
    """A read-only SQL view of one definition's travel world."""

    def __init__(self, definition: Mapping[str, Any]) -> None:
        world = definition.get("world") or {}
        world = {key: world.get(key) or [] for key in ("places", "trains", "transfers")}
        city_of = {p["name"]: p["city"] for p in world["places"]}
        self._connection = sqlite3.connect(":memory:", check_same_thread=False)
        self._connection.executescript(SCHEMA)
        self._connection.executemany(
            "INSERT INTO place VALUES (?, ?, ?, ?, ?)",
            [(p["name"], p["city"], p["kind"], p["opens"], p["closes"]) for p in world["places"]],
        )
        rows = []
        for number, origin, destination, dep, arr, price in world["trains"]:
            minutes = _minutes_between(dep, arr)
            rows.append((number, origin, destination, f"{dep}:00", f"{arr}:00", minutes, price))
        self._connection.executemany("INSERT INTO railway VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        self._connection.executemany(
            "INSERT INTO in_city_transport VALUES (?, ?, ?, ?)",
            [(a, b, minutes, city_of.get(a, "")) for a, b, minutes in world["transfers"]],
        )
        self._connection.commit()
        self._connection.execute("PRAGMA query_only = ON")
        for limit, value in LIMITS.items():
            self._connection.setlimit(limit, value)
        self._connection.set_authorizer(_authorize)

    def query(self, sql: str) -> dict[str, Any]:
        """``{"columns", "rows", "truncated"}`` or ``{"error": message}``; never writes, never raises."""
        if not isinstance(sql, str):
            return {"error": "write one SELECT statement as text. " + TABLES_HELP}
        text = sql.strip().rstrip(";")
        if not text:
            return {"error": "empty query; write one SELECT statement. " + TABLES_HELP}
        if ";" in text:
            return {"error": "one statement at a time; send a single SELECT without ';' inside"}
        if len(text) > LIMITS[sqlite3.SQLITE_LIMIT_SQL_LENGTH]:
            return {"error": "the query is too long; write a shorter SELECT"}
        steps = 0
        deadline = time.monotonic() + MAX_SECONDS

        def progress() -> int:
            nonlocal steps
            steps += 1
            return 1 if steps > MAX_STEPS // 1000 or time.monotonic() > deadline else 0

        self._connection.set_progress_handler(progress, 1000)
        try:
            cursor = self._connection.execute(text)
            rows = cursor.fetchmany(MAX_ROWS + 1)
        except sqlite3.DatabaseError as error:
            reason = str(error)
            if "not authorized" in reason or "readonly" in reason or "query_only" in reason:
                return {"error": "only reading is allowed: use SELECT. " + TABLES_HELP}
            if "interrupted" in reason:
                return {"error": "the query ran too long; add a WHERE clause or a LIMIT"}
            if any(word in reason for word in ("too big", "too large", "too many", "too deep", "overflow")):
                return {"error": f"the query builds something too big ({reason}); select less"}
            return {"error": f"SQL error: {reason}. {TABLES_HELP}"}
        except (MemoryError, OverflowError, ValueError, TypeError, sqlite3.Error) as error:
            return {"error": f"the query could not be run ({type(error).__name__}); select less. {TABLES_HELP}"}
        finally:
            self._connection.set_progress_handler(None, 1000)
        columns = [column[0] for column in cursor.description or ()]
        return {
            "columns": columns,
            "rows": [[_shown(value) for value in row] for row in rows[:MAX_ROWS]],
            "truncated": len(rows) > MAX_ROWS,
        }

    def query_text(self, sql: str, max_rows: int = 20) -> str:
        """The result as the text an agent reads (header, rows, a note when cut) or ``error: ...``."""
        result = self.query(sql)
        if "error" in result:
            return f"error: {result['error']}"
        lines = [" | ".join(result["columns"])]
        lines += [" | ".join(str(value) for value in row) for row in result["rows"][:max_rows]]
        if result["truncated"] or len(result["rows"]) > max_rows:
            lines.append(f"... (more than {max_rows} rows; narrow the query)")
        if not result["rows"]:
            lines.append("(no rows)")
        return "\n".join(lines)[:MAX_TEXT_CHARS]

    def close(self) -> None:
        self._connection.close()


def _shown(value: Any) -> Any:
    """A value as the model may see it: blobs described, long text cut."""
    if isinstance(value, bytes):
        return f"<blob of {len(value)} bytes>"
    if isinstance(value, str) and len(value) > MAX_VALUE_CHARS:
        return value[:MAX_VALUE_CHARS] + "..."
    return value


def _minutes_between(dep: str, arr: str) -> int:
    return int((parse_clock(arr) - parse_clock(dep)).total_seconds() // 60)


def check_plan(definition: Mapping[str, Any], plan: str | list[str]) -> dict[str, Any]:
    """Play ``plan`` (text, one action per line, or a list of lines) on a fresh game and return
    the score breakdown (every check, pass or fail, with messages naming the fix)."""
    lines = parse_plan(plan) if isinstance(plan, str) else [line for line in plan if line.strip()]
    state = RULES.initial_state(definition)
    rejected: list[dict[str, Any]] = []
    for index, line in enumerate(lines, 1):
        if state.over:
            rejected.append({"line": index, "action": line, "message": f"not played: the trip is over ({state.over})"})
            continue
        transition = RULES.act(state, 0, line, state.clock)
        state = transition.state
        if transition.rejection is not None:
            rejected.append({"line": index, "action": line, "message": transition.rejection.message})
    result = score(state)
    result["rejected_lines"] = rejected
    return result
