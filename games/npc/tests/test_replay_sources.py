"""A replay NPC copies only a game its game's creator may watch (issue 15 finding 2).

Before: a seat ``{"dispatcher": "replay", "settings": {"source_game": 56}}`` replayed another user's
private game into the caller's own log, though ``/api/games/56/events/`` answered 404 to them.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.roles import Role, grant
from accounts.tokens import create_token
from games import services
from games.agents.dispatcher import DispatcherError
from games.models import Game, GameEvent, Seat
from games.npc.turns import dispatcher_for, replay_actions


def post_game(token: str, settings_: dict) -> tuple[int, dict]:
    body = {
        "scenario": "test/toy",
        "clock": "lockstep",
        "seats": [{"kind": "program"}, {"kind": "npc", "dispatcher": "replay", "settings": settings_}],
    }
    response = Client().post(
        "/api/games/", json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}"
    )
    return response.status_code, response.json()


def private_game(owner) -> Game:
    game = services.create_game("test/toy", [{"kind": "human", "user": owner}], clock="lockstep", created_by=owner)
    services.apply_action(game.pk, agent=0, action="do dust", by=owner)
    services.post_chat(game.pk, text="my secret plan", by=owner, agent=0)
    return game


def test_a_replay_seat_cannot_name_someone_elses_game(toy_scenario, django_user_model, inline_npcs):
    alice, bob = (django_user_model.objects.create_user(name) for name in ("alice", "bob"))
    for user in (alice, bob):
        grant(user, Role.PARTICIPANT)
    bobs = private_game(bob)
    token = create_token(alice)
    assert Client().get(f"/api/games/{bobs.pk}/events/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 404
    status, body = post_game(token, {"source_game": bobs.pk, "source_agent": 0})
    assert status == 400 and f"no game {bobs.pk} you may see" in body["error"]
    for bad in ({"source_game": "1"}, {"source_game": True}, {"source_game": 10**30}, {"source_game": bobs.pk + 99}):
        assert post_game(token, bad)[0] == 400
    assert Game.objects.count() == 1  # nothing created
    # Her own game she may replay.
    alices = private_game(alice)
    status, body = post_game(token, {"source_game": alices.pk, "source_agent": 0})
    assert status == 201


def test_the_turn_checks_the_source_again(
    toy_scenario, django_user_model, inline_npcs, django_capture_on_commit_callbacks
):
    """A seat stored some other way (or a creator who lost access) still copies nothing."""
    alice, bob = (django_user_model.objects.create_user(name) for name in ("alice", "bob"))
    bobs = private_game(bob)
    game = services.create_game("test/toy", [{"kind": "human", "user": alice}], clock="lockstep", created_by=alice)
    Seat.objects.create(game=game, agent=1, kind="npc", dispatcher="replay", settings={"source_game": bobs.pk})

    with pytest.raises(DispatcherError, match="may see"):
        dispatcher_for(game, list(game.seats.order_by("agent")))
    assert replay_actions({"source_game": bobs.pk}, viewer=bob)  # its owner may
    assert not GameEvent.objects.filter(game=game, agent=1).exists()
