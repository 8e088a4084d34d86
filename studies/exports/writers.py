"""Writing rows as CSV or JSONL text, one line at a time."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any

from studies.exports.base import Column


class _Line:
    """A file-like object csv.writer writes one line into, so each row becomes one string."""

    def __init__(self) -> None:
        self.value = ""

    def write(self, text: str) -> None:
        self.value = text


def _cell(value: Any) -> Any:
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


def jsonl_lines(columns: list[Column], rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    names = [c.name for c in columns]
    for row in rows:
        yield json.dumps({name: row.get(name, "") for name in names}, ensure_ascii=False, default=str) + "\n"
