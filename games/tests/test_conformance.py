"""The conformance suite (``games.engine.conformance``) over every registered domain and every
scenario its bundled loader stores: a new domain is checked by registering its descriptor."""

from __future__ import annotations

import pytest

from games.engine import registry
from games.engine.conformance import check_rules
from games.models import Scenario

pytestmark = pytest.mark.django_db


def bundled_definitions(domain: str) -> dict[str, dict]:
    """Every scenario the domain's bundled loader stores, by slug."""
    loader = registry.descriptor(domain).part("bundled")
    assert loader is not None, f"the {domain} descriptor names no bundled content"
    loader(log=lambda line: None)
    scenarios = Scenario.objects.current().filter(domain=domain).order_by("slug")
    return {s.slug: s.definition for s in scenarios}


def check_domain(domain: str) -> int:
    rules = registry.get(domain)
    policy = registry.descriptor(domain).part("npc_policy")
    definitions = bundled_definitions(domain)
    assert definitions, f"the {domain} bundled loader stored no scenario"
    for slug, definition in definitions.items():
        try:
            check_rules(rules, definition, policy=policy)
        except AssertionError as error:
            raise AssertionError(f"{domain} scenario {slug}: {error}") from error
    return len(definitions)


@pytest.mark.parametrize("domain", registry.domains())
def test_every_bundled_scenario_of_every_domain_conforms(domain):
    assert check_domain(domain) >= 1
