"""Actions that mean "now" over the websocket: a program that sends one of a ``state`` message's
legal actions two seconds later (a person reading the board) is accepted, in real time at the
domain's default speed (time moved with time-machine, never slept)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from channels.db import database_sync_to_async

from accounts.tokens import create_token
from games import services
from games.importers import bundled_itinerary, bundled_recipes
from games.speeds import default_speed
from games.tests.wsclient import Client

pytestmark = pytest.mark.django_db(transaction=True)
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
THINK = timedelta(seconds=2)
SCENARIOS = {"recipes": "bundled/Porridge_Omelette", "itinerary": "bundled/harbourton-morning"}
LOADERS = {"recipes": bundled_recipes, "itinerary": bundled_itinerary}


@database_sync_to_async
def setup(domain: str, django_user_model):
    LOADERS[domain].load(log=lambda line: None)
    bot = django_user_model.objects.create_user(f"reader-{domain}")
    game = services.create_game(
        SCENARIOS[domain], [{"kind": "program", "user": bot}], clock="real_time", created_by=bot
    )
    return game, create_token(bot)


def useful(actions: list[str], been: set[str]) -> str | None:
    """A reader's choice: a visit, else somewhere not yet been, else the first step to start; a
    wait only when nothing else is offered."""
    doing = [a for a in actions if not a.lower().startswith(("pause", "wait", "stop"))]
    visits = [a for a in doing if a.startswith("visit")]
    new_places = [a for a in doing if a.startswith("go to") and a not in been]
    return next(iter(visits + new_places + [a for a in doing if not a.startswith("go to")]), None)


@pytest.mark.parametrize("domain", sorted(SCENARIOS))
async def test_legal_actions_sent_two_seconds_after_each_state_are_accepted(domain, django_user_model):
    with time_machine.travel(T0, tick=False) as traveller:
        game, token = await setup(domain, django_user_model)
        assert game.speed == default_speed(domain, game.scenario.definition, game.options)
        if domain == "recipes":  # people play without the benchmark's revision limits
            assert game.options["max_rejections"] == 0 and game.options["max_repeats"] == 0
        client = Client(game.pk, token)
        assert await client.connect()
        state = await client.state()
        sent: list[str] = []
        for _ in range(120):
            if state["status"] == "finished":
                break
            action = useful(state["legal_actions"], set(sent)) if state["agent"] in state["awaiting"] else None
            if action is not None:
                traveller.shift(THINK)  # the player reads the board for two seconds, then clicks
                await client.send({"type": "act", "action": action})
                sent.append(action)
            else:
                deadline = state["clock"]["next_deadline"] or state["time"] + 60
                traveller.shift(timedelta(seconds=max(0.5, (deadline - state["time"]) / game.speed)))
                await client.send({"type": "sync"})
            state = await client.state()
        await client.close()
    refused = [m for m in client.received if m["type"] == "feedback"]
    assert len(sent) >= 4 and state["status"] == "finished"
    assert not refused, refused
    # and the timed forms never reached the player: every offered action was in the "now" form
    offered = {a for m in client.received if m["type"] == "state" for a in m["legal_actions"]}
    assert offered and not [a for a in offered if a.count(",") > 1 or ":" in a.split(" until ")[0]]
