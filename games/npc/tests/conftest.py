"""Live-NPC tests run the real play services on the play loop's toy rules (``games.tests.toy``)."""

from __future__ import annotations

import pytest

from games.engine import registry

TOY_DEFINITION = {"jobs": {"sweep": 2, "dust": 1}, "background": {"laundry": 3}, "limit": 20}


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def toy_rules(monkeypatch):
    monkeypatch.setitem(registry._RULESETS, "toy", "games.tests.toy:RULES")
    yield
    registry._cache.pop("toy", None)


@pytest.fixture
def inline_npcs(settings):
    """NPC turns run in the caller (deterministic) instead of a thread or a worker."""
    settings.NPC_RUN_INLINE = True


@pytest.fixture
def toy_scenario(db):
    from games.scenarios import save_scenario

    scenario, _ = save_scenario(
        domain="toy", slug="test/toy", title="Toy chores", source="tests", definition=TOY_DEFINITION
    )
    return scenario
