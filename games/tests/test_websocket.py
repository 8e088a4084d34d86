"""The websocket API end to end (through the production middleware stack) on the toy rules.

Bots play whole games in lockstep and in real time (time moved with time-machine, never slept),
malformed frames get errors on a connection that stays open, reconnects resync without loss.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from channels.db import database_sync_to_async

from accounts.tokens import create_token
from games import services
from games.models import GameEvent
from games.tests.wsclient import Client

pytestmark = pytest.mark.django_db(transaction=True)
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@database_sync_to_async
def new_game(user, clock="lockstep", seats=None, **kwargs):
    seats = seats or [{"kind": "program", "user": user}]
    return services.create_game("test/toy", seats, clock=clock, created_by=user, **kwargs)


@database_sync_to_async
def token_for(user):
    return create_token(user, name="test")


def pick(actions: list[str]) -> str:
    """A bot's policy: the first action that is not a wait, else wait."""
    return next((a for a in actions if a != "wait"), "wait")


async def play_to_the_end(client: Client, state: dict, *, on_idle=None) -> dict:
    for _ in range(200):
        if state["status"] == "finished":
            return await client.receive_until("finished")
        if state["legal_actions"]:
            await client.send({"type": "act", "action": pick(state["legal_actions"])})
        elif on_idle is not None:
            await on_idle()
        else:
            raise AssertionError(f"nothing to do and no clock to move: {state}")
        while True:
            message = await client.receive()
            if message["type"] == "state":
                state = message
                break
    raise AssertionError("the game did not finish")


async def test_bot_plays_a_lockstep_game_to_the_end(toy_scenario, django_user_model):
    bot = await database_sync_to_async(django_user_model.objects.create_user)("bot")
    game, token = await new_game(bot), await token_for(bot)
    client = Client(game.pk, token)
    assert await client.connect()
    state = await client.state()
    assert state["agent"] == 0 and state["legal_actions"] and state["seq"] == 1
    finished = await play_to_the_end(client, state)
    # sweep (2 min), dust (1), then laundry in the background (3)
    assert finished["metrics"] == {"progress": 100.0, "completion_time": 6}
    seqs = [m["seq"] for m in client.received if m["type"] == "event"]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs))
    stored = await database_sync_to_async(
        lambda: list(GameEvent.objects.filter(game=game).values_list("seq", flat=True))
    )()
    assert seqs == stored[1:]  # every entry after the connection's first state, none missing
    await client.close()


async def test_bot_plays_a_real_time_game_with_the_clock_moved_by_hand(toy_scenario, django_user_model):
    bot = await database_sync_to_async(django_user_model.objects.create_user)("bot")
    with time_machine.travel(T0, tick=False) as traveller:
        game, token = await new_game(bot, clock="real_time", speed=0.5), await token_for(bot)
        client = Client(game.pk, token)
        assert await client.connect()
        state = await client.state()

        async def two_seconds_later():
            traveller.shift(timedelta(seconds=2))  # one game minute
            await client.send({"type": "sync"})

        finished = await play_to_the_end(client, state, on_idle=two_seconds_later)
    assert finished["metrics"]["progress"] == 100.0
    started = [m for m in client.received if m["type"] == "event" and m["kind"] == "started"]
    # each action starts the moment the agent is free again (background ones free it after a minute)
    assert started[0]["time"] == 0
    for before, after in itertools.pairwise(started):
        details = before["data"]["details"]
        free_at = before["time"] + 1 if details["action"].startswith("start ") else details["end"]
        assert after["time"] == free_at, (before, after)
    completed = [m["data"]["details"]["action"] for m in client.received if m.get("kind") == "completed"]
    assert sorted(completed) == ["dust", "laundry", "sweep"]  # including those the clock brought
    await client.close()


async def test_a_wait_that_changes_nothing_is_answered_and_stores_nothing(toy_scenario, django_user_model):
    """A real-time game's wait while the agent is busy went unanswered (a program waited for a
    reply that never came); it now says why, and nothing is stored."""
    bot = await database_sync_to_async(django_user_model.objects.create_user)("bot")
    with time_machine.travel(T0, tick=False):
        game, token = await new_game(bot, clock="real_time", speed=0.5), await token_for(bot)
        client = Client(game.pk, token)
        assert await client.connect()
        state = await client.state()
        await client.send({"type": "act", "action": "do sweep"})  # busy for two minutes
        state = await client.receive_until("state")
        assert state["legal_actions"] == []
        stored = await database_sync_to_async(GameEvent.objects.filter(game=game).count)()
        await client.send({"type": "wait"})
        note = await client.receive()
        assert note["type"] == "feedback" and note["kind"] == "info", note
        assert note["message"].startswith("Nothing to wait for: a real-time game's clock runs on by itself")
        assert await database_sync_to_async(GameEvent.objects.filter(game=game).count)() == stored
    await client.close()


async def test_malformed_frames_get_an_error_and_the_connection_stays_open(toy_scenario, django_user_model):
    bot = await database_sync_to_async(django_user_model.objects.create_user)("bot")
    game, token = await new_game(bot), await token_for(bot)
    client = Client(game.pk, token)
    await client.connect()
    await client.state()
    for frame in [
        "not json",
        "[1, 2]",
        '{"type": "fly"}',
        '{"type": "act"}',
        '{"type": "act", "action": ""}',
        '{"type": "sync", "since": "x"}',
    ]:
        await client.send(frame)
        error = await client.receive()
        assert error["type"] == "error" and error["message"], frame
    await client.send({"type": "ping"})
    assert (await client.receive())["type"] == "pong"
    count = await database_sync_to_async(GameEvent.objects.filter(game=game).count)()
    assert count == 1  # only the created entry: bad input changed nothing
    await client.close()


async def test_rejected_action_gets_feedback_and_is_logged(toy_scenario, django_user_model):
    bot = await database_sync_to_async(django_user_model.objects.create_user)("bot")
    game, token = await new_game(bot), await token_for(bot)
    client = Client(game.pk, token)
    await client.connect()
    await client.state()
    await client.send({"type": "act", "action": "juggle"})
    feedback = await client.receive_until("feedback")
    assert feedback["kind"] == "invalid_action" and "try one of" in feedback["message"]
    kinds = await database_sync_to_async(
        lambda: list(GameEvent.objects.filter(game=game).values_list("kind", flat=True))
    )()
    assert kinds == ["created", "act", "rejected"]
    await client.close()


async def test_reconnect_with_since_gets_every_missed_event(toy_scenario, django_user_model):
    bot = await database_sync_to_async(django_user_model.objects.create_user)("bot")
    game, token = await new_game(bot), await token_for(bot)
    first = Client(game.pk, token)
    await first.connect()
    seen = (await first.state())["seq"]
    await first.close()
    await database_sync_to_async(services.apply_action)(game.pk, agent=0, action="do sweep", by=bot)
    await database_sync_to_async(services.apply_action)(game.pk, agent=0, action="do dust", by=bot)
    again = Client(game.pk, token, query=f"since={seen}")
    await again.connect()
    state = await again.state()
    missed = [m for m in again.received if m["type"] == "event"]
    assert [m["seq"] for m in missed] == list(range(seen + 1, state["seq"] + 1))
    await again.send({"type": "sync", "since": 0})
    state_again = await again.state()
    assert state_again["seq"] == state["seq"]
    assert len([m for m in again.received if m["type"] == "event"]) == len(missed) + state["seq"]
    await again.close()


async def test_watchers_receive_the_players_events(toy_scenario, participant, researcher):
    game = await new_game(participant, seats=[{"kind": "human", "user": participant}])
    player_token, watcher_token = await token_for(participant), await token_for(researcher)
    player, watcher = Client(game.pk, player_token), Client(game.pk, watcher_token)
    await player.connect()
    await watcher.connect()
    await player.state()
    watched = await watcher.state()
    assert watched["agent"] is None and watched["legal_actions"] == [] and watched["can_control"]
    await player.send({"type": "act", "action": "do sweep"})
    started = await watcher.receive_until("event", kind="started")
    assert started["agent"] == 0 and "sweep" in started["message"]
    await watcher.send({"type": "act", "action": "do dust"})
    assert (await watcher.receive_until("error"))["code"] == "forbidden"
    await player.close()
    await watcher.close()


async def test_a_seat_handed_to_a_computer_teammate_takes_nothing_more_from_its_players_open_socket(
    toy_scenario, django_user_model
):
    alice = await database_sync_to_async(django_user_model.objects.create_user)("alice")
    bob = await database_sync_to_async(django_user_model.objects.create_user)("bob")
    seats = [{"kind": "human", "user": alice}, {"kind": "human", "user": bob}]
    game, token = await new_game(alice, seats=seats), await token_for(alice)
    client = Client(game.pk, token)
    await client.connect()
    state = await client.state()
    # she left the study in another tab (or was dropped): a random NPC plays her seat from now on
    await database_sync_to_async(services.replace_seat)(game.pk, 0, dispatcher="random", reason="left")
    logged = await database_sync_to_async(GameEvent.objects.filter(game=game).count)()
    for frame in (
        {"type": "act", "action": pick(state["legal_actions"])},
        {"type": "wait"},
        {"type": "chat", "text": "still here"},
    ):
        await client.send(frame)
        error = await client.receive_until("error")
        assert error["code"] == "forbidden" and "computer teammate plays agent 0" in error["message"], frame
    entries = await database_sync_to_async(list)(GameEvent.objects.filter(game=game, seq__gt=logged))
    assert not [(e.kind, e.data) for e in entries if e.data.get("by") == "alice" or e.data.get("from") == "alice"]
    await client.close()
