"""The fifth game's bundled content (the Django side: it stores scenarios)."""

from __future__ import annotations

from collections.abc import Callable

from games.scenarios import save_scenario

SCENARIOS = {
    "bundled/chores-small": {"jobs": {"sweep": 2, "dust": 1}, "background": {"laundry": 3}, "limit": 30},
    "bundled/chores-big": {"jobs": {"sweep": 2, "dust": 1, "mop": 3}, "background": {"laundry": 3}, "limit": 40},
}


def load(log: Callable[[str], None] = print) -> int:
    for slug, definition in SCENARIOS.items():
        save_scenario(domain="chores", slug=slug, title=slug, source="bundled", definition=definition)
    log(f"chores: {len(SCENARIOS)} scenarios")
    return len(SCENARIOS)
