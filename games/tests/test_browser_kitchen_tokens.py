"""A cook's badge on the kitchen's floor plan shows whom it is and what they hold in full (Debian's
chromium): it was one line cut with an ellipsis, "Teammate 1 · b…", as soon as a cook held
something, so the plan no longer said what anyone carried. The held item has a line of its own."""

from __future__ import annotations

import pytest

from games.tests.browser_helpers import PASSWORD, chromium, new_page, sign_in, start_custom_game

pytestmark = [pytest.mark.browser]

# two people at Storage, each holding an ingredient (a lockstep step runs once both committed)
SETUP = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.importers import bundled_kitchen
bundled_kitchen.load(log=lambda line: None)
users = [get_user_model().objects.create_user(name, password="{PASSWORD}") for name in ("player", "amy")]
for user in users:
    grant(user, Role.PARTICIPANT)
seats = [{{"kind": "human", "user": user}} for user in users]
game = services.create_game("bundled/busy-kitchen", seats, clock="lockstep")
for commands in (("goto storage0", "goto storage0"), ("get storage0 seaweedSheet", "get storage0 bread")):
    for agent, command in enumerate(commands):
        services.apply_action(game.pk, agent=agent, action=command, by=users[agent])
print(game.pk)
"""

SHOWN = """() => Array.from(document.querySelectorAll('#game-board .floor .token')).map(t => {
  const place = t.closest('.place').getBoundingClientRect(), box = t.getBoundingClientRect();
  const held = t.querySelector('.token-held');
  return {
    name: t.firstChild.textContent.trim(),
    held: held ? held.textContent.replace('holding', '').trim() : '',
    clipped: t.scrollWidth > t.clientWidth + 1 || box.right > place.right + 1,
    // under the name, not after it on the same line
    own_line: held !== null && held.getBoundingClientRect().top >= box.top + (box.bottom - box.top) / 3,
  };
})"""


def test_a_cooks_badge_shows_its_name_and_what_it_holds_uncut(tmp_path, shots):
    stack, game_id = start_custom_game(tmp_path, SETUP)
    try:
        with chromium() as browser:
            tokens = {}
            for width in (1366, 390):
                page, errors = new_page(browser, {"width": width, "height": 900})
                sign_in(page, stack.base, game_id)
                page.locator("#game-board .floor .token").first.wait_for()
                tokens[width] = page.evaluate(SHOWN)
                box = page.locator("#game-board .floor").bounding_box()
                page.screenshot(path=str(shots / f"kitchen-tokens-{width}.png"), clip=box, full_page=True)
                page.close()
                assert not errors, errors
    finally:
        stack.close()
    for width, shown in tokens.items():
        assert not [t for t in shown if t["clipped"]], (width, shown)
        assert sorted((t["name"], t["held"]) for t in shown) == [("Teammate 1", "bread"), ("You", "seaweed sheet")]
        assert all(t["own_line"] for t in shown), (width, shown)


# a finished two-cook game, one cook with a participant's long account name, watched by a researcher
FINISHED = f"""
from accounts.roles import Role, grant
from django.contrib.auth import get_user_model
from games import services
from games.importers import bundled_kitchen
bundled_kitchen.load(log=lambda line: None)
make = get_user_model().objects.create_user
watcher = make("player", password="{PASSWORD}")
grant(watcher, Role.RESEARCHER)
cook = make("p-470c2bdd922a68f6", password="{PASSWORD}")
grant(cook, Role.PARTICIPANT)
seats = [{{"kind": "human", "user": cook}}, {{"kind": "npc", "dispatcher": "planner"}}]
game = services.create_game("bundled/warm-up", seats, clock="lockstep", created_by=watcher)
services.finish(game.pk, reason="stopped by the researcher", by=watcher)
print(game.pk)
"""


def test_a_finished_kitchens_result_table_stays_in_its_column(tmp_path, shots):
    """The commands-by-cook table widened the result panel past the page: a researcher's page was
    1,507 px wide at 1280 and 647 px at 390, the table cut at the screen's edge."""
    stack, game_id = start_custom_game(tmp_path, FINISHED)
    widths = {}
    try:
        with chromium() as browser:
            for width in (1280, 390):
                page, errors = new_page(browser, {"width": width, "height": 900})
                sign_in(page, stack.base, game_id)
                table = page.locator("#game-result table.counts")
                table.wait_for()
                widths[width] = page.evaluate("document.documentElement.scrollWidth")
                table.scroll_into_view_if_needed()
                page.screenshot(path=str(shots / f"kitchen-result-table-{width}.png"))
                page.close()
                assert not errors, errors
    finally:
        stack.close()
    assert all(shown <= width for width, shown in widths.items()), widths
