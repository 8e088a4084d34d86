"""The registry of domains: every list of games in the code base is read from here.

Each domain declares one ``Domain`` descriptor (``games/engine/domain.py``) in its package,
``games/domains/<name>/descriptor.py``; ``DESCRIPTORS`` lists them. A test or a plugin adds one
with ``register``. Nothing here skips a domain that fails to import: a missing module is an error
naming it, at start-up (``GamesConfig.ready`` checks them all), never a quietly shorter list.

Rule sets are found by domain name (its current rule set) or by versioned id (``tasks-v1``); an
unknown domain or version is an error naming what exists, so an old game never replays on other
rules than its own.
"""

from __future__ import annotations

from typing import Any

from games.engine.domain import DescriptorError, Domain, check_exists, resolve
from games.engine.rules import RuleSet

# The descriptors of the bundled games, in the order lists show them. Add a game by adding a line.
DESCRIPTORS: list[str] = [
    "games.domains.tasks.descriptor:DOMAIN",
    "games.domains.recipes.descriptor:DOMAIN",
    "games.domains.kitchen.descriptor:DOMAIN",
    "games.domains.itinerary.descriptor:DOMAIN",
]

# The descriptor fields that name a "module:attribute" (check_all finds each at start-up).
PARTS = (
    "npc_policy",
    "combine",
    "headline",
    "headline_text",
    "result_note",
    "text",
    "knowledge",
    "bundled",
    "benchmark_items",
    "benchmark_table",
    "game_item",
    "authoring",
    "benchmark_metrics",
    "success",
    "measures",
    "paced_policy",
    "playtest_judge",
    "wakes_at",
)

_domains: dict[str, Domain] = {}
_rule_sets: dict[str, RuleSet[Any]] = {}
_loaded = False


class UnknownDomain(LookupError):
    pass


class UnknownRuleSet(UnknownDomain):
    pass


def _load() -> dict[str, Domain]:
    global _loaded
    if not _loaded:
        for path in DESCRIPTORS:
            domain = resolve(path)
            if not isinstance(domain, Domain):
                raise DescriptorError(f"{path} is not a games.engine.domain.Domain")
            _domains.setdefault(domain.name, domain)
        _loaded = True
    return _domains


def register(domain: Domain) -> None:
    """Add a domain (a test's toy game, a plugin); its name must be new."""
    known = _load()
    if domain.name in known and known[domain.name] is not domain:
        raise DescriptorError(f"a domain named {domain.name!r} is already registered")
    known[domain.name] = domain


def unregister(name: str) -> None:
    """Remove a domain added with ``register`` (tests clean up after themselves)."""
    domain = _load().pop(name, None)
    for rule_set_id in domain.rule_sets if domain else ():
        _rule_sets.pop(rule_set_id, None)


def descriptors() -> list[Domain]:
    return list(_load().values())


def domains() -> list[str]:
    """Every registered domain's name."""
    return list(_load())


def having(part: str) -> list[str]:
    """The names of the domains whose descriptor gives ``part`` (a generator, an authoring format...)."""
    return [d.name for d in descriptors() if getattr(d, part) is not None]


def choices() -> list[tuple[str, str]]:
    """(name, title) pairs for forms and the model's choices."""
    return [(d.name, d.title) for d in descriptors()]


def descriptor(name: str) -> Domain:
    """The descriptor of ``tasks`` (or of the domain of ``tasks-v1``)."""
    known = _load()
    domain = name.split("-v", 1)[0] if isinstance(name, str) else name
    if domain not in known:
        raise UnknownDomain(f"unknown domain {name!r}; known: {', '.join(known)}")
    return known[domain]


def get(domain_or_id: str) -> RuleSet[Any]:
    """The rule set for ``tasks`` (its current one) or exactly ``tasks-v1``."""
    domain = descriptor(domain_or_id)
    rule_set_id = domain_or_id if domain_or_id in domain.rule_sets else None
    if rule_set_id is None:
        if domain_or_id != domain.name:
            raise UnknownRuleSet(
                f"unknown rule set {domain_or_id!r}; the {domain.name} rule sets are {', '.join(domain.rule_sets)}"
            )
        rule_set_id = domain.current_rule_set
    if rule_set_id not in _rule_sets:
        rules = resolve(domain.rule_sets[rule_set_id])
        if getattr(rules, "id", None) != rule_set_id:
            raise DescriptorError(
                f"{domain.rule_sets[rule_set_id]} has id {getattr(rules, 'id', None)!r}, not {rule_set_id!r}"
            )
        _rule_sets[rule_set_id] = rules
    return _rule_sets[rule_set_id]


def check_all() -> None:
    """At start-up: every registered domain's rule sets and named parts name modules that exist,
    so a missing one fails the start, not a player's first game. (Modules are found, not run:
    start-up stays quick; the tests import every part.)"""
    for domain in descriptors():
        paths = [*domain.rule_sets.values(), *(getattr(domain, a) for a in PARTS), domain.cli, domain.generator]
        for path in filter(None, paths):
            check_exists(path)
