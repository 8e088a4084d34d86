"""A game's LLM calls page: the summary per agent that asked, and the calls 50 at a time."""

from __future__ import annotations

import re

from django.urls import reverse

from games import services
from games.npc.call_summary import summarise
from games.npc.models import LlmCall


def _game(participant):
    return services.create_game(
        "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}], clock="lockstep"
    )


def _call(game, agent, seconds, *, error="", problems=(), tokens=(100, 10)):
    return LlmCall.objects.create(
        game=game,
        agent=agent,
        latency_seconds=seconds,
        prompt_tokens=tokens[0],
        completion_tokens=tokens[1],
        error=error,
        problems=list(problems),
        messages=[{"role": "user", "content": "state"}],
    )


def test_the_summary_counts_each_agents_calls_waits_failures_and_refusals(toy_scenario, participant):
    game = _game(participant)
    _call(game, "react/agent 1", 1.0, problems=["'do fly' was refused", "'do swim' was refused"])
    _call(game, "react/agent 2", 4.0, error="timed out")
    _call(game, "react/agent 1", 3.0)
    _call(game, "react/agent 1", 2.0, tokens=(200, 20))
    first, second, total = summarise(LlmCall.objects.filter(game=game))
    assert (first.agent, first.calls, first.median_seconds, first.slowest_seconds) == ("react/agent 1", 3, 2.0, 3.0)
    assert (first.refused, first.failed, first.prompt_tokens, first.completion_tokens) == (2, 0, 400, 40)
    assert (second.agent, second.calls, second.failed, second.refused) == ("react/agent 2", 1, 1, 0)
    assert (total.agent, total.calls, total.waited_seconds, total.median_seconds) == ("all", 4, 10.0, 2.5)
    assert summarise(LlmCall.objects.none()) == []
    only = summarise(LlmCall.objects.filter(game=game, agent="react/agent 2"))
    assert [row.agent for row in only] == ["react/agent 2"]  # no "all" row for a single agent


def test_the_calls_page_sums_up_every_call_and_shows_them_fifty_at_a_time(
    toy_scenario, participant, researcher, client
):
    game = _game(participant)
    for number in range(60):
        _call(game, "dispatcher", 1.0 + number / 100, error="no answer" if number == 59 else "")
    client.force_login(researcher)
    url = reverse("games:llm_calls", args=[game.pk])
    first = client.get(url).content.decode()
    summary = first.split('id="call-summary"')[1].split("</table>")[0]
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", summary, re.S)]
    assert cells[:6] == ["60", "1.30 s", "1.59 s", "77.7 s", "6000 + 600", "1"]
    assert first.count('class="card" id="call-') == 50 and "Calls 1–50 of 60" in first
    second = client.get(url, {"page": 2}).content.decode()
    assert second.count('class="card" id="call-') == 10 and "Calls 51–60 of 60" in second
    assert "no answer" in second and "no answer" not in first.split('id="call-summary"')[1].split("</table>")[1]


def test_the_calls_page_numbers_agents_as_their_prompts_do(participant, researcher, client):
    """A tasks prompt numbers agents from 1 ("Agent 1 is the human player"); the card's commands
    read "agent 1: gather dishes" (the seat's index) under it, naming the person."""
    from games.importers import bundled_tasks

    bundled_tasks.load(log=lambda line: None)
    seats = [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}]
    game = services.create_game("bundled/make-tea", seats, clock="lockstep")
    call = _call(game, "dispatcher", 1.0, problems=["agent 1: 'fill kettle' refused when played: busy"])
    LlmCall.objects.filter(pk=call.pk).update(parsed=["agent 1: wash cup"])
    client.force_login(researcher)
    page = client.get(reverse("games:llm_calls", args=[game.pk])).content.decode()
    assert "<code>agent 2: wash cup</code>" in page and "agent 2: &#x27;fill kettle&#x27; refused" in page
    assert "agent 1: wash cup" not in page
