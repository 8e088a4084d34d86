"""A run's page while an episode is under way, and Stop taking effect within a decision."""

from __future__ import annotations

import re
from typing import Any

from django.urls import reverse

from games.npc import benchmarks
from games.npc.models import RunStatus
from games.npc.tasksets import build_items


def test_the_page_shows_the_episode_under_way_and_stop_halts_it_within_a_decision(
    tasks_scenarios, client, researcher, monkeypatch
):
    monkeypatch.setattr(benchmarks, "PROGRESS_EVERY", 0.0)  # every decision writes its progress
    items = build_items("tasks", patterns=["test/*"], task_counts=[3])[:1]  # three tasks at once
    run = benchmarks.create_run("tasks", "random", items)
    client.force_login(researcher)
    seen: dict[str, Any] = {}
    real = benchmarks.run_episode

    def watched(*args: Any, on_turn: Any, **kwargs: Any) -> Any:
        def turn(episode: Any) -> bool:
            going = on_turn(episode)
            seen["turns"] = episode.turns
            if episode.turns == 2:  # the researcher looks at the page, then presses Stop
                page = client.get(reverse("games:benchmark", args=[run.pk]), HTTP_HX_REQUEST="true")
                seen["page"] = page.content.decode()
                client.post(reverse("games:benchmark_stop", args=[run.pk]))
            return going

        return real(*args, on_turn=turn, **kwargs)

    monkeypatch.setattr(benchmarks, "run_episode", watched)
    run = benchmarks.run_benchmark(run.pk)
    assert "Under way" in seen["page"] and items[0]["key"] in seen["page"]
    # named as the episodes table names it, the key on hover
    assert (
        '<span class="episode-title" title="' + items[0]["key"] + '">chores 1 + chores 2 + chores 3</span>'
        in seen["page"]
    )
    assert re.search(r"2 decisions, at minute \d+ of \d+", seen["page"])  # of its time limit
    assert seen["turns"] == 3  # the decision after Stop was the last
    assert run.status == RunStatus.STOPPED
    assert not run.results.exists() and not run.playing.exists()  # half an episode is not a result

    monkeypatch.setattr(benchmarks, "run_episode", real)
    assert benchmarks.mark_resumed(run)
    run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.DONE and run.results.count() == 1 and not run.playing.exists()
    assert run.results.get().turns > 3  # played again from its start, to its end
    page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
    assert "Under way" not in page


def test_a_server_that_plays_runs_in_its_own_threads_resumes_the_runs_it_was_playing_at_start(
    tasks_scenarios, inline_npcs, monkeypatch
):
    from arena_site import background
    from games import scheduler
    from games.npc.models import BenchmarkRun, EpisodeProgress

    items = build_items("tasks", patterns=["test/*"], task_counts=[1])
    cut_off = benchmarks.create_run("tasks", "planner", items)
    benchmarks.run_item(cut_off, items[0])  # one episode finished before the server stopped
    BenchmarkRun.objects.filter(pk=cut_off.pk).update(status=RunStatus.RUNNING, taken_by=benchmarks.SERVER)
    EpisodeProgress.objects.create(run=cut_off, key=items[1]["key"], turns=5)  # half-way through another
    finished = benchmarks.run_benchmark(benchmarks.create_run("tasks", "planner", items[:1]).pk)
    in_a_terminal = benchmarks.create_run("tasks", "planner", items)  # manage.py benchmark plays it
    BenchmarkRun.objects.filter(pk=in_a_terminal.pk).update(status=RunStatus.RUNNING, taken_by="command")
    first = cut_off.results.get()

    monkeypatch.setattr(background, "in_this_process", lambda: False)  # a broker's workers play them
    assert scheduler.resume_background_work() == []
    monkeypatch.setenv("ARENA_SERVE_WORKERS", "2")  # several processes: not this one's to take
    monkeypatch.setattr(background, "in_this_process", lambda: True)
    assert scheduler.resume_background_work() == []
    cut_off.refresh_from_db()
    assert cut_off.status == RunStatus.RUNNING and cut_off.results.count() == 1

    monkeypatch.setenv("ARENA_SERVE_WORKERS", "1")  # the embedded server (tasks run inline here)
    assert scheduler.resume_background_work() == [f"benchmark run {cut_off.pk}"]
    cut_off.refresh_from_db()
    assert cut_off.status == RunStatus.DONE and cut_off.results.count() == len(items)
    assert cut_off.results.filter(key=items[0]["key"]).get().pk == first.pk  # kept, not played again
    assert not cut_off.playing.exists()
    assert BenchmarkRun.objects.get(pk=finished.pk).results.count() == 1  # a finished run is left alone
    assert not in_a_terminal.results.exists()  # and so is a command's run: its terminal plays it


def test_a_run_resumes_on_its_endpoint_after_the_endpoint_moved(tasks_scenarios, settings):
    from games.agents.tests.stub_server import stub_endpoint
    from games.npc.models import BenchmarkRun
    from games.npc.tests.test_benchmark_cache import _llm, answer

    items = build_items("tasks", patterns=["test/*"], task_counts=[1])
    with stub_endpoint(answer) as before:
        run = benchmarks.create_run("tasks", "react", items, llm=_llm(before), cache=False)
        benchmarks.run_item(run, items[0])
    assert run.config["llm"]["base_url"] == before.base_url  # the run's record, shown on its page
    BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.STOPPED)
    with stub_endpoint(answer) as after:  # the server restarted: its model listens elsewhere now
        _llm(after)
        assert benchmarks.mark_resumed(run)
        run = benchmarks.run_benchmark(run.pk)
    assert run.status == RunStatus.DONE and run.results.count() == len(items)
    assert len(after.requests) == len(items) - 1 and all(not r.error for r in run.results.all())


def test_resume_pressed_before_a_stopped_episode_halted_leaves_that_episode_to_the_new_take(
    tasks_scenarios, client, researcher, monkeypatch
):
    from django.db.models import F

    from games.npc.models import BenchmarkRun

    monkeypatch.setattr(benchmarks, "PROGRESS_EVERY", 0.0)
    items = build_items("tasks", patterns=["test/*"], task_counts=[3])[:1]
    run = benchmarks.create_run("tasks", "random", items)
    client.force_login(researcher)
    real, seen = benchmarks.run_episode, {}

    def watched(*args: Any, on_turn: Any, **kwargs: Any) -> Any:
        def turn(episode: Any) -> bool:
            if episode.turns == 2:  # Stop, then Resume, while this episode is still deciding
                client.post(reverse("games:benchmark_stop", args=[run.pk]))
                client.post(reverse("games:benchmark_resume", args=[run.pk]))
                # the resumed run is taken up by another thread (here: as if it had)
                BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING, claims=F("claims") + 1)
            going = on_turn(episode)
            seen["turns"] = episode.turns
            return going

        return real(*args, on_turn=turn, **kwargs)

    monkeypatch.setattr(benchmarks, "run_episode", watched)
    monkeypatch.setattr("arena_site.background.submit", lambda *args, **kwargs: None)  # the other thread
    benchmarks.run_benchmark(run.pk)
    assert seen["turns"] == 2  # the first take's episode stopped at once
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.claims == 2 and not run.results.exists()


def test_a_killed_benchmark_command_leaves_its_run_stopped_with_resume_offered(
    tasks_scenarios, inline_npcs, client, researcher
):
    # A manage.py benchmark killed with SIGKILL (or its terminal closed) cannot mark its run
    # stopped as Ctrl-C does: the run read "Running" forever with nobody playing it.
    import socket
    import subprocess
    import sys

    from games.npc.models import BenchmarkRun, EpisodeProgress

    items = build_items("tasks", patterns=["test/*"], task_counts=[1])
    run = benchmarks.create_run("tasks", "random", items)
    elsewhere = benchmarks.create_run("tasks", "random", items)
    command = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        # the command took the run up and was playing its first episode
        BenchmarkRun.objects.filter(pk=run.pk).update(
            status=RunStatus.RUNNING, taken_by=benchmarks.COMMAND, process=f"{socket.gethostname()}:{command.pid}"
        )
        BenchmarkRun.objects.filter(pk=elsewhere.pk).update(
            status=RunStatus.RUNNING, taken_by=benchmarks.COMMAND, process="another-machine:1"
        )
        EpisodeProgress.objects.create(run=run, key=items[0]["key"], turns=3)
        client.force_login(researcher)
        page = client.get(reverse("games:benchmark", args=[run.pk])).content.decode()
        assert "Under way" in page and "Stop</button>" in page  # alive: playing
    finally:
        command.kill()
        command.wait()
    page = client.get(reverse("games:benchmark", args=[run.pk]), HTTP_HX_REQUEST="true").content.decode()
    run.refresh_from_db()
    assert run.status == RunStatus.STOPPED and not run.playing.exists()
    assert "ended without finishing it" in page and "Resume</button>" in page and "Under way" not in page
    elsewhere.refresh_from_db()
    assert elsewhere.status == RunStatus.RUNNING  # another machine's process is not known to be gone

    client.post(reverse("games:benchmark_resume", args=[run.pk]))  # plays here (in-process in tests)
    run.refresh_from_db()
    assert run.status == RunStatus.DONE and run.results.count() == len(items) and not run.error
    assert run.process == benchmarks.this_process()
