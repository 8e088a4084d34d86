"""A researcher setting up a labelling project with no annotator yet makes one from the project
form, by keyboard, and finds them among the form's annotators (Debian's chromium, Playwright)."""

from __future__ import annotations

import pytest

from games.npc.tests.test_browser import researcher_page

pytestmark = [pytest.mark.browser]


@pytest.mark.django_db(transaction=True)
def test_a_researcher_makes_an_annotator_from_the_project_form(live_server, browser, django_user_model, shots):
    from playwright.sync_api import expect

    from accounts.roles import Role, grant

    user = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    page = researcher_page(live_server, browser, user)
    page.goto(f"{live_server.url}/annotate/projects/new/")
    expect(page.get_by_label("nadia")).to_have_count(0)
    page.get_by_role("link", name="Make an annotator account").click()
    expect(page.locator("h1")).to_have_text("New annotator account")
    page.get_by_label("Username").fill("nadia")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("Password confirmation").fill("short")
    page.keyboard.press("Enter")
    expect(page.locator(".error").first).to_contain_text("too short")
    page.screenshot(path=str(shots / "annotator-account-refused.png"), full_page=True)
    page.get_by_label("Password", exact=True).fill("tomato-wedges-42")
    page.get_by_label("Password confirmation").fill("tomato-wedges-42")
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text("Annotator “nadia” can sign in now")
    expect(page.locator("h1")).to_contain_text("project")
    expect(page.get_by_label("nadia")).to_be_visible()  # ticked into the project from here
    page.screenshot(path=str(shots / "annotator-account-made.png"), full_page=True)
    page.close()
