"""Benchmarks researchers can afford: stored replies, costs, retries, against a counting stand-in."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command

from games.agents.llm import LlmClient
from games.agents.tests.stub_server import stub_endpoint
from games.npc import benchmarks
from games.npc.llm_cache import CachingClient
from games.npc.models import LlmResponse, RunStatus
from games.npc.tasksets import build_items

REPLY = "Thought: go\nAction: wash job{n}_cup"


def answer(messages):
    """Wash the cup the prompt is about (each test scenario has one job)."""
    text = " ".join(m["content"] for m in messages)
    for n in (1, 2, 3):
        if f"job{n}_cup" in text:
            return REPLY.format(n=n)
    return "Action: wait"


@pytest.fixture(autouse=True)
def _stand_in_endpoint(settings):
    """Runs name a configured endpoint by id; each test points ``stand-in`` at its own stub."""
    settings.LLM_ENDPOINTS = []


def _llm(endpoint):
    from django.conf import settings

    settings.LLM_ENDPOINTS = [{"id": "stand-in", "base_url": endpoint.base_url, "models": ["stub-model"]}]
    return {"endpoint": "stand-in", "model": "stub-model"}


def test_running_a_finished_run_again_asks_the_model_nothing_and_gives_the_same_tables(tasks_scenarios):
    items = build_items("tasks", patterns=["test/*"], task_counts=[1, 2])
    with stub_endpoint(answer) as endpoint:
        first = benchmarks.run_benchmark(benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint)).pk)
        asked = len(endpoint.requests)
        again = benchmarks.run_benchmark(benchmarks.rerun(first).pk)
        assert len(endpoint.requests) == asked  # every request answered from the database
        fresh = benchmarks.run_benchmark(benchmarks.rerun(first, cache=False).pk)
        assert len(endpoint.requests) == 2 * asked  # --no-cache: the model is asked again
    assert asked > 0 and first.status == again.status == RunStatus.DONE
    assert benchmarks.table(again) == benchmarks.table(first) == benchmarks.table(fresh)
    calls = sum(r.llm_calls for r in first.results.all())
    assert calls == asked and sum(r.cached_calls for r in again.results.all()) == calls
    assert sum(r.cached_calls for r in fresh.results.all()) == 0
    assert LlmResponse.objects.count() == asked


def test_no_cache_stores_nothing_and_a_failed_call_is_never_stored(tasks_scenarios):
    items = build_items("tasks", patterns=["test/chores1"])
    with stub_endpoint(answer) as endpoint:
        run = benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint), cache=False)
        benchmarks.run_benchmark(run.pk)
        assert LlmResponse.objects.count() == 0
        endpoint.status = 400  # a client error is not retried and is not an answer
        client = CachingClient(LlmClient(base_url=endpoint.base_url, model="stub-model"))
        reply = client.chat([{"role": "user", "content": "hello"}])
    assert reply.error.startswith("HTTP 400") and LlmResponse.objects.count() == 0


def test_the_same_prompt_twice_in_an_episode_and_each_attempt_have_their_own_stored_reply(db):
    with stub_endpoint(["one", "two", "three", "four"]) as endpoint:
        base = LlmClient(base_url=endpoint.base_url, model="m", temperature=0.7)
        hello = [{"role": "user", "content": "hello"}]
        first = CachingClient(base, seed=1, attempt=0)
        assert [first.chat(hello).text, first.chat(hello).text] == ["one", "two"]
        other_attempt = CachingClient(base, seed=1, attempt=1)
        assert other_attempt.chat(hello).text == "three"  # a repeat is a new sample, not a copy
        replay = CachingClient(base, seed=1, attempt=0)
        assert [replay.chat(hello).text, replay.chat(hello).text] == ["one", "two"]
        hotter = CachingClient(base, seed=1, attempt=0)
        assert hotter.chat(hello, temperature=0.2).text == "four"  # other sampling settings, other key
    assert len(endpoint.requests) == 4 and replay.hits == 2 and replay.calls == 0


def test_tokens_and_cost_per_call_episode_and_run_in_the_csv(tasks_scenarios, settings):
    settings.LLM_PRICES = {"stub-model": {"input": 2.0, "output": 10.0}}
    items = build_items("tasks", patterns=["test/*"])
    with stub_endpoint(answer) as endpoint:
        run = benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint), log_calls=True)
        run = benchmarks.run_benchmark(run.pk)
        again = benchmarks.run_benchmark(benchmarks.rerun(run).pk)
    for result in run.results.all():
        expected = (2.0 * result.prompt_tokens + 10.0 * result.completion_tokens) / 1e6
        assert result.prompt_tokens > 0 and result.cost_usd == pytest.approx(expected)
        assert result.cost_usd == pytest.approx(sum(call.cost_usd for call in result.calls.all()))
    spent = sum(r.cost_usd for r in run.results.all())
    assert sum(r.cost_usd for r in again.results.all()) == 0  # replayed: nothing spent ...
    assert sum(r.saved_usd for r in again.results.all()) == pytest.approx(spent)  # ... and this much saved
    rows = list(csv.DictReader(io.StringIO(benchmarks.csv_text(run))))
    assert sum(float(row["cost_usd"]) for row in rows) == pytest.approx(spent)
    assert {row["cached_calls"] for row in rows} == {"0"}


def test_a_429_is_retried_with_backoff_and_the_episode_carries_on(tasks_scenarios, settings):
    settings.BENCHMARK_LLM_RETRIES = 3
    items = build_items("tasks", patterns=["test/chores1"])
    with stub_endpoint(answer) as endpoint:
        endpoint.fail_next = [429, 503]
        run = benchmarks.run_benchmark(benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint)).pk)
    result = run.results.get()
    assert len(endpoint.requests) == 3  # two refusals, then the answer
    assert result.llm_errors == 0 and result.metrics["completed"] is True


def test_retries_give_up_after_the_limit_and_record_the_failure(tasks_scenarios, settings):
    settings.BENCHMARK_LLM_RETRIES = 1
    items = build_items("tasks", patterns=["test/chores1"])
    with stub_endpoint(answer) as endpoint:
        endpoint.fail_next = [429] * 50
        run = benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint), max_turns=1, log_calls=True)
        run = benchmarks.run_benchmark(run.pk)
    result = run.results.get()
    assert len(endpoint.requests) == 2  # the call and one retry
    assert result.llm_errors == 1 and "HTTP 429" in result.calls.get().error
    assert LlmResponse.objects.count() == 0


def test_benchmark_command_again_and_no_cache(tasks_scenarios):
    items = build_items("tasks", patterns=["test/chores1"])
    with stub_endpoint(answer) as endpoint:
        run = benchmarks.run_benchmark(benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint)).pk)
        asked = len(endpoint.requests)
        out = io.StringIO()
        call_command("benchmark", "tasks", "--again", str(run.pk), "--json", stdout=out, stderr=io.StringIO())
        assert len(endpoint.requests) == asked
        call_command(
            "benchmark", "tasks", "--again", str(run.pk), "--no-cache", stdout=io.StringIO(), stderr=io.StringIO()
        )
        assert len(endpoint.requests) == 2 * asked


def test_live_npcs_use_stored_replies_only_when_their_settings_ask(db, settings):
    from games.npc.turns import llm_client

    with stub_endpoint(["first", "second"]) as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        hello = [{"role": "user", "content": "hello"}]
        assert llm_client({}).chat(hello).text == "first" and LlmResponse.objects.count() == 0
        asked = llm_client({"cache": True})
        assert asked.chat(hello).text == "second" and LlmResponse.objects.count() == 1
        assert llm_client({"cache": True}).chat(hello).text == "second"  # the same situation, the same answer
    assert len(endpoint.requests) == 2
