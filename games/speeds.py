"""Default real-time speeds: game time units per real second.

Chosen so each bundled scenario, played by the planner at human pace (one decision every 2 s),
lasts 2-6 real minutes (``manage.py playtest`` measures it; docs/decisions.md lists the figures).
The domains count time in different units: tasks in minutes, recipes in seconds, the kitchen in
steps, itineraries in minutes.

Tasks and recipes differ too much in length for one pace (a 9-minute breakfast and a 29-minute
loaf of bread; a 26-minute breakfast and a two-hour bake), so their pace follows the scenario: the
game time the domain's planner needs (``reference_length``) spread over about 2.5 real minutes,
rounded to a pace a person can read ("a game minute every 5 s", "15 recipe seconds per second").
The kitchen (a fixed number of steps) and the itinerary (the traveller's clock jumps to the end of
each action, so the pace only matters while a player reads) keep one pace per domain. Each domain's
descriptor holds its pace (``default_speed``) and whether its scenarios set their own
(``paced_by_length``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from games.engine import registry

TARGET_SECONDS = 150.0  # the planner's length in real time; people take a little longer
# Readable paces: seconds per game unit when slower than one unit a second, units per second when
# faster ("a minute every 12 s", "25 recipe seconds per second").
LADDER = (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0)


def default_speed(
    domain: str, definition: Mapping[str, Any] | None = None, options: Mapping[str, Any] | None = None
) -> float:
    """The pace a game of ``definition`` gets when nobody chose one (the domain's descriptor says
    which: ``default_speed``, or ``paced_by_length``)."""
    described = registry.descriptor(domain)
    if definition is None or not described.paced_by_length:
        return described.default_speed
    key = json.dumps([definition, options or {}], sort_keys=True, default=str)
    return _paced(domain, key)


@lru_cache(maxsize=256)
def _paced(domain: str, key: str) -> float:
    definition, options = json.loads(key)
    length = reference_length(domain, definition, options)
    if length <= 0:
        return registry.descriptor(domain).default_speed
    return readable(length / TARGET_SECONDS)


def reference_length(domain: str, definition: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> float:
    """Game time from the start to the end of the scenario played by the domain's planner alone."""
    from games.agents.planner_agent import policy_for
    from games.engine.episode import play

    rules = registry.get(domain)
    start = rules.initial_state(definition, seed=0, agents=1, options=options)
    episode = play(rules, definition, {0: policy_for(domain)}, options=options)
    return float(rules.now(episode.state)) - float(rules.now(start))


def readable(speed: float) -> float:
    """The nearest pace on the ladder (nearest in ratio, so 1/11 s rounds to 1/12 s, not 1/10 s)."""
    if speed <= 0:
        raise ValueError("a speed is positive")
    value = 1 / speed if speed < 1 else speed
    nearest = min(LADDER, key=lambda rung: abs(math.log(rung / value)))
    if value > LADDER[-1]:
        nearest = round(value)
    return 1 / nearest if speed < 1 else nearest


def seconds_per_unit(domain: str, definition: Mapping[str, Any] | None = None) -> float:
    return 1.0 / default_speed(domain, definition)
