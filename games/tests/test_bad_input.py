"""Bad frames and bad API bodies: an error that says what to fix, the connection stays open, and
nothing is written (issue 15 findings 4 and 6)."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from channels.db import database_sync_to_async
from django.test import Client as HttpClient
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.roles import Role, grant
from accounts.tokens import create_token
from games import schema, services
from games.models import Game, GameEvent
from games.tests.wsclient import Client

BAD_FRAMES = [
    ("[" * 2000 + "]" * 2000, "nests deeper"),
    ('{"type": "act", "action": "do sweep", "x": ' + "[" * 3000 + "]" * 3000 + "}", "nests deeper"),
    ({"type": "wait", "agent": 0.0}, "whole number"),
    ({"type": "wait", "agent": -0.0}, "whole number"),
    ({"type": "wait", "agent": False}, "whole number"),
    ({"type": "act", "agent": True, "action": "do sweep"}, "whole number"),
    # text is refused whatever it spells: "0" once acted as agent 0 while "zero" was refused
    (
        {"type": "act", "agent": "0", "action": "do sweep"},
        "must be a whole number (your seat's agent number, like 0), not text: send 0 without quotes",
    ),
    ({"type": "wait", "agent": "0"}, "not text: send 0 without quotes"),
    (
        {"type": "act", "agent": "zero", "action": "do sweep"},
        "must be a whole number (your seat's agent number, like 0), not text",
    ),
    ({"type": "act", "agent": 0, "action": "do \u0000sweep"}, "NUL"),
    ({"type": "chat", "text": "hi\u0000"}, "NUL"),
    ('{"type": "chat", "text": "\\ud800"}', "surrogate"),
    ({"type": "act", "action": 7}, "text"),
    ({"type": "act"}, 'an "act" frame needs "action"'),
    ({"type": "act", "action": "x" * 301}, "longer than 300"),
    ({"type": "sync", "since": -1}, "from 0"),
    ({"type": "sync", "since": 1.5}, "whole number"),
    ('{"type": "wait", "agent": NaN}', "finite number"),
    ({"type": "dance"}, '"type" must be one of'),
    ({"type": ["act"]}, '"type" must be one of'),  # unhashable: found by the frame fuzzer in CI
    ({"type": {"act": 1}}, '"type" must be one of'),
    ({"type": None, "action": "do sweep"}, '"type" must be one of'),
    (" ", "empty"),
    ("x" * 9000, "longer than"),
    ("[1, 2]", "JSON object"),
    ("not json", "not JSON"),
]


@database_sync_to_async
def setup_game(django_user_model):
    user = django_user_model.objects.create_user("alice")
    grant(user, Role.PARTICIPANT)
    game = services.create_game("test/toy", [{"kind": "human", "user": user}], clock="lockstep", created_by=user)
    return game, create_token(user)


@database_sync_to_async
def log_of(game):
    return list(GameEvent.objects.filter(game=game).values_list("seq", "kind"))


@pytest.mark.django_db(transaction=True)
async def test_every_bad_frame_gets_an_error_and_the_connection_stays_open(toy_scenario, django_user_model):
    game, token = await setup_game(django_user_model)
    before = await log_of(game)
    client = Client(game.pk, token)
    await client.connect()
    await client.state()
    for frame, problem in BAD_FRAMES:
        await client.send(frame if isinstance(frame, str) else json.dumps(frame))
        error = await client.receive_until("error")
        assert error["code"] in ("bad_frame", "invalid") and problem in error["message"], (frame, error)
    await client.communicator.send_to(bytes_data=b"\xff\xfe")
    assert "UTF-8" in (await client.receive_until("error"))["message"]
    await client.send({"type": "ping"})
    assert (await client.receive_until("pong"))["type"] == "pong"  # still open
    assert await log_of(game) == before  # garbage changed nothing
    await client.send({"type": "act", "agent": 0, "action": "do sweep"})
    await client.receive_until("state")
    assert len(await log_of(game)) > len(before)
    await client.close()


def test_services_refuse_what_postgres_cannot_store_and_non_integer_agents(toy_scenario, participant):
    game = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep")
    for call in (
        lambda: services.apply_action(game.pk, agent=0, action="do\x00 sweep"),
        lambda: services.post_chat(game.pk, text="a\x00b", agent=0),
        lambda: services.pass_turn(game.pk, agent=0.0),
        lambda: services.pass_turn(game.pk, agent=False),
        lambda: services.apply_action(game.pk, agent=-0.0, action="do sweep"),
    ):
        with pytest.raises(services.InvalidInput):
            call()
    assert list(GameEvent.objects.filter(game=game).values_list("kind", flat=True)) == ["created"]


def post(token: str, body: object) -> tuple[int, dict]:
    raw = body if isinstance(body, str | bytes) else json.dumps(body)
    response = HttpClient().post(
        "/api/games/", raw, content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}"
    )
    return response.status_code, response.json()


def npc(dispatcher: str, **settings) -> dict:
    return {"kind": "npc", "dispatcher": dispatcher, "settings": settings}


def human_with_backfill(**settings) -> dict:
    return {"kind": "human", "settings": {"backfill": {"dispatcher": "random", "settings": settings}}}


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('{"scenario": "test/toy", "seed": 1e308}', '"seed" must be a whole number'),
        ({"scenario": "test/toy", "seed": -1}, '"seed" must be from 0 to 2147483647'),
        ({"scenario": "test/toy", "seed": True}, '"seed" must be a whole number'),
        ({"scenario": "test/toy", "speed": "fast"}, '"speed" must be a number'),
        ('{"scenario": "test/toy", "speed": Infinity}', "finite number"),
        ({"scenario": "test/toy", "seats": [{"kind": "program", "user": 5}]}, '"user" must be text'),
        ({"scenario": "test/toy", "seats": [7]}, "seat 0 must be an object"),
        ({"scenario": "test/toy", "seats": {"kind": "program"}}, '"seats" must be a list'),
        ({"scenario": ["test/toy", 3]}, '"scenario" must be text or a list'),
        ({"scenario": "test/toy", "options": []}, '"options" must be an object'),
        ({"scenario": "test/toy\u0000"}, "NUL"),
        ({"scenario": "test/toy", "colour": "red"}, "unknown field(s) in the body: colour"),
        ({"seed": 1}, 'needs "scenario"'),
        ('{"scenario": "test/toy", "options": ' + "[" * 5000 + "]" * 5000 + "}", "nests deeper"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "UTF-8"),
        ("[]", "JSON object"),
        # NPC settings that made every turn of the game fail, with nobody told (a stop-51 audit)
        (
            {"scenario": "test/toy", "seats": [{"kind": "program"}, npc("random", seed="abc")]},
            "a random seat's seed is a whole number",
        ),
        (
            {"scenario": "test/toy", "seats": [{"kind": "program"}, npc("random", seed=[1])]},
            "a random seat's seed is a whole number",
        ),
        (
            {"scenario": "test/toy", "seats": [{"kind": "program"}, npc("llm", prompt={"max_tokens": "lots"})]},
            "prompt option max_tokens is a whole number from 1 to 8192",
        ),
        (
            {"scenario": "test/toy", "seats": [{"kind": "program"}, npc("llm", prompt={"max_tokens": 10**9})]},
            "prompt option max_tokens is a whole number from 1 to 8192",
        ),
        (
            {"scenario": "test/toy", "seats": [{"kind": "program"}, npc("llm", prompt=["hints"])]},
            "prompt options are an object",
        ),
        (
            {"scenario": "test/toy", "seats": [{"kind": "program"}, npc("llm", prompt={"hint": False})]},
            "unknown prompt option(s) hint",
        ),
        (
            {"scenario": "test/toy", "seats": [human_with_backfill(seed="zz")]},
            "a random seat's seed is a whole number",
        ),
    ],
)
def test_every_bad_body_is_a_400_saying_what_to_fix(toy_scenario, participant, body, problem):
    status, answer = post(create_token(participant), body)
    assert status == 400 and problem in answer["error"], answer
    assert Game.objects.count() == 0


_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10)
_any_json = st.recursive(
    _leaf,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=6), kids, max_size=3),
    max_leaves=10,
)
_frame_objects = st.builds(
    lambda kind, rest: {"type": kind, **rest},
    st.sampled_from(sorted(schema.FRAMES)) | _any_json,
    st.dictionaries(st.sampled_from(["agent", "action", "text", "since", "HEADERS"]) | st.text(max_size=5), _any_json),
)


@settings(max_examples=1000, deadline=None)
@given(message=_frame_objects)
def test_a_frame_of_any_shape_is_checked_or_refused_never_a_crash(message):
    # Each known frame type with fields of every JSON type, and types that are lists, objects or
    # numbers (a list "type" once crashed the consumer: unhashable).
    try:
        checked = schema.frame(json.dumps(message))
    except schema.SchemaError:
        return
    assert checked["type"] in schema.FRAMES


# "²" and "١٢" pass str.isdigit(); int() refuses the first and reads the second as 12; a number past
# 2**63 - 1 overflows SQLite's integers. Each was a server error somewhere (a stop-51 audit).
ODD_NUMBERS = ["\u00b2", "\u0661\u0662", "99999999999999999999", "-1", "abc"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fresh_presence")
async def test_an_odd_since_on_the_socket_is_ignored_and_the_seat_comes_and_goes_as_usual(
    toy_scenario, django_user_model
):
    from games import presence

    game, token = await setup_game(django_user_model)
    for since in ODD_NUMBERS:
        client = Client(game.pk, token, query=f"since={quote(since)}")  # as a browser sends it
        assert await client.connect(), since
        assert (await client.state())["type"] == "state"  # sent from the start, as without since
        assert await database_sync_to_async(presence.connected_agents)(game.pk) == {0}
        await client.close()
        # it crashed after the seat counted as connected, which then stayed so: no pause, no backfill
        assert await database_sync_to_async(presence.connected_agents)(game.pk) == set(), since


@pytest.mark.django_db
def test_odd_numbers_in_query_strings_and_forms_are_refused_or_ignored_never_a_server_error(
    toy_scenario, participant, researcher
):
    from annotations.tests.factories import make_recipe

    game = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep")
    player, staff = HttpClient(raise_request_exception=False), HttpClient(raise_request_exception=False)
    player.force_login(participant)
    staff.force_login(researcher)
    make_recipe("Cobbler")
    for odd in ODD_NUMBERS:
        assert player.get(f"/games/{game.pk}/replay/?at={odd}").status_code == 200, odd
        events = player.get(f"/api/games/{game.pk}/events/?since={odd}")
        assert events.status_code == 400 and "whole number" in events.json()["error"], odd
        assert staff.get(f"/benchmarks/compare/tasks/?run={odd}").status_code == 200, odd
        assert staff.post("/benchmarks/compare/tasks/reference/", {"run": odd}).status_code < 500, odd
        saved = staff.post("/studio/tasks/save/", {"name": "odd", "text": "", "scenario": odd})
        assert saved.status_code == 400, odd  # the empty text's problems, not a crash on the id
        project = staff.post("/annotate/projects/new/", {"name": "Odd", "recipes": [odd], "annotators_per_item": "1"})
        assert project.status_code == 200 and "is not a valid value" in project.content.decode(), odd
