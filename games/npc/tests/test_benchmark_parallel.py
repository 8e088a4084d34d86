"""Parallel and polite benchmark runs: episodes at once, a per-endpoint limit, fanned-out tasks."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games.agents.llm import LlmClient
from games.agents.tests.stub_server import stub_endpoint
from games.npc import benchmarks
from games.npc.llm_cache import CachingClient
from games.npc.models import RunStatus
from games.npc.tasksets import build_items
from games.npc.tests.test_benchmark_cache import _llm, answer


def _ask_at_once(base_url: str, threads: int) -> None:
    def ask(n: int) -> None:
        client = CachingClient(LlmClient(base_url=base_url, model="m"), enabled=False)
        assert client.chat([{"role": "user", "content": f"hello {n}"}]).ok

    workers = [threading.Thread(target=ask, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def test_calls_to_one_endpoint_never_exceed_its_concurrency_limit(settings):
    settings.LLM_CONCURRENCY = 2
    with stub_endpoint(lambda messages: "ok") as endpoint:
        endpoint.delay_seconds = 0.3
        _ask_at_once(endpoint.base_url, 6)
    assert len(endpoint.requests) == 6 and endpoint.max_in_flight <= 2
    settings.LLM_CONCURRENCY = 6  # the same load without the limit really overlaps
    with stub_endpoint(lambda messages: "ok") as unlimited:
        unlimited.delay_seconds = 0.3
        _ask_at_once(unlimited.base_url, 6)
    assert unlimited.max_in_flight > 2


def test_a_fanned_out_run_plays_every_item_as_its_own_task_and_finishes(tasks_scenarios, monkeypatch):
    from games.npc.tasks import benchmark_item

    sent = []
    # Each npc.benchmark_item task runs where it is sent (as a worker would), broker or not.
    monkeypatch.setattr(benchmark_item, "apply_async", lambda args: sent.append(args) or benchmark_item.apply(args))
    items = build_items("tasks", patterns=["test/*"], task_counts=[1, 2])
    run = benchmarks.create_run("tasks", "random", items)
    benchmarks.run_benchmark(run.pk, fan_out=True)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE and run.results.count() == len(items) == 6
    assert sorted(key for _run, key in sent) == sorted(item["key"] for item in items)
    benchmarks.play_one(run.pk, items[0]["key"])  # a redelivered task changes nothing
    assert run.results.count() == 6


@pytest.mark.django_db(transaction=True)
def test_episodes_play_in_parallel_within_the_endpoint_limit(tasks_scenarios, settings):
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("the in-memory SQLite test database cannot take writes from other threads; run on Postgres")
    settings.LLM_CONCURRENCY = 2
    items = build_items("tasks", patterns=["test/*"], task_counts=[1, 2, 3])
    with stub_endpoint(answer) as endpoint:
        endpoint.delay_seconds = 0.2
        run = benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint), cache=False)
        run = benchmarks.run_benchmark(run.pk, workers=4)
    assert run.status == RunStatus.DONE and run.results.count() == len(items) == 9
    assert all(not r.error and r.llm_errors == 0 for r in run.results.all())
    assert endpoint.max_in_flight == 2  # episodes overlapped, calls stayed within the limit
