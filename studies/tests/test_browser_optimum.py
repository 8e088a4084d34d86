"""A study on a generated instance, in a real browser (Debian's chromium via Playwright): the
researcher ticks "Show the best possible result after each game" in the designer; a participant
joins by the study link, plays the game with the keyboard and reads, on the result, the certified
optimum and how close they came. Screenshots go to ``screenshots/`` (or ARENA_SCREENSHOTS)."""

from __future__ import annotations

import re

import pytest

from games.tests.browser_helpers import chromium, htmx_ready, need_chromium, new_page, press_until_over, sign_in
from games.tests.server import Stack

pytestmark = [pytest.mark.browser]
PASSWORD = "pw-researcher-1"

SETUP = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games.generators.family import generate
from games.models import Scenario
from games.scenarios import save_generated
from studies import services
user = get_user_model().objects.create_user("rita", password="{PASSWORD}")
grant(user, Role.RESEARCHER)
(instance,) = generate("tasks", count=1, seed=5, knobs={{"actions": 6}}, max_seconds=2)
save_generated("tasks", [instance])
study = services.create_study(title="Against the optimum", created_by=user, clock_mode="lockstep", slug="optimum")
services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
services.add_scenario(study, Scenario.objects.get(slug=instance["slug"], is_current=True))
services.set_status(study, "open")
print(study.pk, instance["optimal_makespan"])
"""


def test_a_participant_reads_the_optimum_when_the_study_shows_it(tmp_path, shots):
    from playwright.sync_api import expect

    need_chromium()
    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        study_id, optimum = stack.python(SETUP).strip().splitlines()[-1].split()
        stack.start()
        with chromium() as browser:
            researcher, errors = new_page(browser)
            sign_in(researcher, stack.base, username="rita", password=PASSWORD)
            researcher.goto(f"{stack.base}/studies/{study_id}/")
            researcher.get_by_label("Show the best possible result after each game").check()
            researcher.locator("#basics").get_by_role("button", name="Save settings").click()
            expect(researcher.locator(".messages")).to_contain_text("Saved the study settings")
            expect(researcher.get_by_label("Show the best possible result after each game")).to_be_checked()

            page, participant_errors = new_page(browser)
            page.goto(f"{stack.base}/studies/s/optimum/?pid=OPT1")
            page.get_by_label("I have read the information").focus()
            page.keyboard.press("Space")
            page.get_by_role("button", name="Continue").click()
            page.get_by_role("button", name="Start game 1").click()
            page.wait_for_url(re.compile(r"/games/\d+/"))
            htmx_ready(page)
            page.wait_for_function("() => document.querySelector('[ws-connect]')")
            page.wait_for_timeout(500)
            press_until_over(page)
            result = page.locator("#game-result")
            expect(result).to_contain_text(f"The best possible: {optimum} minutes")
            expect(result).to_contain_text("proven optimal")
            assert re.search(r"This game took \d+ minutes, \d\.\d\d× that", result.inner_text())
            expect(result.get_by_role("link", name=re.compile("Continue the study"))).to_be_visible()
            page.screenshot(path=str(shots / "study-result-optimum.png"), full_page=True)
            assert not errors and not participant_errors, errors + participant_errors
    finally:
        stack.close()
