"""The game pages: lists, creating a game, the play/watch page, control, replay; and who sees what."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import presenters, selectors, services
from games.engine import registry
from games.models import Game, GameEvent, GameStatus, Seat

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(toy_scenario, participant):
    return services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="real_time")


def test_player_sees_the_play_page_with_actions(client, participant, game):
    client.force_login(participant)
    page = client.get(reverse("games:play", args=[game.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert f'ws-connect="/ws/games/{game.pk}/?format=html"' in html
    assert "do sweep" in html and 'data-key="1"' in html and 'data-key="w"' in html
    assert "Timeline" in html and "Score over time" in html


def test_every_page_names_its_icon_so_browsers_do_not_ask_for_a_missing_favicon(client, participant, game):
    import re

    from django.contrib.staticfiles import finders

    pages = [client.get("/accounts/login/")]
    client.force_login(participant)
    pages.append(client.get(reverse("games:play", args=[game.pk])))
    for page in pages:
        assert page.status_code == 200
        html = page.content.decode()
        found = re.search(r'<link rel="icon" href="/static/([^"]+)"', html)
        assert found and finders.find(found.group(1)), html[:300]


def test_researcher_watches_with_controls(client, researcher, game):
    client.force_login(researcher)
    html = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert (
        "you are watching live" in html
        and "Pause" in html
        and "do sweep" not in html.split('id="game-actions"')[1].split("</section>")[0]
    )


def test_other_participants_get_404(client, django_user_model, game):
    stranger = django_user_model.objects.create_user("stranger")
    client.force_login(stranger)
    assert client.get(reverse("games:play", args=[game.pk])).status_code == 404
    assert client.get(reverse("games:replay", args=[game.pk])).status_code == 404


def test_participants_cannot_stop_games(client, participant, game):
    client.force_login(participant)
    response = client.post(reverse("games:control", args=[game.pk]), {"operation": "stop"})
    assert response.status_code == 403
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING


def test_researcher_stops_a_game(client, researcher, game):
    client.force_login(researcher)
    client.post(reverse("games:control", args=[game.pk]), {"operation": "stop"})
    assert Game.objects.get(pk=game.pk).status == GameStatus.FINISHED
    html = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "Watch the replay" in html
    assert f'href="{reverse("games:mine")}">Back to My games</a>' in html  # the end had no way on
    # said as "stopped", not "finished" as if its rules had ended it, here and in the games list
    assert '<span class="badge warn" title="stopped by a researcher">stopped</span>' in html
    assert ">finished</span>" not in html
    listed = client.get(reverse("games:list")).content.decode()
    assert ">stopped</span>" in listed and ">finished</span>" not in listed


def test_a_stopped_trip_says_it_is_over_not_the_time_it_had_left(client, researcher, participant):
    from games.tests.test_domains_ws import load_scenario

    game = services.create_game(load_scenario("itinerary"), [{"kind": "human", "user": participant}], clock="lockstep")
    client.force_login(researcher)
    client.post(reverse("games:control", args=[game.pk]), {"operation": "stop"})
    html = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "the trip is over" in html and "data-minutes-left" not in html


def test_my_games_and_the_list(client, participant, researcher, game):
    client.force_login(participant)
    assert "Toy chores" in client.get(reverse("games:mine")).content.decode()
    Seat.objects.filter(user=participant).delete()
    empty = client.get(reverse("games:mine")).content.decode()
    assert "No games yet. The link a researcher sent you starts your study" in empty and "Start one." not in empty
    assert client.get(reverse("games:list")).status_code == 403
    client.force_login(researcher)
    assert "Toy chores" in client.get(reverse("games:list")).content.decode()


def test_my_games_reads_a_page_of_games_in_a_fixed_number_of_queries(client, participant, toy_scenario):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def play(count: int) -> None:
        for _ in range(count):
            services.create_game(
                "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}]
            )

    def queries() -> int:
        with CaptureQueriesContext(connection) as done:
            html = client.get(reverse("games:mine")).content.decode()
        assert "Teammate 1 (random NPC)" in html  # not a study's game: its teammate is named
        return len(done)

    client.force_login(participant)
    play(2)
    few = queries()
    play(10)
    # it read each game's seats and asked the studies app whether each is blinded, one game at a time
    assert queries() == few


def test_researcher_creates_a_game_with_an_npc_seat(client, researcher, participant, toy_scenario):
    client.force_login(researcher)
    assert client.get(reverse("games:create")).status_code == 200
    response = client.post(
        reverse("games:create"),
        {
            "scenario": "test/toy",
            "player": "par",
            "clock": "real_time",
            "seconds_per_unit": "2",
            "disconnect_policy": "pause",
            "seed": "0",
            "seat1": "npc:random",
        },
    )
    game = Game.objects.get()
    assert response.status_code == 302 and response.url == reverse("games:play", args=[game.pk])
    assert game.speed == 0.5 and [s.kind for s in game.seats.all()] == ["human", "npc"]


def test_the_create_form_offers_people_who_can_sign_in_not_participation_accounts(client, researcher, participant):
    """Each study participation makes a login-less account: 3,000 of them made the form 1 MB of
    options nobody could seat (1.6-1.9 s a page)."""
    from studies.services.participation import _participant_account

    hidden = _participant_account()
    client.force_login(researcher)
    page = client.get(reverse("games:create")).content.decode()
    assert f'<option value="{participant.get_username()}"' in page
    assert hidden.get_username() not in page


def test_create_form_errors_say_what_to_fix(client, researcher, toy_scenario):
    client.force_login(researcher)
    response = client.post(
        reverse("games:create"),
        {
            "scenario": "test/toy",
            "player": "res",
            "clock": "real_time",
            "seconds_per_unit": "2",
            "disconnect_policy": "pause",
            "seed": "0",
            "seat1": "human",
        },
    )
    assert response.status_code == 200 and "Pick who plays this human seat." in response.content.decode()
    assert not Game.objects.exists()


def test_a_pace_far_faster_than_the_scenarios_own_is_refused(client, researcher, toy_scenario):
    # 0.001 s per game minute made a tasks game that was over before its player could act
    from games.engine import registry
    from games.speeds import seconds_per_unit

    own = seconds_per_unit(toy_scenario.domain, toy_scenario.definition)
    unit = registry.get(toy_scenario.domain).time_unit
    client.force_login(researcher)
    form = {**FORM, "scenario": "test/toy"}
    response = client.post(reverse("games:create"), {**form, "seconds_per_unit": "0.001"})
    assert response.status_code == 200 and not Game.objects.exists()
    assert f"this scenario&#x27;s own pace is {own:g} s per game {unit}" in response.content.decode()
    client.post(reverse("games:create"), {**form, "seconds_per_unit": str(own / 10)})
    client.post(reverse("games:create"), {**form, "clock": "lockstep", "seconds_per_unit": "0.001"})  # no clock to run
    assert [g.clock for g in Game.objects.order_by("pk")] == ["real_time", "lockstep"]


def test_replay_shows_the_board_at_any_entry(client, participant, toy_scenario):
    game = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep")
    for action in ["do sweep", "do dust", "start laundry"]:
        services.apply_action(game.pk, agent=0, action=action)
    client.force_login(participant)
    page = client.get(reverse("games:replay", args=[game.pk]))
    assert page.status_code == 200 and "As played" in page.content.decode()
    early = client.get(reverse("games:replay", args=[game.pk]), {"at": 3}, headers={"HX-Request": "true"})
    assert "t=0" in early.content.decode() and "open: sweep" not in early.content.decode()


def test_the_replay_words_a_teammates_events_in_the_third_person(client, participant, researcher):
    from games.domains.tasks.tests.helpers import RICE
    from games.scenarios import save_scenario

    save_scenario(domain="tasks", slug="test/rice", title="Rice", source="test", definition=RICE)
    seats = [{"kind": "human", "user": participant}, {"kind": "human", "user": researcher}]
    game = services.create_game("test/rice", seats, clock="lockstep")
    services.apply_action(game.pk, agent=1, action="pick rice")
    services.apply_action(game.pk, agent=0, action="wash dish")
    client.force_login(participant)
    html = client.get(reverse("games:replay", args=[game.pk])).content.decode()
    assert "is doing pick rice" in html and "You are doing pick rice" not in html
    assert "You are doing wash dish" in html  # one's own, as the rules wrote it


def test_dashboards_point_to_the_running_game(client, participant, researcher, game):
    client.force_login(participant)
    html = client.get(reverse("home")).content.decode()
    assert "Your game is waiting" in html and reverse("games:play", args=[game.pk]) in html
    client.force_login(researcher)
    html = client.get(reverse("home")).content.decode()
    assert "Games: 1 running, 0 paused" in html and 'href="/games/?status=running"' in html
    services.pause(game.pk, reason="disconnect")  # only paused games: the card leads to them
    html = client.get(reverse("home")).content.decode()
    assert "Games: 0 running, 1 paused" in html and 'href="/games/?status=paused"' in html
    assert "See the paused games" in html


def test_an_annotator_seated_in_a_game_finds_it_on_their_dashboard_and_in_the_menu(client, annotator, researcher):
    """A researcher may seat any signed-in person ("Human (a signed-in player)"); an annotator's
    dashboard and menu had their labelling queue only, so the game could be reached by its URL alone."""
    from games.domains.tasks.tests.helpers import RICE
    from games.scenarios import save_scenario

    save_scenario(domain="tasks", slug="test/rice", title="Rice", source="test", definition=RICE)
    client.force_login(annotator)
    assert "Your game is waiting" not in client.get(reverse("home")).content.decode()
    seats = [{"kind": "human", "user": researcher}, {"kind": "human", "user": annotator}]
    game = services.create_game("test/rice", seats, clock="lockstep", created_by=researcher)
    html = client.get(reverse("home")).content.decode()
    assert "Your game is waiting" in html and reverse("games:play", args=[game.pk]) in html
    assert f'href="{reverse("games:mine")}"' in html  # the menu's "My games"
    assert "Rice" in client.get(reverse("games:mine")).content.decode()
    assert client.get(reverse("games:play", args=[game.pk])).status_code == 200


def test_the_researchers_dashboard_leads_to_benchmarks_and_the_studio(client, researcher):
    # the dashboard had games, annotation and studies only: a run under way was three clicks away
    from games.npc import benchmarks
    from games.npc.models import BenchmarkRun, RunStatus
    from games.scenarios import save_scenario

    client.force_login(researcher)
    html = client.get(reverse("home")).content.decode()
    assert "Benchmarks: 0 runs, 0 under way" in html and reverse("games:benchmarks") in html
    assert "0 authored and 0 generated scenarios" in html and reverse("studio:index") in html
    save_scenario(domain="kitchen", slug="test/level", title="l", source="tests", definition={"x": 1})
    items = [{"key": "test/level|agents=1|seed=0", "scenario": "test/level", "agents": 1, "seed": 0, "options": {}}]
    run = benchmarks.create_run("kitchen", "random", items, label="warm-up baseline")
    html = client.get(reverse("home")).content.decode()
    assert "Benchmarks: 1 run, 1 under way" in html
    assert "Latest: warm-up baseline (queued, 0 of 1 episodes)" in html
    assert reverse("games:benchmark", args=[run.pk]) in html and "Watch the run" in html
    BenchmarkRun.objects.filter(pk=run.pk).update(status=RunStatus.STOPPED)
    html = client.get(reverse("home")).content.decode()
    assert "1 run, 0 under way" in html and "(stopped, 0 of 1 episodes)" in html and "Open benchmarks" in html


@pytest.mark.parametrize("domain", registry.domains())
def test_every_domain_board_renders(client, participant, domain):
    from games.tests.test_domains_ws import load_scenario

    slug = load_scenario(domain)
    game = services.create_game(slug, [{"kind": "human", "user": participant}], clock="lockstep")
    client.force_login(participant)
    page = client.get(reverse("games:play", args=[game.pk]))
    assert page.status_code == 200
    assert f"board-{domain}" in page.content.decode()
    if domain == "tasks":  # what an action waits for is named ("needs 1 first" read as "needs action 1")
        assert re.search(r'title="Needs: [^"]+">after [a-z]', page.content.decode())
        assert " first</span>" not in page.content.decode()
    if domain == "itinerary":  # the header says how the brief stands, beside the score's percent so far
        assert re.search(r'class="headline-text">score so far · 0 of \d+ goals? met<', page.content.decode())
    # the shortcut "A: type an action" only where there is a box to type in (kitchen and itinerary
    # pages listed it and pressing A did nothing)
    html = page.content.decode()
    assert ('id="free-action"' in html) == ("type an action</dd>" in html)
    # W is listed where a button has it: not in a real-time recipe, whose clock runs by itself
    # (the list read "W: (nothing: the clock runs by itself; just wait) (the button marked W)")
    real_time = services.create_game(slug, [{"kind": "human", "user": participant}], clock="real_time")
    live = client.get(reverse("games:play", args=[real_time.pk])).content.decode()
    has_w = 'data-key="w"' in live
    assert has_w == ("<dt><kbd>W</kbd></dt>" in live), domain
    assert "just wait" not in live


@pytest.mark.parametrize("domain", registry.domains())
def test_every_domains_replay_renders_beside_its_planned_episode(client, participant, researcher, domain):
    from django.core.cache import cache

    from games import replays
    from games.tests.test_domains_ws import load_scenario
    from games.viewer import Viewer, load_update

    cache.clear()
    game = services.create_game(load_scenario(domain), [{"kind": "human", "user": participant}], clock="lockstep")
    legal = load_update(game.pk, Viewer(agents=[0]), 0).state["legal_actions"]
    services.apply_action(game.pk, agent=0, action=legal[0])
    client.force_login(participant)
    for _ in range(2):  # the planner's episode is cached (pickled) on the first, read back on the second
        page = client.get(reverse("games:replay", args=[game.pk]))
        assert page.status_code == 200 and f"board-{domain}" in page.content.decode()
    # the plan's rows are the seats as the game's timeline beside it names them ("Planner for
    # Teammate 1" did not fit its column), but the planner's row of a one-seat game is "Planner",
    # not "You" (a player read it as their own)
    html = page.content.decode()
    assert html.count('<div class="tl-label agent-0" title="You">You</div>') == 1 and "Planner for" not in html
    assert '<div class="tl-label agent-0" title="Planner">Planner</div>' in html.split("The planner's plan")[1]
    assert "The planner NPC plays every seat" in html
    assert cache.get(replays.plan_key(game, ["You"]))  # an itinerary's clock texts pickle too
    # a researcher's rows are "Player 1" (the plan the player's visit cached kept no "You")
    client.force_login(researcher)
    theirs = client.get(reverse("games:replay", args=[game.pk])).content.decode()
    played, planned = theirs.split("The planner's plan")
    assert 'title="You"' not in theirs and re.search(
        r'<div class="tl-label agent-0" title="Player 1[^"]*">Player 1</div>', played
    )
    assert '<div class="tl-label agent-0" title="Planner">Planner</div>' in planned
    # the board's moment reads the game's clock ("The board at t=7686" on a trip of six days)
    moment = re.search(r"The board at (.+?) \(after log entry", html)
    assert moment, html
    expected = {"tasks": r"t=\d+", "recipes": r"\d+:\d\d", "kitchen": r"step \d+"}
    expected["itinerary"] = r"(day \d+, )?\d\d:\d\d"
    assert re.fullmatch(expected.get(domain, r".+"), moment.group(1)), moment.group(1)
    if domain == "itinerary":  # a trip under way has not finished: its replay names the row so
        as_played = html.split("The planner's plan")[0]
        assert "<dt>Last leg ended</dt>" in as_played and "Finished at" not in as_played
    if domain == "recipes":  # the header says why it ended as the game page does ("at 0:10", not "at 00:00:10")
        Game.objects.filter(pk=game.pk).update(status="finished", outcome="All recipes are complete at 00:10:00.")
        header = client.get(reverse("games:replay", args=[game.pk])).content.decode()
        assert "(All recipes are complete at 10:00.)" in header


FORM = {"player": "res", "clock": "real_time", "seconds_per_unit": "2", "disconnect_policy": "pause", "seed": "0"}


def test_llm_teammates_are_held_to_legal_actions_unless_the_box_is_unticked(client, researcher, toy_scenario, settings):
    # the bundled SmolLM2's free answers seldom named an action: an LLM teammate of a game made on
    # this form did nothing all game; the form now asks (ticked by default) as a study condition does
    from games.agents.tests.stub_server import stub_endpoint

    settings.BACKGROUND_INLINE = False  # the teammate's turn plays no part here
    client.force_login(researcher)
    page = client.get(reverse("games:create")).content.decode()
    assert re.search(r'<input type="checkbox" name="llm_constrained"[^>]*checked', page)
    both = {**FORM, "scenario": "test/toy", "seat1": "npc:llm", "seat2": "npc:random"}
    with stub_endpoint(lambda messages: "OK") as endpoint:  # the form asks the model server first
        settings.LLM_BASE_URL = endpoint.base_url
        client.post(reverse("games:create"), {**both, "llm_constrained": "on"})
        client.post(reverse("games:create"), both)  # unticked: free answers
    held, free = Game.objects.order_by("pk")
    assert [(s.dispatcher, s.settings) for s in held.seats.all()[1:]] == [
        ("llm", {"prompt": {"constrained": True}}),
        ("random", {}),
    ]
    assert [(s.dispatcher, s.settings) for s in free.seats.all()[1:]] == [("llm", {}), ("random", {})]
    # the game page links what the teammate is asked and answers (only the replay did)
    calls = f'href="{reverse("games:llm_calls", args=[held.pk])}"'
    assert calls in client.get(reverse("games:play", args=[held.pk])).content.decode()


def test_no_game_is_made_with_an_llm_teammate_whose_model_server_does_not_answer(
    client, researcher, toy_scenario, settings
):
    """A game made while the model server was down had its LLM teammate stand idle all game, with
    one "model call failed: cannot reach ..." line as the only word of why."""
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    client.force_login(researcher)
    page = client.post(reverse("games:create"), {**FORM, "scenario": "test/toy", "seat1": "npc:llm"})
    said = " ".join(page.content.decode().split())
    assert page.status_code == 200 and not Game.objects.exists()
    assert "No game was made: the LLM endpoint “default” (http://127.0.0.1:9/v1" in said
    assert "Start that model server" in said and "or choose another teammate." in said
    # a game without an LLM seat asks no model server
    assert (
        client.post(reverse("games:create"), {**FORM, "scenario": "test/toy", "seat1": "npc:random"}).status_code == 302
    )


def test_a_replay_seat_copies_a_picked_game_and_needs_one(client, researcher, participant, toy_scenario, game):
    services.finish(game.pk, reason="done")
    client.force_login(researcher)
    page = client.get(reverse("games:create") + "?scenario=test/toy").content.decode()
    assert f"#{game.pk} · test/toy" in page, "finished games are offered as replay sources"
    assert 'value="test/toy" selected' in page, "'Play this' preselects the scenario"
    missing = client.post(reverse("games:create"), {**FORM, "scenario": "test/toy", "seat1": "npc:replay"})
    assert "Name the game whose seat this NPC replays." in missing.content.decode()
    assert Game.objects.count() == 1
    never = client.post(
        reverse("games:create"),
        {**FORM, "scenario": "test/toy", "seat1": "npc:replay", "seat1_game": str(game.pk), "seat1_agent": "2"},
    )
    assert f"Game #{game.pk} had 1 player(s)." in never.content.decode(), "a player the game never had"
    assert Game.objects.count() == 1
    made = client.post(
        reverse("games:create"),
        {**FORM, "scenario": "test/toy", "seat1": "npc:replay", "seat1_game": str(game.pk), "seat1_agent": "1"},
    )
    assert made.status_code == 302
    copy = Game.objects.exclude(pk=game.pk).get()
    seat = copy.seats.get(agent=1)
    # the form numbers players from 1, as the source game's pages do: its player 1 is agent 0
    assert seat.dispatcher == "replay" and seat.settings == {"source_game": game.pk, "source_agent": 0}


def test_only_tasks_are_played_together(client, researcher, toy_scenario):
    from games.importers import bundled_tasks

    bundled_tasks.load(log=lambda line: None)
    client.force_login(researcher)
    response = client.post(reverse("games:create"), {**FORM, "scenario": "test/toy", "also": ["bundled/make-tea"]})
    assert "Only tasks scenarios are played several at once" in response.content.decode()
    assert not Game.objects.exists()


def test_the_games_list_says_play_for_your_own_games(client, researcher, toy_scenario):
    mine = services.create_game("test/toy", [{"kind": "human", "user": researcher}], clock="real_time")
    client.force_login(researcher)
    html = client.get(reverse("games:list")).content.decode()
    row = html[html.index(f'<td class="num">{mine.pk}</td>') :]
    assert ">Play</a>" in row[: row.index("</tr>")]


def test_the_games_list_names_npc_seats_as_the_game_page_does(client, researcher, toy_scenario, settings):
    settings.BACKGROUND_INLINE = False  # the NPC's turn plays no part here
    seats = [{"kind": "human", "user": researcher}, {"kind": "npc", "dispatcher": "llm"}]
    services.create_game("test/toy", seats, clock="real_time")
    client.force_login(researcher)
    html = client.get(reverse("games:list")).content.decode()
    assert ">LLM NPC</span>" in html and "NPC llm" not in html


def test_the_kitchen_offers_places_to_pick_only_to_its_player_while_the_game_runs(client, participant, researcher):
    from games.tests.test_domains_ws import load_scenario

    game = services.create_game(
        load_scenario("kitchen"), [{"kind": "human", "user": participant}], clock="lockstep", options={"max_steps": 2}
    )
    client.force_login(participant)
    live = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "pick a place to see what you can do there" in live and "data-pick-place" in live
    # alone in a level written for a team, the misses are not all the player's (they thought so)
    crew = game.scenario.definition["agents"]
    assert crew > 1 and f"This kitchen is written for {crew} cooks and has 1: expect to miss some orders" in live
    client.force_login(researcher)
    watched = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "board-kitchen" in watched and "data-pick-place" not in watched  # a watcher has nothing to do there
    for _ in range(2):
        services.apply_action(game.pk, agent=0, action="noop")
    game.refresh_from_db()
    assert game.is_finished
    client.force_login(participant)
    ended = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "not served when the game ended" in ended and not re.search(
        r"\d+ steps? left", ended
    )  # no time left to count
    assert "next order at step" not in ended  # a stopped game still announced its next order
    replay = client.get(reverse("games:replay", args=[game.pk])).content.decode()
    assert "board-kitchen" in replay and "Storage" in replay
    assert "pick a place" not in replay and "data-pick-place" not in replay
    assert "not served when the game ended" in replay and not re.search(r"\d+ steps? left", replay)
    first = client.get(reverse("games:replay", args=[game.pk]), {"at": 1}).content.decode()
    # (two steps: the order outlasts the kitchen, so it counts the kitchen's steps)
    assert "the kitchen closes in" in first and "not served when the game ended" not in first


def _missed_window_game(participant):
    """A lockstep game of the bundled "Quick lunch" lost the way a first-time player loses it: the
    butter melts by itself (Omelette step 2), the cook starts the soup's five-minute chopping, and
    step 3's two minutes after the butter pass while the cook is busy."""
    registry.descriptor("recipes").part("bundled")(log=lambda line: None)
    game = services.create_game(
        "bundled/Omelette_Tomato-Soup", [{"kind": "human", "user": participant}], clock="lockstep"
    )
    services.apply_action(game.pk, agent=0, action="Step(2, Omelette)")
    services.apply_action(game.pk, agent=0, action="Step(0, Tomato-Soup)")
    while not Game.objects.get(pk=game.pk).is_finished:
        services.pass_turn(game.pk, agent=0)
    return Game.objects.get(pk=game.pk)


def test_a_lost_recipes_game_says_why_once_and_names_recipes_as_people_read_them(client, participant):
    game = _missed_window_game(participant)
    assert game.outcome.startswith("Time constraint violated: step 3 of Omelette")
    client.force_login(participant)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    log = page[page.index('id="game-log-list"') :]
    log = log[: log.index("</ol>")]
    # the rules' "spoiled" and "finished" events and the loop's end all carry the sentence: said once
    assert log.count("Time constraint violated") == 1
    assert re.search(r'<span class="log-message">\s*the game is over\s*</span>', log)
    result = page[page.index('id="game-result"') :]
    result = result[: result.index("</section>")]
    assert result.count("Time constraint violated") == 1  # the first line, not again as "why it ended"
    assert "<dt>S×E</dt>" in result and "<dt>Se</dt>" not in result
    assert "<dt>R-efficiency</dt>" not in result  # a failed game's efficiencies score unfinished steps
    # "Tomato-Soup" is the data's (and the actions') name; people read "Tomato Soup"
    assert "<h2>Tomato Soup</h2>" in page and "<h2>Tomato-Soup</h2>" not in page
    assert "started step 0 of Tomato Soup" in log
    assert 'data-step="Tomato-Soup 0"' in page  # the board's hook for the step keeps the data's name
    assert "None: the game is over." in page  # no "next event" after the end
    assert "had to start by 4:00 (2 min after step 2 finished)" in result  # the clock as the page writes it
    assert (
        'data-countdown-prefix="start within' not in page and "data-run-start" not in page
    )  # no countdowns after the end
    assert "not done when the game ended" in page


def test_the_kitchen_says_once_what_to_do_with_a_dish_in_hand(client, participant):
    """The board's line ("You hold tomato wedges, which is ordered: serve it ...") and the rules'
    suggestion ("Hint: You hold tomato wedges: put it on Serving table") said the same thing."""
    from games.viewer import Viewer, load_update

    registry.descriptor("kitchen").part("bundled")(log=lambda line: None)
    game = services.create_game("bundled/warm-up", [{"kind": "human", "user": participant}], clock="lockstep")
    plan = ["goto storage0", "tomato", "goto chopboard0", "put", "activate", "get", "goto servingtable0"]
    for wanted in plan:
        legal = load_update(game.pk, Viewer(agents=[0]), 0).state["legal_actions"]
        services.apply_action(game.pk, agent=0, action=next(a for a in legal if wanted in a))
    client.force_login(participant)
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "You hold tomato wedges, which is ordered: serve it at the Serving table." in page
    assert "Hint:" not in page


def test_a_blinded_participants_result_panel_leaves_out_the_levels_settings(participant):
    """A study comparing the kitchen at two alphas must not show its participants which one they
    played: the result panel keeps how the game went and leaves out level, alpha and task interval."""
    from games.viewer import Viewer, load_update

    registry.descriptor("kitchen").part("bundled")(log=lambda line: None)
    game = services.create_game("bundled/warm-up", [{"kind": "human", "user": participant}], clock="lockstep")
    services.finish(game.pk, reason="test")
    rows = {}
    for blind in (False, True):
        who = Viewer(agents=[0], blind=blind)
        context = presenters.live_context(load_update(game.pk, who, 0), who, full=True)
        rows[blind] = {name for name, _, _ in context["result_rows"]}
    assert {"level", "alpha", "task interval"} <= rows[False]
    assert rows[False] - rows[True] == {"level", "alpha", "task interval"}
    assert "completed" in rows[True]


def test_a_scenarios_page_counts_its_games_and_links_to_them(client, researcher, participant, toy_scenario, game):
    # a researcher on a scenario's page could not tell whether anyone had played it
    from games.scenarios import save_scenario

    other, _ = save_scenario(domain="toy", slug="test/other", title="Other", source="tests", definition={"chores": []})
    services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep")
    services.finish(game.pk, reason="done")
    client.force_login(researcher)
    html = client.get(reverse("games:scenario", args=[toy_scenario.pk])).content.decode()
    assert '<a href="/games/?scenario=test/toy">2 played</a>, 1 finished' in html
    assert "none played yet" in client.get(reverse("games:scenario", args=[other.pk])).content.decode()
    listed = client.get(reverse("games:list"), {"scenario": "test/toy"}).content.decode()
    assert listed.count("Toy chores") == 2 and "Scenario <code>test/toy</code>" in listed
    none = client.get(reverse("games:list"), {"scenario": "test/other"}).content.decode()
    assert "No games match these filters." in none and "Toy chores" not in none


def _paused_since(game, **ago):
    from datetime import timedelta

    from django.utils import timezone

    services.pause(game.pk, reason="disconnect")
    Game.objects.filter(pk=game.pk).update(anchor_at=timezone.now() - timedelta(**ago))


def test_the_games_list_filters_paused_games_and_says_how_long_they_have_waited(client, researcher, participant, game):
    other = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="real_time")
    _paused_since(game, hours=3)
    client.force_login(researcher)
    html = client.get(reverse("games:list"), {"status": "paused"}).content.decode()
    assert f'<td class="num">{game.pk}</td>' in html and f'<td class="num">{other.pk}</td>' not in html
    # "paused 42 minutes" read as game minute 42 too: how long it has been paused
    assert re.search(r'>paused</span> <small class="hint nowrap">for 3\xa0hours</small>', html)
    assert "have been paused for more than a day" not in html and "has been paused" not in html  # 3 hours: not left
    # a game its player has not started yet reads so, not "paused"
    unread = services.create_game(
        "test/toy", [{"kind": "human", "user": participant}], clock="real_time", start_when_ready=True
    )
    html = client.get(reverse("games:list"), {"status": "paused"}).content.decode()
    row = html[html.index(f'<td class="num">{unread.pk}</td>') :].split("</tr>")[0]
    assert ">not started</span>" in row and ">paused</span>" not in row and "made 0\xa0minutes ago" in row
    # the title goes to the game: on a phone the table scrolls and Play sat off the screen
    assert f'<a href="{reverse("games:play", args=[unread.pk])}">Toy chores</a>' in row


def test_a_researcher_stops_the_games_left_paused_for_more_than_a_day(client, researcher, participant, game):
    make = lambda: services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="real_time")  # noqa: E731
    recent, running, done = make(), make(), make()
    _paused_since(game, days=2)
    _paused_since(recent, hours=20)
    services.finish(done.pk, reason="done")
    client.force_login(researcher)
    listed = client.get(reverse("games:list")).content.decode()
    assert "1 game has been paused for more than a day, most likely left by its player." in listed
    page = client.post(reverse("games:stop_left_paused"), follow=True)
    assert "Stopped 1 game left paused for more than a day" in page.content.decode()
    stopped = Game.objects.get(pk=game.pk)
    assert stopped.status == GameStatus.FINISHED
    assert stopped.outcome == "stopped by a researcher after it was left paused"
    assert Game.objects.get(pk=recent.pk).status == GameStatus.RUNNING and Game.objects.get(pk=recent.pk).paused
    assert Game.objects.get(pk=running.pk).status == GameStatus.RUNNING
    assert Game.objects.get(pk=done.pk).outcome == "done"
    again = client.post(reverse("games:stop_left_paused"), follow=True).content.decode()
    assert "No game has been left paused for more than a day." in again


def test_only_researchers_stop_left_games_and_only_by_post(client, researcher, participant, game):
    _paused_since(game, days=2)
    client.force_login(participant)
    assert client.post(reverse("games:stop_left_paused")).status_code == 403
    client.force_login(researcher)
    assert client.get(reverse("games:stop_left_paused")).status_code == 405
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING


def test_a_game_resumed_as_the_left_games_are_stopped_goes_on(client, researcher, game):
    # The stop reads which games are left paused, then stops each under its lock: a player who
    # resumes in between keeps playing (the check is made again under the lock).
    from datetime import timedelta

    from django.utils import timezone

    _paused_since(game, days=2)
    left = list(selectors.left_paused().values_list("pk", flat=True))
    services.resume(game.pk)  # the player comes back in the same instant
    with pytest.raises(services.GameError, match="resumed a moment ago"):
        services.finish(left[0], reason="left", paused_before=timezone.now() - timedelta(days=1))
    assert Game.objects.get(pk=game.pk).status == GameStatus.RUNNING and not Game.objects.get(pk=game.pk).paused


def test_the_replays_messages_include_what_the_entry_shown_caused(client, participant, toy_scenario):
    # the board after an action or clock step shows its consequences (a recipe spoiled by the
    # advance that reached its deadline), so its messages must too: they stopped at the entry
    game = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep")
    services.apply_action(game.pk, agent=0, action="do dust")
    entries = list(GameEvent.objects.filter(game=game).order_by("seq"))
    act = next(e for e in entries if e.kind == "act")
    caused = [e for e in entries if e.seq > act.seq and e.category == "engine"]
    assert caused and caused[0].seq == act.seq + 1
    client.force_login(participant)
    page = client.get(reverse("games:replay", args=[game.pk]), {"at": act.seq}, headers={"HX-Request": "true"})
    assert caused[0].data["message"] in page.content.decode()


def test_a_watcher_of_a_recipes_game_reads_each_cooks_line_not_a_you_card(client, participant, researcher):
    """A researcher watching a participant's recipes game read "You: free: nothing can start before
    2:00" (the first seat's line, worded for a player) and "Tell your teammates what to do"."""
    registry.descriptor("recipes").part("bundled")(log=lambda line: None)
    game = services.create_game(
        "bundled/Omelette_Tomato-Soup",
        [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "planner"}],
        clock="lockstep",
    )
    services.apply_action(game.pk, agent=0, action="Step(0, Tomato-Soup)")
    client.force_login(researcher)
    watched = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "you are watching live" in watched
    cooks = watched[watched.index("<h2>Cooks</h2>") :]
    cooks = cooks[: cooks.index("</section>")]
    assert "Player 1" in cooks and "busy with Tomato Soup step 0 until 5:00" in cooks
    assert "Player 2" in cooks
    assert "<h2>You</h2>" not in watched and "Tell your teammates what to do" not in watched
    client.force_login(participant)
    played = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "<h2>You</h2>" in played and "<h2>Cooks</h2>" not in played
    assert "busy with Tomato Soup step 0 until 5:00" in played
    assert "Tell your teammates what to do" in played
    # after a message the keys type into the box: the page says how to give them back to the game
    assert "<kbd>Esc</kbd> gives the keys back to the game" in played and 'aria-describedby="chat-keys"' in played


def test_a_watcher_of_a_trip_reads_where_the_traveller_is_not_you(client, participant, researcher):
    registry.descriptor("itinerary").part("bundled")(log=lambda line: None)
    game = services.create_game("bundled/harbourton-morning", [{"kind": "human", "user": participant}])
    client.force_login(researcher)
    watched = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "the traveller is here" in watched and "you are here" not in watched
    assert "Nothing yet." in watched and "pick one of your actions" not in watched
    client.force_login(participant)
    played = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "you are here" in played and "Nothing yet: pick one of your actions." in played


def test_a_real_time_timeline_leaves_room_for_a_while_of_the_clock(client, participant):
    from games.tests.test_domains_ws import load_scenario

    # a page asks for a redraw when its running clock passes the timeline's end: with two game
    # units ahead, a clock at 20 units a second asked several times a second at first
    def span(game: Game) -> float:
        client.force_login(participant)
        html = client.get(reverse("games:play", args=[game.pk])).content.decode()
        return float(re.search(r'id="game-timeline"[^>]*data-span="([0-9.]+)"', html).group(1))

    human = [{"kind": "human", "user": participant}]
    slug = load_scenario("recipes")  # a recipe has no time limit to cap the axis
    fast = services.create_game(slug, human, clock="real_time", speed=20)
    assert span(fast) >= presenters.REDRAW_AHEAD_SECONDS * 20  # a few seconds of the clock's run
    lockstep = services.create_game(slug, human, clock="lockstep")
    assert span(lockstep) < 10  # moves only when someone acts: short actions stay readable


def test_a_study_participant_alone_in_a_team_kitchen_is_not_told_about_the_crew(participant):
    # "... or start a new game with teammates in the other seats" pointed a participant away from
    # their study (where they cannot start games), and "written for 3 cooks ...: expect to miss some
    # orders" told them how the condition they were put in would go; the socket's redraws say the
    # same as the page
    from django.template.loader import render_to_string

    from games.viewer import Viewer, load_update

    registry.descriptor("kitchen").part("bundled")(log=lambda line: None)
    game = services.create_game("bundled/warm-up", [{"kind": "human", "user": participant}], clock="lockstep")
    said = {}
    for blind in (False, True):
        who = Viewer(agents=[0], blind=blind)
        html = render_to_string(
            "games/live/_update.html", presenters.live_context(load_update(game.pk, who, 0), who, full=True)
        )
        said[blind] = html
    assert "expect to miss some orders, or start a new game with teammates" in said[False]
    assert "This kitchen is written for" not in said[True] and "start a new game" not in said[True]


def test_a_stopped_tasks_game_says_which_action_it_cut_short(client, researcher, participant):
    # "wash teapot ... 1 min left" stood on the board of a stopped game for good
    from games.tests.test_domains_ws import load_scenario
    from games.viewer import Viewer, load_update

    game = services.create_game(load_scenario("tasks"), [{"kind": "human", "user": participant}], clock="lockstep")
    client.force_login(researcher)
    for _ in range(6):  # until a background action runs on while the player is free
        legal = load_update(game.pk, Viewer(agents=[0]), 0).state["legal_actions"]
        services.apply_action(game.pk, agent=0, action=next(a for a in legal if not a.startswith("wait")))
        running = client.get(reverse("games:play", args=[game.pk])).content.decode()
        if "min left</span>" in running:
            break
    assert "min left</span>" in running
    client.post(reverse("games:control", args=[game.pk]), {"operation": "stop"})
    stopped = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "unfinished: the game ended" in stopped and "min left</span>" not in stopped
