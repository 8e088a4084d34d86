"""Can a first-time player win every bundled scenario? ``manage.py playtest`` asks the planner.

Each bundled scenario is played by the domain's planner policy at human pace (``games.engine.pace``:
one decision per 2 s of real time at the domain's default speed, simulated, never slept) with the
scenario's default teammates (kitchen: planner NPCs in the level's other seats). Passing means:
tasks, recipes and itinerary complete (every action done, every recipe cooked, every goal of the
brief met); a kitchen serves at least half of the orders it was given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games import selectors, services
from games.agents.planner_agent import policy_for
from games.engine import registry
from games.engine.episode import Policy
from games.engine.pace import play_at_pace
from games.models import Scenario
from games.speeds import default_speed

THINK_SECONDS = 2.0
KITCHEN_SHARE = 0.5
WINDOW_MINUTES = (2.0, 6.0)  # how long a bundled scenario should last at its default pace
# The traveller's clock jumps to the end of each action (SPEC section 5): a trip lasts as long as
# its player reads, whatever the pace, so the window is not the pace's to keep there.
READING_BOUND = frozenset({"itinerary"})


@dataclass
class Playtest:
    slug: str
    domain: str
    title: str
    speed: float
    real_seconds: float
    passed: bool
    verdict: str
    refused: int

    @property
    def minutes(self) -> float:
        return self.real_seconds / 60

    @property
    def in_window(self) -> bool | None:
        """Whether it lasts 2-6 real minutes (None where the pace does not set the length)."""
        if self.domain in READING_BOUND:
            return None
        low, high = WINDOW_MINUTES
        return low <= round(self.minutes, 2) <= high

    @property
    def pace(self) -> str:
        if self.speed < 1:
            return f"a unit every {1 / self.speed:g} s"
        return f"{self.speed:g} units/s"


def bundled_scenarios(domain: str | None = None) -> list[Scenario]:
    return [s for s in selectors.current_scenarios(domain) if s.slug.startswith("bundled/")]


def playtest(scenario: Scenario, *, think: float = THINK_SECONDS, speed: float | None = None) -> Playtest:
    rules = registry.get(scenario.domain)
    definition = services.scenario_definition(rules, [scenario])
    options = registry.descriptor(scenario.domain).extra.get("game_options", {})
    speed = default_speed(scenario.domain, definition, options) if speed is None else speed
    agents = int(definition.get("agents", 1)) if scenario.domain == "kitchen" else 1
    policy = paced_policy(scenario.domain, think * speed)
    run = play_at_pace(
        rules,
        definition,
        dict.fromkeys(range(agents), policy),
        paced={0},
        speed=speed,
        think=think,
        agents=agents,
        options=options,
    )
    passed, verdict = judge(scenario.domain, rules, run.state)
    return Playtest(
        scenario.slug, scenario.domain, scenario.title, speed, run.real_seconds, passed, verdict, run.refused
    )


def paced_policy(domain: str, reaction: float) -> Policy:
    """The planner as a person would follow it: where the domain's planner can leave room for a
    late reaction (recipes' time windows), it does."""
    if domain == "recipes":
        from games.planners.recipes_npc import paced_policy as recipes_paced

        return recipes_paced(reaction)
    return policy_for(domain)


def judge(domain: str, rules: Any, state: Any) -> tuple[bool, str]:
    result = rules.result(state)
    outcome = rules.outcome(state)
    if domain == "kitchen":
        given = state.orders_made
        share = state.completed / given if given else 0.0
        return share >= KITCHEN_SHARE, f"served {state.completed} of {given} orders ({share:.0%})"
    if domain == "recipes":
        return state.status == "success", state.reason or "not finished"
    if domain == "itinerary":
        from games.domains.itinerary.rules import GOALS_MET

        return state.over == GOALS_MET, f"{state.over or 'not finished'} (score {result['total']:g})"
    done = bool(result.get("completed"))
    return done and outcome.terminated, f"progress {result.get('progress', 0):g} %" + (
        f": {outcome.reason}" if outcome.reason else ""
    )
