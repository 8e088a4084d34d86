"""Live-NPC tests run the real play services on the play loop's toy rules (``games.tests.toy``)."""

from __future__ import annotations

import pytest

TOY_DEFINITION = {"jobs": {"sweep": 2, "dust": 1}, "background": {"laundry": 3}, "limit": 20}


@pytest.fixture
def inline_npcs(settings):
    """NPC turns run in the caller (deterministic) instead of a thread or a worker."""
    settings.BACKGROUND_INLINE = True


@pytest.fixture
def toy_scenario(db):
    from games.scenarios import save_scenario

    scenario, _ = save_scenario(
        domain="toy", slug="test/toy", title="Toy chores", source="tests", definition=TOY_DEFINITION
    )
    return scenario


def task(name, minutes=2):
    """A tasks scenario of one task with one action of ``minutes``."""
    action = {"name": f"wash {name}_cup", "minutes": minutes, "background": False, "requires": []}
    return {"format": "tasks-v1", "tasks": [{"name": name, "title": name, "goal": f"{name} done", "actions": [action]}]}


@pytest.fixture
def tasks_scenarios(db):
    """test/chores1..3: one task each, of 1, 2 and 3 minutes."""
    from games.scenarios import save_scenario

    return [
        save_scenario(
            domain="tasks", slug=f"test/chores{i}", title=f"chores {i}", source="tests", definition=task(f"job{i}", i)
        )[0]
        for i in (1, 2, 3)
    ]
