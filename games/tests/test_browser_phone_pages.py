"""The researcher's list pages on a 390 px phone (Debian's chromium, touch): the scenario list was
576 px wide, so the whole page scrolled sideways; its table scrolls in its own box instead."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.test import Client

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def phone_page(browser, live_server, user):
    """A phone's page (touch) signed in as ``user`` by its session cookie."""
    page = browser.new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    client = Client()
    client.force_login(user)
    cookie = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies([{"name": django_settings.SESSION_COOKIE_NAME, "value": cookie, "url": live_server.url}])
    return page


def test_the_scenario_list_fits_a_phone(live_server, browser, researcher, shots):
    from importlib import import_module

    for domain in ("tasks", "recipes", "kitchen", "itinerary"):
        import_module(f"games.importers.bundled_{domain}").load(log=lambda line: None)
    page = phone_page(browser, live_server, researcher)
    page.goto(f"{live_server.url}/scenarios/")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    box = page.evaluate(
        "() => { const b = document.querySelector('#scenario-rows .table-scroll');"
        " return b ? b.getBoundingClientRect().right : null; }"
    )
    page.screenshot(path=str(shots / "scenarios-phone-390.png"))
    assert width <= PHONE["width"], width
    assert box is not None and box <= PHONE["width"], box


def test_the_new_game_form_tells_a_keyboard_only_how_to_pick_several(live_server, browser, researcher, shots):
    """The hint "Ctrl/Cmd-click to pick several" was shown on a phone, which has neither."""
    from importlib import import_module

    import_module("games.importers.bundled_tasks").load(log=lambda line: None)
    phone = phone_page(browser, live_server, researcher)
    phone.goto(f"{live_server.url}/games/new/")
    phone.screenshot(path=str(shots / "new-game-phone-390.png"))
    on_phone = phone.get_by_text("Ctrl/Cmd-click to pick several").is_visible()
    desktop = browser.new_page(viewport={"width": 1366, "height": 900})
    desktop.context.add_cookies(phone.context.cookies())
    desktop.goto(f"{live_server.url}/games/new/")
    assert not on_phone
    assert desktop.get_by_text("Ctrl/Cmd-click to pick several").is_visible()


def test_a_participants_dashboard_lists_every_unfinished_game(live_server, browser, participant, researcher, shots):
    """The dashboard offered one "Continue playing", for the newest game made, while the participant
    was playing an older one; and did not say that a researcher sets their games up."""
    from games import services
    from games.domains.tasks.tests.helpers import RICE
    from games.scenarios import save_scenario

    save_scenario(domain="tasks", slug="test/rice", title="Rice", source="test", definition=RICE)
    seats = [{"kind": "human", "user": participant}]
    played = services.create_game("test/rice", seats, clock="lockstep", created_by=researcher)
    newer = services.create_game("test/rice", seats, clock="lockstep", created_by=researcher)
    services.apply_action(played.pk, agent=0, action="pick rice")  # the older one is the one being played
    done = services.create_game("test/rice", seats, clock="lockstep", created_by=researcher)
    services.finish(done.pk, reason="test")
    page = phone_page(browser, live_server, participant)
    page.goto(f"{live_server.url}/")
    page.screenshot(path=str(shots / "dashboard-participant-phone-390.png"))
    links = page.get_by_role("link", name="Continue playing").all()
    hrefs = [link.get_attribute("href") for link in links]
    assert hrefs == [f"/games/{played.pk}/", f"/games/{newer.pk}/"], hrefs
    assert page.get_by_text("A researcher sets your games up").is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
