"""Writing rows as CSV or JSONL text, one line at a time."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any

from arena_site.spreadsheet import FIRST, safe_cell
from studies.exports.base import Column


class _Line:
    """A file-like object csv.writer writes one line into, so each row becomes one string."""

    def __init__(self) -> None:
        self.value = ""

    def write(self, text: str) -> None:
        self.value = text


class RawJSON(str):
    """JSON text straight from the database, written as is (no decode and re-encode per row)."""


_RAW = "\x00raw-json\x00"
_RAW_QUOTED = json.dumps(_RAW)


def _cell(value: Any) -> Any:
    kind = type(value)
    if kind is str:  # most cells: the fast path
        return value if value[:1] not in FIRST else safe_cell(value)
    if kind is int or kind is float:
        return value
    if kind is RawJSON:
        return str(value)
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def csv_lines(columns: list[Column], rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    line = _Line()
    writer = csv.writer(line, lineterminator="\n")
    names = [c.name for c in columns]
    writer.writerow(names)
    yield line.value
    for row in rows:
        writer.writerow([_cell(row.get(name, "")) for name in names])
        yield line.value


def _json_value(value: Any) -> Any:
    """A cell as JSONL writes it: an empty cell (a missing number, no answer, no error) is null, as
    readers of JSON expect (pandas read "" in a number column as text, the whole column with it)."""
    if isinstance(value, RawJSON):
        return _RAW
    if value is None or (type(value) is str and not value):
        return None
    return value


def jsonl_lines(columns: list[Column], rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    names = [c.name for c in columns]
    for row in rows:
        raw = [row[name] for name in names if isinstance(row.get(name), RawJSON)]
        values = {name: _json_value(row.get(name)) for name in names}
        line = json.dumps(values, ensure_ascii=False, default=str)
        for text in raw:  # in column order, as json.dumps wrote the placeholders
            line = line.replace(_RAW_QUOTED, text or "null", 1)
        yield line + "\n"
