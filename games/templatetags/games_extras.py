"""Small template filters for the game pages (positions on a timeline, time formatting)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def pct(value: float | None, timeline: Any) -> float:
    """``value`` (game time) as a percentage of the timeline's span, for CSS ``left``."""
    return timeline.percent(float(value or 0))


@register.filter
def bar_width(bar: Any, timeline: Any) -> float:
    return round(timeline.percent(bar.start + bar.width(timeline.now)) - timeline.percent(bar.start), 3)


@register.filter
def remaining(end: float | None, now: float) -> str:
    if end is None:
        return ""
    left = max(0.0, float(end) - float(now))
    return f"{left:g}"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        return None


@register.filter
def kitchen_item(item: str | None) -> str:
    from games.kitchen_view import item_name

    return item_name(item)


@register.filter
def kitchen_command(command: str | None, places: Any) -> str:
    from games.kitchen_view import command_label

    return command_label(command or "", places or {})[0] if command else ""


@register.filter
def kitchen_text(message: str, board: Any) -> str:
    from games.kitchen_view import humanize

    names = board.get("names", []) if isinstance(board, dict) else []
    return humanize(message, names, board.get("places", {}) if isinstance(board, dict) else {})
