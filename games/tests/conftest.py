"""Fixtures for the game loop: a tiny rule set (``games.tests.toy``) registered as domain ``toy``,
a scenario of it, and seat plans."""

from __future__ import annotations

import pytest

TOY_DEFINITION = {"jobs": {"sweep": 2, "dust": 1}, "background": {"laundry": 3}, "limit": 20}


@pytest.fixture(autouse=True)
def npc_turns_inline(settings):
    # NPC turns run in the caller, so no background thread outlives a test's database
    settings.BACKGROUND_INLINE = True


@pytest.fixture
def toy_scenario(db):
    from games.scenarios import save_scenario

    scenario, _ = save_scenario(
        domain="toy", slug="test/toy", title="Toy chores", source="tests", definition=TOY_DEFINITION
    )
    return scenario
