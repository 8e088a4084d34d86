"""Game time for recipes: whole seconds, written HH:MM:SS (SPEC section 3).

Durations in the Recipe2Plan data come as "N min", "N sec" or "N hour"; plans and observations use
HH:MM:SS (MM:SS is accepted on input). This module reads them; ``games.engine.durations`` writes them.
"""

from __future__ import annotations

import math
import re

_CLOCK = re.compile(r"^\s*(?:(\d+):)?(\d{1,2}):(\d{1,2})\s*$")
_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(sec|second|seconds|s|min|mins|minute|minutes|hour|hours|h)\s*$", re.I)
_UNIT_SECONDS = {"s": 1, "sec": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60, "minutes": 60}


MAX_AMOUNT = 24 * 3600  # seconds: the longest step or time constraint


class TimeFormatError(ValueError):
    """A time that is neither HH:MM:SS nor MM:SS (or a duration text that is not 'N min')."""


def parse_clock(text: str) -> int:
    """``"01:05:30"`` or ``"05:30"`` -> seconds. Minutes and seconds must be below 60."""
    match = _CLOCK.match(str(text))
    if not match:
        raise TimeFormatError(f"{text!r} is not a time; write HH:MM:SS (e.g. 00:05:00) or MM:SS (e.g. 05:00)")
    hours, minutes, seconds = (int(part) if part else 0 for part in match.groups())
    if minutes >= 60 or seconds >= 60:
        raise TimeFormatError(
            f"{text!r} has minutes or seconds of 60 or more; write HH:MM:SS, e.g. 01:10:00 for 70 minutes"
        )
    return hours * 3600 + minutes * 60 + seconds


def parse_amount(text: str | int | float) -> int:
    """A Recipe2Plan duration ("10 min", "30 sec", "1 hour"; a number is seconds) -> seconds, at
    most a day (``MAX_AMOUNT``: the published steps last at most 50 minutes; "100000000 hour" held
    the studio's preview for 20 s and 1e999, JSON's infinity, crashed it)."""
    if isinstance(text, bool):
        raise TimeFormatError(f"{text!r} is not a duration")
    if isinstance(text, int | float):
        if not math.isfinite(text):
            raise TimeFormatError(f"{text!r} is not a duration; write a number of seconds or 'N min'")
        seconds = float(text)
    else:
        match = _AMOUNT.match(text)
        if not match:
            raise TimeFormatError(f"{text!r} is not a duration; write 'N sec', 'N min' or 'N hour'")
        value, unit = float(match.group(1)), match.group(2).lower()
        seconds = value * (3600 if unit.startswith("h") else _UNIT_SECONDS[unit])
    if seconds > MAX_AMOUNT:  # infinity too (a 400-digit number of hours)
        raise TimeFormatError(f"{text!r} is longer than a day; a step or a time constraint lasts at most 24 hours")
    return round(seconds)
