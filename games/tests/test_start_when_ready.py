"""A real-time game made to start when its player is ready: the clock waits for their Start (or
their first action), so a first-time player reads the brief before anything runs out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from accounts.tokens import create_token
from games import clock, services, viewer
from games.engine import registry
from games.models import READY, Game, GameEvent
from games.state_store import state_at
from games.tests.wsclient import Client

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def ready_game(player, **kwargs):
    seats = kwargs.pop("seats", [{"kind": "human", "user": player}])
    return services.create_game(
        "test/toy", seats, clock="real_time", speed=1.0, created_by=player, start_when_ready=True, now=T0, **kwargs
    )


def game_time(game_id: int, at: datetime) -> float:
    return clock.game_time(Game.objects.get(pk=game_id), at)


def test_the_clock_waits_for_the_players_start(toy_scenario, participant):
    game = ready_game(participant)
    assert game.paused and game.pause_reason == READY and game.waits_for_start
    assert game_time(game.pk, T0 + timedelta(minutes=10)) == 0  # ten minutes of reading cost nothing

    services.start(game.pk, by=participant, now=T0 + timedelta(minutes=10))
    assert not Game.objects.get(pk=game.pk).paused
    assert game_time(game.pk, T0 + timedelta(minutes=10, seconds=3)) == pytest.approx(3.0)
    started = GameEvent.objects.filter(game=game, kind="resumed").get()
    assert started.data == {"message": "the clock starts", "by": "par"}

    # a second press (another tab, a double click) changes nothing
    seq = Game.objects.get(pk=game.pk).last_seq
    assert services.start(game.pk, by=participant, now=T0 + timedelta(minutes=11)) == seq
    assert game_time(game.pk, T0 + timedelta(minutes=11)) == pytest.approx(60.0)


def test_the_players_first_action_starts_the_clock_and_is_taken(toy_scenario, participant):
    game = ready_game(participant)
    result = services.apply_action(game.pk, agent=0, action="do sweep", by=participant, now=T0 + timedelta(seconds=40))
    assert result.rejection is None
    game = Game.objects.get(pk=game.pk)
    assert not game.paused and game.anchor_time == 0  # the action happened at time 0, after 40 s of reading
    kinds = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("kind", flat=True))
    assert kinds[:4] == ["created", "paused", "resumed", "act"]


def test_an_action_the_rules_refuse_starts_nothing(toy_scenario, participant):
    # the page says the clock starts with the first action: a mistyped one ended the reading time
    game = ready_game(participant)
    seq = Game.objects.get(pk=game.pk).last_seq
    with pytest.raises(services.GamePaused, match="The clock has not started"):
        services.apply_action(game.pk, agent=0, action="do fly", by=participant, now=T0 + timedelta(seconds=40))
    game = Game.objects.get(pk=game.pk)
    assert game.paused and game.pause_reason == READY and game.last_seq == seq  # nothing stored
    assert game_time(game.pk, T0 + timedelta(minutes=5)) == 0
    # the next, a good one, starts it
    assert services.apply_action(game.pk, agent=0, action="do sweep", by=participant, now=T0 + timedelta(minutes=1))
    assert not Game.objects.get(pk=game.pk).paused


def test_only_a_person_in_their_seat_starts_it(toy_scenario, participant):
    seats = [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}]
    game = ready_game(participant, seats=seats)
    assert game.waits_for_start  # one person: their start, whatever NPCs play beside them
    with pytest.raises(services.GamePaused):  # an NPC's move does not start a person's game
        services.apply_action(game.pk, agent=1, action="do dust", now=T0 + timedelta(seconds=5))
    with pytest.raises(services.GamePaused):  # nor a program acting without a person
        services.apply_action(game.pk, agent=0, action="do dust", now=T0 + timedelta(seconds=5))
    assert Game.objects.get(pk=game.pk).waits_for_start
    # a researcher's pause is not a start gate: an action waits for their resume, as before
    services.start(game.pk, by=participant, now=T0 + timedelta(seconds=6))
    services.pause(game.pk, now=T0 + timedelta(seconds=8))
    assert services.start(game.pk, by=participant, now=T0 + timedelta(seconds=9))
    assert Game.objects.get(pk=game.pk).pause_reason == "researcher"
    with pytest.raises(services.GamePaused):
        services.apply_action(game.pk, agent=0, action="do dust", by=participant, now=T0 + timedelta(seconds=9))


def test_lockstep_and_several_people_keep_their_own_start(toy_scenario, participant, django_user_model):
    lockstep = services.create_game(
        "test/toy", [{"kind": "human", "user": participant}], clock="lockstep", start_when_ready=True, now=T0
    )
    assert not lockstep.paused  # lockstep waits for the player's move anyway
    second = django_user_model.objects.create_user("second-player")
    together = ready_game(participant, seats=[{"kind": "human", "user": u} for u in (participant, second)])
    assert together.pause_reason == services.WAITING  # starts when both are connected
    without = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="real_time", now=T0)
    assert not without.paused  # the API's games (programs) start at once, as before


def test_the_waiting_player_sees_their_actions(toy_scenario, participant):
    game = ready_game(participant)
    rules = registry.get(game.rule_set_id)
    who = viewer.Viewer(agents=[0])
    message = viewer.state_message(game, rules, state_at(rules, game, game.last_seq), game.last_seq, who, now=T0)
    assert "do sweep" in message["legal_actions"]  # reading them is part of getting ready
    services.pause(game.pk, now=T0)
    services.start(game.pk, by=participant, now=T0)
    services.pause(game.pk, now=T0 + timedelta(seconds=1))
    game = Game.objects.get(pk=game.pk)
    message = viewer.state_message(game, rules, state_at(rules, game, game.last_seq), game.last_seq, who, now=T0)
    assert message["legal_actions"] == []  # paused by a researcher: nothing to press


def test_the_sites_form_makes_a_game_that_waits_for_its_player(client, researcher, participant, toy_scenario):
    client.force_login(researcher)
    form = {"scenario": "test/toy", "player": "par", "clock": "real_time", "seconds_per_unit": "2"}
    response = client.post(reverse("games:create"), {**form, "disconnect_policy": "pause", "seed": "0"})
    game = Game.objects.get()
    assert response.status_code == 302 and game.waits_for_start

    client.force_login(participant)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "The clock starts when you press Start or take your first action" in page
    assert 'hx-vals=\'{"type": "start"}\'' in page and 'data-key="s"' in page
    client.force_login(researcher)
    watching = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "waiting for the player to press Start" in watching and '{"type": "start"}' not in watching
    assert "Resume game" not in watching  # the player's Start starts it
    services.start(game.pk, by=participant)
    watching = client.get(reverse("games:play", args=[game.pk])).content.decode()
    # the clock's control says whose pause it is: a recipe step has a "Pause" of its own
    assert ">Pause game</button>" in watching


@pytest.mark.django_db(transaction=True)
async def test_start_over_the_websocket_is_the_players(toy_scenario, django_user_model):
    @database_sync_to_async
    def setup():
        from accounts.roles import Role, grant

        player, other = (django_user_model.objects.create_user(n) for n in ("alice", "eve"))
        for user in (player, other):
            grant(user, Role.PARTICIPANT)
        game = ready_game(player)
        return game, create_token(player), create_token(other)

    game, token, stranger = await setup()
    intruder = Client(game.pk, stranger)
    await intruder.connect()
    assert (await intruder.receive())["code"] == "forbidden"  # not their game: not even watching
    client = Client(game.pk, token)
    await client.connect()
    assert (await client.state())["clock"]["pause_reason"] == READY
    await client.send({"type": "start", "agent": 0, "time": -5})  # extra fields are ignored, as in every frame
    started = await client.receive_until("event", kind="resumed")
    assert started["message"] == "the clock starts"
    assert not (await client.state())["clock"]["paused"]
    await client.send({"type": "start"})  # once more: nothing changes, nothing is sent back
    await client.send({"type": "ping"})
    assert (await client.receive())["type"] == "pong"
    assert await database_sync_to_async(GameEvent.objects.filter(game_id=game.pk, kind="resumed").count)() == 1
    await client.close()
