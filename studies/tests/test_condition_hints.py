"""A condition's "Hints" box is the researcher's own inference knowledge: it reaches the prompt of
the condition's LLM teammates (it was stored where no dispatcher read it)."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.urls import reverse

from games.agents.llm_dispatcher import OWN_HINTS_MAX
from games.agents.tests.stub_server import stub_endpoint
from studies import services
from studies.forms import ConditionForm
from studies.models import Condition

HINT = "Sweep before you wash: the dish rack drips on the floor."


def _condition_fields(**fields: str) -> dict[str, str]:
    return {f"condition-{key}": value for key, value in {"npc_kind": "llm", "npc_count": "1", **fields}.items()}


@pytest.mark.django_db(transaction=True)  # the NPC turn runs after commit
def test_a_conditions_hints_reach_its_llm_teammates_prompt(make_study, settings):
    study = make_study(conditions=(("LLM teammate", "llm", 1),), clock_mode="lockstep")
    form = ConditionForm(_condition_fields(name="LLM teammate", hints=f"  {HINT}\n"), prefix="condition", study=study)
    assert form.is_valid(), form.errors
    condition = study.conditions.get()
    services.update_condition(
        condition, name="LLM teammate", npc_kind="llm", npc_count=1, dispatcher=form.dispatcher_settings()
    )
    participant = services.give_consent(services.join(study, external_id="P1"))
    services.advance_onboarding(participant, 0)
    participant.refresh_from_db()
    with stub_endpoint(lambda messages: "NOTHING") as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        services.start_episode(participant, participant.episodes.get(index=0))
        systems = [request["messages"][0]["content"] for request in endpoint.requests]
    assert systems, "the LLM teammate was never asked"
    assert f"Hints:\n{HINT}\n" in systems[0]  # the toy game has no hints of its own


@pytest.mark.django_db
def test_hints_are_stored_as_prompt_options_and_bounded(client, researcher, make_study):
    study = make_study()
    client.force_login(researcher)
    add = reverse("studies:add_condition", args=[study.pk])
    client.post(add, _condition_fields(name="Hinted", hints=HINT, constrained="on"))
    assert study.conditions.get(name="Hinted").dispatcher == {"prompt": {"constrained": True, "own_hints": HINT}}
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert f"replies held to legal actions; hints “{HINT}”" in page  # the Dispatcher column, in words
    too_long = client.post(add, _condition_fields(name="Wordy", hints="x" * (OWN_HINTS_MAX + 1)))
    assert too_long.status_code == 400
    assert f"at most {OWN_HINTS_MAX} characters" in too_long.content.decode()
    assert not study.conditions.filter(name="Wordy").exists()


@pytest.mark.django_db
def test_a_condition_saved_by_the_services_with_unusable_prompt_options_is_refused(make_study):
    study = make_study()
    with pytest.raises(services.StudyError, match="own_hints is a text of at most"):
        services.add_condition(study, name="Bad", npc_kind="llm", npc_count=1, dispatcher={"prompt": {"own_hints": 3}})
    with pytest.raises(services.StudyError, match="unknown prompt option"):
        services.add_condition(study, name="Bad", npc_kind="llm", npc_count=1, dispatcher={"prompt": {"hint": "x"}})
    assert not study.conditions.filter(name="Bad").exists()


@pytest.mark.django_db
def test_the_migration_moves_hints_stored_before_into_the_prompt_options(make_study):
    study = make_study()
    old = Condition.objects.create(
        study=study, index=9, name="Old", npc_kind="llm", npc_count=1, dispatcher={"model": "m", "hints": HINT}
    )
    held = Condition.objects.create(
        study=study,
        index=10,
        name="Held",
        npc_kind="llm",
        npc_count=1,
        dispatcher={"prompt": {"constrained": True}, "hints": ""},
    )
    migration = importlib.import_module("studies.migrations.0011_condition_hints_reach_the_prompt")
    migration.move_hints(apps, None)
    old.refresh_from_db()
    held.refresh_from_db()
    assert old.dispatcher == {"model": "m", "prompt": {"own_hints": HINT}}
    assert held.dispatcher == {"prompt": {"constrained": True}}
    migration.restore_hints(apps, None)
    old.refresh_from_db()
    assert old.dispatcher == {"model": "m", "hints": HINT}
