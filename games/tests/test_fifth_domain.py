"""Proof of the shape: a fifth game that lives only in ``games/tests/fifth/`` becomes playable
everywhere by registering its one descriptor, with no other file naming it: conformance over its
bundled scenarios, web play over the websocket, random and planner NPC teammates, a headless
benchmark run and the ``plan``/``describe`` commands."""

from __future__ import annotations

import io
import json

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.urls import reverse

from accounts.tokens import create_token
from games import services
from games.engine import registry
from games.models import Game, GameEvent
from games.tests.fifth.descriptor import DOMAIN
from games.tests.test_conformance import check_domain
from games.tests.wsclient import Client

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def fifth_game():
    registry.register(DOMAIN)
    yield
    registry.unregister(DOMAIN.name)


@pytest.fixture
def bundled():
    DOMAIN.part("bundled")(log=lambda line: None)


def test_it_is_listed_and_passes_conformance_on_its_bundled_scenarios(client, researcher):
    assert ("chores", DOMAIN.title) in registry.choices()
    assert check_domain("chores") == 2
    client.force_login(researcher)
    assert DOMAIN.title in client.get(reverse("games:scenarios")).content.decode()


async def test_a_player_plays_it_over_the_websocket(django_user_model, bundled):
    @database_sync_to_async
    def setup():
        bot = django_user_model.objects.create_user("chores-bot")
        game = services.create_game("bundled/chores-small", [{"kind": "program", "user": bot}], clock="lockstep")
        return game, create_token(bot)

    game, token = await setup()
    client = Client(game.pk, token)
    assert await client.connect()
    state = await client.state()
    for _ in range(50):
        if state["status"] == "finished":
            break
        useful = [a for a in state["legal_actions"] if a != "wait"]
        await client.send({"type": "act", "action": useful[0]} if useful else {"type": "wait"})
        state = await client.state()
    finished = await client.receive_until("finished")
    await client.close()
    assert finished["metrics"]["progress"] == 100


def test_random_and_planner_npcs_play_beside_a_human(client, participant, bundled):
    seats = [
        {"kind": "human", "user": participant},
        {"kind": "npc", "dispatcher": "planner"},
        {"kind": "npc", "dispatcher": "random"},
    ]
    game = services.create_game("bundled/chores-big", seats, clock="lockstep", created_by=participant)
    for _ in range(60):
        game.refresh_from_db()
        if game.is_finished:
            break
        services.pass_turn(game.pk, agent=0, by=participant)
    game.refresh_from_db()
    assert game.is_finished
    acted = set(GameEvent.objects.filter(game=game, category="action").values_list("agent", flat=True))
    assert {1, 2} <= acted, "both NPC seats took actions"
    # the planner's first move is the longest open chore (mop, 3 minutes): its own policy, not a fallback
    first = GameEvent.objects.filter(game=game, category="action", agent=1).order_by("seq").first()
    assert first.data["action"] == "do mop"
    client.force_login(participant)
    page = client.get(reverse("games:play", args=[game.pk]))
    assert page.status_code == 200 and "board" in page.content.decode()


def test_a_headless_benchmark_runs_it(bundled):
    out = io.StringIO()
    call_command("benchmark", "chores", "--agent", "planner", "--json", stdout=out, stderr=io.StringIO())
    report = json.loads(out.getvalue())
    assert report, "the benchmark reports its run"
    assert Game.objects.count() == 0, "headless: no web games were created"
    from games.npc.models import BenchmarkResult

    results = list(BenchmarkResult.objects.filter(run__domain="chores"))
    assert len(results) == 2 and all(r.metrics.get("progress") == 100 for r in results)


def test_the_plan_and_describe_commands_know_it(bundled):
    out = io.StringIO()
    call_command("plan", "chores", "--scenario", "bundled/chores-big", "--json", stdout=out, stderr=io.StringIO())
    plan = json.loads(out.getvalue())
    assert plan["actions"][0].endswith("agent 0 do mop") and plan["result"]["progress"] == 100
    out = io.StringIO()
    call_command("describe", "chores", "--scenario", "bundled/chores-small", "--json", stdout=out)
    assert json.loads(out.getvalue()) == {"jobs": ["dust", "sweep"], "background": ["laundry"]}
