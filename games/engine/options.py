"""Checking a game's options before the rules read them: each domain names its options and what
each must be, so a misspelt option or a text where a switch belongs is refused with a message
instead of read as left out (``"bogus": 1``) or as true (``"constrained": "no"``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from games.engine.fields import unknown_field

Check = Callable[[str, Any], Any]

SEED_MAX = 2**31 - 1  # a game's seed (and a generated family's) is a whole number from 0 to this


def switch(name: str, value: Any) -> bool:
    """true or false (JSON's); a text such as "no" would read as true."""
    if not isinstance(value, bool):
        raise ValueError(f"option {name} must be true or false, not {json.dumps(value)}")
    return value


def whole(low: int, high: int) -> Check:
    """A whole number from ``low`` to ``high``."""

    def check(name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"option {name} must be a whole number from {low} to {high}, not {json.dumps(value)}")
        return value

    return check


def above_zero(high: float) -> Check:
    """A number above 0 and at most ``high``."""

    def check(name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= high:
            raise ValueError(f"option {name} must be a number above 0 and at most {high:g}, not {json.dumps(value)}")
        return float(value)

    return check


def checked(domain: str, options: Mapping[str, Any] | None, known: Mapping[str, Check]) -> dict[str, Any]:
    """``options`` with each value checked by its option's check (None counts as left out); raises
    ValueError naming the first unknown option (with the closest known one) or wrong value."""
    options = dict(options or {})
    if unknown := unknown_field(options, list(known), "option"):
        if not known:
            raise ValueError(f"{domain} games take no options; leave out {unknown[0]!r}")
        raise ValueError(f"unknown {domain} option {unknown[0]!r}: {unknown[1]}")
    return {name: known[name](name, value) for name, value in options.items() if value is not None}
