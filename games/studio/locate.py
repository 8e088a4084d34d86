"""Where a field is in the text a researcher typed: line numbers for JSON paths and TOML tables.

Validation messages name fields (``actions[3].requires``, ``recipe (Soup) step 2``); the editor
shows the line. JSON: a small scanner records the line of every key and array item while it reads
(the standard library's parser keeps no positions). TOML: the n-th ``[[actions]]`` header and the
keys under it.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

Path = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")

_DECODER = json.JSONDecoder()


def json_lines(text: str) -> dict[Path, int]:
    """{path: 1-based line} for every value of a JSON document (empty if it does not parse)."""
    lines: dict[Path, int] = {}
    # Where each line ends, to find a value's line by bisection: counting the newlines before each
    # value was quadratic (a recipe of 20,000 ingredients took 1.2 s, 100,000 took 20 s to refuse).
    ends = [match.start() for match in re.finditer("\n", text)]

    def line_at(index: int) -> int:
        return bisect.bisect_left(ends, index) + 1

    def skip(index: int) -> int:
        match = _WS.match(text, index)
        return match.end() if match else index

    def value(index: int, path: Path) -> int:
        index = skip(index)
        lines.setdefault(path, line_at(index))
        char = text[index]
        if char == "{":
            index = skip(index + 1)
            if text[index] == "}":
                return index + 1
            while True:
                index = skip(index)
                key, index = _DECODER.raw_decode(text, index)  # the key string and the index past it
                lines[(*path, key)] = line_at(index)
                index = skip(index)
                index = value(index + 1, (*path, key))  # past the colon
                index = skip(index)
                if text[index] == "}":
                    return index + 1
                index += 1  # the comma
        if char == "[":
            index = skip(index + 1)
            if text[index] == "]":
                return index + 1
            position = 0
            while True:
                index = value(index, (*path, position))
                index = skip(index)
                if text[index] == "]":
                    return index + 1
                index += 1
                position += 1
        if char == '"':
            return _DECODER.raw_decode(text, index)[1]
        match = _SCALAR.match(text, index)
        if not match:
            raise ValueError(index)
        return match.end()

    try:
        json.loads(text)
        value(0, ())
    except (ValueError, IndexError):
        return {}
    return lines


def line_of(lines: dict[Path, int], path: Path) -> int | None:
    """The line of ``path``, else of its nearest ancestor that has one."""
    for cut in range(len(path), -1, -1):
        if path[:cut] in lines:
            return lines[path[:cut]]
    return None


def toml_action_line(text: str, number: int, key: str | None = None) -> int | None:
    """The line of the ``number``-th (0-based) ``[[actions]]`` table, or of ``key`` inside it."""
    headers = [i for i, line in enumerate(text.splitlines(), 1) if line.strip() == "[[actions]]"]
    if number >= len(headers):
        return None
    start = headers[number]
    end = headers[number + 1] if number + 1 < len(headers) else len(text.splitlines()) + 1
    if key:
        for offset, line in enumerate(text.splitlines()[start : end - 1], start + 1):
            if re.match(rf"\s*{re.escape(key)}\s*=", line):
                return offset
    return start


def toml_key_line(text: str, key: str) -> int | None:
    """The line of a top-level ``key = ...`` (before the first table)."""
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("["):
            return None
        if re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number
    return None


def first(*candidates: Any) -> Any:
    return next((c for c in candidates if c is not None), None)
