"""Where rule sets are found by domain name or versioned id.

Each domain package registers its rule set in ``games/domains/__init__.py``'s ``RULESETS``
list; nothing here imports a domain eagerly except through that list.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from games.engine.rules import RuleSet

# (domain, dotted path to the RuleSet instance). Add a fifth game by adding a line here.
_RULESETS: dict[str, str] = {
    "tasks": "games.domains.tasks.rules:RULES",
    "recipes": "games.domains.recipes.rules:RULES",
    "kitchen": "games.domains.kitchen.rules:RULES",
    "itinerary": "games.domains.itinerary.rules:RULES",
}

_cache: dict[str, RuleSet[Any]] = {}


class UnknownDomain(LookupError):
    pass


def domains() -> list[str]:
    """Domain names whose rule set is importable (a domain under construction is skipped)."""
    available = []
    for name in _RULESETS:
        try:
            get(name)
        except (ImportError, AttributeError):
            continue
        available.append(name)
    return available


def get(domain_or_id: str) -> RuleSet[Any]:
    """The rule set for ``tasks`` or ``tasks-v1``."""
    domain = domain_or_id.split("-v", 1)[0]
    if domain not in _RULESETS:
        raise UnknownDomain(f"unknown domain {domain_or_id!r}; known: {', '.join(sorted(_RULESETS))}")
    if domain not in _cache:
        module_name, attr = _RULESETS[domain].split(":")
        _cache[domain] = getattr(import_module(module_name), attr)
    return _cache[domain]
