"""The one number per domain a progress chart follows over a game (0-100), from ``result()``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# result key to chart for each domain; the first numeric one of these is used for a new domain
HEADLINE: dict[str, str] = {"tasks": "progress", "recipes": "progress", "kitchen": "score", "itinerary": "score"}
FALLBACKS = ("progress", "score", "success_rate")


def headline(domain: str, result: Mapping[str, Any]) -> float | None:
    keys = [HEADLINE[domain]] if domain in HEADLINE else []
    for key in [*keys, *FALLBACKS]:
        value = result.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None
