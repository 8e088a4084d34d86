"""A run of an LLM agent whose model does not answer: refused before it starts, stopped early
when the model stops answering from the first call, with what failed on the page while it plays."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from arena_site import background
from games.agents.tests.stub_server import stub_endpoint
from games.npc import benchmarks
from games.npc.models import BenchmarkRun, RunStatus
from games.npc.tasksets import build_items

GONE = {"id": "gone", "base_url": "http://127.0.0.1:9/v1", "models": ["m"]}  # nothing listens on port 9


def _form(agent: str) -> dict[str, Any]:
    return {"domain": "tasks", "agent": agent, "scenarios": "test/*", "tasks": "1", "max_turns": 50,
            "endpoint": "gone", "model": "m", "repeats": 1}  # fmt: skip


def _wash_a_cup(messages: list[dict[str, Any]]) -> str:
    """A model that washes the first cup its prompt offers (each test task is one such action)."""
    offered = re.search(r"wash job\d_cup", messages[-1]["content"])
    return f"Thought: go\nAction: {offered.group(0) if offered else 'wait'}"


def test_a_run_of_an_llm_agent_starts_only_if_its_endpoint_answers(
    client, researcher, tasks_scenarios, settings, monkeypatch
):
    settings.BACKGROUND_INLINE = True
    settings.LLM_ENDPOINTS = [GONE]
    client.force_login(researcher)
    page = client.post(reverse("games:benchmarks"), _form("react")).content.decode()
    assert not BenchmarkRun.objects.exists()
    assert "No run was started: the LLM endpoint “gone” (http://127.0.0.1:9/v1, model m) did not answer" in page
    assert "cannot reach http://127.0.0.1:9/v1" in page and "Start that model server" in page
    # an agent that asks no model is not held up by the endpoint chosen in the form
    assert client.post(reverse("games:benchmarks"), _form("planner")).status_code == 302
    assert BenchmarkRun.objects.get().status == RunStatus.DONE
    started: list[tuple[Any, ...]] = []
    monkeypatch.setattr(background, "submit", lambda *args: started.append(args))  # started, not played here
    with stub_endpoint(lambda messages: "OK") as endpoint:
        settings.LLM_ENDPOINTS = [{**GONE, "base_url": endpoint.base_url}]
        answer = client.post(reverse("games:benchmarks"), _form("react"))
    assert answer.status_code == 302 and len(started) == 1 and BenchmarkRun.objects.count() == 2
    assert endpoint.requests[0]["max_tokens"] == 1  # asked for one token, once


def test_a_run_whose_model_never_answers_fails_early_and_resumes_once_it_does(
    client, researcher, tasks_scenarios, settings, monkeypatch
):
    monkeypatch.setattr(benchmarks, "PROGRESS_EVERY", 0.0)
    settings.BENCHMARK_LLM_RETRIES = 0
    settings.LLM_ENDPOINTS = [GONE]
    items = build_items("tasks", patterns=["test/*"], task_counts=[1, 2, 3])  # 9 episodes
    run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "gone", "model": "m"}, cache=False)
    client.force_login(researcher)
    seen: list[str] = []
    real = benchmarks.run_episode

    def watched(*args: Any, on_turn: Any, **kwargs: Any) -> Any:
        def turn(episode: Any) -> bool:
            going = on_turn(episode)
            if going and len(episode.calls) == 2 and not seen:
                seen.append(client.get(reverse("games:benchmark", args=[run.pk])).content.decode())
            return going

        return real(*args, on_turn=turn, **kwargs)

    monkeypatch.setattr(benchmarks, "run_episode", watched)
    run = benchmarks.run_benchmark(run.pk)
    # an episode under way says its calls fail, and why
    assert '2 LLM calls <span class="error">(2 failed, the latest: cannot reach http://127.0.0.1:9/v1' in seen[0]
    assert run.status == RunStatus.FAILED
    # a tasks episode gives up after 3 silent decisions: 2 such episodes, then 2 calls of the third
    assert run.results.count() == 2 and not run.playing.exists()
    assert sum(r.llm_calls for r in run.results.all()) == 6
    assert run.error.startswith("The model never answered: the first 8 LLM calls of this run all failed")
    assert "Endpoint gone (model m): cannot reach http://127.0.0.1:9/v1" in run.error and "Resume" in run.error
    # the run's 8 failed calls and the page's count of calls say what each counts
    assert "(6 in the 2 finished episodes, 2 in the episode it stopped in, which is not kept)" in run.error
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert "The model never answered" in page and ">Resume</button>" in page
    assert "6 LLM calls in the 2 finished episodes (0 from stored replies)" in page
    listed = client.get(reverse("games:benchmarks")).content.decode()  # the runs list says why, in short
    assert "The model never answered: the first 8 LLM calls of …" in listed

    with stub_endpoint(_wash_a_cup) as endpoint:
        settings.LLM_ENDPOINTS = [{**GONE, "base_url": endpoint.base_url}]  # the server is up now
        assert benchmarks.mark_resumed(run)
        run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.DONE and run.error == "" and run.results.count() == len(items)
    resumed = list(run.results.order_by("id"))[2:]
    assert resumed and all(r.llm_calls and not r.llm_errors for r in resumed)  # answered this time


def test_failed_calls_that_do_not_come_in_a_long_row_leave_the_run_going(tasks_scenarios, settings):
    settings.BENCHMARK_LLM_RETRIES = 0
    replies = iter(["Thought: go\nAction: wait"])

    def script(messages: list[dict[str, Any]]) -> str:
        return next(replies)  # then StopIteration: an HTTP 500 for every later call

    items = build_items("tasks", patterns=["test/*"], task_counts=[1, 2, 3])
    with stub_endpoint(script) as endpoint:
        settings.LLM_ENDPOINTS = [{**GONE, "base_url": endpoint.base_url}]
        run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "gone", "model": "m"}, cache=False)
        run = benchmarks.run_benchmark(run.pk)
    # a tasks episode ends after 3 silent decisions, so no episode has 8 failures in a row
    assert run.results.count() == len(items)
    assert sum(r.llm_errors for r in run.results.all()) >= benchmarks.UNANSWERED_CALLS
    assert run.status == RunStatus.DONE


def test_a_run_whose_model_stops_answering_mid_episode_fails_there(db, settings):
    """A kitchen episode goes on when a call fails (its agent does nothing that step), so a model
    server that went away would leave every remaining step idle and call that a result."""
    from games.domains.kitchen.tests.test_rules import SUSHI
    from games.scenarios import save_scenario

    save_scenario(domain="kitchen", slug="test/sushi", title="Sushi", source="tests", definition=SUSHI)
    settings.BENCHMARK_LLM_RETRIES = 0
    replies = ["Action: goto(agent0, storage0)"] * 3

    def script(messages: list[dict[str, Any]]) -> str:
        if len(replies) == 1:
            endpoint.status = 500  # every call after the third answer fails
        return replies.pop()

    items = build_items("kitchen", patterns=["test/sushi"], alphas=[1.0, 2.0], agent_counts=[1])
    with stub_endpoint(script) as endpoint:
        settings.LLM_ENDPOINTS = [{**GONE, "base_url": endpoint.base_url}]
        run = benchmarks.create_run("kitchen", "react", items, llm={"endpoint": "gone", "model": "m"}, cache=False)
        run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.FAILED and not run.results.exists() and not run.playing.exists()
    assert len(endpoint.requests) == 3 + benchmarks.UNANSWERED_CALLS  # the second episode never started
    assert run.error.startswith("The model stopped answering: the last 8 LLM calls of an episode failed")
    assert "Endpoint gone (model m): HTTP 500" in run.error


def test_resume_and_run_again_without_stored_replies_wait_for_the_model(
    client, researcher, tasks_scenarios, settings, monkeypatch
):
    settings.LLM_ENDPOINTS = [GONE]
    items = build_items("tasks", patterns=["test/chores1"])
    run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "gone", "model": "m"})
    BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error="The model never answered")
    started: list[tuple[Any, ...]] = []
    monkeypatch.setattr(background, "submit", lambda *args: started.append(args))
    client.force_login(researcher)
    page = client.post(reverse("games:benchmark_resume", args=[run.pk]), follow=True).content.decode()
    assert (
        f"Run {run.pk} did not resume: the LLM endpoint “gone” (http://127.0.0.1:9/v1, model m) did not answer" in page
    )
    assert "then press Resume again" in page and "choose another endpoint" not in page
    assert BenchmarkRun.objects.get(pk=run.pk).status == RunStatus.FAILED and not started
    page = client.post(reverse("games:benchmark_again", args=[run.pk]), {"cache": "0"}, follow=True).content.decode()
    assert "No run was started: the LLM endpoint “gone”" in page and BenchmarkRun.objects.count() == 1
    # with stored replies the model may not be needed at all: that run starts
    client.post(reverse("games:benchmark_again", args=[run.pk]))
    assert BenchmarkRun.objects.count() == 2 and len(started) == 1
    with stub_endpoint(lambda messages: "OK") as endpoint:
        settings.LLM_ENDPOINTS = [{**GONE, "base_url": endpoint.base_url}]
        client.post(reverse("games:benchmark_resume", args=[run.pk]))
    assert BenchmarkRun.objects.get(pk=run.pk).status == RunStatus.QUEUED and len(started) == 2


def test_the_benchmark_command_asks_the_endpoint_before_it_makes_or_resumes_a_run(tasks_scenarios, settings):
    settings.LLM_ENDPOINTS = [GONE]
    args = ["benchmark", "tasks", "--agent", "react", "--endpoint", "gone", "--model", "m", "--scenarios", "test/*"]
    with pytest.raises(CommandError, match=r"no run was started: the LLM endpoint “gone” .* did not answer"):
        call_command(*args, stdout=io.StringIO(), stderr=io.StringIO())
    assert not BenchmarkRun.objects.exists()
    run = benchmarks.create_run("tasks", "react", build_items("tasks", patterns=["test/*"]), llm={"endpoint": "gone"})
    BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.STOPPED)
    with pytest.raises(CommandError, match=f"run {run.pk} did not resume: the LLM endpoint “gone”"):
        call_command("benchmark", "tasks", "--resume", str(run.pk), stdout=io.StringIO(), stderr=io.StringIO())
    assert BenchmarkRun.objects.get(pk=run.pk).status == RunStatus.STOPPED


def test_an_episode_whose_model_never_answered_is_flagged_and_left_out_of_the_scores(
    client, researcher, tasks_scenarios, settings
):
    """Its agent only waited, so its AS 0 / CR 0 were the rules' verdict on doing nothing: the
    tables, intervals and CSV read it as an episode that errored, and the page says how many."""
    settings.BENCHMARK_LLM_RETRIES = 0

    def script(messages: list[dict[str, Any]]) -> str:
        if "job1_cup" in messages[-1]["content"]:
            return "Thought: go\nAction: wash job1_cup"
        raise RuntimeError("down")  # an HTTP 500 for the other episode's every call

    items = build_items("tasks", patterns=["test/chores1", "test/chores2"])
    with stub_endpoint(script) as endpoint:
        settings.LLM_ENDPOINTS = [{**GONE, "base_url": endpoint.base_url}]
        run = benchmarks.create_run("tasks", "react", items, llm={"endpoint": "gone", "model": "m"}, cache=False)
        run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.DONE  # one episode was answered
    silent = run.results.get(key=items[1]["key"])
    assert silent.llm_calls and silent.llm_errors == silent.llm_calls
    assert silent.error.startswith(f"{benchmarks.NO_ANSWER}: all {silent.llm_calls} of its LLM calls failed")
    table = benchmarks.table(run)
    assert sum(row["episodes"] for row in table["rows"]) == 1 and table["rows"][0]["values"][0] == 100.0
    assert all(line["episodes"] == 1 for line in benchmarks.summary(run)["metrics"] if line["episodes"])
    rows = {row["key"]: row for row in csv.DictReader(io.StringIO(benchmarks.csv_text(run)))}
    assert rows[items[1]["key"]]["error"] == silent.error and rows[items[0]["key"]]["error"] == ""
    client.force_login(researcher)
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert "1 episode left out of the scores: 1 where the model never answered (every LLM call failed)" in page
    # an episode stored before such episodes had an error is read the same way
    run.results.filter(pk=silent.pk).update(error="")
    assert sum(row["episodes"] for row in benchmarks.table(run)["rows"]) == 1
    rows = {row["key"]: row for row in csv.DictReader(io.StringIO(benchmarks.csv_text(run)))}
    assert rows[items[1]["key"]]["error"].startswith(benchmarks.NO_ANSWER)
    assert "1 episode left out of the scores" in client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
