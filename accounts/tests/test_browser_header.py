"""The site header on a 390 px phone (Debian's chromium, touch): a researcher's eight links, role and
Sign out took three rows, about 230 of the phone's 844 px, on every page. On a narrow screen they
fold into one "Menu" button beside the site's name, which the keyboard opens (Enter) and closes
(Escape); on a wide screen they stay in the header as before."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.test import Client

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


def signed_in_page(browser, live_server, user, viewport, **options):
    page = browser.new_page(viewport=viewport, **options)
    client = Client()
    client.force_login(user)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
    return page


def header_height(page) -> float:
    return page.evaluate("() => document.querySelector('.site-header').getBoundingClientRect().height")


def test_the_researchers_header_is_one_row_on_a_phone_and_opens_by_keyboard(live_server, browser, researcher, shots):
    page = signed_in_page(browser, live_server, researcher, PHONE, is_mobile=True, has_touch=True)
    page.goto(f"{live_server.url}/studies/")
    studies = page.get_by_role("link", name="Studies", exact=True)
    folded_height = header_height(page)
    folded_links = studies.is_visible()
    page.screenshot(path=str(shots / "header-phone-390.png"))
    assert folded_height <= 70, folded_height  # one row (it was about 230 px)
    assert not folded_links
    menu = page.locator(".site-menu > summary")
    menu.focus()
    page.keyboard.press("Enter")
    studies.wait_for()
    page.screenshot(path=str(shots / "header-phone-390-menu-open.png"))
    page.keyboard.press("Tab")  # into the links
    first_link = page.evaluate("() => document.activeElement.textContent.trim()")
    signs_out = page.get_by_role("button", name="Sign out").is_visible()
    page.keyboard.press("Escape")  # folds it again, back on the Menu button
    closed_again = not studies.is_visible()
    on_menu = page.evaluate("() => document.activeElement.tagName")
    width = page.evaluate("() => document.documentElement.scrollWidth")

    assert first_link == "Dashboard" and signs_out
    assert closed_again and on_menu == "SUMMARY"
    assert width <= PHONE["width"], width


def test_the_header_keeps_its_links_on_a_wide_screen(live_server, browser, researcher, shots):
    page = signed_in_page(browser, live_server, researcher, DESKTOP)
    page.goto(f"{live_server.url}/studies/")
    page.screenshot(path=str(shots / "header-desktop-1366.png"))
    assert page.get_by_role("link", name="Studies", exact=True).is_visible()
    assert page.get_by_role("button", name="Sign out").is_visible()
    assert not page.locator(".site-menu > summary").is_visible()  # no Menu button to press
    assert header_height(page) <= 70, header_height(page)
