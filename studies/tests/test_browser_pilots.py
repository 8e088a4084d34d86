"""A researcher runs pilots from the design page in chromium, on a real server (Daphne, background
work in its threads): the pilots go through the draft study over the site's own HTTP and websocket,
the page shows them finish, and the study holds their completed, pilot-marked participations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.tests.browser_helpers import chromium, need_chromium, new_page, sign_in
from games.tests.server import Stack

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PASSWORD = "pw-researcher-1"

SETUP = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games.importers.bundled_tasks import load
from games.scenarios import current_scenario
from studies import services
load(log=lambda line: None)
user = get_user_model().objects.create_user("rita", password="{PASSWORD}")
grant(user, Role.RESEARCHER)
study = services.create_study(title="Tea pilots", slug="tea-pilots", completion_code="TEA-OK", clock_mode="lockstep")
services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
services.add_scenario(study, current_scenario("bundled/make-tea"))
print(study.pk)
"""

STORED = """
import json
from studies.models import Participant
print(json.dumps(sorted([p.status, p.is_pilot] for p in Participant.objects.all())))
"""


def test_a_researcher_runs_pilots_from_the_design_page_and_sees_them_finish(tmp_path: Path, shots):
    from playwright.sync_api import expect

    need_chromium()
    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        study = int(stack.python(SETUP).strip().splitlines()[-1])
        stack.start()
        with chromium() as browser:
            page, errors = new_page(browser, {"width": 1280, "height": 1000})
            sign_in(page, stack.base, username="rita", password=PASSWORD)
            page.click("nav >> text=Studies")
            page.click("text=Tea pilots")
            page.get_by_label("How many pilots").fill("2")
            page.get_by_role("button", name="Run pilots").click()
            expect(page.locator(".messages")).to_contain_text("Started 2 pilots")
            expect(page.get_by_role("button", name="Run pilots")).to_be_disabled()  # while they play
            panel = page.locator("#pilot-panel")
            expect(panel).to_contain_text("Finished", timeout=300_000)  # the page updates by itself
            expect(panel).to_contain_text("2 of 2 pilots finished · 2 reached the completion code")
            expect(panel.locator("tbody tr")).to_have_count(2)
            expect(panel).to_contain_text("TEA-OK")
            expect(page.get_by_role("button", name="Run pilots")).to_be_enabled()  # ready for another run
            page.locator("#pilots").screenshot(path=str(shots / "study-pilots-finished.png"))
        stored = json.loads(stack.python(STORED).strip().splitlines()[-1])
    finally:
        stack.close()
    assert not errors, errors
    assert study > 0 and stored == [["completed", True], ["completed", True]]
