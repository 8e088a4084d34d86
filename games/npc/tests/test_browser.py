"""A researcher starts a benchmark run in a real browser and watches it finish (Playwright)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.test import Client

from games.npc.models import BenchmarkRun, RunStatus
from games.npc.tests.test_benchmarks import task
from games.scenarios import save_scenario

SCREENSHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", "/tmp"))

pytestmark = [
    pytest.mark.browser,
]


@pytest.mark.django_db(transaction=True)
def test_start_a_run_and_read_the_table(live_server, browser, django_user_model, settings):
    from accounts.roles import Role, grant

    settings.NPC_RUN_INLINE = True  # the run plays while the form is submitted (a thread otherwise)
    user = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    for i in (1, 2, 3):
        save_scenario(
            domain="tasks", slug=f"test/chores{i}", title=f"c{i}", source="tests", definition=task(f"job{i}", i)
        )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(120_000)  # 2 shared cores: be patient, never assert on time
    client = Client()
    client.force_login(user)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
    page.goto(f"{live_server.url}/benchmarks/")
    page.select_option("select[name=domain]", "tasks")
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
