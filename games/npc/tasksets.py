"""The task sets benchmarks run over, laid out like the papers (SPEC sections 2-5).

An item is one episode: ``{"key", "scenarios": [slugs], "options", "agents", "seed", "group"}``.
``group`` says which row (and, for kitchen, which α column) of the paper's table it belongs to.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import Any

from games.engine import registry
from games.models import Scenario

DEFAULT_ALPHAS = (1.0, 1.5, 2.0, 2.5, 3.0)


class TaskSetError(ValueError):
    pass


def scenario_slugs(domain: str, patterns: Sequence[str] = (), source: str = "") -> list[str]:
    query = Scenario.objects.current().filter(domain=domain)
    if source:
        query = query.filter(source=source)
    slugs = list(query.order_by("slug").values_list("slug", flat=True))
    if patterns:
        slugs = [slug for slug in slugs if any(fnmatch(slug, p) or slug == p for p in patterns)]
    if not slugs:
        raise TaskSetError(_none_found(domain, patterns, any_of_domain=query.exists()))
    return slugs


def _none_found(domain: str, patterns: Sequence[str], *, any_of_domain: bool) -> str:
    """Why no scenario was found: a pattern naming another domain's scenario says so (it read "load
    some first" beside a scenario that existed, in the tasks domain)."""
    what = f" matching {', '.join(patterns)}" if patterns else ""
    elsewhere = sorted(
        {
            (scenario.slug, scenario.domain)
            for scenario in Scenario.objects.current().exclude(domain=domain).only("slug", "domain")
            if any(fnmatch(scenario.slug, p) or scenario.slug == p for p in patterns)
        }
    )
    if elsewhere:
        named = ", ".join(f"{slug} is a {other} scenario" for slug, other in elsewhere[:3])
        return f"no current {domain} scenarios{what}: {named}; pick its domain, or {domain} scenarios"
    if any_of_domain:
        return f"no current {domain} scenarios{what}; the scenarios page lists them (filter by {domain})"
    return f"no current {domain} scenarios{what}; load some first (manage.py seed_demo or import_dataset)"


def _natural(slug: str) -> tuple[str, int, str]:
    name = slug.rsplit("/", 1)[-1]
    match = re.match(r"^(.*?)(\d+)$", name)
    # Numbered sets (cooking1..10) form categories; authored names form one category.
    # "tasks-s7-d91197-001" is of category "tasks-s7-d91197": a trailing "-" read as a cut label
    return (match.group(1).rstrip("-_ "), int(match.group(2)), slug) if match else ("", 0, slug)


@dataclass(frozen=True)
class Knobs:
    """What a benchmark's task set varies, beyond scenarios and seeds (each domain reads its own)."""

    task_counts: Sequence[int] = (1,)
    constraints: Sequence[bool] = (True, False)
    alphas: Sequence[float] = DEFAULT_ALPHAS
    agent_counts: Sequence[int] = (2,)


ItemBuilder = Callable[[Sequence[str], int, Knobs], list[dict[str, Any]]]


def build_items(
    domain: str,
    *,
    patterns: Sequence[str] = (),
    source: str = "",
    task_counts: Sequence[int] = (1,),
    constraints: Sequence[bool] = (True, False),
    alphas: Sequence[float] = DEFAULT_ALPHAS,
    agent_counts: Sequence[int] = (2,),
    seeds: Sequence[int] = (0,),
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The items of a run: the domain's descriptor names its builder (``benchmark_items``); a domain
    without one plays each scenario once, one agent."""
    descriptor = registry.descriptor(domain)  # an unknown domain is an error naming the known ones
    builder: ItemBuilder = descriptor.part("benchmark_items") or single_items
    knobs = Knobs(task_counts=task_counts, constraints=constraints, alphas=alphas, agent_counts=agent_counts)
    slugs = scenario_slugs(domain, patterns, source)
    items: list[dict[str, Any]] = []
    for seed in seeds:
        items += builder(slugs, seed, knobs)
    return items[:limit] if limit else items


def single_items(slugs: Sequence[str], seed: int, knobs: Knobs) -> list[dict[str, Any]]:
    return [_item([slug], {}, 1, seed, {}) for slug in slugs]


def tasks_items(slugs: Sequence[str], seed: int, knobs: Knobs) -> list[dict[str, Any]]:
    return _tasks_items(slugs, knobs.task_counts, seed)


def recipes_items(slugs: Sequence[str], seed: int, knobs: Knobs) -> list[dict[str, Any]]:
    return [
        _item([slug], {"time_constraints": on}, 1, seed, {"constraints": "with" if on else "without"})
        for slug in slugs
        for on in knobs.constraints
    ]


def kitchen_items(slugs: Sequence[str], seed: int, knobs: Knobs) -> list[dict[str, Any]]:
    return [
        _item([slug], {"alpha": alpha}, agents, seed, {"level": slug, "agents": agents, "alpha": alpha})
        for slug in slugs
        for agents in knobs.agent_counts
        for alpha in knobs.alphas
    ]


def itinerary_items(slugs: Sequence[str], seed: int, knobs: Knobs) -> list[dict[str, Any]]:
    return [_item([slug], {}, 1, seed, {"type": itinerary_type(slug)}) for slug in slugs]


def _certified_teams(slugs: Sequence[str]) -> dict[str, int]:
    """The team size each certified (generated) scenario's optimum was computed for, where not one."""
    stored = Scenario.objects.current().filter(slug__in=slugs, certificate__isnull=False)
    teams = {}
    for slug, certificate in stored.values_list("slug", "certificate"):
        agents = (certificate or {}).get("basis", {}).get("agents")
        if isinstance(agents, int) and not isinstance(agents, bool) and agents > 1:
            teams[slug] = agents
    return teams


def _tasks_items(slugs: Sequence[str], task_counts: Sequence[int], seed: int) -> list[dict[str, Any]]:
    """#Task = 1/2/3: singles, pairs (i, i+1) and triples (i, i+1, i+2) within each category,
    wrapping round (SPEC section 2). A generated instance alone is played by the team its certified
    optimum is for (a family generated for 2 agents was played by 1, and no episode compared)."""
    teams = _certified_teams(slugs) if 1 in task_counts else {}
    categories: dict[str, list[str]] = {}
    for slug in sorted(slugs, key=_natural):
        categories.setdefault(_natural(slug)[0], []).append(slug)
    items = []
    for count in task_counts:
        if count not in (1, 2, 3):
            raise TaskSetError("tasks are combined 1, 2 or 3 at a time (--tasks 1,2,3)")
        for category, members in categories.items():
            if count > len(members):
                continue
            for i in range(len(members)):
                combo = [members[(i + k) % len(members)] for k in range(count)]
                agents = teams.get(combo[0], 1) if count == 1 else 1
                items.append(_item(combo, {}, agents, seed, {"tasks": count, "category": category or "tasks"}))
    return items


def item_for(
    domain: str,
    scenarios: Sequence[str],
    options: dict[str, Any],
    agents: int,
    seed: int,
    result: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The item a game of these scenarios and options would be in a task set (its paper-table
    group derived as the domain's builder sets it: the descriptor's ``game_item``), so people's
    games land in the same rows as benchmark episodes. ``result``: the finished game's figures, for
    what it really ran at where the options left it to the scenario (a kitchen level's own α)."""
    build = registry.descriptor(domain).part("game_item") or single_game_item
    return build(list(scenarios), dict(options), agents, seed, result or {})  # type: ignore[no-any-return]


def single_game_item(
    slugs: list[str], options: dict[str, Any], agents: int, seed: int, result: Mapping[str, Any]
) -> dict[str, Any]:
    return _item(slugs, {}, agents, seed, {})


def tasks_game_item(
    slugs: list[str], options: dict[str, Any], agents: int, seed: int, result: Mapping[str, Any]
) -> dict[str, Any]:
    return _item(slugs, {}, agents, seed, {"tasks": len(slugs), "category": _natural(slugs[0])[0] or "tasks"})


def recipes_game_item(
    slugs: list[str], options: dict[str, Any], agents: int, seed: int, result: Mapping[str, Any]
) -> dict[str, Any]:
    on = bool(options.get("time_constraints", True))  # the rules' default
    return _item(slugs, {"time_constraints": on}, agents, seed, {"constraints": "with" if on else "without"})


def kitchen_game_item(
    slugs: list[str], options: dict[str, Any], agents: int, seed: int, result: Mapping[str, Any]
) -> dict[str, Any]:
    # the α the game ran at: its option, else the level's own (in its result), else the rules' 1.0
    alpha = float(options.get("alpha", result.get("alpha", 1.0)))
    return _item(slugs, {"alpha": alpha}, agents, seed, {"level": slugs[0], "agents": agents, "alpha": alpha})


def itinerary_game_item(
    slugs: list[str], options: dict[str, Any], agents: int, seed: int, result: Mapping[str, Any]
) -> dict[str, Any]:
    return _item(slugs, {}, agents, seed, {"type": itinerary_type(slugs[0])})


def itinerary_type(slug: str) -> str:
    """The row an itinerary episode reads in ItineraryBench's table: its type for the published
    briefs ("type 2"), else the scenario's family ("bundled briefs", "studio briefs")."""
    match = re.search(r"type\s*_?(\d)", slug)
    if match:
        return f"type {match.group(1)}"
    return f"{slug.split('/', 1)[0]} briefs" if "/" in slug else "briefs"


def _item(
    scenarios: list[str], options: dict[str, Any], agents: int, seed: int, group: dict[str, Any]
) -> dict[str, Any]:
    opts = ",".join(f"{k}={v}" for k, v in sorted(options.items()))
    key = "+".join(scenarios) + (f"|{opts}" if opts else "") + f"|agents={agents}|seed={seed}"
    return {"key": key, "scenarios": scenarios, "options": options, "agents": agents, "seed": seed, "group": group}
