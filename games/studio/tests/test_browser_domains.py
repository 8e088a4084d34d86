"""A researcher authors a recipe, a kitchen level and an itinerary brief in the studio, in Debian's
chromium with clicks and keys: starts from the domain's example, makes a mistake, sees it named by
line and field, jumps to the line from the error and types the fix, sees the planner's preview
(the proven optimum as a timeline, the dispatcher's CoS, the planner's scored plan), saves and plays
the new scenario to its end. (The task is authored the same way in ``test_browser.py``.)
Screenshots go to ``screenshots/studio-<domain>-*.png``."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import pytest

from games.studio.tests.test_browser import in_the_studio
from games.tests.browser_helpers import press, shown_facts, stored
from games.tests.test_browser_plans import itinerary_choice
from games.tests.test_browser_realtime import kitchen_decision

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@dataclass(frozen=True)
class Authoring:
    domain: str
    button: str  # the studio's link to a new scenario of this domain
    name: str
    typo: tuple[str, str]  # (what the starter says, what the researcher types by mistake)
    line: int  # the line the studio names
    problem: tuple[str, str]  # (field, message) the studio names
    fixed_line: str  # the whole line as the researcher types it again
    preview: str  # what the preview shows once the text is valid
    seats: tuple[str, ...] = ("human",)  # the game "play now" starts: you, and the planner for the level's others


CASES = [
    Authoring(
        "recipes",
        "Write a recipe pair",
        "iced-lemonade",
        ('"prerequisites": [2]}', '"prerequisites": [7]}'),
        7,
        ("steps.3", "prerequisite 7 is not another step of Lemonade"),
        '    {"text": "Chill in the fridge.", "time": "30 min", "autonomous": true, "prerequisites": [2]},',
        "proven optimal",
    ),
    Authoring(
        "kitchen",
        "Write a kitchen level",
        "two-salads",
        ('"salsa"', '"salza"'),
        6,
        ("dishes[1]", "'salza' has no recipe; did you mean 'salsa'?"),
        '  "dishes": ["gardenSalad", "salsa"], "max_steps": 12,',
        "CoS",
        ("human", "planner", "planner"),  # the starter level has 3 agents, as the preview dispatches them
    ),
    Authoring(
        "itinerary",
        "Write an itinerary brief",
        "harbour-walls",
        ('"Old Town Walls": 45', '"Old Town Wall": 45'),
        19,
        ("spots.Old Town Wall", "unknown sight 'Old Town Wall'; did you mean 'Old Town Walls'?"),
        '    "Old Town Walls": 45,',
        "score",
    ),
]


def decide(domain: str, page: Any) -> str | None:
    """The action button a first-time player presses now (its data-action), or None to wait."""
    if domain == "itinerary":
        return itinerary_choice(page)
    if domain == "kitchen":
        kind, what = kitchen_decision(page)
        if kind == "place":
            return f"goto {what}"
        return what if kind == "command" else "w"
    start = page.locator("#game-actions button.action[data-action^='Step(']")
    return start.first.get_attribute("data-action") if start.count() else "w"


@pytest.mark.parametrize("case", CASES, ids=[c.domain for c in CASES])
def test_a_researcher_authors_fixes_previews_and_plays(tmp_path, shots, case: Authoring):
    from playwright.sync_api import expect

    with in_the_studio(tmp_path) as (stack, page, errors):
        page.click(f"text={case.button}")
        preview = page.locator(".studio-preview")
        expect(preview).to_contain_text(case.preview, timeout=20_000)  # the example is valid

        page.fill("#studio-name", case.name)
        text = page.input_value("#studio-text")
        assert case.typo[0] in text
        page.fill("#studio-text", text.replace(case.typo[0], case.typo[1], 1))
        problems = page.locator(".studio-problems")
        expect(problems).to_contain_text(f"line {case.line}")
        expect(problems).to_contain_text(case.problem[0])
        expect(problems).to_contain_text(case.problem[1])
        page.screenshot(path=str(shots / f"studio-{case.domain}-error.png"), full_page=True)

        page.click(".studio-goto")
        page.keyboard.type(case.fixed_line)
        expect(page.locator(".studio-problems")).to_have_count(0, timeout=20_000)
        expect(preview).to_contain_text(case.preview, timeout=20_000)
        if len(case.seats) > 1:
            expect(preview).to_contain_text("“Save and play now” seats you as agent 1 and the planner as the other")
        page.screenshot(path=str(shots / f"studio-{case.domain}-preview.png"), full_page=True)

        page.click("text=Save and play now")
        page.wait_for_url(re.compile(r"/games/\d+/$"))
        game_id = int(re.search(r"/games/(\d+)/$", page.url).group(1))
        page.wait_for_function("() => window.htmx && document.querySelector('[ws-connect]')")
        page.wait_for_timeout(500)
        deadline, moves = time.monotonic() + 240, 0
        while not page.locator("#game-result h2").is_visible() and time.monotonic() < deadline:
            choice = decide(case.domain, page)
            button = page.locator(f"#game-actions button.action[data-action='{choice}']")
            if choice != "w" and choice and button.count():
                press(page, button.first)
                moves += 1
                if moves == 2:
                    page.wait_for_timeout(400)
                    page.screenshot(path=str(shots / f"studio-{case.domain}-playing.png"), full_page=True)
            elif page.locator("#game-actions button.action[data-key='w']").count():
                page.keyboard.press("w")  # nothing worth doing: wait
            page.wait_for_timeout(500)  # the update comes back; a person reads it
        expect(page.locator("#game-result h2")).to_be_visible()
        page.screenshot(path=str(shots / f"studio-{case.domain}-played.png"), full_page=True)
        facts = shown_facts(page)
        saved = stored(stack, game_id)
    assert not errors, errors
    assert saved["status"] == "finished" and moves >= 3, (saved["status"], moves)
    assert tuple(saved["seats"]) == case.seats
    assert facts, "the result panel shows the game's figures"
