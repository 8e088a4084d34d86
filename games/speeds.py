"""Default real-time speeds per domain: game time units per real second.

Chosen so each bundled scenario, played by the planner at human pace (one decision every 2 s),
lasts about 2-6 real minutes (``manage.py playtest`` measures it; docs/decisions.md lists the
figures). The domains count time in different units: tasks in minutes, recipes in seconds, the
kitchen in steps, itineraries in minutes.
"""

from __future__ import annotations

DEFAULT_SPEEDS: dict[str, float] = {
    "tasks": 0.25,  # one game minute every 4 s: a 3-minute wash takes 12 s
    "recipes": 20.0,  # twenty recipe seconds per second: a 10-minute bake passes in 30 s
    "kitchen": 0.5,  # one step every 2 s: one command per step at human pace
    # The traveller's clock jumps to the end of each action, so the pace only matters while a
    # player reads: one trip minute per second keeps a minute of reading from costing an hour.
    "itinerary": 1.0,
}
FALLBACK_SPEED = 0.5


def default_speed(domain: str) -> float:
    return DEFAULT_SPEEDS.get(domain, FALLBACK_SPEED)


def seconds_per_unit(domain: str) -> float:
    return 1.0 / default_speed(domain)
