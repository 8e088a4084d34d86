"""A program that takes two seconds to think: at the default speed, in real time, it sends one of
the ``legal_actions`` of each ``state`` that asks it to decide, two seconds after that state
arrived, and the rules accept it (the clock is moved with time-machine, never slept). Tasks and
kitchen actions name no times, so a moment later they are still valid unless the world changed:
in the kitchen only an order running out can make one stale (serving a dish nobody waits for).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from games.models import Game
from games.tests.test_domains_ws import load_scenario
from games.tests.wsclient import Client

pytestmark = pytest.mark.django_db(transaction=True)
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
THINK = timedelta(seconds=2)
PASSIVE = {"wait", "noop"}
# a refusal that only means the world changed while the program thought
WORLD_CHANGED = {"kitchen": {"not_ordered"}, "tasks": set()}


@pytest.mark.parametrize("domain", ["tasks", "kitchen"])
async def test_legal_actions_sent_two_seconds_later_are_accepted(domain, django_user_model):
    from channels.db import database_sync_to_async

    from accounts.tokens import create_token
    from games import services

    @database_sync_to_async
    def setup() -> tuple[Game, str]:
        bot = django_user_model.objects.create_user(f"thinker-{domain}")
        slug = load_scenario(domain)
        game = services.create_game(slug, [{"kind": "program", "user": bot}], clock="real_time", created_by=bot)
        return game, create_token(bot)

    rng = random.Random(14)
    with time_machine.travel(T0, tick=False) as traveller:
        game, token = await setup()
        client = Client(game.pk, token)
        assert await client.connect()
        state = await client.state()
        sent = []
        for _ in range(500):
            if state["status"] == "finished":
                break
            # a state that asks the program to decide (a kitchen command already sent for this step
            # runs first; the next decision is made on the state after it)
            asked = state["agent"] in state["awaiting"]
            useful = [a for a in state["legal_actions"] if a.split()[0].lower() not in PASSIVE] if asked else []
            traveller.shift(THINK)
            if useful:
                action = rng.choice(useful)
                sent.append(action)
                await client.send({"type": "act", "action": action})
            else:
                await client.send({"type": "sync"})
            state = await client.state()
        else:
            pytest.fail("the game did not end")
        await client.receive_until("finished")
        await client.close()
    refused = [
        m
        for m in client.received
        if m["type"] == "event" and m["category"] == "engine" and m["kind"] == "rejected" and m["agent"] == 0
    ]
    stale = [m for m in refused if m["data"]["details"]["feedback"] not in WORLD_CHANGED[domain]]
    assert len(sent) >= 5, "the program had actions to send"
    assert not stale, [m["message"] for m in stale]
    assert len(refused) <= len(sent) // 5, "the world changing under a thinking player is the exception"
