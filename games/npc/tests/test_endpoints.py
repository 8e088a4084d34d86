"""LLM endpoints are the site's to choose: seats name a configured endpoint, keys never travel.

Regression for issue 15 finding 1: a participant's API token created an NPC seat with its own
``base_url`` and the first turn sent the site's LLM key there.
"""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.tokens import create_token
from games import services
from games.agents import endpoints
from games.agents.llm import LlmConfig
from games.agents.tests.stub_server import stub_endpoint
from games.models import Game

LLM_SEAT = {"kind": "npc", "dispatcher": "llm"}


def post_game(token: str, seats: list[dict]) -> tuple[int, dict]:
    response = Client().post(
        "/api/games/",
        json.dumps({"scenario": "test/toy", "seats": [{"kind": "program"}, *seats], "clock": "lockstep"}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    return response.status_code, response.json()


@pytest.fixture
def two_endpoints(settings):
    """The site's default endpoint and a second one with its own key, both stand-ins on loopback."""
    with stub_endpoint(lambda m: "Agent 1: wait") as site, stub_endpoint(lambda m: "Agent 1: wait") as other:
        settings.LLM_BASE_URL, settings.LLM_API_KEY, settings.LLM_MODEL = site.base_url, "site-key", "small"
        settings.LLM_ENDPOINTS = endpoints.parse(
            json.dumps([{"id": "other", "base_url": other.base_url, "api_key_env": "OTHER_KEY", "models": ["big"]}]),
            {"OTHER_KEY": "other-key"},
        )
        yield site, other


def test_a_participant_token_cannot_point_an_npc_at_its_own_url(toy_scenario, participant, two_endpoints):
    site, _ = two_endpoints
    with stub_endpoint(lambda m: "Agent 1: wait") as attacker:
        settings_ = {"base_url": attacker.base_url, "model": "x", "max_tokens": 100000}
        status, body = post_game(create_token(participant), [{**LLM_SEAT, "settings": settings_}])
        assert status == 403 and "only researchers" in body["error"]
        for chosen in ({"endpoint": "other"}, {"model": "big"}, {"llm": {"temperature": 1}}):
            assert post_game(create_token(participant), [{**LLM_SEAT, "settings": chosen}])[0] == 403
            # nor through a human seat's backfill NPC
            backfill = {"backfill": {"dispatcher": "llm", "settings": chosen}}
            seat = {"kind": "human", "settings": backfill}
            assert post_game(create_token(participant), [seat])[0] == 403
    assert attacker.requests == [] and site.requests == [] and Game.objects.count() == 0


def test_a_researcher_names_endpoints_by_id_never_by_url(toy_scenario, researcher, two_endpoints):
    token = create_token(researcher)
    with stub_endpoint(lambda m: "Agent 1: wait") as attacker:
        status, body = post_game(token, [{**LLM_SEAT, "settings": {"base_url": attacker.base_url}}])
        assert status == 400 and "endpoint" in body["error"]
        status, body = post_game(token, [{**LLM_SEAT, "settings": {"endpoint": "nowhere"}}])
        assert status == 400 and "no LLM endpoint 'nowhere'" in body["error"]
        status, body = post_game(token, [{**LLM_SEAT, "settings": {"endpoint": "other", "model": "small"}}])
        assert status == 400 and "allows the models big" in body["error"]
        status, body = post_game(token, [{**LLM_SEAT, "settings": {"api_key": "x"}}])
        assert status == 400
    assert attacker.requests == [] and Game.objects.count() == 0


def test_each_endpoint_gets_only_its_own_key(
    toy_scenario, participant, inline_npcs, two_endpoints, django_capture_on_commit_callbacks
):
    site, other = two_endpoints
    human = {"kind": "human", "user": participant}
    with django_capture_on_commit_callbacks(execute=True):
        services.create_game("test/toy", [human, LLM_SEAT], clock="lockstep")
    with django_capture_on_commit_callbacks(execute=True):
        chosen = {**LLM_SEAT, "settings": {"endpoint": "other", "model": "big"}}
        services.create_game("test/toy", [human, chosen], clock="lockstep")
    assert site.authorizations and set(site.authorizations) == {"Bearer site-key"}
    assert other.authorizations and set(other.authorizations) == {"Bearer other-key"}
    assert {r["model"] for r in other.requests} == {"big"}


def test_config_refuses_urls_and_keys_and_keeps_url_and_key_together(settings):
    settings.LLM_BASE_URL, settings.LLM_API_KEY = "http://127.0.0.1:9/v1", "site-key"
    with pytest.raises(endpoints.EndpointError):
        LlmConfig.from_settings({"base_url": "http://evil.example/v1"})
    with pytest.raises(endpoints.EndpointError):
        LlmConfig.from_settings({"api_key": "mine"})
    with pytest.raises(endpoints.EndpointError, match="max_tokens"):
        LlmConfig.from_settings({"max_tokens": 100000})
    config = LlmConfig.from_settings({}).with_overrides({"base_url": "http://evil.example/v1"})
    assert (config.base_url, config.api_key) == ("http://127.0.0.1:9/v1", "site-key")
    # the URL a stored run carries is accepted only when it is the configured one
    assert LlmConfig.from_settings({"base_url": "http://127.0.0.1:9/v1/"}).endpoint == "default"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{", "not JSON"),
        ('{"id": "x"}', "JSON list"),
        ('[{"id": "x", "base_url": "ftp://x"}]', "http(s) URL"),
        ('[{"id": "x", "base_url": "http://x", "api_key_env": "MISSING"}]', "MISSING is not set"),
        ('[{"id": "x", "base_url": "http://x", "colour": 1}]', "unknown field(s) colour"),
        ('[{"id": "x", "base_url": "http://x"}, {"id": "x", "base_url": "http://y"}]', "share an id"),
    ],
)
def test_a_bad_endpoint_list_names_the_entry_and_field(text, problem):
    with pytest.raises(endpoints.EndpointError, match=re.escape(problem)):
        endpoints.parse(text, {})


def test_study_condition_form_offers_configured_endpoints_and_checks_the_model(two_endpoints):
    from studies.forms import ConditionForm

    base = {"name": "LLM", "npc_kind": "llm", "npc_count": 1}
    assert [value for value, _ in ConditionForm().fields["endpoint"].choices] == ["default", "other"]
    form = ConditionForm({**base, "endpoint": "other", "model": "small"})
    assert not form.is_valid() and "allows the models big" in form.errors["model"][0]
    form = ConditionForm({**base, "endpoint": "other", "model": "big"})
    assert form.is_valid() and form.dispatcher_settings() == {"endpoint": "other", "model": "big"}
    assert not ConditionForm({**base, "endpoint": "http://evil.example/v1"}).is_valid()
