"""Authorisation: who may watch, act in which seat, and control a game (websocket and pages)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from accounts.roles import Role, grant
from accounts.tokens import create_token
from games import permissions, services
from games.models import GameEvent
from games.tests.wsclient import Client

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def two_player_game(owner, other):
    return services.create_game("test/toy", [{"kind": "human", "user": owner}, {"kind": "human", "user": other}])


@database_sync_to_async
def make_participant(django_user_model, name):
    user = django_user_model.objects.create_user(name)
    grant(user, Role.PARTICIPANT)
    return user, create_token(user)


async def test_a_participant_cannot_act_in_someone_elses_seat(toy_scenario, django_user_model):
    (alice, alice_token), (bob, _) = (
        await make_participant(django_user_model, "alice"),
        await make_participant(django_user_model, "bob"),
    )
    game = await two_player_game(alice, bob)
    client = Client(game.pk, alice_token)
    await client.connect()
    assert (await client.state())["agents"] == [0]
    await client.send({"type": "act", "agent": 1, "action": "do sweep"})
    error = await client.receive_until("error")
    assert error["code"] == "forbidden" and "agent 0" in error["message"]
    await client.send({"type": "pause"})
    assert (await client.receive_until("error"))["code"] == "forbidden"
    kinds = await database_sync_to_async(
        lambda: list(GameEvent.objects.filter(game=game).values_list("kind", flat=True))
    )()
    assert kinds == ["created"]
    await client.close()


async def test_a_participant_cannot_watch_a_game_they_are_not_in(toy_scenario, django_user_model):
    (alice, _), (bob, _) = (
        await make_participant(django_user_model, "alice"),
        await make_participant(django_user_model, "bob"),
    )
    _, eve_token = await make_participant(django_user_model, "eve")
    game = await two_player_game(alice, bob)
    client = Client(game.pk, eve_token)
    await client.connect()
    error = await client.receive()
    assert error["type"] == "error" and error["code"] == "forbidden"
    assert (await client.communicator.receive_output(timeout=5))["type"] == "websocket.close"


async def test_an_invalid_token_is_refused_with_a_message(toy_scenario, django_user_model):
    (alice, _), (bob, _) = (
        await make_participant(django_user_model, "alice"),
        await make_participant(django_user_model, "bob"),
    )
    game = await two_player_game(alice, bob)
    client = Client(game.pk, "not-a-real-token")
    await client.connect()
    error = await client.receive()
    assert error["code"] == "forbidden" and "token is not valid" in error["message"]


async def test_anonymous_programs_and_foreign_origins_are_turned_away(toy_scenario, django_user_model):
    (alice, _), (bob, _) = (
        await make_participant(django_user_model, "alice"),
        await make_participant(django_user_model, "bob"),
    )
    game = await two_player_game(alice, bob)
    assert not await Client(game.pk).connect()  # no token, no Origin
    assert not await Client(game.pk, headers=[(b"origin", b"https://evil.example")]).connect()


def test_object_level_predicates(toy_scenario, participant, researcher, django_user_model):
    other = django_user_model.objects.create_user("other")
    game = services.create_game(
        "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}]
    )
    assert permissions.can_watch(participant, game) and permissions.can_act(participant, game, 0)
    assert not permissions.can_act(participant, game, 1)  # the NPC's seat
    assert not permissions.can_control(participant, game)
    assert permissions.can_watch(researcher, game) and permissions.can_control(researcher, game)
    assert not permissions.can_act(researcher, game, 0)
    assert not permissions.can_watch(other, game)
