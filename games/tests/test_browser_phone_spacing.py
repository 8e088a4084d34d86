"""A kitchen game on a 390 px phone (Debian's chromium, touch): "Wait this step" nearly touched the
"Walk to" button above it (a group without a title had no space before it), and the result's
"Watch the replay" and "Back to My games" touched when they wrapped onto two lines. Every pair of
buttons a finger presses keeps a few pixels apart."""

from __future__ import annotations

import pytest

from games.tests.browser_helpers import chromium, need_chromium, sign_in, start_game

pytestmark = [pytest.mark.browser]

PHONE = {"width": 390, "height": 844}
APART = 6  # px between two things a finger presses

# the closest two of the boxes ``selector`` finds come (0 when they touch or overlap), with their names
CLOSEST = """
(selector) => {
  const boxes = Array.from(document.querySelectorAll(selector)).filter((e) => e.checkVisibility())
    .map((e) => [e.textContent.trim().replace(/\\s+/g, ' '), e.getBoundingClientRect()]);
  let best = [Infinity, '', ''];
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const [na, a] = boxes[i], [nb, b] = boxes[j];
      const dx = Math.max(0, b.left - a.right, a.left - b.right), dy = Math.max(0, b.top - a.bottom, a.top - b.bottom);
      const gap = Math.hypot(dx, dy);
      if (gap < best[0]) best = [gap, na, nb];
    }
  }
  return best;
}
"""

FINISH = """
from games import services
services.finish({game}, reason="test")
print("ok")
"""


def test_a_kitchens_buttons_keep_apart_on_a_phone(tmp_path, shots):
    need_chromium()
    stack, game_id, _ = start_game(tmp_path, "kitchen", "bundled/busy-kitchen", clock="lockstep")
    try:
        with chromium() as browser:
            page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
            sign_in(page, stack.base, game_id)
            page.locator("#game-actions button.action[data-action=noop]").wait_for()
            actions = page.evaluate(CLOSEST, "#game-actions button.action, #game-actions .more-actions > summary")
            wait = "document.querySelector('#game-actions [data-action=noop]')"
            page.evaluate(f"() => {wait}.scrollIntoView({{block: 'end'}})")
            page.screenshot(path=str(shots / "kitchen-phone-390-actions.png"))  # the screen (a full page drops touch)
            stack.python(FINISH.format(game=game_id))
            page.reload()
            page.locator("#game-result a.button").first.wait_for()
            result = page.evaluate(CLOSEST, "#game-result a.button")
            page.evaluate("() => document.querySelector('#game-result a.button').scrollIntoView({block: 'center'})")
            page.screenshot(path=str(shots / "kitchen-phone-390-result.png"))
    finally:
        stack.close()
    assert actions[0] >= APART, actions
    assert result[0] >= APART, result
