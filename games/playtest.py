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
        """Whether it lasts 2-6 real minutes (None where the pace does not set the length: the
        domain's descriptor says ``length_set_by_reader``)."""
        if registry.descriptor(self.domain).length_set_by_reader:
            return None
        low, high = WINDOW_MINUTES
        return low <= round(self.minutes, 2) <= high

    @property
    def pace(self) -> str:
        """As the game page says it: "1 minute every 15 s", "40 game seconds per second"."""
        from games.presenters import speed_text

        return speed_text(self.speed, registry.get(self.domain).time_unit)


def bundled_scenarios(domain: str | None = None) -> list[Scenario]:
    return [s for s in selectors.current_scenarios(domain) if s.slug.startswith("bundled/")]


def playtest(scenario: Scenario, *, think: float = THINK_SECONDS, speed: float | None = None) -> Playtest:
    rules = registry.get(scenario.domain)
    definition = services.scenario_definition(rules, [scenario])
    options = registry.descriptor(scenario.domain).extra.get("game_options", {})
    speed = default_speed(scenario.domain, definition, options) if speed is None else speed
    agents = int(definition.get("agents", 1)) if registry.descriptor(scenario.domain).team_in_definition else 1
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
    late reaction (recipes' time windows: its descriptor's ``paced_policy``), it does."""
    paced = registry.descriptor(domain).part("paced_policy")
    return policy_for(domain) if paced is None else paced(reaction)


def judge(domain: str, rules: Any, state: Any) -> tuple[bool, str]:
    """Whether the planner won: the domain's own ``playtest_judge``, else every action done."""
    own = registry.descriptor(domain).part("playtest_judge")
    if own is not None:
        passed, verdict = own(rules, state)
        return bool(passed), str(verdict)
    result = rules.result(state)
    outcome = rules.outcome(state)
    done = bool(result.get("completed"))
    return done and outcome.terminated, f"progress {result.get('progress', 0):g} %" + (
        f": {outcome.reason}" if outcome.reason else ""
    )


def kitchen_judge(rules: Any, state: Any) -> tuple[bool, str]:
    """A kitchen is won when it serves at least half of the orders it was given."""
    given = state.orders_made
    share = state.completed / given if given else 0.0
    return share >= KITCHEN_SHARE, f"served {state.completed} of {given} orders ({share:.0%})"


def recipes_judge(rules: Any, state: Any) -> tuple[bool, str]:
    return state.status == "success", state.reason or "not finished"


def itinerary_judge(rules: Any, state: Any) -> tuple[bool, str]:
    from games.domains.itinerary.rules import GOALS_MET

    return state.over == GOALS_MET, f"{state.over or 'not finished'} (score {rules.result(state)['total']:g})"
