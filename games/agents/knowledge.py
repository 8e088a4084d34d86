""" "The recipes or tasks relevant now" (SPEC section 7) for domains whose observation leaves them
out: each domain's descriptor names its own (``Domain.knowledge``: the recipes' steps, the kitchen's
recipe trees); tasks and itinerary observations already list their tasks and the brief.
"""

from __future__ import annotations

from typing import Any

from games.engine import registry


def relevant_knowledge(domain: str, state: Any) -> str:
    own = registry.descriptor(domain).part("knowledge")
    return "" if own is None else str(own(state))
