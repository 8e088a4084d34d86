"""Over the play websocket, with the session the study link gave them, a participant plays their
own episode and is refused in anybody else's."""

from __future__ import annotations

from importlib.util import find_spec

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as HttpClient
from django.urls import reverse

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(find_spec("games.routing") is None, reason="the play websocket is not installed"),
]


def join_and_start(study, pid: str) -> tuple[int, str]:
    from studies.models import Participant

    client = HttpClient()
    entry = reverse("studies:entry", args=[study.slug])
    step = reverse("studies:step", args=[study.slug])
    client.post(entry, {"pid": pid, "choice": "agree", "agree": "1"})
    client.post(step, {"action": "onboarding", "index": "0"})
    client.post(step, {"action": "start", "index": "0"})
    game_id = Participant.objects.get(external_id=pid).episodes.get(index=0).game_id
    return game_id, client.cookies["sessionid"].value


async def test_a_participant_acts_only_in_their_own_episode(make_study, settings):
    from games.tests.wsclient import Client

    # A participant may be assigned the random-NPC condition: its turns run in the acting thread,
    # since the in-memory SQLite test database fails ("table is locked") instead of waiting when
    # a background NPC thread writes at the same moment.
    settings.BACKGROUND_INLINE = True

    study = await sync_to_async(make_study)()
    alice_game, alice_session = await sync_to_async(join_and_start)(study, "ALICE")
    _, bob_session = await sync_to_async(join_and_start)(study, "BOB")

    def browser(session: str) -> list[tuple[bytes, bytes]]:
        return [(b"cookie", f"sessionid={session}".encode()), (b"origin", b"http://testserver")]

    alice = Client(alice_game, headers=browser(alice_session))
    assert await alice.connect()
    state = await alice.state()
    assert state["agent"] == 0 and state["legal_actions"]
    await alice.send({"type": "act", "agent": 0, "action": state["legal_actions"][0]})
    assert (await alice.state())["seq"] > state["seq"]
    await alice.close()

    bob = Client(alice_game, headers=browser(bob_session))
    await bob.connect()
    refusal = await bob.receive_until("error")
    assert refusal["code"] == "forbidden"
    await bob.close()
