"""Every way the Arena writes a duration or a time of day given in seconds, in one place.

- ``format_clock``: ``HH:MM:SS`` (hours may pass 24), the recipes' wire format: what their rules
  write and what an LLM answers in (``games.domains.recipes.timefmt`` reads it back);
- ``short_clock``: ``m:ss``, or ``h:mm:ss`` from an hour, for boards and tooltips;
- ``amount_text``: ``N hour`` / ``N min`` / ``N sec``, Recipe2Plan's duration texts (what
  ``timefmt.parse_amount`` reads back), for authored and exported recipes;
- ``describe_amount``: a short phrase, ``1 h 30 min``, ``45 s``, for people reading a step;
- ``decimal_minutes``: ``5.5 min``, how the LLM prompts state a step's time.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=8192)
def format_clock(seconds: float) -> str:
    """Seconds -> ``HH:MM:SS`` (memoised: the rules write the same few clock times all game)."""
    total = int(seconds)
    return f"{total // 3600:02d}:{total % 3600 // 60:02d}:{total % 60:02d}"


def short_clock(seconds: float) -> str:
    """Seconds -> ``m:ss``, or ``h:mm:ss`` from an hour (a negative time counts as 0)."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def amount_text(seconds: int) -> str:
    """Seconds -> Recipe2Plan's ``N hour``, ``N min`` or ``N sec`` (the largest whole unit)."""
    if seconds and seconds % 3600 == 0:
        return f"{seconds // 3600} hour"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} sec"


def describe_amount(seconds: int) -> str:
    """Seconds -> ``10 min``, ``1 h 30 min``, ``45 s``."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours} h"] if hours else []
    if minutes:
        parts.append(f"{minutes} min")
    if secs or not parts:
        parts.append(f"{secs} s")
    return " ".join(parts)


def decimal_minutes(seconds: int) -> str:
    """Seconds -> ``5 min`` or ``5.5 min`` (one decimal), as the LLM prompts state step times."""
    return f"{seconds // 60} min" if seconds % 60 == 0 else f"{seconds / 60:.1f} min"
