"""A researcher starts a benchmark run in a real browser and watches it finish (Playwright)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client

from games.npc.models import BenchmarkRun, RunStatus
from games.npc.tests.conftest import task
from games.scenarios import save_scenario

SCREENSHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", "/tmp"))

pytestmark = [
    pytest.mark.browser,
]


def researcher_page(live_server, browser, user):
    """A chromium page signed in as ``user`` (by its session cookie), patient on 2 shared cores."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(120_000)  # 2 shared cores: be patient, never assert on time
    client = Client()
    client.force_login(user)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
    return page


@pytest.mark.django_db(transaction=True)
def test_start_a_run_and_read_the_table(live_server, browser, django_user_model, settings):
    from accounts.roles import Role, grant

    settings.BACKGROUND_INLINE = True  # the run plays while the form is submitted (a thread otherwise)
    user = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    for i in (1, 2, 3):
        save_scenario(
            domain="tasks", slug=f"test/chores{i}", title=f"c{i}", source="tests", definition=task(f"job{i}", i)
        )
    page = researcher_page(live_server, browser, user)
    page.goto(f"{live_server.url}/benchmarks/")
    # a field only one domain's task set reads shows for that domain; TDAG is offered for itineraries
    page.select_option("select[name=domain]", "kitchen")
    assert page.locator("input[name=alphas]").is_visible() and page.locator("input[name=team]").is_visible()
    assert not page.locator("input[name=tasks]").is_visible()
    assert not page.locator("input[name=constraints]").first.is_visible()
    assert page.locator("select[name=agent] option[value=tdag]").is_disabled()
    page.select_option("select[name=domain]", "itinerary")
    assert not page.locator("select[name=agent] option[value=tdag]").is_disabled()
    page.select_option("select[name=agent]", "tdag")
    # the prompt switches an agent's prompt has: TDAG's have neither, ReAct's no demonstration
    assert not page.locator("input[name=hints]").is_visible() and not page.locator("input[name=demo]").is_visible()
    page.select_option("select[name=agent]", "react")
    assert page.locator("input[name=hints]").is_visible() and not page.locator("input[name=demo]").is_visible()
    page.select_option("select[name=agent]", "dispatcher")
    assert page.locator("input[name=hints]").is_visible() and page.locator("input[name=demo]").is_visible()
    page.select_option("select[name=agent]", "tdag")
    page.select_option("select[name=domain]", "tasks")
    assert page.locator("select[name=agent]").input_value() != "tdag"  # not left on an agent it cannot run
    assert page.locator("input[name=tasks]").is_visible() and not page.locator("input[name=alphas]").is_visible()
    page.select_option("select[name=agent]", "planner")
    page.fill("input[name=scenarios]", "test/*")
    page.fill("input[name=tasks]", "1,2")
    page.screenshot(path=str(SCREENSHOTS / "npc-benchmarks-form.png"), full_page=True)
    page.get_by_role("button", name="Start the run").click()
    page.wait_for_selector("text=TimeArena")
    run = BenchmarkRun.objects.get()
    assert run.status == RunStatus.DONE
    assert page.get_by_role("progressbar", name="Episodes played").get_attribute("aria-valuenow") == "6"
    header = page.locator("table").first.locator("th").all_inner_texts()
    assert header[:5] == ["Setting", "AS", "CS", "CR", "CT"]
    assert page.get_by_role("link", name="Download CSV").is_visible()
    page.screenshot(path=str(SCREENSHOTS / "npc-benchmark-run.png"), full_page=True)


@pytest.mark.django_db(transaction=True)
def test_read_a_runs_curves_and_compare_it_with_people(live_server, browser, django_user_model, settings):
    from accounts.roles import Role, grant
    from games.npc import benchmarks
    from games.npc.tasksets import build_items
    from games.npc.tests.test_benchmark_compare import play_as_person

    settings.BACKGROUND_INLINE = True
    user = django_user_model.objects.create_user("rosa", password="pw-researcher-2")
    grant(user, Role.RESEARCHER)
    person = django_user_model.objects.create_user("pia", password="pw-participant-2")
    for i in (1, 2, 3):
        save_scenario(
            domain="tasks", slug=f"test/chores{i}", title=f"c{i}", source="tests", definition=task(f"job{i}", i)
        )
    run = benchmarks.create_run("tasks", "random", build_items("tasks", patterns=["test/*"]), repeats=2)
    benchmarks.run_benchmark(run.pk)
    play_as_person("test/chores1", person, moves=50)
    play_as_person("test/chores2", person, moves=0)
    page = researcher_page(live_server, browser, user)
    page.goto(f"{live_server.url}/benchmarks/{run.pk}/")
    page.get_by_role("heading", name="Every metric with its 95 % confidence interval").wait_for()
    assert page.locator("table.pass-k tbody tr").count() == 2  # pass^1 and pass^2
    charts = page.get_by_role("img")
    assert charts.count() == 2  # progress against game time and against decisions
    title = page.locator(f"#{charts.first.get_attribute('aria-labelledby')}").text_content()
    assert "random (mean of 6) ends at 100" in title
    page.screenshot(path=str(SCREENSHOTS / "npc-benchmark-run-curves.png"), full_page=True)
    page.get_by_role("link", name="Compare with people and other runs").click()
    page.get_by_role("heading", name="Compare: tasks").wait_for()
    heads = page.locator("table.compare-table tr.source-head th[scope=colgroup]").all_inner_texts()
    assert heads[0].startswith(f"random (run #{run.pk})") and heads[1].startswith("People alone")
    assert "Reference plan" not in page.content()
    page.get_by_role("button", name="Play the reference plan on these episodes").click()
    page.wait_for_selector("text=planner")  # the reference run's page (it ran inline)
    page.goto(f"{live_server.url}/benchmarks/compare/tasks/?run={run.pk}")
    heads = page.locator("table.compare-table tr.source-head th[scope=colgroup]").all_inner_texts()
    assert heads[0].startswith("Reference plan (planner") and len(heads) == 3
    people = page.locator("table.ci-table th[scope=rowgroup]", has_text="People alone")
    assert people.count() == 1
    # Keyboard: the run choices and the people switch are reachable and toggle with the space bar.
    page.get_by_label("People's games on the same scenarios", exact=False).focus()
    page.keyboard.press("Space")
    page.get_by_role("button", name="Compare").click()
    page.get_by_role("heading", name="Compare: tasks").wait_for()
    assert page.locator("table.compare-table tr.source-head", has_text="People alone").count() == 0
    page.screenshot(path=str(SCREENSHOTS / "npc-benchmark-compare.png"), full_page=True)


@pytest.mark.django_db(transaction=True)
def test_a_run_over_a_generated_family_is_read_against_its_certified_optimum(
    live_server, browser, django_user_model, settings
):
    from accounts.roles import Role, grant

    settings.BACKGROUND_INLINE = True
    user = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    page = researcher_page(live_server, browser, user)
    page.goto(f"{live_server.url}/studio/generate/")
    page.fill("#gen-count", "2")
    page.fill("#knob-actions", "8")
    page.get_by_role("button", name="Generate and save as a family").click()
    family = page.locator("h2 code").first.inner_text()
    page.goto(f"{live_server.url}/benchmarks/")
    page.select_option("select[name=agent]", "planner")
    page.fill("input[name=scenarios]", f"generated/{family}-*")
    page.get_by_role("button", name="Start the run").click()
    section = page.locator("section[aria-labelledby=optimum-h]")
    section.wait_for()
    assert "2 of 2 episodes compared; 2 of 2 optima proven" in section.inner_text()
    rows = section.locator("tbody tr")
    assert rows.count() == 2 and family in rows.first.inner_text()
    # The planner plays by the rules, so no finished episode can beat a proven optimum.
    ratios = [float(text.rstrip("×")) for text in section.locator("tbody td:last-child").all_inner_texts()]
    assert all(ratio >= 1 for ratio in ratios)
    section.screenshot(path=str(SCREENSHOTS / "npc-benchmark-optimum.png"))


@pytest.mark.django_db(transaction=True)
def test_watch_an_episode_under_way_stop_it_within_a_decision_and_resume(
    live_server, browser, django_user_model, settings, monkeypatch
):
    import threading
    import time

    from django.db import connection

    from accounts.roles import Role, grant
    from arena_site import background
    from games.agents.tests.stub_server import stub_endpoint
    from games.npc import benchmarks
    from games.npc.tasksets import build_items
    from games.npc.tests.test_benchmark_cache import _llm, answer

    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        pytest.skip("the run plays in a thread of its own, which an in-memory SQLite database cannot serve")
    settings.BACKGROUND_INLINE, settings.CELERY_TASK_ALWAYS_EAGER = False, True  # the embedded server's threads
    monkeypatch.setattr(benchmarks, "PROGRESS_EVERY", 0.0)
    user = django_user_model.objects.create_user("rhea", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    for i in (1, 2, 3):
        save_scenario(
            domain="tasks", slug=f"test/chores{i}", title=f"c{i}", source="tests", definition=task(f"job{i}", i)
        )
    released, calls = threading.Event(), []

    def slow_model(messages):  # the third answer waits while the researcher watches
        calls.append(1)
        if len(calls) == 3:
            released.wait(120)
        return answer(messages)

    with stub_endpoint(slow_model) as endpoint:
        items = build_items("tasks", patterns=["test/*"], task_counts=[3])[:1]
        run = benchmarks.create_run("tasks", "react", items, llm=_llm(endpoint), cache=False)
        background.submit("npc.benchmark", run.pk)
        page = researcher_page(live_server, browser, user)
        page.goto(f"{live_server.url}/benchmarks/{run.pk}/")
        page.wait_for_selector(r"#run-playing >> text=/2 decisions, 2 LLM calls, at minute \d+ of \d+/")
        page.screenshot(path=str(SCREENSHOTS / "npc-benchmark-under-way.png"), full_page=True)
        page.get_by_role("button", name="Stop").click()
        assert page.get_by_text("stops after the decision it is making").is_visible()
        released.set()  # the model answers; the episode halts after that decision
        for _ in range(1200):  # and forgets how far it got (not a result)
            if not run.playing.exists():
                break
            time.sleep(0.1)
        page.get_by_role("button", name="Resume").wait_for()
        assert not page.locator("#run-playing").count()
        run.refresh_from_db()
        assert run.status == RunStatus.STOPPED and not run.results.exists() and not run.playing.exists()
        page.get_by_role("button", name="Resume").click()
        page.wait_for_selector("text=1 of 1 episode")
    run.refresh_from_db()
    assert run.status == RunStatus.DONE and run.results.get().llm_calls > 3  # played again from its start


@pytest.mark.django_db(transaction=True)
def test_a_run_of_an_llm_agent_whose_model_server_is_down_is_not_started(
    live_server, browser, django_user_model, settings
):
    from accounts.roles import Role, grant

    settings.LLM_ENDPOINTS = [{"id": "gone", "base_url": "http://127.0.0.1:9/v1", "models": ["m"], "label": "Gone"}]
    user = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    save_scenario(domain="tasks", slug="test/chores1", title="c1", source="tests", definition=task("job1", 1))
    page = researcher_page(live_server, browser, user)
    page.goto(f"{live_server.url}/benchmarks/")
    page.select_option("select[name=agent]", "react")
    page.select_option("select[name=endpoint]", "gone")
    page.get_by_role("button", name="Start the run").click()
    alert = page.locator("form [role=alert]").first
    alert.wait_for()
    assert alert.inner_text().startswith("No run was started: the LLM endpoint “gone” (http://127.0.0.1:9/v1")
    assert "Start that model server" in alert.inner_text() and alert.is_visible()
    page.screenshot(path=str(SCREENSHOTS / "npc-benchmarks-endpoint-down.png"))
    assert not BenchmarkRun.objects.exists()
    assert page.locator("select[name=agent]").input_value() == "react"  # the form keeps what was chosen

    # a run the model stopped answering (failed with the reason) does not resume while it is still down
    from games.npc import benchmarks
    from games.npc.tasksets import build_items

    run = benchmarks.create_run(
        "tasks", "react", build_items("tasks", patterns=["test/*"]), llm={"endpoint": "gone", "model": "m"}
    )
    BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.FAILED, error="The model stopped answering")
    page.goto(f"{live_server.url}/benchmarks/{run.pk}/")
    page.get_by_role("button", name="Resume").click()
    message = page.locator(".messages .message").first
    message.wait_for()
    assert message.inner_text().startswith(f"Run {run.pk} did not resume: the LLM endpoint “gone”")
    assert BenchmarkRun.objects.get(pk=run.pk).status == RunStatus.FAILED
    assert page.get_by_role("button", name="Resume").is_visible()  # still there for when the model is back
