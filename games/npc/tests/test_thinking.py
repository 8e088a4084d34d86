"""While an LLM teammate waits for its model, the game's viewers are told so (not blinded ones)."""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async

from accounts.tokens import create_token
from games import broadcast, services
from games.agents.tests.stub_server import stub_endpoint
from games.models import GameEvent
from games.tests.wsclient import Client


def test_an_llm_npc_is_said_to_think_until_its_model_answers(
    toy_scenario, participant, settings, monkeypatch, django_capture_on_commit_callbacks
):
    sent: list[list[int]] = []
    monkeypatch.setattr(broadcast, "send_thinking", lambda game_id, agents: sent.append(list(agents)))
    during: list[list[list[int]]] = []

    def script(messages):
        during.append([list(a) for a in sent])  # what viewers had been told when the model was asked
        return "Agent 1: do sweep"

    settings.BACKGROUND_INLINE = True
    with stub_endpoint(script) as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        with django_capture_on_commit_callbacks(execute=True):
            services.create_game(
                "test/toy",
                [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}],
                clock="lockstep",
            )
    assert during and during[0] == [[1]]  # seat 1 is deciding while its model is asked
    assert sent[:2] == [[1], []]  # and no longer once it answered


def test_a_baseline_npc_is_never_said_to_think(
    toy_scenario, participant, settings, monkeypatch, django_capture_on_commit_callbacks
):
    sent: list[list[int]] = []
    monkeypatch.setattr(broadcast, "send_thinking", lambda game_id, agents: sent.append(list(agents)))
    settings.BACKGROUND_INLINE = True
    with django_capture_on_commit_callbacks(execute=True):
        game = services.create_game(
            "test/toy",
            [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}],
            clock="lockstep",
        )
    assert GameEvent.objects.filter(game=game, category="action", agent=1).exists()  # it did play
    assert sent == []


@pytest.mark.django_db(transaction=True)
async def test_viewers_read_who_is_thinking_and_blinded_participants_do_not(
    toy_scenario, participant, settings, monkeypatch
):
    settings.BACKGROUND_INLINE = False  # the NPC's own turn stays out of this test
    monkeypatch.setattr("games.npc.turns.request_turn", lambda *args, **kwargs: None)
    game = await database_sync_to_async(services.create_game)(
        "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}], clock="lockstep"
    )
    token = await database_sync_to_async(create_token)(participant, name="test")

    program = Client(game.pk, token)
    assert await program.connect()
    await program.state()
    await database_sync_to_async(broadcast.send_thinking)(game.pk, [1])
    assert await program.receive_until("thinking") == {"type": "thinking", "agents": [1]}

    page = Client(game.pk, token, query="format=html")
    assert await page.connect()
    await page.communicator.receive_from()  # the first full update
    await database_sync_to_async(broadcast.send_thinking)(game.pk, [1])
    html = await page.communicator.receive_from()
    assert 'id="teammates-deciding"' in html and "Teammate 1 (LLM NPC) is deciding what to do next" in html
    await database_sync_to_async(broadcast.send_thinking)(game.pk, [])
    cleared = await page.communicator.receive_from()
    assert 'id="teammates-deciding"' in cleared and "what to do next" not in cleared
    await page.close()
    await program.close()

    monkeypatch.setattr("games.permissions.is_blinded", lambda user, game: True)
    blinded = Client(game.pk, token)
    assert await blinded.connect()
    await blinded.state()
    await database_sync_to_async(broadcast.send_thinking)(game.pk, [1])
    await database_sync_to_async(services.post_chat)(game.pk, text="hello", by=participant, agent=0)
    # the next frames are the chat's, with nothing about thinking before them
    first = await blinded.receive()
    assert first["type"] != "thinking" and json.dumps(first)
    await blinded.close()
