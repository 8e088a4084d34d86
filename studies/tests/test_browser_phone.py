"""The researcher's study pages on a 390 px phone (Debian's chromium, touch): the designer was
504 px wide, each questionnaire statement's box squeezed to about 20 px with its Save and Remove
cut off, the conditions' "Remove" cut to "Rem…"; the studies list was 709 px wide. Nothing may
scroll the page sideways, and every box and button of the designer stays inside the screen."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}

# every visible form control or button whose box reaches past the screen's right edge
CUT_OFF = """
() => Array.from(document.querySelectorAll('main input:not([type=hidden]), main button, main select, main textarea'))
  .filter((e) => e.offsetParent !== null)
  .map((e) => [e.getAttribute('aria-label') || e.name || e.textContent.trim(), e.getBoundingClientRect()])
  .filter(([, r]) => r.right > window.innerWidth + 0.5)
  .map(([name, r]) => `${name}: ${Math.round(r.left)}-${Math.round(r.right)}`)
"""


def phone_page(browser, live_server):
    """A phone's page signed in as the researcher (the ``researcher`` fixture's account)."""
    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", "res")
    page.fill("#id_password", "pw-researcher-1")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state()
    return page


def page_width(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth")


def test_the_studies_list_fits_a_phone(live_server, browser, make_study, shots):
    make_study()
    page = phone_page(browser, live_server)
    page.goto(f"{live_server.url}/studies/")
    width = page_width(page)
    page.screenshot(path=shots / "studies-list-phone-390.png", full_page=True)
    assert width <= PHONE["width"], width  # it was 709 px: the table scrolls in its box instead
    assert page.get_by_role("button", name="Create study").bounding_box()["x"] >= 0


def test_the_designer_fits_a_phone(live_server, browser, make_study, shots):
    from studies import services

    study = make_study(
        conditions=(("Alone", "none", 0), ("Two random NPCs", "random", 2), ("Three random NPCs", "random", 3))
    )
    services.set_status(study, "draft")  # a draft's designer has every edit form (Save, Remove)
    page = phone_page(browser, live_server)
    page.goto(f"{live_server.url}/studies/{study.pk}/")
    design_width = page_width(page)
    cut_off = page.evaluate(CUT_OFF)
    statements = page.eval_on_selector_all(
        "#questionnaire input[name=text]", "es => es.map((e) => e.getBoundingClientRect().width)"
    )
    remove = page.get_by_role("button", name="Remove Three random NPCs").bounding_box()
    page.locator("#conditions").screenshot(path=shots / "study-design-phone-390-conditions.png")
    page.locator("#questionnaire").screenshot(path=shots / "study-design-phone-390-questionnaire.png")
    page.screenshot(path=shots / "study-design-phone-390.png")

    assert design_width <= PHONE["width"], design_width
    assert cut_off == [], cut_off
    assert statements and min(statements) >= 250, statements  # a statement's box reads (it was about 20 px)
    assert remove["x"] + remove["width"] <= PHONE["width"], remove
