"""The one number per domain a progress chart follows over a game (0-100), from ``result()``, and
the words the header and the games list show beside it.

- tasks, recipes: ``progress`` (percent of the work done);
- kitchen: the success rate of the orders finished so far, in percent (the header adds how many
  were served); none until an order has been served or missed;
- itinerary: the score ``total``, points of 100 (executability 60 + constraints 20 + efficiency 20).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.engine import registry

FALLBACKS = ("progress", "score")


def _number(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def headline(domain: str, result: Mapping[str, Any]) -> float | None:
    """The domain's own headline (its descriptor's ``headline``), else the result's progress."""
    own = registry.descriptor(domain).part("headline")
    if own is not None:
        return own(result)  # type: ignore[no-any-return]
    for key in ("progress", *FALLBACKS):
        value = _number(result.get(key))
        if value is not None:
            return value
    return None


def headline_text(domain: str, result: Mapping[str, Any], observation: Mapping[str, Any] | None = None) -> str:
    """A few words for the header: what the number means in this domain (its descriptor's
    ``headline_text``), else "done"."""
    own = registry.descriptor(domain).part("headline_text")
    return "done" if own is None else str(own(result, observation or {}))


def whole(value: float) -> int:
    """A headline of 0-100 as a whole number that reads 100 (or 0) only when it is: a trip scoring
    99.93 is not a perfect 100, a tasks game at 0.4 % has begun."""
    shown = round(value)
    if shown >= 100 > value:
        return 99
    if shown <= 0 < value:
        return 1
    return int(shown)


def headline_title(domain: str) -> str:
    """What the chart and the header's number are, in plain words."""
    return registry.descriptor(domain).headline_title
