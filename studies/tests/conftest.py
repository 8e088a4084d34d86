"""Fixtures for study tests: the games' toy rule set as a playable domain and a ready study."""

from __future__ import annotations

from dataclasses import replace

import pytest

from studies import measures

TOY_DEFINITION = {"jobs": {"sweep": 2, "dust": 1}, "background": {"laundry": 3}, "limit": 20}


@pytest.fixture(autouse=True)
def npc_turns_inline(settings):
    # NPC turns run in the caller (deterministic), not in a background thread racing the test.
    settings.BACKGROUND_INLINE = True


TOY_MEASURES = [measures.ObjectiveMeasure("progress", "Progress", "%", lambda m: m.get("progress"))]


@pytest.fixture(autouse=True)
def toy_measures():
    """The toy game (registered by the root conftest) with one objective measure, as a study reads it."""
    from games.engine import registry
    from games.tests import toy

    registry.unregister("toy")
    registry.register(replace(toy.DOMAIN, measures="studies.tests.conftest:TOY_MEASURES"))
    yield
    registry.unregister("toy")
    registry.register(toy.DOMAIN)


@pytest.fixture
def toy_scenario(db):
    from games.scenarios import save_scenario

    scenario, _ = save_scenario(
        domain="toy", slug="test/toy", title="Toy chores", source="tests", definition=TOY_DEFINITION
    )
    return scenario


@pytest.fixture
def make_study(db, toy_scenario, researcher, settings):
    """A study on the toy scenario with the given conditions ((name, kind, count), ...), open.
    Opening asks every LLM condition's endpoint: a scripted stand-in answers that one probe."""
    from games.agents.tests.stub_server import stub_endpoint
    from studies import services
    from studies.models import PageKind, StudyStatus

    def make(conditions=(("Alone", "none", 0), ("Random NPC", "random", 1)), *, pages=True, **fields):
        study = services.create_study(title=fields.pop("title", "Test study"), created_by=researcher, **fields)
        for name, kind, count in conditions:
            services.add_condition(study, name=name, npc_kind=kind, npc_count=count)
        services.add_scenario(study, toy_scenario)
        if pages:
            services.add_onboarding_page(study, kind=PageKind.TEXT, title="Rules", body="Do the chores.")
        if study.conditions.filter(npc_kind="llm").exists():
            configured = settings.LLM_BASE_URL
            with stub_endpoint(lambda messages: "OK") as endpoint:
                settings.LLM_BASE_URL = endpoint.base_url
                services.set_status(study, StudyStatus.OPEN)
            settings.LLM_BASE_URL = configured
        else:
            services.set_status(study, StudyStatus.OPEN)
        return study

    return make
