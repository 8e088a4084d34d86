"""A researcher makes an API token in chromium (from the dashboard, by keyboard), copies it from
the page, a program plays with it, and she revokes it with a click (Playwright)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import ApiToken
from accounts.tokens import user_for_token
from games.npc.tests.test_browser import researcher_page

pytestmark = [pytest.mark.browser]


@pytest.mark.django_db(transaction=True)
def test_a_researcher_makes_reads_and_revokes_a_token(live_server, browser, django_user_model, shots):
    from playwright.sync_api import expect

    from accounts.roles import Role, grant

    user = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(user, Role.RESEARCHER)
    page = researcher_page(live_server, browser, user)
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Manage API tokens").click()
    expect(page.locator("h1")).to_have_text("API tokens")
    expect(page.locator(".empty")).to_contain_text("No tokens yet")
    page.get_by_label("Name").focus()
    page.keyboard.type("react baseline")
    page.keyboard.press("Enter")
    expect(page.locator(".token-new")).to_contain_text("shown only this once")
    raw = page.locator("#token-value").input_value()
    assert len(raw) == 40 and user_for_token(raw) == user
    expect(page.locator(".token-example")).to_contain_text(f"Token {raw}")
    page.screenshot(path=str(shots / "api-token-made.png"), full_page=True)

    answer = Client().get("/api/games/999999/", HTTP_AUTHORIZATION=f"Token {raw}")
    assert answer.status_code == 404  # known token, no such game (an unknown token is a 401)

    page.goto(f"{live_server.url}/accounts/tokens/")
    row = page.locator("tbody tr", has_text="react baseline")
    expect(row).to_contain_text(f"{raw[:8]}…")
    expect(row).not_to_contain_text("never")  # the program's request counts as use
    assert raw not in page.content()  # never shown again
    page.get_by_role("button", name=f"Revoke {raw[:8]}… (react baseline)").click()
    expect(page.locator(".messages")).to_contain_text("refused from now on")
    expect(page.locator("tbody tr", has_text="react baseline")).to_contain_text("revoked")
    page.screenshot(path=str(shots / "api-token-revoked.png"), full_page=True)
    assert user_for_token(raw) is None and ApiToken.objects.get().revoked
    assert Client().get("/api/games/999999/", HTTP_AUTHORIZATION=f"Token {raw}").status_code == 401
