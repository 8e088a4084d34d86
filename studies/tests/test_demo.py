"""seed_demo's study: built from bundled content, open, idempotent."""

from __future__ import annotations

import pytest

from studies.demo import DEMO_SLUG, load_demo
from studies.models import Study

pytestmark = pytest.mark.django_db


def test_the_demo_study_is_built_once_on_bundled_content(toy_scenario, settings):
    from games.agents.tests.stub_server import stub_endpoint

    toy_scenario.source = "bundled"
    toy_scenario.domain = "kitchen"
    toy_scenario.save()
    lines: list[str] = []
    # no model answers: the demo is built but stays in draft, saying why
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"
    assert load_demo(log=lines.append) == 1
    study = Study.objects.get(slug=DEMO_SLUG)
    assert study.status == "draft"
    assert "stays in draft" in lines[-1] and "1 LLM NPC" in lines[-1]
    # the next seed with a model answering opens it
    with stub_endpoint(lambda messages: "OK") as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        assert load_demo(log=lines.append) == 0
    study.refresh_from_db()
    assert study.status == "open"
    assert list(study.conditions.values_list("name", flat=True)) == [
        "Alone",
        "1 LLM NPC",
        "2 LLM NPCs",
        "2 random NPCs",
    ]
    assert study.study_scenarios.count() == 1
    assert [p.kind for p in study.onboarding_pages.all()] == ["text", "tutorial"]
    assert load_demo(log=lines.append) == 0
    assert Study.objects.count() == 1


def test_without_bundled_content_the_demo_says_so():
    lines: list[str] = []
    assert load_demo(log=lines.append) == 0
    assert "no bundled scenarios" in lines[0]
