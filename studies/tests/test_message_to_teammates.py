"""A researcher's message from the monitor reaches the participant's game chat, and so the LLM
teammates' prompt (the dispatcher reads the people's chat), marked as the researcher's."""

from __future__ import annotations

import pytest

from games import services as game_services
from games.agents.tests.stub_server import stub_endpoint
from studies import services

pytestmark = pytest.mark.django_db(transaction=True)  # the NPC turn runs after commit


def test_a_monitor_message_reaches_the_llm_teammates_prompt(make_study, settings):
    study = make_study(conditions=(("LLM teammate", "llm", 1),), clock_mode="lockstep")
    participant = services.give_consent(services.join(study, external_id="P1"))
    services.advance_onboarding(participant, 0)
    participant.refresh_from_db()
    with stub_endpoint(lambda messages: "NOTHING") as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        episode = services.start_episode(participant, participant.episodes.get(index=0))
        before = len(endpoint.requests)
        services.message_participant(participant, "Please let your teammate wash the cups")
        # the teammate is busy with its last command; it reads the chat at its next decision
        game_services.apply_action(episode.game_id, agent=0, action="do sweep")
        prompts = [
            " ".join(str(m.get("content", "")) for m in request["messages"]) for request in endpoint.requests[before:]
        ]
    assert any("Message from the researcher: Please let your teammate wash the cups" in p for p in prompts), prompts
