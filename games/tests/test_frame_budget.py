"""A browser's game socket takes a few frames a second; a flood is refused and changes nothing,
and programs (API tokens) are not limited."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.test import Client as HttpClient

from accounts.tokens import create_token
from games import services
from games.frame_budget import BURST, RATE, FrameBudget
from games.models import GameEvent
from games.tests.wsclient import Client


def test_the_budget_allows_a_burst_then_its_rate():
    budget = FrameBudget(stamp=0.0)
    assert all(budget.take(now=0.0) for _ in range(int(BURST)))
    assert not budget.take(now=0.0)
    assert budget.take(now=1 / RATE) and not budget.take(now=1 / RATE)  # one frame back per 1/RATE s
    assert sum(budget.take(now=100.0) for _ in range(100)) == BURST  # never more than a burst saved up


async def flood(client: Client, frames: int) -> list[dict]:
    for _ in range(frames):
        await client.send({"type": "sync"})
    answers = []
    while len(answers) < frames:
        message = await client.receive()
        if message["type"] in ("state", "error"):
            answers.append(message)
    return answers


@pytest.mark.django_db(transaction=True)
async def test_a_browsers_flood_of_frames_is_refused_and_a_programs_is_not(
    toy_scenario, django_user_model, monkeypatch
):
    # time stands still for the budget, so a loaded machine (slow sends) cannot refill it mid-flood
    monkeypatch.setattr("games.frame_budget.clock", lambda: 1000.0)
    player = await database_sync_to_async(django_user_model.objects.create_user)("player")
    game = await database_sync_to_async(services.create_game)(
        "test/toy", [{"kind": "human", "user": player}], clock="lockstep", created_by=player
    )
    browser = HttpClient()
    await database_sync_to_async(browser.force_login)(player)
    cookie = (b"cookie", f"sessionid={browser.cookies['sessionid'].value}".encode())
    client = Client(game.pk, headers=[cookie, (b"origin", b"http://testserver")])
    assert await client.connect()
    await client.state()
    answers = await flood(client, 60)
    refused = [a for a in answers if a["type"] == "error"]
    assert refused and all(a["code"] == "too_fast" and "at most 10 a second" in a["message"] for a in refused)
    assert len(answers) - len(refused) == BURST  # the burst, and not one frame more
    await client.send({"type": "act", "action": "do sweep"})  # still too fast: not taken
    assert (await client.receive_until("error"))["code"] == "too_fast"
    assert not await database_sync_to_async(GameEvent.objects.filter(game=game, category="action").exists)()
    await client.close()

    program = Client(game.pk, token=await database_sync_to_async(create_token)(player))
    assert await program.connect()
    await program.state()
    assert all(a["type"] == "state" for a in await flood(program, 60))
    await program.close()
