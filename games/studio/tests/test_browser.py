"""A researcher authors a task in the studio in a real browser (Debian's chromium via Playwright):
types it with a mistake, sees the error named by line and field, fixes it, sees the optimal plan
with its proof, and plays it. Screenshots go to ``screenshots/`` (or ARENA_SCREENSHOTS)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from games.tests.browser_helpers import chromium, htmx_ready, need_chromium, new_page, press_until_over, sign_in
from games.tests.server import Stack

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PASSWORD = "pw-researcher-1"

SETUP = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
user = get_user_model().objects.create_user("rita", password="{PASSWORD}")
grant(user, Role.RESEARCHER)
print(user.pk)
"""

# "rinse cup" waits for an action that does not exist: a typo the studio must point at.
WITH_MISTAKE = """title = "Toast and tea"
goal = "Toast bread and make a cup of tea."
appliances = ["kettle"]

[[actions]]
do = "boil kettle"
minutes = 3
background = true

[[actions]]
do = "toast bread"
minutes = 2

[[actions]]
do = "rinse cup"
minutes = 1
after = ["boil kettel"]
"""


@contextmanager
def in_the_studio(tmp_path: Path) -> Iterator[tuple[Stack, Any, list[str]]]:
    """A live server with a researcher "rita", and a chromium page signed in as her on the studio's
    index (reached from the menu); yields (stack, page, the page's script errors)."""
    need_chromium()
    stack = Stack(tmp_path)
    try:
        stack.manage("migrate", "--noinput", "-v0")
        stack.python(SETUP)
        stack.start()
        with chromium() as browser:
            page, errors = new_page(browser, {"width": 1366, "height": 1000})
            sign_in(page, stack.base, username="rita", password=PASSWORD)
            page.click("nav >> text=Studio")
            yield stack, page, errors
    finally:
        stack.close()


def test_a_researcher_authors_a_task_fixes_a_mistake_sees_the_optimum_and_plays_it(tmp_path, shots):
    from playwright.sync_api import expect

    with in_the_studio(tmp_path) as (stack, page, errors):
        page.click("text=Write a task")
        expect(page.locator("h1")).to_contain_text("New task")
        htmx_ready(page)
        # The starter example is valid: its optimal plan is shown at once.
        expect(page.locator(".studio-preview")).to_contain_text("proven optimal")

        # The text first, the name later: the checks run before the scenario has a name (they
        # used to wait, silently, for the form's required name, with the old preview still shown).
        page.fill("#studio-text", WITH_MISTAKE)
        problems = page.locator(".studio-problems")
        expect(problems).to_contain_text("line 17")
        expect(problems).to_contain_text("actions[2].after")
        expect(problems).to_contain_text("'boil kettel' is not an action of this task")
        expect(page.locator(".studio-preview")).to_have_count(0)
        page.screenshot(path=str(shots / "studio-error.png"), full_page=True)
        page.fill("#studio-name", "toast-and-tea")

        # Jump to the line from the error, then fix the typo with the keyboard.
        page.click(".studio-goto")
        selected = page.evaluate(
            "() => { const a = document.getElementById('studio-text');"
            " return a.value.slice(a.selectionStart, a.selectionEnd); }"
        )
        assert selected == 'after = ["boil kettel"]'
        page.keyboard.type('after = ["boil kettle"]')
        expect(page.locator(".studio-problems")).to_have_count(0)
        preview = page.locator(".studio-preview")
        expect(preview).to_contain_text("proven optimal")
        # One agent: boil (1 busy minute, runs 3), toast 2, then rinse once the kettle boiled.
        expect(preview.locator(".studio-makespan")).to_have_text("4")
        expect(preview.locator(".tl-bar")).to_have_count(3)

        # The small form adds an action without writing TOML.
        page.click("text=Add an action with a form")
        page.fill("#add-do", "pour kettle into cup")
        page.fill("#add-minutes", "1")
        page.fill("#add-after", "rinse cup")
        page.keyboard.press("Enter")
        expect(page.locator("#studio-text")).to_have_value(re.compile(r'do = "pour kettle into cup"'))
        expect(preview.locator(".studio-makespan")).to_have_text("5")
        expect(page.locator(".tl-bar")).to_have_count(4)
        page.screenshot(path=str(shots / "studio-preview.png"), full_page=True)

        page.click("text=Save and play now")
        page.wait_for_url(re.compile(r"/games/\d+/$"))
        expect(page.locator("#game-actions [data-key='1']")).to_be_visible()
        page.wait_for_function("() => window.htmx && document.querySelector('[ws-connect]')")
        page.wait_for_timeout(500)
        press_until_over(page, moves=20, pause_ms=400)
        expect(page.locator("#game-result")).to_contain_text("Progress")
        assert re.search(r"Progress \(%\)\s*100", page.locator("#game-result").inner_text())
        page.screenshot(path=str(shots / "studio-played.png"), full_page=True)

        # The saved scenario opens again in the editor, and export gives the TOML back.
        page.goto(f"{stack.base}/studio/")
        expect(page.locator("table")).to_contain_text("studio/toast-and-tea")
        with page.expect_download() as download:
            page.click("text=Export")
        text = Path(download.value.path()).read_text()
        assert 'do = "pour kettle into cup"' in text and 'after = ["boil kettle"]' in text

        # Its page in the scenario list shows the same optimal plan, worked out once the page is open.
        page.goto(f"{stack.base}/scenarios/")
        page.get_by_role("link", name="Toast and tea").click()
        shown = page.locator("#scenario-preview .studio-preview")
        expect(shown).to_contain_text("proven optimal")
        expect(shown.locator(".studio-makespan")).to_have_text("5")
        page.screenshot(path=str(shots / "studio-scenario-page.png"), full_page=True)
        assert not errors, errors


def test_a_researcher_generates_a_family_sees_what_is_proven_and_saves_it(tmp_path, shots):
    from playwright.sync_api import expect

    def generate(page: Any, button: str) -> Any:
        page.click("text=Open the generator")
        expect(page.locator("h1")).to_have_text("Generate instances")
        htmx_ready(page)
        with page.expect_navigation():  # choosing a domain shows its knobs
            page.select_option("#gen-domain", "recipes")
        page.fill("#gen-count", "2")
        page.fill("#gen-seed", "2")
        page.fill("#knob-steps", "30")
        page.click(f"button:has-text('{button}')")
        # The run's page: a progress bar while the instances are solved in the background, the
        # rows added as they come, then the run's end.
        expect(page.get_by_role("progressbar", name="Instances solved")).to_be_visible()
        table = page.locator(".studio-instances")
        expect(table).to_contain_text("generated/recipes-s2-", timeout=60_000)
        expect(page.locator("#run-progress .badge")).to_have_text("Finished", timeout=60_000)
        return table.locator("tbody tr")

    with in_the_studio(tmp_path) as (_stack, page, errors):
        rows = generate(page, "Generate")
        expect(rows).to_have_count(2)
        # The first pair needs more than the page's budget for its proof: it says so, with its bound.
        expect(rows.nth(0).locator(".badge")).to_have_text("no")
        command = page.get_by_text("python manage.py generate")
        expect(command).to_contain_text("--seed 2 --max-seconds 3 --steps 30 --json")
        page.screenshot(path=str(shots / "studio-generated.png"), full_page=True)
        # Before saving, an instance opens in the editor from its own text, with its plan.
        rows.nth(1).get_by_role("link", name="Open").focus()
        with page.expect_navigation():
            page.keyboard.press("Enter")
        expect(page.locator("#studio-name")).to_have_value(re.compile(r"recipes-s2-.*-002"))
        expect(page.locator(".studio-preview")).to_contain_text("Makespan", timeout=30_000)
        page.click("text=← Studio")

        rows = generate(page, "Generate and save as a family")
        expect(page.locator(".message")).to_contain_text("Saved 2 instances as generated/recipes-s2-")
        # Saved, each opens as its scenario: editing it makes a new version.
        rows.nth(0).get_by_role("link", name="Open").click()
        expect(page.locator("h1")).to_contain_text(re.compile(r"Edit generated/recipes-s2-.*-001 v1"))
        expect(page.locator(".studio-preview")).to_contain_text("Makespan", timeout=30_000)
        page.click("text=← Studio")
        expect(page.locator(".studio-generated li")).to_have_count(2)
        assert not errors, errors


def test_a_bundled_recipe_pair_is_edited_and_saved_as_its_next_version(tmp_path, shots):
    """Every bundled recipe pair is named like "Porridge_Omelette": the editor said "name: use
    lower-case letters" about its read-only name and refused to save any change."""
    from playwright.sync_api import expect

    with in_the_studio(tmp_path) as (stack, page, errors):
        stack.python("from games.importers import bundled_recipes\nbundled_recipes.load(log=lambda line: None)")
        page.click("nav >> text=Scenarios")
        page.get_by_role("link", name="Breakfast for two").click()
        page.get_by_role("link", name="Edit in the studio").click()
        expect(page.locator("h1")).to_contain_text("Porridge_Omelette")
        htmx_ready(page)
        expect(page.locator(".studio-preview")).to_contain_text("Makespan")
        expect(page.locator("#studio-check")).not_to_contain_text("lower-case")
        text = page.input_value("#studio-text")
        assert '"time": "4 min"' in text
        page.fill("#studio-text", text.replace('"time": "4 min"', '"time": "6 min"', 1))
        expect(page.locator("#studio-check")).not_to_contain_text("problem", timeout=10_000)
        page.get_by_role("button", name="Save as a new version").click()
        expect(page.locator(".message")).to_contain_text("Saved bundled/Porridge_Omelette as version 2.")
        page.screenshot(path=str(shots / "studio-bundled-pair-saved.png"), full_page=True)
        # the saves and the Export link stand in one row (a form's submit margin lifted Export 6 px)
        tops = {round(page.locator(s).bounding_box()["y"]) for s in ("button[value=save]", ".studio-actions a.button")}
        assert len(tops) == 1, tops
        assert not errors, errors


def test_the_not_saved_banner_goes_once_the_text_checks_clean(tmp_path, shots):
    """After Save with a mistake, "Not saved: line 17 ..." stayed under the editor once the text
    was fixed and the live check had turned green, until the next save."""
    from playwright.sync_api import expect

    with in_the_studio(tmp_path) as (_stack, page, errors):
        page.click("text=Write a task")
        htmx_ready(page)
        page.fill("#studio-name", "toast-and-tea")
        page.fill("#studio-text", WITH_MISTAKE)
        expect(page.locator(".studio-problems")).to_contain_text("line 17")
        page.get_by_role("button", name="Save", exact=True).click()
        banner = page.locator("#studio-not-saved")
        expect(banner).to_contain_text("Not saved: line 17")
        htmx_ready(page)
        # another mistake: the banner says the check beside it is the text as it is now
        page.fill("#studio-text", WITH_MISTAKE.replace("minutes = 2", "minutes = 0"))
        expect(page.locator(".studio-problems")).to_contain_text("actions[1].minutes")
        expect(banner).to_contain_text("the text has changed since")
        expect(banner).not_to_have_attribute("role", "alert")
        page.screenshot(path=str(shots / "studio-not-saved-outdated.png"), full_page=True)
        page.fill("#studio-text", WITH_MISTAKE.replace("boil kettel", "boil kettle"))
        expect(page.locator(".studio-preview")).to_contain_text("proven optimal")
        expect(banner).to_have_count(0)
        page.screenshot(path=str(shots / "studio-not-saved-cleared.png"), full_page=True)
        assert not errors, errors
