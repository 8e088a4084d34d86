"""Benchmark runs: task sets, resumable runs, paper tables, CSV, the command and the pages."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from games.agents.tests.stub_server import stub_endpoint
from games.models import Scenario
from games.npc import benchmarks
from games.npc.models import BenchmarkResult, BenchmarkRun, RunStatus
from games.npc.tasksets import build_items
from games.scenarios import save_scenario


def test_tasks_combos_are_singles_pairs_and_triples_wrapping_round(tasks_scenarios):
    items = build_items("tasks", patterns=["test/*"], task_counts=[1, 2, 3])
    combos = [tuple(i["scenarios"]) for i in items]
    assert combos[:3] == [("test/chores1",), ("test/chores2",), ("test/chores3",)]
    assert ("test/chores3", "test/chores1") in combos  # pairs wrap round
    assert sum(1 for c in combos if len(c) == 3) == 3
    assert {i["group"]["tasks"] for i in items} == {1, 2, 3}


def test_kitchen_items_sweep_alpha_and_team_size(db):
    save_scenario(domain="kitchen", slug="test/level", title="l", source="tests", definition={"x": 1})
    items = build_items("kitchen", patterns=["test/level"], alphas=[1.0, 2.0], agent_counts=[1, 3])
    assert [(i["agents"], i["options"]["alpha"]) for i in items] == [(1, 1.0), (1, 2.0), (3, 1.0), (3, 2.0)]


def test_an_empty_task_set_says_what_to_do(db):
    from games.npc.tasksets import TaskSetError

    with pytest.raises(TaskSetError, match="load some first"):
        build_items("tasks", patterns=["nothing/*"])


def test_a_run_is_resumable_and_keeps_finished_episodes(tasks_scenarios):
    items = build_items("tasks", patterns=["test/*"], task_counts=[1, 2])
    run = benchmarks.create_run("tasks", "planner", items)
    benchmarks.run_item(run, items[0])  # as if the process died after one episode
    BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.STOPPED)
    first = BenchmarkResult.objects.get(run=run)
    run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.DONE
    assert run.results.count() == len(items)
    assert run.results.filter(key=items[0]["key"]).get().pk == first.pk  # kept, not replayed
    table = benchmarks.table(run)
    assert table["columns"] == ["AS", "CS", "CR", "CT"]
    row = table["rows"][0]
    assert row["label"].startswith("#Task=1") and row["values"][0] == 100.0 and row["values"][2] == 100.0


def test_react_run_over_a_stand_in_endpoint_counts_calls_and_exports_csv(tasks_scenarios, settings):
    items = build_items("tasks", patterns=["test/chores1"])
    with stub_endpoint(lambda messages: "Thought: go\nAction: wash job1_cup") as endpoint:
        settings.LLM_ENDPOINTS = [{"id": "stand-in", "base_url": endpoint.base_url, "api_key": "k-1", "models": ["m"]}]
        run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "stand-in", "model": "m"}, log_calls=True)
        run = benchmarks.run_benchmark(run.pk)
    assert endpoint.authorizations == ["Bearer k-1"]  # the endpoint's own key, read again at run time
    result = run.results.get()
    assert result.metrics["completed"] is True and result.llm_calls == 1 and result.calls.count() == 1
    assert "api_key" not in run.config["llm"]
    rows = list(csv.DictReader(io.StringIO(benchmarks.csv_text(run))))
    assert rows[0]["agent"] == "react" and rows[0]["llm_calls"] == "1" and rows[0]["progress"] == "100.0"


def test_an_episodes_page_shows_its_prompts_replies_and_refusals(
    tasks_scenarios, settings, client, researcher, participant
):
    # a run's page said "sent the same rejected action 3 times" and nothing showed which action
    items = build_items("tasks", patterns=["test/chores1"])
    replies = ["Thought: go\nAction: juggle the cups", "Thought: go\nAction: wash job1_cup"]
    with stub_endpoint(replies) as endpoint:
        settings.LLM_ENDPOINTS = [{"id": "stand-in", "base_url": endpoint.base_url, "api_key": "k", "models": ["m"]}]
        run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "stand-in", "model": "m"}, log_calls=True)
        run = benchmarks.run_benchmark(run.pk)
    result = run.results.get()
    url = reverse("games:benchmark_episode", args=[run.pk, result.pk])
    client.force_login(researcher)
    assert f'href="{url}"' in client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert (
        "· <code>m</code>" in client.get(reverse("games:benchmarks")).content.decode()
    )  # the runs list names the model
    page = client.get(url).content.decode()
    assert "Call 1" in page and "Call 2" in page and "juggle the cups" in page
    assert "<dt>Refused</dt>" in page and "<code>wash job1_cup</code>" in page
    assert "<code>completed</code>" in page  # the episode's figures, named as in the CSV
    # a figure made of several reads in words (it printed Python's "{'valid': 1, ...}")
    counts = result.metrics["counts"]
    assert isinstance(counts, dict) and "{&#x27;" not in page and "{'" not in page
    assert " · ".join(f"{part} {amount}" for part, amount in counts.items()) in page
    # a run that kept no prompts says how to get them; another run's episode is not found there
    quiet = benchmarks.run_benchmark(benchmarks.create_run("tasks", "planner", items).pk)
    other = quiet.results.get()
    assert "asks no model" in client.get(reverse("games:benchmark_episode", args=[quiet.pk, other.pk])).content.decode()
    assert client.get(reverse("games:benchmark_episode", args=[run.pk, other.pk])).status_code == 404
    client.force_login(participant)
    assert client.get(url).status_code == 403


def test_an_episodes_page_replays_its_actions_into_a_timeline(tasks_scenarios, client, researcher):
    from games.npc.tests.conftest import task
    from games.scenarios import save_scenario

    items = build_items("tasks", patterns=["test/chores3"])
    run = benchmarks.run_benchmark(benchmarks.create_run("tasks", "planner", items).pk)
    result = run.results.get()
    assert result.log == [[0, "wash job3_cup", 0.0]]
    client.force_login(researcher)
    url = reverse("games:benchmark_episode", args=[run.pk, result.pk])
    page = client.get(url).content.decode()
    bars = re.findall(r'<div class="tl-bar (\w+) done[^"]*"[^>]*title="([^"]*)"', page)
    assert bars == [("occupying", "wash job3 cup: minute 0–minute 3 (keeps the agent busy)")]
    assert "tl-axis" in page and "Agent 1" in page
    # the scenario changed since: its actions would draw another game, and the page says so
    save_scenario(domain="tasks", slug="test/chores3", title="chores 3", source="tests", definition=task("job3", 5))
    page = client.get(url).content.decode()
    assert "has a new version since the run" in page and "tl-bar" not in page


def test_benchmark_command_runs_an_agent_and_prints_the_table(tasks_scenarios, tmp_path):
    out = io.StringIO()
    target = tmp_path / "out.csv"
    call_command(
        "benchmark",
        "tasks",
        "--agent",
        "random",
        "--scenarios",
        "test/*",
        "--tasks",
        "1,2",
        "--max-tokens",
        "77",
        "--json",
        "--csv",
        str(target),
        stdout=out,
        stderr=io.StringIO(),
    )
    summary = json.loads(out.getvalue())
    assert summary["done"] == summary["total"] == 6 and summary["status"] == "done"
    # the reply length goes where the agents read it (it went to the endpoint's settings only)
    assert BenchmarkRun.objects.get().config["prompt"]["max_tokens"] == 77
    assert [r["label"].split(" ·")[0] for r in summary["table"]["rows"]] == ["#Task=1", "#Task=2"]
    assert target.read_text().startswith("run,domain,agent,key")


def test_ctrl_c_on_the_benchmark_command_leaves_its_run_stopped_and_says_how_to_resume(
    tasks_scenarios, monkeypatch, capsys
):
    played = []

    def interrupted(run, item):
        if played:  # Ctrl-C during the second episode
            raise KeyboardInterrupt
        played.append(item["key"])
        return real(run, item)

    real = benchmarks.run_item
    monkeypatch.setattr(benchmarks, "run_item", interrupted)
    with pytest.raises(KeyboardInterrupt):
        call_command("benchmark", "tasks", "--agent", "random", "--scenarios", "test/*", stdout=io.StringIO())
    run = BenchmarkRun.objects.get()
    assert run.status == RunStatus.STOPPED and run.results.count() == 1
    assert f"manage.py benchmark tasks --resume {run.pk}" in capsys.readouterr().err


def test_benchmark_command_refuses_bad_input_with_a_message(tasks_scenarios):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no current tasks scenarios matching nothing; the scenarios page"):
        call_command("benchmark", "tasks", "--agent", "random", "--scenarios", "nothing", stdout=io.StringIO())
    # another domain's scenario is named as such (it read "load some first" beside a scenario that was there)
    slug = Scenario.objects.filter(domain="tasks").values_list("slug", flat=True).first()
    with pytest.raises(CommandError, match=f"no current kitchen scenarios matching {slug}: {slug} is a tasks scenario"):
        call_command("benchmark", "kitchen", "--agent", "random", "--scenarios", slug, stdout=io.StringIO())
    with pytest.raises(CommandError, match="there is no benchmark run 999"):
        call_command("benchmark", "tasks", "--agent", "random", "--resume", "999", stdout=io.StringIO())


def test_benchmark_pages(client, researcher, tasks_scenarios, settings):
    settings.BACKGROUND_INLINE = True
    client.force_login(researcher)
    page = client.get(reverse("games:benchmarks"))
    assert page.status_code == 200 and b"New run" in page.content
    bad = client.post(reverse("games:benchmarks"), {"domain": "tasks", "agent": "tdag", "max_turns": 50, "tasks": "1"})
    assert b"TDAG plans itineraries" in bad.content and not BenchmarkRun.objects.exists()
    for alphas in ("0", "1,-2", "nan", "500"):  # each would fail every episode in the rules
        form = {"domain": "kitchen", "agent": "planner", "max_turns": 50, "alphas": alphas, "team": "2"}
        refused = client.post(reverse("games:benchmarks"), form).content.decode()
        assert "α: option alpha must be a number above 0 and at most 100" in refused, alphas
    assert not BenchmarkRun.objects.exists()
    response = client.post(
        reverse("games:benchmarks"),
        {
            "domain": "tasks",
            "agent": "planner",
            "scenarios": "test/*",
            "tasks": "1,2",
            "max_turns": 100,
            "alphas": "1",
            "team": "2",
        },
    )
    run = BenchmarkRun.objects.get()
    assert response.status_code == 302 and run.status == RunStatus.DONE  # ran inline in tests
    detail = client.get(reverse("games:benchmark", args=[run.pk]))
    assert b"TimeArena" in detail.content and b"#Task=2" in detail.content and b"6 of 6 episodes" in detail.content
    exported = client.get(reverse("games:benchmark_csv", args=[run.pk]))
    assert exported["Content-Type"].startswith("text/csv") and exported.content.count(b"\n") == 7


def test_benchmark_pages_are_for_researchers(client, participant):
    client.force_login(participant)
    assert client.get(reverse("games:benchmarks")).status_code == 403


def test_a_run_whose_calls_all_failed_ends_failed_with_the_cause_on_its_page(
    client, researcher, tasks_scenarios, settings
):
    items = build_items("tasks", patterns=["test/chores1", "test/chores2"])
    settings.BENCHMARK_LLM_RETRIES = 0
    settings.LLM_ENDPOINTS = [{"id": "gone", "base_url": "http://127.0.0.1:9/v1", "models": ["m"]}]
    run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "gone", "model": "m"})
    run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.FAILED
    assert "All" in run.error and "LLM calls failed" in run.error and "endpoint gone" in run.error
    assert all(r.outcome.startswith(benchmarks.NO_ANSWER) for r in run.results.all())
    client.force_login(researcher)
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert "LLM calls failed" in page and "Failed" in page


def test_a_run_with_some_answers_is_done(tasks_scenarios, settings):
    items = build_items("tasks", patterns=["test/chores1"])
    with stub_endpoint(lambda messages: "Thought: go\nAction: wash job1_cup") as endpoint:
        settings.LLM_ENDPOINTS = [{"id": "stand-in", "base_url": endpoint.base_url, "models": ["m"]}]
        run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "stand-in", "model": "m"})
        run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.DONE and run.error == ""


def test_the_runs_list_counts_each_runs_episodes_in_a_fixed_number_of_queries(tasks_scenarios, client, researcher):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    items = build_items("tasks", patterns=["test/chores1"])
    done = benchmarks.run_benchmark(benchmarks.create_run("tasks", "planner", items).pk)
    client.force_login(researcher)

    def listed() -> tuple[str, int]:
        with CaptureQueriesContext(connection) as made:
            html = client.get(reverse("games:benchmarks")).content.decode()
        return html, len(made)

    html, few = listed()
    assert f'aria-label="Run {done.pk} progress" aria-valuemin="0" aria-valuemax="1" aria-valuenow="1"' in html
    for _ in range(5):
        benchmarks.create_run("tasks", "planner", items)
    html, more = listed()
    assert more == few  # it counted each run's results with a query of its own
    assert html.count('aria-valuemax="1" aria-valuenow="0"') == 5


def test_a_run_plays_each_value_once_and_holds_at_most_max_episodes(client, researcher, tasks_scenarios, settings):
    """'1,1,1,...' as #Task made a run of 1.2 million episodes in 26 s of one request (each repeat
    played every episode again), and the runs page then read every run's task set to count it."""
    settings.BACKGROUND_INLINE = True
    client.force_login(researcher)
    form = {"domain": "tasks", "agent": "planner", "scenarios": "test/*", "max_turns": 100, "alphas": "1", "team": "2"}
    client.post(reverse("games:benchmarks"), {**form, "tasks": "1,1,2,1,2"})
    assert BenchmarkRun.objects.get().total == 6  # 3 single tasks and 3 pairs, once each
    many = ",".join(f"{1 + i / 10:g}" for i in range(21))
    refused = client.post(reverse("games:benchmarks"), {**form, "domain": "kitchen", "alphas": many}).content.decode()
    assert "α: give at most 20 different values" in refused
    items = [{"key": f"k{i}", "scenario": "test/chores1"} for i in range(benchmarks.MAX_EPISODES + 1)]
    with pytest.raises(benchmarks.BenchmarkError, match="that is 10,001 episodes and a run plays at most 10,000"):
        benchmarks.create_run("tasks", "planner", items)
    with pytest.raises(benchmarks.BenchmarkError, match="that is 10,020 episodes"):
        benchmarks.create_run("tasks", "planner", items[:501], repeats=20)
    assert BenchmarkRun.objects.count() == 1


def test_a_runs_page_reports_only_the_prompt_parts_its_agent_has(client, researcher):
    """TDAG's prompts have no hints or demonstration and ReAct's no demonstration; the page said
    "hints on, demonstration on" for every LLM run."""
    prompt = {"hints": True, "demo": True}
    llm = {"model": "m", "endpoint": "default", "base_url": "http://x", "temperature": 0, "timeout_seconds": 5}
    client.force_login(researcher)
    said = {}
    for agent in ("tdag", "react", "dispatcher"):
        run = BenchmarkRun.objects.create(
            domain="tasks", agent=agent, config={"llm": llm, "prompt": prompt}, items=[{"key": "k"}]
        )
        page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
        said[agent] = re.search(r"<dt>Prompt</dt><dd>(.*?)</dd>", page).group(1)
    assert said == {
        "tdag": "the agent's own (no hints or demonstration to switch)",
        "react": "hints on",
        "dispatcher": "hints on, demonstration on",
    }


def test_episodes_are_listed_in_the_runs_order_whatever_order_they_finished_in(tasks_scenarios, client, researcher):
    """Episodes played side by side finish out of turn; the run page and the CSV listed them as they
    finished ("attempt 2" above "attempt 1")."""
    items = build_items("tasks", patterns=["test/chores1", "test/chores2"], task_counts=[1])
    run = benchmarks.create_run("tasks", "planner", items, repeats=2)
    for item in reversed(run.items):  # the last episode finishes first
        benchmarks.run_item(run, item)
    planned = [item["key"] for item in run.items]
    assert list(run.results.order_by("id").values_list("key", flat=True)) == planned[::-1]
    rows = list(csv.DictReader(io.StringIO(benchmarks.csv_text(run))))
    assert [row["key"] for row in rows] == planned
    assert [row["attempt"] for row in rows] == ["0", "1", "0", "1"]
    client.force_login(researcher)
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    episodes = page[page.index('id="episodes-h"') :]
    shown = re.findall(r'<td title="([^"]+)">', episodes)
    assert shown == planned


def test_a_generated_familys_category_reads_whole(tasks_scenarios):
    """ "tasks-s7-d91197-001" made the setting "#Task=1 · tasks-s7-d91197-", which read as cut off."""
    from games.npc.tests.conftest import task

    for number in (1, 2):
        save_scenario(
            domain="tasks",
            slug=f"generated/tasks-s7-d91197-00{number}",
            title="",
            source="tests",
            definition=task("j", 1),
        )
    items = build_items("tasks", patterns=["generated/*"], task_counts=[1])
    assert {item["group"]["category"] for item in items} == {"tasks-s7-d91197"}
