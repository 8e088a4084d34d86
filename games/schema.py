"""One validated schema for what clients send: websocket frames and the JSON API's bodies.

Everything a program or browser sends goes through ``parse`` (size, UTF-8, nesting depth, no NaN,
no NUL bytes or lone surrogates anywhere: Postgres stores neither) and then ``check`` against the
fields of its kind (types, ranges, lengths; whole numbers are ints, never booleans or floats). A
problem raises ``SchemaError`` whose message says what to fix, naming the field, so entry points
answer a websocket ``error`` frame (the connection stays open) or an HTTP 400 and change nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena_site.params import whole_number
from games.engine.options import SEED_MAX

MAX_DEPTH = 16
MAX_FRAME_BYTES = 8_000
MAX_BODY_BYTES = 64_000
AGENT_MAX = 16
SEQ_MAX = 2**53


class SchemaError(ValueError):
    pass


# -- raw JSON ------------------------------------------------------------------------------------


def _nesting(text: str) -> int:
    """The deepest bracket nesting outside strings (checked before ``json.loads``, which would
    recurse once per level and raise RecursionError on a few thousand)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _no_constants(name: str) -> Any:
    raise SchemaError(f"{name} is not a number JSON allows; send a finite number")


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored (a NUL byte, or a lone surrogate that is not UTF-8), if so."""
    if "\x00" in text:
        return "contains a NUL byte (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode (a lone surrogate)"
    return None


def _walk(value: Any, path: str) -> None:
    if isinstance(value, str):
        problem = text_problem(value)
        if problem:
            raise SchemaError(f"{path} {problem}; remove it")
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(key, f"a key in {path}")
            _walk(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _walk(item, f"{path}[{index}]")


def parse(raw: str | bytes | None, *, max_bytes: int, what: str = "the frame", example: str = "") -> Any:
    """JSON text -> value, or ``SchemaError`` saying what is wrong with it."""
    hint = f" like {example}" if example else ""
    if isinstance(raw, bytes):
        if len(raw) > max_bytes:
            raise SchemaError(f"{what} is longer than {max_bytes} bytes")
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SchemaError(f"{what} must be UTF-8 JSON text{hint}") from None
    if not raw or not raw.strip():
        raise SchemaError(f"{what} is empty; send a JSON object{hint}")
    if len(raw) > max_bytes:
        raise SchemaError(f"{what} is longer than {max_bytes} bytes")
    if _nesting(raw) > MAX_DEPTH:
        raise SchemaError(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(raw, parse_constant=_no_constants)
    except SchemaError:
        raise
    except (ValueError, RecursionError):
        raise SchemaError(f"{what} is not JSON; send a JSON object{hint}") from None
    _walk(value, "the value" if not isinstance(value, dict) else "field")
    if not isinstance(value, dict):
        raise SchemaError(f"{what} must be a JSON object{hint}")
    return value


# -- fields --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """One field: its kind (int, number, str, list, dict, str_or_list) and bounds. A whole number is
    a JSON number, never text: "0" was once taken for agent 0 while "zero" was refused as text, so
    a client's type mistake acted or failed by what the text happened to spell."""

    kind: str
    required: bool = False
    low: float | None = None
    high: float | None = None
    max_length: int | None = None
    hint: str = ""

    def clean(self, name: str, value: Any) -> Any:
        hint = f" ({self.hint})" if self.hint else ""
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                digits = _digits(value)
                unquote = f": send {digits} without quotes" if digits is not None else ""
                raise SchemaError(f'"{name}" must be a whole number{hint}, not {_shown(value)}{unquote}')
            self._range(name, value, hint)
        elif self.kind == "number":
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise SchemaError(f'"{name}" must be a number{hint}, not {_shown(value)}')
            self._range(name, value, hint)
        elif self.kind == "str":
            if not isinstance(value, str):
                raise SchemaError(f'"{name}" must be text{hint}, not {_shown(value)}')
            self._length(name, value, hint)
        elif self.kind == "str_or_list":
            items = value if isinstance(value, list) else [value]
            if not items or not all(isinstance(item, str) and item for item in items):
                raise SchemaError(f'"{name}" must be text or a list of text{hint}')
            self._length(name, items, hint)
            for item in items:
                Field("str", max_length=200).clean(name, item)
        elif self.kind in ("list", "dict"):
            wanted = list if self.kind == "list" else dict
            if not isinstance(value, wanted):
                noun = "a list" if self.kind == "list" else "an object"
                raise SchemaError(f'"{name}" must be {noun}{hint}, not {_shown(value)}')
            self._length(name, value, hint)
        return value

    def _range(self, name: str, value: float, hint: str) -> None:
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise SchemaError(f'"{name}" must be from {_bound(self.low)} to {_bound(self.high)}{hint}')

    def _length(self, name: str, value: Any, hint: str) -> None:
        if self.max_length is not None and len(value) > self.max_length:
            raise SchemaError(f'"{name}" is longer than {self.max_length}{hint}')


def _digits(value: Any) -> str | None:
    """The digits of a whole number written as text ("0", " 12"), the usual type slip, else None."""
    if not isinstance(value, str) or whole_number(value.strip(), largest=10**9) is None:
        return None
    return value.strip()


def _bound(value: float | None) -> str:
    """A range's end as people write it: 2147483647, not 2.14748e+09; 0.5 as 0.5."""
    if value is None:
        return "any"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return {int: "a whole number", float: "a number", str: "text", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__
    )


def check(value: Mapping[str, Any], fields: Mapping[str, Field], *, what: str, extra: bool = False) -> dict[str, Any]:
    """The fields of ``value`` cleaned; unknown fields are an error unless ``extra`` (then kept)."""
    unknown = set(value) - set(fields)
    if unknown and not extra:
        raise SchemaError(f"unknown field(s) in {what}: {', '.join(sorted(unknown))}; use {', '.join(fields)}")
    cleaned = {key: item for key, item in value.items() if key not in fields}
    for name, spec in fields.items():
        if value.get(name) is None:
            if spec.required:
                raise SchemaError(f'{what} needs "{name}"{f" ({spec.hint})" if spec.hint else ""}')
            continue
        cleaned[name] = spec.clean(name, value[name])
    return cleaned


# -- websocket frames ----------------------------------------------------------------------------

AGENT = Field("int", low=0, high=AGENT_MAX, hint="your seat's agent number, like 0")
FRAMES: dict[str, dict[str, Field]] = {
    "act": {"agent": AGENT, "action": Field("str", required=True, max_length=300, hint='like "wash dish"')},
    "wait": {"agent": AGENT},
    "chat": {"text": Field("str", required=True, max_length=1000, hint="your message")},
    "pause": {},
    "resume": {},
    "start": {},
    "sync": {"since": Field("int", low=0, high=SEQ_MAX, hint="the last seq you saw")},
    "ping": {},
}
FRAME_EXAMPLE = '{"type": "act", "action": "wash dish"}'


def frame(raw: str | bytes | None) -> dict[str, Any]:
    """A client's websocket frame, checked; other keys (htmx sends ``HEADERS``) are kept as they are."""
    message = parse(raw, max_bytes=MAX_FRAME_BYTES, what="a frame", example=FRAME_EXAMPLE)
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in FRAMES:  # a list or an object cannot even be looked up
        raise SchemaError(f'"type" must be one of {", ".join(FRAMES)}')
    return check(message, FRAMES[kind], what=f'{"an" if kind[0] in "aeiou" else "a"} "{kind}" frame', extra=True)


# -- API bodies ----------------------------------------------------------------------------------

SEAT = {
    "kind": Field("str", required=True, max_length=20, hint="human, program or npc"),
    "user": Field("str", max_length=150, hint="a username"),
    "dispatcher": Field("str", max_length=40, hint="llm, planner, random or replay"),
    "settings": Field("dict", max_length=40),
}
CREATE_GAME = {
    "domain": Field("str", max_length=40, hint="tasks, recipes, kitchen or itinerary"),
    "scenario": Field(
        "str_or_list",
        required=True,
        max_length=20,
        hint='a slug like "bundled/make-tea" (GET /api/scenarios/ lists them)',
    ),
    "seats": Field("list", max_length=8, hint='like [{"kind": "program"}, {"kind": "npc", "dispatcher": "random"}]'),
    "clock": Field("str", max_length=20, hint="lockstep, real_time or fast"),
    "speed": Field("number", low=0, high=1000, hint="game time units per second"),
    "seed": Field("int", low=0, high=SEED_MAX),
    "options": Field("dict", max_length=40),
    "disconnect_policy": Field("str", max_length=20, hint="pause or continue"),
}
# A scenario every site has (``make run`` and ``seed_demo`` load the bundled ones); timearena/... needs an import.
CREATE_GAME_EXAMPLE = '{"domain": "tasks", "scenario": "bundled/make-tea", "seats": [{"kind": "program"}]}'


def create_game_body(raw: bytes) -> dict[str, Any]:
    body = parse(raw or b"{}", max_bytes=MAX_BODY_BYTES, what="the body", example=CREATE_GAME_EXAMPLE)
    cleaned = check(body, CREATE_GAME, what="the body")
    for number, seat in enumerate(cleaned.get("seats") or []):
        if not isinstance(seat, dict):
            raise SchemaError(f'seat {number} must be an object like {{"kind": "program"}}')
        cleaned["seats"][number] = check(seat, SEAT, what=f"seat {number}")
    return cleaned
