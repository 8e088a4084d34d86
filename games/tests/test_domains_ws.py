"""Bots play complete games of every landed domain through the websocket API, in lockstep and in
real time (the real-time clock moved with time-machine to the next deadline, never slept)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from channels.db import database_sync_to_async

from accounts.tokens import create_token
from games import services
from games.engine import registry
from games.models import Scenario
from games.scenarios import save_scenario
from games.tests.wsclient import Client

pytestmark = pytest.mark.django_db(transaction=True)
T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
DOMAINS = registry.domains()
# a short scenario per domain (bundled content); None = the first one the loader stored
SCENARIO = {"tasks": "bundled/make-tea"}


_loaded: dict[str, dict] = {}  # domain -> one scenario's fields, so the bundled loader runs once


def load_scenario(domain: str) -> str:
    if domain not in _loaded:
        registry.descriptor(domain).part("bundled")(log=lambda line: None)
        slug = SCENARIO.get(domain)
        if slug is None:
            slug = Scenario.objects.current().filter(domain=domain).order_by("slug").values_list("slug", flat=True)[0]
        scenario = Scenario.objects.get(slug=slug, is_current=True)
        _loaded[domain] = {
            "domain": domain,
            "slug": slug,
            "title": scenario.title,
            "source": scenario.source,
            "definition": scenario.definition,
        }
        return slug
    save_scenario(**_loaded[domain])
    return _loaded[domain]["slug"]


@database_sync_to_async
def setup(domain: str, clock: str, django_user_model):
    bot = django_user_model.objects.create_user(f"bot-{domain}")
    slug = load_scenario(domain)
    game = services.create_game(slug, [{"kind": "program", "user": bot}], clock=clock, speed=1.0, created_by=bot)
    return game, create_token(bot)


PASSIVE = {"wait", "pause", "stop", "noop"}


def pick(actions: list[str]) -> str | None:
    """The bot's policy: the first action that gets something done (not a wait, pause or stop)."""
    useful = next((a for a in actions if a.replace("(", " ").split()[0].lower() not in PASSIVE), None)
    # an itinerary's "wait until 09:00" is how its time passes (nothing happens there by itself)
    return useful or next((a for a in actions if a.startswith("wait until ")), None)


@pytest.mark.parametrize("clock", ["lockstep", "real_time"])
@pytest.mark.parametrize("domain", DOMAINS)
async def test_a_bot_plays_a_whole_game(domain, clock, django_user_model):
    with time_machine.travel(T0, tick=False) as traveller:
        game, token = await setup(domain, clock, django_user_model)
        client = Client(game.pk, token)
        assert await client.connect()
        state = await client.state()
        for _ in range(2000):
            if state["status"] == "finished":
                break
            action = pick(state["legal_actions"]) if state["agent"] in state["awaiting"] else None
            if action is not None:
                await client.send({"type": "act", "action": action})
            elif clock == "lockstep":
                await client.send({"type": "wait"})  # nothing useful now: let time pass
            else:
                deadline = state["clock"]["next_deadline"]
                traveller.shift(timedelta(seconds=max(1.0, (deadline or state["time"] + 1) - state["time"])))
                await client.send({"type": "sync"})
            state = await client.state()
        finished = await client.receive_until("finished")
        await client.close()
    assert finished["metrics"], "finished carries the domain's metrics"
    if domain == "tasks":
        assert finished["metrics"]["progress"] == 100
        assert finished["metrics"]["completion_time"] is not None
    events = [m for m in client.received if m["type"] == "event"]
    assert [e["seq"] for e in events] == list(range(2, events[-1]["seq"] + 1)), "no entry is skipped"
