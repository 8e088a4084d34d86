"""A player shares a real-time tasks game with an LLM teammate whose model is slow (a scripted
OpenAI-compatible endpoint that takes seconds to answer), in Debian's chromium. While the model is
asked the page says the teammate is deciding, so a slow model does not look like a teammate that
stands idle or broke; once the model answers quickly the line goes away.
"""

from __future__ import annotations

import pytest

from games.agents.tests.stub_server import stub_endpoint
from games.tests.browser_helpers import both_widths, chromium, need_chromium, new_page, sign_in, teammate_setup
from games.tests.server import Stack

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_slow_llm_teammate_is_shown_deciding(tmp_path, shots):
    from playwright.sync_api import expect

    need_chromium()
    with stub_endpoint(lambda messages: "Agent 2: wait") as endpoint:
        stack = Stack(tmp_path)
        stack.env["LLM_BASE_URL"] = endpoint.base_url
        stack.env["LLM_MODEL"] = "stub"
        try:
            stack.manage("migrate", "--noinput", "-v0")
            stack.start()
            game_id = int(stack.python(teammate_setup("llm")).strip().splitlines()[-1])
            endpoint.delay_seconds = 4.0  # from the game's next turns on, in the server, the model is slow
            with chromium() as browser:
                page, errors = new_page(browser)
                sign_in(page, stack.base, game_id)
                deciding = page.locator("#teammates-deciding")
                expect(deciding).to_contain_text("Teammate 1 (LLM NPC) is deciding what to do next", timeout=60_000)
                # the agents list says it beside the teammate too, and only there
                note = page.locator(".agents .agent-1 .deciding-note")
                expect(note).to_be_visible()
                expect(page.locator(".agents .agent-0 .deciding-note")).to_be_hidden()
                both_widths(page, shots / "tasks-teammate-deciding")
                endpoint.delay_seconds = 0.0  # the model answers at once from now on
                expect(deciding).to_have_text("", timeout=60_000)
                expect(note).to_be_hidden()
        finally:
            stack.close()
    assert not errors, errors
    assert endpoint.requests, "the teammate never asked its model"
