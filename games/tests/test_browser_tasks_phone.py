"""A first-time player taps through a tasks game on a 390 px phone (Debian's chromium, touch): the
task list reads line by line (names wrapped a word a line and "steep teapot" ran into its "3 min ·
background"), and the buttons and links a finger presses are about 44 px high (they were 39, the
header's 22-35). The keyboard's hints (key badges, "keyboard shortcuts ?", the chat's keys) are not
shown on a touch screen."""

from __future__ import annotations

import pytest

from games.tests.browser_helpers import chromium, need_chromium, sign_in, start_game

pytestmark = [pytest.mark.browser]

PHONE = {"width": 390, "height": 844}

# every pair of a row's parts (name, minutes, state) that overlap, and names over two lines high
LAYOUT = """
() => {
  const problems = [];
  for (const row of document.querySelectorAll('.task-actions .ta')) {
    const parts = Array.from(row.children).filter((p) => p.matches('.ta-name, .ta-do, .ta-meta, .badge, .run'));
    const boxes = parts.map((p) => p.getBoundingClientRect());
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
          problems.push(`${row.innerText.replace(/\\s+/g, ' ')}: ${parts[i].className} over ${parts[j].className}`);
      }
    }
    const name = row.querySelector('.ta-name');
    if (name) {
      const line = parseFloat(getComputedStyle(name).lineHeight);
      if (name.getBoundingClientRect().height > 2.2 * line) problems.push(`${name.innerText}: over two lines`);
    }
  }
  return problems;
}
"""


def test_a_tasks_game_reads_and_taps_well_on_a_phone(tmp_path, shots):
    need_chromium()
    stack, game_id, _ = start_game(tmp_path, "tasks", "bundled/make-tea", clock="lockstep")
    try:
        with chromium() as browser:
            page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            sign_in(page, stack.base, game_id)
            page.locator("#game-actions button.action").first.wait_for()
            problems = page.evaluate(LAYOUT)
            heights = page.eval_on_selector_all(
                "#game-actions button.action", "bs => bs.map(b => b.getBoundingClientRect().height)"
            )
            # the header's links, Sign out and "keyboard shortcuts" were 22-35 px high; the links and
            # Sign out are behind the header's Menu button on a phone
            page.locator(".site-menu > summary").tap()
            small_targets = page.eval_on_selector_all(
                ".site-menu > summary, .site-header nav a, .site-header .link-button, [data-help-toggle]",
                "ts => ts.filter(t => t.getClientRects().length)"
                ".map(t => [t.textContent.trim(), t.getBoundingClientRect().height])"
                ".filter(([, h]) => h < 43.5)",
            )
            # a keyboard's hints have no keys to point at on a touch screen: the action buttons'
            # key badges, "keyboard shortcuts ?", the chat's "Enter sends it; Esc gives the keys back"
            key_hints = page.eval_on_selector_all(
                "main kbd, .keys-hint, [data-help-toggle]",
                "es => es.filter(e => e.getClientRects().length).map(e => e.textContent.trim().slice(0, 40))",
            )
            shortcuts_kept = page.locator("#game-actions button.action[aria-keyshortcuts]").count()
            page.locator(".site-menu > summary").tap()  # folded again
            page.screenshot(path=str(shots / "tasks-phone-390.png"), full_page=True)
            # as the phone shows it (a full-page shot is drawn without the touch screen's media rules)
            page.screenshot(path=str(shots / "tasks-phone-390-screen.png"))
            # a tap plays the action, and the list reads as well with something running
            before = page.locator("#game-log-list [data-seq]").count()
            page.locator("#game-actions button.action").first.tap()
            page.wait_for_function("n => document.querySelectorAll('#game-log-list [data-seq]').length > n", arg=before)
            page.locator(".task-actions .ta.status-running, .task-actions .ta.status-done").first.wait_for()
            problems += page.evaluate(LAYOUT)
            page.screenshot(path=str(shots / "tasks-phone-390-played.png"), full_page=True)
            page.locator(".task-cards").screenshot(path=str(shots / "tasks-phone-390-task-list.png"))
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            # the timeline's names take a fifth of its width, not 40%: the bars get the rest
            names_share = page.evaluate(
                "() => { const row = document.querySelector('#game-timeline .tl-row');"
                " const label = row.querySelector('.tl-label').getBoundingClientRect();"
                " return label.width / row.getBoundingClientRect().width; }"
            )
    finally:
        stack.close()
    assert not errors, errors
    assert not problems, problems
    assert heights and min(heights) >= 43.5, heights
    assert small_targets == [], small_targets
    assert key_hints == [], key_hints
    assert shortcuts_kept, "the action buttons keep their aria-keyshortcuts"
    assert overflow <= 0, overflow
    assert names_share <= 0.25, names_share
