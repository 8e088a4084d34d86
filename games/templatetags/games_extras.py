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
def kitchen_text(message: str, board: Any) -> str:
    from games.kitchen_view import humanize

    names = board.get("names", []) if isinstance(board, dict) else []
    return humanize(message, names, board.get("places", {}) if isinstance(board, dict) else {})


@register.filter
def spaced(text: Any) -> str:
    """A tasks command or object in people's words: "tea_leaves" reads "tea leaves"."""
    from games.tasks_view import spaced as in_words

    return in_words(str(text)) if text is not None else ""


@register.filter
def seated(game: Any, user: Any) -> bool:
    """Whether ``user`` plays a seat of ``game`` (uses prefetched seats)."""
    uid = getattr(user, "pk", None)
    return uid is not None and any(seat.user_id == uid for seat in game.seats.all())


@register.filter
def score_of(game: Any) -> str:
    """The game's headline as the games list shows it: the final result's once finished, else the
    last point of its progress chart ("50% so far")."""
    from games import metrics
    from games.engine import registry

    value = metrics.headline(game.domain, game.result) if game.is_finished and game.result else None
    if value is None and game.progress_points:
        value = game.progress_points[-1][1]
        if not game.is_finished:  # a running kitchen at "100%" has served its one order so far
            return f"{metrics.whole(value)}% so far"
    if value is None:
        return "—"
    text = f"{metrics.whole(value)}%"
    note = registry.descriptor(game.domain).part("result_note") if game.is_finished and game.result else None
    return f"{text} · {note(game.result)}" if note is not None else text


@register.filter
def whole(value: float) -> int:
    """A headline of 0-100 as a whole number that is 100 only when it is (``metrics.whole``)."""
    from games import metrics

    return metrics.whole(float(value))


@register.filter
def percent(value: float) -> str:
    """A headline of 0-100 as the header and chart write it: "99%" for 99.93."""
    return f"{whole(value)}%"


@register.filter
def explain_term(term: str, domain: str = "") -> str:
    """A benchmark table's column in plain words, as ``domain`` means it (the itinerary's
    "Efficiency (20)" is points for a quick or cheap trip, not recipes' time saved)."""
    from games.glossary import explain

    text = str(term)
    if text.startswith("α="):
        return f"Success rate at alpha {text[2:]}. " + explain("alpha")
    return explain(text, domain) or explain(text.split(" (")[0].lower(), domain)


@register.filter
def cut_detail(name: str) -> str:
    """ "Teammate 1 (planner NPC)" -> "Teammate 1" where room is short (the full name is the title)."""
    return str(name).split(" (")[0]


@register.filter
def sentence(text: Any) -> str:
    """``text`` as one sentence: capital first letter, exactly one full stop."""
    words = str(text or "").strip().rstrip(".")
    return f"{words[:1].upper()}{words[1:]}." if words else ""
