"""A researcher's game pages in a real browser (Playwright): the new-game form with an LLM teammate,
and the games list, where the games players left paused are found and stopped."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from games import services
from games.models import Game, GameStatus
from games.npc.tests.test_browser import SCREENSHOTS, researcher_page

pytestmark = [pytest.mark.browser]


@pytest.mark.django_db(transaction=True)
def test_stop_the_games_left_paused_from_the_games_list(live_server, browser, django_user_model, toy_scenario):
    from accounts.roles import Role, grant

    rita = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(rita, Role.RESEARCHER)
    player = django_user_model.objects.create_user("pat")
    games: list[Game] = []

    def set_up() -> None:  # off Playwright's event loop, where the services' broadcasts cannot run
        games.extend(services.create_game("test/toy", [{"kind": "human", "user": player}]) for _ in range(2))
        services.pause(games[0].pk, reason="disconnect")

    thread = threading.Thread(target=set_up)
    thread.start()
    thread.join()
    left, playing = games
    Game.objects.filter(pk=left.pk).update(anchor_at=timezone.now() - timedelta(days=3))

    page = researcher_page(live_server, browser, rita)
    page.goto(f"{live_server.url}/games/")
    callout = page.locator("form.callout")
    assert "1 game has been paused for more than a day" in callout.inner_text()
    page.get_by_label("Status").select_option(label="Paused")  # the list follows the filter
    page.wait_for_url("**status=paused**")
    rows = page.locator("table tbody tr")
    assert rows.count() == 1 and rows.first.locator("td").nth(4).inner_text().split() == ["paused", "for", "3", "days"]
    page.on("dialog", lambda dialog: dialog.accept())  # "Stop 1 game left paused …?"
    page.get_by_role("button", name="Stop it").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Stopped 1 game left paused for more than a day")
    page.screenshot(path=str(SCREENSHOTS / "games-list-stopped.png"), full_page=True)
    assert "No games match these filters." in page.locator("main").inner_text()
    assert Game.objects.get(pk=left.pk).status == GameStatus.FINISHED
    assert Game.objects.get(pk=playing.pk).status == GameStatus.RUNNING  # a game still being played stays


@pytest.mark.django_db(transaction=True)
def test_a_new_game_with_an_llm_teammate_asks_how_it_answers(
    live_server, browser, django_user_model, settings, monkeypatch
):
    from accounts.roles import Role, grant
    from arena_site import background
    from games.importers import bundled_tasks

    # the teammate's turns play no part here: its work is noted, not run (a thread asking a model
    # that is not there would go on after the test)
    queued: list[str] = []
    settings.BACKGROUND_INLINE = False
    monkeypatch.setattr(background, "submit", lambda name, *args, **kwargs: queued.append(name))
    bundled_tasks.load(log=lambda line: None)
    rita = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(rita, Role.RESEARCHER)
    page = researcher_page(live_server, browser, rita)
    page.goto(f"{live_server.url}/games/new/")
    held = page.get_by_label("Hold LLM teammates' replies to legal actions")
    assert not held.is_visible()  # no LLM seat yet: nothing to ask
    page.get_by_label("Scenario", exact=True).select_option("bundled/make-tea")
    # "play together with" offers every other tasks scenario, not the chosen one itself
    together = page.get_by_label("Play together with")
    offered = together.evaluate("s => Array.from(s.options).filter(o => !o.hidden).map(o => o.value)")
    assert "bundled/make-tea" not in offered and len(offered) >= 2, offered
    page.get_by_label("Player 2", exact=True).select_option(label="NPC: LLM dispatcher")
    assert held.is_visible() and held.is_checked()  # small models act only when held
    page.get_by_label("Player 2", exact=True).select_option(label="NPC: random (baseline)")
    assert not held.is_visible()
    page.get_by_label("Player 3", exact=True).select_option(label="NPC: LLM dispatcher")
    assert held.is_visible()
    page.screenshot(path=str(SCREENSHOTS / "games-new-llm-teammate.png"), full_page=True)
    from games.agents.tests.stub_server import stub_endpoint

    with stub_endpoint(lambda messages: "OK") as endpoint:  # the form asks the model server first
        settings.LLM_BASE_URL = endpoint.base_url
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_url("**/games/*/")
    game = Game.objects.get()
    assert [(s.dispatcher, s.settings) for s in game.seats.order_by("agent")][1:] == [
        ("random", {}),
        ("llm", {"prompt": {"constrained": True}}),
    ]
    assert "npc.turns" in queued  # the teammates were asked for their first move


def test_the_new_game_form_says_when_a_kitchen_is_written_for_more_cooks(live_server, browser, django_user_model):
    # a newcomer played the warm-up kitchen, written for 2 cooks, alone: the form's default seats
    from accounts.roles import Role, grant
    from games.importers import bundled_kitchen, bundled_tasks

    bundled_kitchen.load(log=lambda line: None)
    bundled_tasks.load(log=lambda line: None)
    rita = django_user_model.objects.create_user("rita", password="pw-researcher-1")
    grant(rita, Role.RESEARCHER)
    page = researcher_page(live_server, browser, rita)
    page.goto(f"{live_server.url}/games/new/")
    hint = page.locator("[data-crew-hint]")
    page.get_by_label("Scenario", exact=True).select_option("bundled/warm-up")
    assert hint.is_visible() and "written for 2 cooks" in hint.inner_text()
    page.screenshot(path=str(SCREENSHOTS / "games-new-kitchen-crew.png"), full_page=True)
    page.get_by_label("Player 2", exact=True).select_option(label="NPC: planner")
    assert not hint.is_visible()  # the crew is complete
    page.get_by_label("Player 2", exact=True).select_option(label="— empty —")
    assert hint.is_visible()
    page.get_by_label("Scenario", exact=True).select_option("bundled/make-tea")
    assert not hint.is_visible()  # not a kitchen
