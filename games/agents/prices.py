"""What a model call costs: the per-model price table (``LLM_PRICES``) and the arithmetic.

``LLM_PRICES`` (Django settings, JSON in the environment) maps a model name to its price in US
dollars per million tokens, input and output apart::

    {"gpt-4o-mini": {"input": 0.15, "output": 0.60}, "gpt-4o": {"input": 2.5, "output": 10}}

A model missing from the table costs 0 (a local server) and is reported as "no price" on pages,
so a zero is never mistaken for a measured cost.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


class PriceError(ValueError):
    pass


def parse(text: str) -> dict[str, dict[str, float]]:
    """``LLM_PRICES`` as ``{model: {"input": $/Mtok, "output": $/Mtok}}``; raises ``PriceError``
    naming the entry at fault (settings call this at start-up, so a typo stops the site)."""
    if not text.strip():
        return {}
    try:
        raw = json.loads(text)
    except ValueError as error:
        raise PriceError(f"LLM_PRICES is not JSON: {error}") from None
    if not isinstance(raw, dict):
        raise PriceError('LLM_PRICES must be an object like {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}')
    table: dict[str, dict[str, float]] = {}
    for model, entry in raw.items():
        if not isinstance(entry, dict) or set(entry) - {"input", "output"}:
            raise PriceError(f"LLM_PRICES[{model!r}] must be {{'input': number, 'output': number}}")
        try:
            prices = {side: float(entry.get(side, 0)) for side in ("input", "output")}
        except (TypeError, ValueError):
            raise PriceError(f"LLM_PRICES[{model!r}]: prices are numbers (US dollars per million tokens)") from None
        if min(prices.values()) < 0:
            raise PriceError(f"LLM_PRICES[{model!r}]: prices cannot be negative")
        table[str(model)] = prices
    return table


def table() -> Mapping[str, Mapping[str, float]]:
    from django.conf import settings

    return getattr(settings, "LLM_PRICES", None) or {}


def priced(model: str) -> bool:
    return model in table()


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int, prices: Mapping[str, Any] | None = None) -> float:
    """US dollars for one call (0 for a model without a price)."""
    entry = (table() if prices is None else prices).get(model)
    if not entry:
        return 0.0
    return (prompt_tokens * float(entry.get("input", 0)) + completion_tokens * float(entry.get("output", 0))) / 1e6
