"""A real browser labels a recipe with the keyboard only (Playwright + Debian's chromium)."""

from __future__ import annotations

import pytest

from annotations import services
from annotations.models import Assignment, Label
from annotations.tests.factories import make_annotator, make_recipe, tied_project

pytestmark = [
    pytest.mark.browser,
]


def _sign_in(page, live_server, username: str, password: str, path: str) -> None:
    """Sign in through the login form, as a person does (Enter in the password), then open ``path``."""
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.press("input[name=password]", "Enter")
    page.goto(f"{live_server.url}{path}")


@pytest.mark.django_db(transaction=True)
def test_label_a_recipe_with_the_keyboard(live_server, browser):
    amy = make_annotator("amy", password="pw-annotator-1")
    project = services.create_project(
        name="Keyboard",
        recipes=[
            make_recipe(
                "Tea",
                steps=[
                    ("Boil the water.", 180, [], {}, False, True, {"stove": {"require": {}, "update": {}}}),
                    ("Pour it over the tea.", 30, [0], {"0": 2}, False, False, {}),
                ],
            )
        ],
        properties=["concurrency", "interruptibility", "resource", "time_constraint"],
        annotators=[amy],
        annotators_per_item=1,
    )
    unit = project.recipes.get()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "amy")
    page.fill("input[name=password]", "pw-annotator-1")
    page.click("button[type=submit]")
    page.goto(f"{live_server.url}/annotate/recipes/{unit.pk}/")
    # the header's "Sign out" sat 13 px below the user name (it took every form's submit margin)
    name, sign_out = (page.locator(s).bounding_box() for s in (".site-header .username", ".site-header .link-button"))
    assert name and sign_out and abs(sign_out["y"] - name["y"]) < 2
    assert page.locator("#shortcuts").is_visible()  # the shortcuts are documented on the page

    # Step 0: autonomous, not interruptible, stove, no time constraint.
    for key in ("a", "n", "s", "x"):
        page.keyboard.press(key)
    page.wait_for_function("document.querySelector('#label-progress .hint').textContent.startsWith('4 of 8')")
    # the first step follows no other: no minutes to fill in (nor to tab into), and it says why
    assert page.locator("#step-0 .control-time_constraint input.minutes").count() == 0
    assert "No earlier step to follow" in page.locator("#step-0 .control-time_constraint").inner_text()
    assert page.locator("#step-1 .control-time_constraint input.minutes").is_visible()
    # Step 1: continuous, not interruptible, no resource, within 2 min after step 0.
    page.keyboard.press("j")
    for key in ("c", "n", "0"):
        page.keyboard.press(key)
    page.keyboard.press("t")
    page.keyboard.press("ArrowDown")  # "(not labelled)" -> "No time constraint"
    page.keyboard.press("ArrowDown")  # -> "After step 0"
    status = page.locator("#step-1 .control-time_constraint .save-status")
    status.filter(has_text="now enter within how many minutes").wait_for()
    # the keys passed "No time constraint" on the way: only where they stopped is sent, and that
    # waits for its minutes (each ArrowDown saved: "none" was stored, a label never chosen)
    assert not Label.objects.filter(item__step=1, property="time_constraint").exists()
    assert page.locator("#label-progress .hint").inner_text().startswith("7 of 8")
    # the half entry (a step, no minutes yet) is kept by the browser: a reload puts it back
    page.reload()
    status.filter(has_text="now enter within how many minutes after step 0").wait_for()
    assert page.locator("#step-1 select[name=k]").input_value() == "0"
    assert not Label.objects.filter(item__step=1, property="time_constraint").exists()
    page.keyboard.press("t")  # the page opens on step 1, the first with a label missing
    page.keyboard.press("Tab")  # into the minutes
    page.keyboard.type("99999")  # out of range: refused by the field, and the page says so
    page.keyboard.press("Enter")
    status.filter(has_text="Not saved: the minutes must be a whole number from 1 to 999 (not 99999)").wait_for()
    page.keyboard.press("Control+A")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    status.filter(has_text="Saved").wait_for()
    page.wait_for_function("document.querySelector('#label-progress .hint').textContent.startsWith('8 of 8')")
    # saved controls are tinted as they are after a reload (they were only then)
    assert page.locator("#step-1 form.control-time_constraint.done").count() == 1
    assert page.locator("#step-0 form.control.done").count() == 4

    page.reload()  # nothing lost on reload
    assert page.locator("#label-progress .hint").inner_text().startswith("8 of 8")
    page.wait_for_load_state("load")  # the half entry kept before is gone once saved: no "now enter"
    assert page.locator("#step-1 input[name=n]").input_value() == "2"
    assert page.locator("#step-1 .control-time_constraint .save-status").inner_text() == ""
    mine = {(lab.item.step, lab.property): lab.value for lab in Label.objects.select_related("item")}
    assert mine == {
        (0, "concurrency"): "autonomous",
        (0, "interruptibility"): "not_interruptible",
        (0, "resource"): "stove",
        (0, "time_constraint"): "none",
        (1, "concurrency"): "continuous",
        (1, "interruptibility"): "not_interruptible",
        (1, "resource"): "none",
        (1, "time_constraint"): "0:2",
    }
    page.once("dialog", lambda dialog: dialog.accept())  # "Submit Tea? Its labels become final"
    page.click("#submit-recipe")
    assert "Submitted Tea" in page.content()
    page.close()


def _long_stew(live_server, browser, *, labelled: int):
    """amy's page of a 12-step recipe (one property), its first ``labelled`` steps labelled, 700 px high."""
    amy = make_annotator("amy", password="pw-annotator-1")
    steps = [(f"Step number {i} of a long recipe.", 60, [i - 1] if i else [], {}, False, False, {}) for i in range(12)]
    project = services.create_project(
        name="Long",
        recipes=[make_recipe("Stew", steps=steps)],
        properties=["concurrency"],
        annotators=[amy],
        annotators_per_item=1,
    )
    unit = project.recipes.get()
    for item in unit.items.filter(step__lt=labelled):
        services.save_label(user=amy, item=item, prop="concurrency", value="continuous")
    page = browser.new_page(viewport={"width": 1280, "height": 700})
    _sign_in(page, live_server, "amy", "pw-annotator-1", f"/annotate/recipes/{unit.pk}/")
    return page


@pytest.mark.django_db(transaction=True)
def test_a_refused_submit_keeps_its_reason_in_view(live_server, browser):
    """Submitting half a recipe reloads the page with what is missing; the page then jumped to the
    first open step, far below, and the reason was out of sight."""
    page = _long_stew(live_server, browser, labelled=10)
    assert page.evaluate("window.scrollY") > 0  # it opens at the first open step, step 10
    page.click("#submit-recipe")
    reason = page.locator(".messages .message.error")
    reason.wait_for()
    assert "missing step 10: concurrency" in reason.inner_text()
    box = reason.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 700, box
    page.close()


@pytest.mark.django_db(transaction=True)
def test_a_reload_opens_on_the_step_the_keys_act_on(live_server, browser):
    """Reloaded while reading further down, the page went back there while the keys labelled the
    first unlabelled step, out of sight above."""
    page = _long_stew(live_server, browser, labelled=0)
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_function("window.scrollY > 500")
    page.reload()
    page.wait_for_load_state("load")
    active = page.locator(".step.active")
    assert active.get_attribute("id") == "step-0"
    box = active.bounding_box()
    assert box is not None and box["y"] < 700 and box["y"] + box["height"] > 0, box
    page.close()


@pytest.mark.django_db(transaction=True)
def test_a_researcher_sends_a_studio_recipe_pair_to_annotators(live_server, browser, researcher):
    """From the pair's page: "Label its steps", the project form comes with its recipes ticked and a
    name; the annotator finds the studio recipe in their queue."""
    import json

    from games.scenarios import save_scenario
    from games.studio.authoring import parse_recipes

    make_annotator("amy", password="pw-annotator-1")
    jam = {"name": "Jam", "steps": [{"text": "Boil the fruit.", "time": "20 min", "autonomous": True}]}
    scones = {"name": "Scones", "steps": [{"text": "Rub in the butter.", "time": "8 min", "interruptible": True}]}
    scenario, _ = save_scenario(
        domain="recipes",
        slug="studio/cream-tea",
        title="Cream tea",
        source="studio",
        definition=parse_recipes("cream-tea", json.dumps([jam, scones])),
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})

    def sign_in(user, password):
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", user)
        page.fill("input[name=password]", password)
        page.press("input[name=password]", "Enter")
        page.wait_for_load_state("networkidle")

    sign_in("res", "pw-researcher-1")
    page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
    page.get_by_role("button", name="Label its steps").click()
    page.wait_for_load_state("networkidle")
    assert "Chosen for labelling: Jam, Scones" in page.inner_text(".messages")
    assert page.get_by_label("Name").input_value() == "Labels: Cream tea"
    assert page.get_by_label("Jam (v1, 1 step, studio:studio/cream-tea)").is_checked()
    assert page.get_by_label("Scones (v1, 1 step, studio:studio/cream-tea)").is_checked()
    page.get_by_label("amy", exact=True).check()
    page.get_by_label("Annotators per item").fill("1")
    page.get_by_role("button", name="Create project").click()
    page.wait_for_load_state("networkidle")
    assert "Project “Labels: Cream tea” created" in page.inner_text(".messages")
    page.screenshot(path="/tmp/arena-label-its-steps.png", full_page=True)

    page.get_by_role("button", name="Sign out").click()
    sign_in("amy", "pw-annotator-1")
    page.goto(f"{live_server.url}/annotate/")
    page.get_by_role("link", name="Continue with Jam").click()
    page.wait_for_load_state("networkidle")
    assert "Boil the fruit." in page.inner_text("main")


@pytest.mark.django_db(transaction=True)
def test_a_saved_time_constraint_is_what_the_page_shows(live_server, browser, shots):
    """Playtest: "after step 3, within 10 min" saved on step 4; the annotator emptied the minutes
    and pressed Enter, then reloaded. The page said "now enter within how many minutes after step
    3" beside an empty box, across reloads (the browser kept it as a half entry), the badge said
    "✓ labelled" and the server still held 3:10, which submitting made final."""
    amy = make_annotator("amy", password="pw-annotator-1")
    project = services.create_project(
        name="Tester pilot",
        recipes=[make_recipe("Lemonade")],
        properties=["time_constraint"],
        annotators=[amy],
        annotators_per_item=1,
    )
    unit = project.recipes.get()
    step4 = unit.items.get(step=4)
    services.save_label(user=amy, item=step4, prop="time_constraint", value="3:10")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _sign_in(page, live_server, "amy", "pw-annotator-1", f"/annotate/recipes/{unit.pk}/")
    page.wait_for_load_state("load")
    minutes = page.locator("#step-4 input[name=n]")
    status = page.locator("#step-4 .control-time_constraint .save-status")
    minutes.fill("")
    minutes.press("Enter")
    stays = "Minutes empty, so nothing changed: the saved label stays (after step 3, within 10 min)"
    status.filter(has_text=stays).wait_for()
    assert "To remove it, choose “(not labelled yet)”" in status.inner_text()
    assert minutes.input_value() == "10"  # the box shows what is saved
    assert page.locator("#step-4 select[name=k]").input_value() == "3"
    page.locator("#step-4").screenshot(path=str(shots / "annotations-constraint-minutes-emptied.png"))

    page.reload()
    page.wait_for_load_state("load")
    assert minutes.input_value() == "10" and status.inner_text() == ""
    assert "✓ labelled" in page.locator(f"#status-{step4.pk}").inner_text()
    # a half entry the browser kept before this change (step 3, no minutes) is not put over it
    key = f"arena:half-constraint:{amy.pk}:control-{step4.pk}-time_constraint"
    page.evaluate(f"localStorage.setItem({key!r}, JSON.stringify({{k: '3', n: ''}}))")
    page.reload()
    page.wait_for_load_state("load")
    page.wait_for_timeout(300)
    assert minutes.input_value() == "10" and "now enter" not in status.inner_text()
    assert page.evaluate(f"localStorage.getItem({key!r})") is None

    # the way the message gives removes the label, and the box empties with it
    page.select_option("#step-4 select[name=k]", "")
    status.filter(has_text="Cleared").wait_for()
    assert minutes.input_value() == ""
    assert not Label.objects.filter(item=step4, property="time_constraint").exists()
    assert "to label" in page.locator(f"#status-{step4.pk}").inner_text()
    page.close()


@pytest.mark.django_db(transaction=True)
def test_submit_asks_first_and_says_how_many_labels_are_missing(live_server, browser, shots):
    """The page says submitting makes the labels final, yet one click (or Enter) did it unasked."""
    page = _long_stew(live_server, browser, labelled=10)
    missing = page.locator("#submit-missing")
    assert missing.inner_text() == "2 labels missing"
    page.locator(".label-head").screenshot(path=str(shots / "annotations-submit-missing.png"))
    page.keyboard.press("c")  # the page opens on step 10
    missing.filter(has_text="1 label missing").wait_for()
    page.keyboard.press("j")
    page.keyboard.press("c")
    page.wait_for_function("document.getElementById('submit-missing').textContent.trim() === ''")
    asked = []

    def answer(dialog, accept):
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, False))
    page.focus("#submit-recipe")
    page.keyboard.press("Enter")  # a keyboard user answers the same question
    page.wait_for_timeout(300)
    assert asked == ["Submit Stew? Its labels become final: you cannot change them afterwards."]
    assert Assignment.objects.get().submitted_at is None and "Submitted" not in page.inner_text("main")
    page.once("dialog", lambda dialog: answer(dialog, True))
    page.keyboard.press("Enter")
    page.wait_for_load_state("load")
    page.locator(".messages").filter(has_text="Submitted Stew").wait_for()
    assert len(asked) == 2 and Assignment.objects.get().submitted_at is not None
    page.close()


@pytest.mark.django_db(transaction=True)
def test_enter_through_adjudication_leaves_a_tie_to_the_adjudicator(live_server, browser, researcher, shots):
    """A 1-vs-1 tie came pre-filled with one side beside "press Enter to accept"."""
    from annotations.models import GoldLabel

    project = tied_project()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    adjudicate = f"/annotate/projects/{project.pk}/adjudicate/"
    _sign_in(page, live_server, "res", "pw-researcher-1", f"{adjudicate}?filter=disputed")
    assert page.locator("#gold-concurrency").input_value() == ""
    page.locator("#gold-form").screenshot(path=str(shots / "annotations-adjudicate-tie.png"))
    page.keyboard.press("Enter")  # "Save gold" has the focus
    page.wait_for_load_state("load")
    assert "left undecided: concurrency" in page.inner_text(".messages")
    assert "Nothing left in this list" in page.inner_text("main")
    page.screenshot(path=str(shots / "annotations-adjudicate-list-done.png"))
    assert not GoldLabel.objects.filter(property="concurrency").exists()
    assert GoldLabel.objects.get(property="resource", item__step=4).value == "none"
    page.close()


@pytest.mark.django_db(transaction=True)
def test_a_refused_typed_gold_label_can_be_mended_in_place(live_server, browser, researcher, shots):
    """Typed "abc" as gold, refused: the box was empty again and the message named "time_constraint"
    and "Garlic-Bread/2"."""
    from annotations.models import GoldLabel

    project = services.create_project(
        name="Typed",
        recipes=[make_recipe("Garlic-Bread")],
        properties=["time_constraint"],
        annotators=[make_annotator("amy")],
        annotators_per_item=1,
    )
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    adjudicate = f"/annotate/projects/{project.pk}/adjudicate/"
    _sign_in(page, live_server, "res", "pw-researcher-1", f"{adjudicate}?filter=all&item=Garlic-Bread/2")
    page.fill("#gold-time_constraint-other", "abc")
    with page.expect_navigation():
        page.press("#gold-time_constraint-other", "Enter")
    message = page.inner_text(".messages")
    assert message.startswith("Gold for Garlic Bread, step 2 not saved: time constraint “abc” is not a label"), message
    box = page.locator("#gold-time_constraint-other")
    assert box.input_value() == "abc"
    assert page.evaluate("document.activeElement.id") == "gold-time_constraint-other"  # ready to mend
    page.screenshot(path=str(shots / "annotations-gold-typed-refused.png"))
    page.keyboard.press("Control+A")
    page.keyboard.type("1:5")
    with page.expect_navigation():  # the old page's message stood until the new page came
        page.keyboard.press("Enter")
    assert "Saved 1 gold label for Garlic Bread, step 2" in page.inner_text(".messages")
    assert GoldLabel.objects.get().value == "1:5"
    page.close()


@pytest.mark.django_db(transaction=True)
def test_a_phone_gets_choices_a_finger_can_press(live_server, browser, shots):
    """On a phone (coarse pointer) the labelling page's choice chips were about 27 px high."""
    amy = make_annotator("amy", password="pw-annotator-1")
    project = services.create_project(
        name="Phone",
        recipes=[make_recipe("Cobbler")],
        properties=["concurrency", "interruptibility", "resource", "time_constraint", "dependency"],
        annotators=[amy],
        annotators_per_item=1,
    )
    unit = project.recipes.get()
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    _sign_in(page, live_server, "amy", "pw-annotator-1", f"/annotate/recipes/{unit.pk}/")
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")
    heights = page.eval_on_selector_all(
        "#step-2 .chip, #step-2 .constraint select, #step-2 .constraint input.minutes",
        "els => els.map(e => [e.textContent.trim() || e.name, e.getBoundingClientRect().height])",
    )
    assert len(heights) == 13, heights  # 2 + 2 + 4 chips, none + 2 earlier steps, the select, the minutes
    assert all(height >= 44 for _, height in heights), heights
    page.locator("#step-2").screenshot(path=str(shots / "annotations-phone-choices.png"))
    # the page's head (crumbs, title, progress, Submit) stood over a fifth of the screen at every
    # step: it scrolls away with the page
    page.locator("#step-4").scroll_into_view_if_needed()
    head = page.locator(".label-head").bounding_box()
    assert head is not None and head["y"] + head["height"] <= 0, head
    page.close()
