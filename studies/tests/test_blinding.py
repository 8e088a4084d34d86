"""Blinding (issue 16): a participant never learns what plays beside them. Every page, API answer
and websocket frame a participant can reach in a study with llm, random and planner conditions is
scanned for the NPC kind, the model, the endpoint and the condition names; researchers see them."""

from __future__ import annotations

import re
from importlib.util import find_spec

import pytest
from asgiref.sync import sync_to_async
from django.test import Client as HttpClient
from django.urls import reverse

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(find_spec("games.routing") is None, reason="the play websocket is not installed"),
]

CONDITIONS = (("Cond-Alpha LLM", "llm", 1), ("Cond-Beta random", "random", 1), ("Cond-Gamma planner", "planner", 2))
# what must never reach a participant: the NPC kinds, model and endpoint words, the condition names
LEAKS = re.compile(
    r"\bllm\b|\bplanner\b|\brandom\b|\bnpcs?\b|dispatcher|smollm|endpoint|cond-(alpha|beta|gamma)|blinded-model",
    re.IGNORECASE,
)
# text outside markup: attribute values and scripts are scanned too, but not the static asset names
STATIC_REFS = re.compile(r"""(src|href)="/static/[^"]*\"""")


def visible(text: str) -> str:
    return STATIC_REFS.sub("", text)


def leaks(text: str) -> list[str]:
    found = []
    for match in LEAKS.finditer(visible(text)):
        start = max(0, match.start() - 60)
        found.append(visible(text)[start : match.end() + 60].replace("\n", " "))
    return found


@pytest.fixture
def blinded_study(make_study, settings):
    settings.LLM_MODEL = "blinded-model"
    settings.NPC_RETRY_SECONDS = 0  # inline NPC turns: a retry would run at once, recursively
    study = make_study(CONDITIONS)
    return study


def participant_pages(client: HttpClient, study, game_ids: list[int]) -> dict[str, str]:
    pages = {}
    for url in (
        reverse("studies:step", args=[study.slug]),
        "/",
        reverse("games:mine"),
        reverse("studies:exports", args=[study.pk]),  # refused, and the refusal names nothing
        reverse("studies:export", args=[study.pk, "episodes", "csv"]),
        reverse("studies:export", args=[study.pk, "llm_calls", "csv"]),
    ):
        pages[url] = client.get(url, follow=True).content.decode()
    for game_id in game_ids:
        for url in (
            reverse("games:play", args=[game_id]),
            reverse("games:replay", args=[game_id]),
            reverse("games:api_game", args=[game_id]),
            reverse("games:api_events", args=[game_id]),
        ):
            pages[url] = client.get(url, follow=True).content.decode()
    return pages


async def test_nothing_a_participant_can_reach_names_their_teammates(blinded_study, settings):
    from games import services as game_services
    from games.tests.wsclient import Client
    from studies.models import Participant

    study = blinded_study
    client = HttpClient()
    entry = reverse("studies:entry", args=[study.slug])
    step = reverse("studies:step", args=[study.slug])
    seen: dict[str, str] = {}

    def get(url: str) -> None:
        seen[url + f" #{len(seen)}"] = client.get(url, follow=True).content.decode()

    await sync_to_async(get)(entry + "?pid=BLIND")
    await sync_to_async(client.post)(entry, {"pid": "BLIND", "choice": "agree", "agree": "1"})
    await sync_to_async(get)(step)
    await sync_to_async(client.post)(step, {"action": "onboarding", "index": "0"})
    participant = await sync_to_async(Participant.objects.get)(external_id="BLIND")
    items = await sync_to_async(lambda: list(study.items.values_list("pk", flat=True)))()
    game_ids = []
    for index in range(len(CONDITIONS)):
        await sync_to_async(get)(step)
        await sync_to_async(client.post)(step, {"action": "start", "index": str(index)})
        game_id = await sync_to_async(lambda i=index: participant.episodes.get(index=i).game_id)()
        game_ids.append(game_id)
        cookie = [(b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
        for query in ("", "format=html"):
            ws = Client(game_id, query=query, headers=[*cookie, (b"origin", b"http://testserver")])
            assert await ws.connect()
            if query:  # the browser's HTML fragments (the same presenters as the page)
                seen[f"ws {game_id} html"] = await ws.communicator.receive_from(timeout=10)
                await ws.close()
                continue
            state = await ws.state()
            if state.get("legal_actions"):
                await ws.send({"type": "act", "agent": 0, "action": state["legal_actions"][0]})
                await ws.state()
            await ws.send({"type": "chat", "text": "hello team"})
            await ws.receive_until("event", category="chat")
            await ws.close()
            for k, frame in enumerate(ws.received):
                seen[f"ws {game_id} frame {k}"] = str(frame)
        await sync_to_async(seen.update)(await sync_to_async(participant_pages)(client, study, game_ids))
        await sync_to_async(game_services.finish)(game_id, reason="test")
        await sync_to_async(get)(step)  # the questionnaire
        answers = {f"item-{pk}": "3" for pk in items}
        await sync_to_async(client.post)(step, {"action": "questionnaire", "index": str(index), **answers})
    await sync_to_async(get)(step)  # the completion page
    seen.update(await sync_to_async(participant_pages)(client, study, game_ids))

    found = {where: hits for where, text in seen.items() if (hits := leaks(text))}
    assert not found, "\n".join(f"{where}: {hits[:3]}" for where, hits in found.items())
    assert any("Teammate 1" in text for text in seen.values())
    # each game's introduction reads alike whatever plays beside them: "You can instruct them in
    # the chat" promised a random teammate would listen
    intros = [text for text in seen.values() if "computer-controlled teammate" in text]
    assert len(intros) >= len(CONDITIONS)
    assert all("You can write to" in text and "instruct" not in text for text in intros)


def test_researchers_see_what_plays_each_seat(blinded_study, client, researcher):
    from studies import services
    from studies.models import Participant

    participant = services.give_consent(services.join(blinded_study, external_id="SEEN"))
    services.advance_onboarding(participant, 0)
    participant = Participant.objects.get(pk=participant.pk)
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    client.force_login(researcher)
    page = client.get(reverse("games:play", args=[episode.game_id])).content.decode()
    kind = episode.condition.npc_kind
    assert re.search(rf"\b{kind}\b", page, re.IGNORECASE), f"the researcher's view names the {kind} teammate"


@pytest.mark.parametrize("show", [False, True])
def test_the_certified_optimum_reaches_a_participant_only_when_the_study_shows_it(researcher, show):
    from studies import services
    from studies.tests.factories import generated_study, play_with_the_planner

    study, instance = generated_study(researcher, show_optimum=show)
    player = services.give_consent(services.join(study, external_id="P1"))
    game = play_with_the_planner(player, player.episodes.get(index=0))
    browser = HttpClient()
    browser.force_login(player.user)
    page = " ".join(browser.get(f"/games/{game.pk}/").content.decode().split())
    best = f"The best possible: <strong>{instance['optimal_makespan']:g} minutes</strong>"
    assert (best in page) is show
    assert "Continue the study" in page
    for path in (
        f"/games/{game.pk}/",
        "/games/mine/",
        f"/games/{game.pk}/replay/",
        f"/api/games/{game.pk}/",  # it sent "scenario" and the created event's "scenarios"
        f"/api/games/{game.pk}/events/",
    ):
        # the scenario's name is the researcher's, not the participant's
        assert instance["slug"] not in browser.get(path).content.decode(), path
