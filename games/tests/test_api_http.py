"""The REST API answers every request under /api/ in JSON, as docs/api.md says: a method an address
does not take, an unknown address, a body too big to read and a token's request that Django's CSRF
check would have refused (its HTML page) are all ``{"error": ...}`` saying what to do."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.tokens import create_token
from games import services


@pytest.fixture
def token(researcher) -> str:
    return create_token(researcher)


@pytest.fixture
def api(token) -> Client:
    # enforce_csrf_checks: as a real client meets the site (the test client skips the check by default)
    return Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {token}")


def error_of(response) -> str:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return json.loads(response.content)["error"]


@pytest.mark.parametrize("debug", [False, True])
def test_a_method_an_address_does_not_take_is_a_json_405_naming_the_methods_it_takes(
    api, toy_scenario, researcher, settings, debug
):
    settings.DEBUG = debug
    game = services.create_game("test/toy", [{"kind": "program", "user": researcher}], clock="lockstep")
    response = api.get("/api/games/")
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    assert "takes POST" in error_of(response)
    for method in ("put", "patch", "delete", "post"):
        response = getattr(api, method)(f"/api/games/{game.pk}/", "{}", content_type="application/json")
        assert response.status_code == 405, (method, response.content[:200])
        assert response["Allow"] == "GET"
        assert "takes GET" in error_of(response) and method.upper() in error_of(response)
    response = api.delete(f"/api/games/{game.pk}/events/")
    assert response.status_code == 405 and "takes GET" in error_of(response)


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_an_unknown_api_address_is_a_json_404(api, settings, debug, method):
    settings.DEBUG = debug
    for path in ("/api/", "/api/nothing/", "/api/games/x/", "/api/games/1/moves/"):
        response = getattr(api, method)(path)
        assert response.status_code == 404, (path, response.content[:200])
        assert "no such API address" in error_of(response)
        assert "/api/games/" in error_of(response)  # it lists the addresses there are


def test_an_address_without_its_closing_slash_says_so(api):
    response = api.get("/api/games/1")
    assert response.status_code == 404
    assert "/api/games/1/" in error_of(response)


def test_the_404_message_reads_as_sentences_with_or_without_the_slash_hint(api):
    hinted = error_of(api.get("/api/games/9"))
    assert "?." not in hinted and ";" not in hinted.split(" The API has")[0], hinted
    assert hinted.startswith("no such API address: /api/games/9. Did you mean /api/games/9/ (with the closing slash)? ")
    assert " The API has GET /api/scenarios/" in hinted
    plain = error_of(api.get("/api/nothing/"))
    assert plain.startswith("no such API address: /api/nothing/. The API has "), plain


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("size", [64_001, 2_000_000, 3_000_000])
def test_a_body_over_the_limit_is_a_json_413_naming_the_limit(api, toy_scenario, settings, debug, size):
    settings.DEBUG = debug
    body = json.dumps({"scenario": "test/toy", "pad": "x" * size})
    response = api.post("/api/games/", body, content_type="application/json")
    assert response.status_code == 413
    assert "64000 bytes" in error_of(response)


def test_a_body_too_big_for_django_to_read_elsewhere_under_api_is_still_json(settings, rf):
    from django.core.exceptions import RequestDataTooBig

    from games.api import bad_request

    response = bad_request(rf.post("/api/games/"), RequestDataTooBig("too big"))
    assert response.status_code == 413 and "bytes" in error_of(response)
    page = bad_request(rf.post("/games/new/"), RequestDataTooBig("too big"))
    assert page.status_code == 400 and not page["Content-Type"].startswith("application/json")


def test_a_401_says_where_tokens_are_made_and_that_a_revoked_token_was_revoked(researcher, toy_scenario):
    from accounts.models import ApiToken

    body = json.dumps({"scenario": "test/toy"})
    for header in ({}, {"HTTP_AUTHORIZATION": "Token not-a-token"}):
        for response in (
            Client().post("/api/games/", body, content_type="application/json", **header),
            Client().get("/api/games/1/", **header),
            Client().get("/api/games/1/events/", **header),
        ):
            assert response.status_code == 401
            message = error_of(response)
            assert "/accounts/tokens/" in message and "create_api_token" in message
            assert "revoked" not in message
    raw = create_token(researcher)
    ApiToken.objects.update(revoked=True)
    response = Client().post("/api/games/", body, content_type="application/json", HTTP_AUTHORIZATION=f"Token {raw}")
    assert response.status_code == 401
    assert f"this API token ({raw[:8]}…) was revoked" in error_of(response)
    assert "/accounts/tokens/" in error_of(response)
    researcher.is_active = False
    researcher.save()
    ApiToken.objects.update(revoked=False)
    response = Client().get("/api/games/1/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 401 and "deactivated" in error_of(response)


@pytest.fixture
def fresh_site(db):
    """The scenarios every site has: the bundled ones ``make run`` loads, nothing imported."""
    from games.bundled import load_bundled

    load_bundled(log=lambda line: None)


def docs_example_body() -> dict:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    return json.loads(re.search(r"-d '(\{.*?\})'", text).group(1))


def test_the_docs_example_and_the_messages_name_a_scenario_a_fresh_site_has(api, fresh_site):
    from games import schema
    from games.models import Scenario

    body = docs_example_body()
    response = api.post("/api/games/", json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content
    assert response.json()["scenario"] == body["scenario"]
    for sent in ("{}", "not json", json.dumps({"scenario": []}), json.dumps({"scenario": 5})):
        message = error_of(api.post("/api/games/", sent, content_type="application/json"))
        slugs = set(re.findall(r"\b[a-z]+/[a-z0-9-]+\b", message)) - {"api/games", "api/scenarios"}
        assert slugs, message
        for slug in slugs:
            assert Scenario.objects.current().filter(slug=slug).exists(), (slug, message)
    assert json.loads(schema.CREATE_GAME_EXAMPLE)["scenario"] == "bundled/make-tea"
    together = {"scenario": ["bundled/make-tea", "bundled/bake-bread"]}  # the docs' list of slugs
    assert api.post("/api/games/", json.dumps(together), content_type="application/json").status_code == 201


def test_programs_list_the_scenarios_by_token_or_a_researchers_session(
    api, fresh_site, client, researcher, participant
):
    from games.models import Scenario

    listed = api.get("/api/scenarios/")
    assert listed.status_code == 200
    rows = listed.json()["scenarios"]
    assert listed.json()["count"] == len(rows) == Scenario.objects.current().count()
    tea = next(r for r in rows if r["slug"] == "bundled/make-tea")
    assert tea == {
        "slug": "bundled/make-tea",
        "domain": "tasks",
        "title": Scenario.objects.get(slug="bundled/make-tea", is_current=True).title,
        "version": 1,
        "seats": None,
        "seats_at_most": 5,
    }
    kitchen = api.get("/api/scenarios/?domain=kitchen").json()["scenarios"]
    assert kitchen and {r["domain"] for r in kitchen} == {"kitchen"}
    assert all(isinstance(r["seats"], int) and r["seats"] >= 1 for r in kitchen)  # a level names its team
    assert {r["seats_at_most"] for r in api.get("/api/scenarios/?domain=itinerary").json()["scenarios"]} == {1}
    bad = api.get("/api/scenarios/?domain=cooking")
    assert bad.status_code == 400 and "tasks, recipes, kitchen, itinerary" in error_of(bad)
    # every slug listed makes a game
    body = {"scenario": kitchen[0]["slug"], "seats": [{"kind": "program"}] * kitchen[0]["seats"]}
    assert api.post("/api/games/", json.dumps(body), content_type="application/json").status_code == 201
    # the site's session: a researcher, as on the scenario pages; a participant's session is refused
    client.force_login(researcher)
    assert client.get("/api/scenarios/?domain=tasks").status_code == 200
    client.force_login(participant)
    refused = client.get("/api/scenarios/")
    assert refused.status_code == 403 and "may not create games" in error_of(refused)
    anonymous = Client().get("/api/scenarios/")
    assert anonymous.status_code == 401 and "/accounts/tokens/" in error_of(anonymous)
    assert api.post("/api/scenarios/").status_code == 405
    # an unknown slug points at the list
    missing = api.post("/api/games/", json.dumps({"scenario": "timearena/cooking1"}), content_type="application/json")
    assert "GET /api/scenarios/" in error_of(missing)


def npc(dispatcher: str, **settings) -> dict:
    return {"kind": "npc", "dispatcher": dispatcher, "settings": settings}


@pytest.mark.parametrize(
    ("seat", "named", "allowed"),
    [
        (npc("llm", url="http://x/v1"), "url", "llm, prompt, cache, endpoint, model"),
        (npc("llm", llm_base_url="http://x/v1"), "llm_base_url", "llm, prompt"),
        (npc("llm", BASE_URL="http://x/v1"), "BASE_URL", "llm, prompt"),
        (npc("llm", headers={"X": "1"}), "headers", "llm, prompt"),
        (npc("llm", extra_body={"top_k": 1}), "extra_body", "llm, prompt"),
        (npc("llm", llm={"headers": {"X": "1"}}), "headers", 'under "llm"'),
        (npc("planner", bogus=1), "bogus", "takes no settings"),
        (npc("random", sed=3), "sed", "takes only seed"),
        (npc("replay", source=1), "source", "takes only source_game, source_agent"),
        (npc("planner", backfill={"dispatcher": "random"}), "backfill", "takes no settings"),
        ({"kind": "human", "settings": {"backfil": {"dispatcher": "random"}}}, "backfil", "takes only backfill"),
        ({"kind": "human", "settings": {"backfill": {"dispatcher": "random", "after": 5}}}, "after", "after_seconds"),
        (
            {"kind": "human", "settings": {"backfill": {"dispatcher": "planner", "settings": {"x": 1}}}},
            "x",
            "takes no settings",
        ),
        ({"kind": "program", "settings": {"speed": 1}}, "speed", "takes no settings"),
    ],
)
def test_a_seat_setting_no_dispatcher_reads_is_a_400_naming_the_ones_it_takes(api, toy_scenario, seat, named, allowed):
    """They were taken and ignored (201), so a typo and a setting the site does not have both played
    on the defaults unnoticed, while a misspelt prompt option was refused."""
    from games.models import Game

    seats = [{"kind": "program"}, seat] if seat["kind"] != "program" else [seat]
    response = api.post(
        "/api/games/", json.dumps({"scenario": "test/toy", "seats": seats}), content_type="application/json"
    )
    assert response.status_code == 400, response.content
    message = error_of(response)
    assert "unknown setting(s)" in message and named in message and allowed in message
    assert not Game.objects.exists()


def test_the_settings_each_dispatcher_reads_are_still_taken(api, toy_scenario, researcher):
    source = services.create_game("test/toy", [{"kind": "program", "user": researcher}], clock="lockstep")
    seats = [
        {"kind": "program"},
        npc("planner"),
        npc("random", seed=4),
        npc("replay", source_game=source.pk, source_agent=0),
        {
            "kind": "human",
            "settings": {"backfill": {"dispatcher": "random", "after_seconds": 30, "settings": {"seed": 2}}},
        },
    ]
    response = api.post(
        "/api/games/", json.dumps({"scenario": "test/toy", "seats": seats}), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    both = npc("llm", model="m", llm={"model": "m"})
    response = api.post(
        "/api/games/", json.dumps({"scenario": "test/toy", "seats": [both]}), content_type="application/json"
    )
    assert response.status_code == 400 and 'beside "llm" would not be read' in error_of(response)


def test_a_study_condition_still_seats_its_npcs_with_its_llm_settings(toy_scenario, participant):
    """create_game itself stays lenient: a condition's planner NPCs carry its LLM settings."""
    seats = [{"kind": "human", "user": participant}, npc("planner", temperature=0.5, prompt={"own_hints": "x"})]
    assert services.create_game("test/toy", seats, clock="lockstep").seats.count() == 2


def test_what_docs_api_says_a_wait_does_per_domain_and_a_second_kitchen_command(fresh_site, researcher):
    """docs/api.md, "When does time move": pins the table so the docs and the code move together."""
    from games.models import GameEvent

    def log(game):
        return [(e.category, e.kind, e.time) for e in GameEvent.objects.filter(game=game).order_by("seq")][1:]

    me = [{"kind": "program", "user": researcher}]
    tasks = services.create_game("bundled/make-tea", me, clock="lockstep")
    services.pass_turn(tasks.pk, agent=0, by=researcher)
    assert log(tasks) == [("action", "act", 0.0), ("engine", "waited", 0.0), ("clock", "advance", 1.0)]
    kitchen = services.create_game("bundled/warm-up", me, clock="fast")
    services.pass_turn(kitchen.pk, agent=0, by=researcher)
    assert log(kitchen) == [("control", "passed", 0.0), ("clock", "advance", 1.0)]
    for slug in ("bundled/Porridge_Omelette", "bundled/millbrook-weekend"):  # nothing runs at t=0
        game = services.create_game(slug, me, clock="lockstep")
        assert services.pass_turn(game.pk, agent=0, by=researcher).note == ""
        assert "You have passed already" in services.pass_turn(game.pk, agent=0, by=researcher).note
        assert log(game) == [("control", "passed", 0.0)]
    two = services.create_game("bundled/warm-up", me * 2, clock="lockstep")
    for _ in range(2):
        services.apply_action(two.pk, agent=0, action="noop(agent0)", by=researcher)
    second = GameEvent.objects.filter(game=two, kind="committed").order_by("seq").last()
    assert second.data["details"]["replaces"] == "noop"


@pytest.mark.parametrize("seats", [[], [{"kind": "program"}] * 6])
def test_a_seat_list_of_no_seats_or_too_many_is_a_400_and_no_game(api, toy_scenario, seats):
    from games.models import Game

    body = {"scenario": "test/toy", "seats": seats}
    response = api.post("/api/games/", json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content
    assert f'"seats" has {len(seats)}; a game has 1 to 5 seats' in error_of(response)
    assert not Game.objects.exists()  # [] once made one program seat, quietly
    left_out = api.post("/api/games/", json.dumps({"scenario": "test/toy"}), content_type="application/json")
    assert left_out.status_code == 201 and [s["kind"] for s in left_out.json()["seats"]] == ["program"]


def test_a_negative_since_is_refused_saying_0_or_more(api, toy_scenario, researcher):
    game = services.create_game("test/toy", [{"kind": "program", "user": researcher}], clock="lockstep")
    response = api.get(f"/api/games/{game.pk}/events/?since=-5")
    assert response.status_code == 400
    assert "0 or more" in error_of(response) and "'-5'" in error_of(response)
    assert api.get(f"/api/games/{game.pk}/events/?since=0").status_code == 200
