"""A free cook with nothing to start, in Debian's chromium at real-time speed, keys only: the soup's
pot heats by itself and the last step waits for it. The page must say why there is no button and
when the next one comes (it used to say "You are busy (free: start a step)", both wrong).
"""

from __future__ import annotations

import re
import time

import pytest

from games.domains.recipes.tests.kitchens import SOUP
from games.tests.browser_helpers import (
    PASSWORD,
    both_widths,
    chromium,
    new_page,
    press,
    sign_in,
    start_custom_game,
    stored,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETUP = """
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.scenarios import save_scenario
save_scenario(domain="recipes", slug="test/soup", title="Soup", source="test", definition={definition!r})
player = get_user_model().objects.create_user("player", password="{password}")
grant(player, Role.PARTICIPANT)
game = services.create_game("test/soup", [{{"kind": "human", "user": player}}], clock="real_time", speed=30)
print(game.pk)
"""

PLAN = ["Step(0, Soup)", "Step(1, Soup)", "Step(2, Soup)"]


def test_a_free_cook_with_nothing_to_start_is_told_why_and_until_when(tmp_path, shots):
    from playwright.sync_api import expect

    stack, game_id = start_custom_game(tmp_path, SETUP.format(definition={"recipes": [SOUP]}, password=PASSWORD))
    try:
        with chromium() as browser:
            page, errors = new_page(browser)
            sign_in(page, stack.base, game_id)
            expect(page.locator("#game-board .recipe-steps").first).to_be_visible()
            # the header's ticking clock reads game seconds as the board does (m:ss), not "849.0"
            expect(page.locator("[data-clock-value]")).to_have_text(re.compile(r"^\d+:\d\d$"))
            plan, deadline = list(PLAN), time.monotonic() + 90
            idle, cook, panel = "", "", ""
            while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
                wanted = page.locator(f"#game-actions button.action[data-action='{plan[0]}']") if plan else None
                if wanted is not None and wanted.count():
                    press(page, wanted.first)
                    plan.pop(0)
                hint = page.locator("#game-actions .idle-hint")
                if hint.count() and not idle:
                    idle, cook = hint.inner_text(), page.locator(".cook-line").inner_text()
                    panel = page.locator("#game-actions").inner_text()
                    both_widths(page, shots / "recipes-idle")
                page.wait_for_timeout(300)  # the update comes back; a person reads it
            expect(page.locator("#game-result h2")).to_be_visible()
            # no step's bar on the timeline cuts its label off ("Sou…"): a bar too narrow for it
            # reads its short label ("S 2"), at a desktop's width and a phone's
            wide = _step_bar_labels(page)
            page.set_viewport_size({"width": 420, "height": 900})
            narrow = _step_bar_labels(page)
            page.screenshot(path=str(shots / "recipes-timeline-420.png"), full_page=True)
        saved = stored(stack, game_id)
    finally:
        stack.close()
    assert not errors, errors
    assert plan == [], f"the player could not start {plan}"
    # chopping (4:00), then heating (5:00, by itself) from whenever the player started it: free, with
    # nothing to start until the pot is hot
    found = re.search(r"no step can start now .* appear when Soup step 1 ends at (\d+:\d\d)\.$", idle)
    assert found, idle
    assert cook == f"free: nothing can start before {found.group(1)}"
    assert "You are busy" not in panel, panel
    assert saved["status"] == "finished" and saved["result"]["success"] is True
    for bars in (wide, narrow):
        assert len(bars) == 3 and not [b for b in bars if b["cut"]], bars
    assert [b["shown"] for b in wide][:2] == ["Soup step 0", "Soup step 1"], wide  # 4 and 5 minutes
    assert "S 2" in [b["shown"] for b in narrow], narrow  # the two-minute step


def _step_bar_labels(page) -> list[dict]:
    """Each step bar's label as shown (its long or short one) and whether it is cut off."""
    return page.locator("#game-timeline .tl-bar").evaluate_all(
        """bars => bars.filter(bar => bar.querySelector('.tl-short')).map(bar => {
            const shown = [...bar.querySelectorAll('span')].find(s => getComputedStyle(s).display !== 'none');
            return {shown: shown.textContent, cut: shown.scrollWidth > shown.clientWidth};
        })"""
    )
