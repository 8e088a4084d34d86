"""Generating a family of instances: the same domain, knobs and seed give the same definitions,
byte for byte (each instance draws from its own ``random.Random`` seeded by the domain, the seed
and its index as a string, which Python hashes the same on every machine and run).

An instance is the JSON object ``manage.py generate --json`` prints: ``slug``, ``definition``,
``optimal_makespan`` (the domain's optimum: minutes for tasks, seconds for recipes, the heuristic's
CoS for kitchen, the planner's score for itinerary), ``optimal`` (proven), ``lower_bound``,
``greedy_makespan`` (the reference heuristic's value), ``solve_seconds``, ``stats`` and ``plan``.
Only ``solve_seconds`` depends on the machine: the solvers stop by deterministic work, not by the
clock (``games.planners.budget``): the answers depend on ``max_seconds``, not on the machine.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterator, Mapping
from importlib import import_module
from types import ModuleType
from typing import Any

from games.engine import registry
from games.engine.options import SEED_MAX
from games.generators.knobs import KnobError, resolve

SOURCE = "generated"


def domains() -> list[str]:
    """The domains with a generator, in the registry's order."""
    return registry.having("generator")


def module(domain: str) -> ModuleType:
    path = registry.descriptor(domain).generator if domain in registry.domains() else None
    if path is None:
        raise KnobError(f"unknown domain {domain!r} (domains: {', '.join(domains())})")
    return import_module(path)


def family_name(domain: str, seed: int, knobs: Mapping[str, Any]) -> str:
    """``tasks-s7-3f9a2c``: the domain, the seed and a digest of every knob's value."""
    digest = hashlib.sha256(json.dumps(dict(knobs), sort_keys=True).encode()).hexdigest()[:6]
    return f"{domain}-s{seed}-{digest}"


def family_of(slug: str) -> str | None:
    """The family of a generated instance's slug (``tasks-s0-91bcbc`` for
    ``generated/tasks-s0-91bcbc-003``, as ``generate`` names them), else None."""
    source, _, name = slug.partition("/")
    family, _, index = name.rpartition("-")
    return family if source == SOURCE and family and index.isdigit() else None


def build(domain: str, seed: int, knobs: Mapping[str, Any], index: int) -> dict[str, Any]:
    """The definition of instance ``index`` of a family (no solving)."""
    # Knobs are not part of the seed: instance ``index`` of two families that differ in one knob
    # starts from the same draws, so the knob's effect is seen without the noise of a new instance.
    rng = random.Random(f"{domain}|{seed}|{index}")
    return module(domain).build(rng, dict(knobs), index)


def checked(domain: str, *, count: int, seed: int, knobs: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The knobs' values (defaults filled in) for a family of ``count`` instances of ``domain``;
    raises KnobError for an unknown domain, bad knobs, a bad count or a bad seed."""
    generator = module(domain)
    values = resolve(generator.KNOBS, knobs or {})
    if not 1 <= count <= 200:
        raise KnobError(f"count: must be from 1 to 200, got {count}")
    if not 0 <= seed <= SEED_MAX:  # a 300-digit seed made a slug longer than a scenario's (200)
        raise KnobError(f"seed: must be a whole number from 0 to {SEED_MAX}, got {seed}")
    return values


def instances(
    domain: str, *, count: int, seed: int, knobs: Mapping[str, Any], max_seconds: float = 10.0, start: int = 0
) -> Iterator[dict[str, Any]]:
    """Instances ``start`` to ``count - 1`` of a family, each solved as it is asked for (a page's
    background run shows them as they come and resumes where a stopped server left off). ``knobs``
    as ``checked`` returns them."""
    generator = module(domain)
    family = family_name(domain, seed, knobs)
    for index in range(start, count):
        definition = build(domain, seed, knobs, index)
        found = generator.evaluate(definition, dict(knobs), max_seconds)
        instance = {"slug": f"{SOURCE}/{family}-{index + 1:03d}", "family": family, "seed": seed, "knobs": dict(knobs)}
        instance["definition"] = definition
        instance.update(found)
        yield instance


def generate(
    domain: str,
    *,
    count: int,
    seed: int,
    knobs: Mapping[str, Any] | None = None,
    max_seconds: float = 10.0,
    log: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """``count`` instances with their optimum; raises KnobError for bad knobs or a bad count."""
    values = checked(domain, count=count, seed=seed, knobs=knobs)
    found = []
    for instance in instances(domain, count=count, seed=seed, knobs=values, max_seconds=max_seconds):
        if log:
            log(
                f"{instance['slug']}: optimum {instance['optimal_makespan']} "
                f"({'proven' if instance['optimal'] else 'not proven'}, bound {instance['lower_bound']}), "
                f"heuristic {instance['greedy_makespan']}, {instance['solve_seconds']:.2f} s"
            )
        found.append(instance)
    return found


def describe(instance: Mapping[str, Any]) -> str:
    """The line stored as a saved instance's description: how it was made and its certificate."""
    proof = "proven optimal" if instance["optimal"] else f"best found, lower bound {instance['lower_bound']}"
    return (
        f"Generated (family {instance['family']}, seed {instance['seed']}, knobs "
        f"{json.dumps(instance['knobs'], sort_keys=True)}). "
        f"Optimum {instance['optimal_makespan']}{_for_agents(instance)} ({proof}); "
        f"reference heuristic {instance['greedy_makespan']}."
    )


def _for_agents(instance: Mapping[str, Any]) -> str:
    """ " for 2 agents" where the knobs set a team (an optimum of 19 minutes sat above a one-agent
    plan preview of 30 with nothing saying whose it was)."""
    agents = instance["knobs"].get("agents")
    return f" for {agents} agent{'' if agents == 1 else 's'}" if isinstance(agents, int) else ""


def title(domain: str, instance: Mapping[str, Any]) -> str:
    """A saved instance's title: its definition's own, else the generator's words for it (a recipe
    pair has no title field: "Generated: Stew 1 + Pie 1"), else its slug."""
    definition = instance["definition"]
    if definition.get("title"):
        return str(definition["title"])
    name = getattr(module(domain), "title", None)
    return name(definition) if callable(name) else str(instance["slug"])


def certificate(domain: str, instance: Mapping[str, Any]) -> dict[str, Any]:
    """What a saved instance keeps of its solving (``Scenario.certificate``), so benchmark runs on it
    can be measured against its optimum: the values, what the optimum measures, and the conditions
    it holds under (``basis``: e.g. the number of agents, time constraints on), which an episode
    must share to be compared (``games.npc.optimality``)."""
    generator = module(domain)
    basis = generator.basis(instance["knobs"]) if hasattr(generator, "basis") else {}
    return {
        "optimal_makespan": instance["optimal_makespan"],
        "optimal": bool(instance["optimal"]),
        "lower_bound": instance["lower_bound"],
        "greedy_makespan": instance["greedy_makespan"],
        "objective": generator.OBJECTIVE,
        "basis": basis,
    }
