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


@pytest.fixture(scope="session")
def local_llm():
    """SmolLM2-135M served by llama.cpp's server on a free loopback port for the whole session;
    stopped at the end. Skips (saying how to install it) when the packages are missing."""
    from games.agents.local_model import LocalModelUnavailable, serve_local_model

    server = serve_local_model()
    try:
        base_url = server.__enter__()
    except LocalModelUnavailable as error:
        pytest.skip(str(error))
    try:
        yield base_url
    finally:
        server.__exit__(None, None, None)


@pytest.fixture
def llm_settings(settings, local_llm):
    from games.agents.local_model import MODEL_ALIAS

    settings.LLM_BASE_URL = local_llm
    settings.LLM_MODEL = MODEL_ALIAS
    # Generous: on a loaded 2-core machine a 135M model's reply can take a minute; nothing here
    # asserts on time.
    settings.LLM_TIMEOUT_SECONDS = 300.0  # the most a run or seat may ask for (games.agents.endpoints.LIMITS)
    settings.NPC_RETRY_SECONDS = 0  # the tests drive every turn themselves
    return settings


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
