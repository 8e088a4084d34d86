"""The real-LLM tier (SPEC section 7): SmolLM2-135M behind llama.cpp's OpenAI-compatible server.

Each domain plays a short game whose NPCs are commanded by the LLM dispatcher through the whole
real path: prompt templates -> HTTP -> model -> strict extraction -> validation -> the play
services -> the event log, with every call stored. The model plays badly; the path is what counts.
"""

from __future__ import annotations

import pytest

from games import selectors, services
from games.bundled import load_bundled
from games.engine import registry
from games.models import Game, GameEvent, Scenario
from games.npc.models import LlmCall, NpcMemory
from games.npc.turns import play_turn, wait_action

pytestmark = pytest.mark.llm

SEATS = {"tasks": 1, "recipes": 1, "kitchen": 2, "itinerary": 1}
TURNS = 2
# Short prompts and replies: the tier proves the path on 2 shared cores, not the model's skill.
SHORT = {"max_tokens": 32, "max_state_chars": 800, "hints": False, "demo": False}
NPC = {"kind": "npc", "dispatcher": "llm", "settings": {"prompt": SHORT}}


@pytest.fixture
def bundled(db):
    load_bundled(lambda line: None)


@pytest.mark.parametrize("domain", sorted(SEATS))
def test_llm_dispatcher_plays_a_short_game(domain, bundled, participant, llm_settings):
    scenario = Scenario.objects.current().filter(domain=domain).order_by("slug").first()
    assert scenario is not None, f"no bundled {domain} scenario"
    # recipes has no way to let time pass, so a human who never acts would freeze the lockstep clock,
    # and an itinerary takes one seat (its one traveller: ``Domain.seats_at_most``); their NPC plays
    # alone there.
    human = domain not in ("recipes", "itinerary")
    seats = [{"kind": "human", "user": participant}] * human + [NPC] * SEATS[domain]
    game = services.create_game(scenario.slug, seats, clock="lockstep")
    NpcMemory.objects.create(game=game)
    rules = registry.get(domain)
    for _ in range(TURNS):
        for _attempt in range(60):
            if play_turn(game.pk):
                break
            state = selectors.current_state(Game.objects.get(pk=game.pk))[1]
            wait = wait_action(rules, state, 0) if human and 0 in rules.awaiting(state) else None
            if wait is not None:
                # The NPCs are busy: the human lets time pass (lockstep waits for every seat).
                services.apply_action(game.pk, agent=0, action=wait, by=participant)
            else:
                # The NPC idled on an unchanged state: what the scheduled retry (npc.retry) does.
                NpcMemory.objects.filter(pk=game.pk).update(decided_seq=0)
    calls = list(LlmCall.objects.filter(game=game).order_by("id"))
    assert len(calls) == TURNS
    for call in calls:
        assert call.error == "" and call.reply.strip(), f"{domain}: the model did not answer: {call.error}"
        assert call.completion_tokens > 0 and call.latency_seconds > 0
        assert call.model == "smollm2-135m-instruct"
        system, user = call.messages[0]["content"], call.messages[1]["content"]
        assert "Current state:" in user
        assert ("never command it" in system) == human  # the human, when there is one, is agent 0
        assert "Rules:" in system
        assert call.parsed or call.problems  # every reply was judged: commands taken or refusals fed back
    # Whatever the model said, only NPC seats ever acted (never the human's), and what it was
    # refused reached its next prompt.
    npc_moves = GameEvent.objects.filter(game=game, category="action").exclude(data__by=participant.username)
    if human:  # agent 0 is the human's seat (an NPC playing alone is agent 0 itself)
        assert 0 not in set(npc_moves.values_list("agent", flat=True))
    refused = [call for call in calls[:-1] if call.problems]
    if refused:
        later = calls[calls.index(refused[0]) + 1]
        assert "Feedback on your last commands" in later.messages[1]["content"]


def test_the_humans_chat_reaches_the_models_prompt(bundled, participant, llm_settings):
    scenario = Scenario.objects.current().filter(domain="tasks").order_by("slug").first()
    game = services.create_game(scenario.slug, [{"kind": "human", "user": participant}, NPC], clock="lockstep")
    NpcMemory.objects.create(game=game)
    services.post_chat(game.pk, text="Please wash the bowl first", by=participant, agent=0)
    play_turn(game.pk)
    call = LlmCall.objects.get(game=game)
    assert '"Please wash the bowl first"' in call.messages[1]["content"] and not call.error


def test_react_benchmark_episode_with_the_real_model(bundled, llm_settings):
    from games.npc import benchmarks
    from games.npc.tasksets import build_items

    items = build_items("tasks", patterns=["bundled/*"], limit=1)
    run = benchmarks.create_run("tasks", "react", items, max_turns=2, prompt=SHORT)
    run = benchmarks.run_benchmark(run.pk)
    result = run.results.get()
    assert result.llm_calls == 2 and result.llm_errors == 0 and result.completion_tokens > 0
    assert result.metrics["counts"]  # the rules judged every action the model wrote


@pytest.mark.parametrize("domain", ["tasks", "recipes"])
def test_plan_and_solve_acts_in_its_first_turn_on_the_real_model(domain, bundled, llm_settings):
    """Its plan's first step (or, when no line parses, the first line as written) goes to the rules
    in the turn it planned; it used to idle to the next deadline, which ended a tasks game."""
    from games.npc import benchmarks
    from games.npc.tasksets import build_items

    items = build_items(domain, patterns=["bundled/*"], limit=1)
    run = benchmarks.create_run(domain, "plan-and-solve", items, max_turns=2, prompt=SHORT)
    result = benchmarks.run_benchmark(run.pk).results.get()
    assert result.llm_errors == 0 and result.llm_calls >= 1
    assert result.log and result.log[0][2] == 0.0  # an action at the start, judged by the rules


def test_react_benchmark_with_repeats_and_stored_replies_on_the_real_model(bundled, llm_settings):
    """Repeats (``--repeats 2``) on the real model: every attempt asks the model, the table carries CIs and
    pass^k, and running the finished run again answers every call from the stored replies."""
    from games.npc import benchmarks
    from games.npc.models import LlmResponse
    from games.npc.tasksets import build_items

    items = build_items("tasks", patterns=["bundled/*"], limit=1)
    run = benchmarks.create_run("tasks", "react", items, max_turns=2, prompt=SHORT, repeats=2)
    run = benchmarks.run_benchmark(run.pk)
    summary = benchmarks.summary(run)
    results = list(run.results.order_by("key"))
    assert [r.item["attempt"] for r in results] == [0, 1] and summary["status"] == "done"
    assert all(r.llm_calls == 2 and r.llm_errors == 0 and r.cached_calls == 0 for r in results)
    assert LlmResponse.objects.count() == 4  # each attempt's calls stored apart
    assert summary["pass_k"][-1]["k"] == 2 and summary["metrics"][0]["instances"] == 1
    again = benchmarks.run_benchmark(benchmarks.rerun(run).pk)
    assert sum(r.cached_calls for r in again.results.all()) == 4  # no model call at all
    assert benchmarks.table(again) == benchmarks.table(run)


@pytest.mark.parametrize("domain", sorted(SEATS))
def test_held_to_legal_actions_the_small_model_commands_every_npc(domain, bundled, llm_settings):
    """With ``constrained`` the endpoint may only write one legal action per free NPC: the bundled
    135M model, which mostly writes commands the rules refuse when it answers freely, then gives
    every NPC a command the rules take."""
    scenario = Scenario.objects.current().filter(domain=domain).order_by("slug").first()
    npc = {"kind": "npc", "dispatcher": "llm", "settings": {"prompt": {**SHORT, "max_tokens": 96, "constrained": True}}}
    game = services.create_game(scenario.slug, [npc] * SEATS[domain], clock="lockstep")
    NpcMemory.objects.create(game=game)
    assert play_turn(game.pk)
    call = LlmCall.objects.get(game=game)
    assert call.error == "" and call.problems == [], (call.reply, call.problems)
    assert len(call.parsed) == SEATS[domain]  # every NPC was free at the start, and each got a command
    assert GameEvent.objects.filter(game=game, category="action").count() >= SEATS[domain]


def test_held_to_legal_actions_the_small_model_answers_the_human(bundled, participant, llm_settings):
    """A constrained reply on a turn where the human has chatted carries a ``say`` (the schema asks
    for it): the bundled model's answer is posted as its seat's chat, beside a legal command."""
    scenario = Scenario.objects.current().filter(domain="tasks").order_by("slug").first()
    prompt = {**SHORT, "max_tokens": 160, "constrained": True}
    npc = {"kind": "npc", "dispatcher": "llm", "settings": {"prompt": prompt}}
    game = services.create_game(scenario.slug, [{"kind": "human", "user": participant}, npc], clock="lockstep")
    NpcMemory.objects.create(game=game)
    services.post_chat(game.pk, text="Teammate, what will you do first?", by=participant, agent=0)
    assert play_turn(game.pk)
    call = LlmCall.objects.get(game=game)
    assert call.error == "" and call.problems == [], (call.reply, call.problems)
    answer = GameEvent.objects.filter(game=game, category="chat", agent=1).values_list("data", flat=True)
    assert len(answer) == 1 and answer[0]["text"].strip(), call.reply
    assert len(call.parsed) == 1
