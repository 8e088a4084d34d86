"""The tasks log in people's words: a run of one-minute waits reads as one line, on the page as it
is played (the live update sends the log whole) and in the replay; programs keep a line per wait."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from games import presenters, services
from games.domains.tasks.tests.helpers import RICE
from games.scenarios import save_scenario
from games.tasks_view import collapse_waits
from games.viewer import Viewer, load_update


def _wait(agent: int, time: int, message: str = "You wait one minute.", **details: object) -> dict:
    data = {"message": message, "details": {"necessary": False, **details}}
    entry = {"category": "engine", "kind": "waited", "agent": agent, "time": time, "message": message, "data": data}
    return dict(entry, seq=10 * time + agent)


def _line(agent: int | None, time: int, message: str, category: str = "engine") -> dict:
    return {"category": category, "kind": "started", "agent": agent, "time": time, "message": message, "data": {}}


def test_a_run_of_one_agents_waits_reads_as_one_line_at_its_first_minute():
    entries = [_line(0, 0, "You are doing pick rice."), *[_wait(0, t) for t in range(2, 6)], _line(0, 6, "You go on.")]
    lines = collapse_waits(entries)
    assert [(e["time"], e["message"]) for e in lines] == [
        (0, "You are doing pick rice."),
        (2, "You wait 4 minutes (until t=6)."),
        (6, "You go on."),
    ]
    assert lines[1]["seq"] == 50  # numbered as the run's last entry: the page's newest line moves on
    assert collapse_waits([_wait(0, 3)]) == [_wait(0, 3)]  # one minute stays as the rules wrote it


def test_runs_are_per_agent_and_break_where_the_minutes_or_the_agent_do():
    teammate = "waits one minute."  # a teammate's wait after their name (presenters.as_read_by)
    entries = [
        _wait(0, 2),
        _wait(1, 2, teammate),
        _line(1, 3, "started wash dish."),
        _wait(0, 3),
        _wait(0, 4),
        _wait(0, 7),  # a gap: a new run
        _wait(0, 8, "You wait until something finishes, at t=12.", until=12),  # not a one-minute wait
        _wait(0, 12),
    ]
    lines = [(e["agent"], e["time"], e["message"]) for e in collapse_waits(entries)]
    assert lines == [
        (0, 2, "You wait 3 minutes (until t=5)."),  # the teammate's lines in between stay after it
        (1, 2, "waits one minute."),
        (1, 3, "started wash dish."),
        (0, 7, "You wait one minute."),
        (0, 8, "You wait until something finishes, at t=12."),
        (0, 12, "You wait one minute."),
    ]


def test_two_teammates_who_say_the_same_words_at_once_keep_their_lines():
    both = [_wait(1, 4, "waits one minute."), _wait(2, 4, "waits one minute.")]
    assert len(presenters.said_once(both)) == 2
    echoed = [_line(None, 4, "Bread is spoiled."), _line(None, 4, "Bread is spoiled.")]
    assert len(presenters.said_once(echoed)) == 1  # one agent's sentence twice is still said once


@pytest.fixture
def rice_game(participant, researcher):
    save_scenario(domain="tasks", slug="test/rice", title="Rice", source="test", definition=RICE)
    seats = [{"kind": "human", "user": participant}, {"kind": "human", "user": researcher}]
    return services.create_game("test/rice", seats, clock="lockstep")


def _live(game_id: int, since: int) -> str:
    """The live update the play page of seat 0 receives for what came after entry ``since``."""
    who = Viewer(agents=[0])
    return render_to_string(
        "games/live/_update.html", presenters.live_context(load_update(game_id, who, since), who, full=False)
    )


def _last_seq(game_id: int) -> int:
    from games.models import Game

    return Game.objects.get(pk=game_id).last_seq


def _a_third_minute_of_waits(game_id: int) -> int:
    """Both seats wait three minutes; the entry after which the third minute's waits come."""

    def both_wait() -> None:
        services.apply_action(game_id, agent=0, action="wait")
        services.apply_action(game_id, agent=1, action="wait")

    both_wait()
    both_wait()
    since = _last_seq(game_id)
    both_wait()
    return since


def test_the_live_page_receives_the_log_whole_when_a_wait_carries_on_a_run(rice_game, client, participant):
    since = _a_third_minute_of_waits(rice_game.pk)
    html = _live(rice_game.pk, since)
    assert (
        'id="game-log-list" class="game-log" aria-live="polite" aria-label="Game messages" tabindex="0" '
        'hx-swap-oob="true"' in html
    )
    assert "beforeend:#game-log-list" not in html
    assert html.count("You wait 3 minutes (until t=3).") == 1 and "wait one minute" not in html
    assert html.count("waits 3 minutes (until t=3).") == 1  # the teammate's run, under their name

    since = _last_seq(rice_game.pk)
    services.apply_action(rice_game.pk, agent=0, action="pick rice")
    html = _live(rice_game.pk, since)
    assert "beforeend:#game-log-list" in html and 'hx-swap-oob="true"' in html  # other parts are swapped whole
    assert "You are doing pick rice" in html and "You wait 3 minutes" not in html  # only the new line

    # the replay reads the same; a program's log keeps the rules' line per minute
    client.force_login(participant)
    replay = client.get(reverse("games:replay", args=[rice_game.pk])).content.decode()
    assert "You wait 3 minutes (until t=3)." in replay and "You wait one minute." not in replay
    # whose line it is is said once ("You You wait 3 minutes" in the replay, not on the live page)
    for page in (replay, html):
        assert not re.search(r'log-agent">You</span>\s*<span class="log-message">You ', page)
    assert re.search(r'log-agent">Teammate 1[^<]*</span>\s*<span class="log-message">waits 3 minutes', replay)
    events = client.get(reverse("games:api_events", args=[rice_game.pk])).json()
    assert sum(e["message"] == "You wait one minute." for e in events["events"] if e["agent"] == 0) == 3


def test_a_log_sent_whole_holds_only_the_entries_of_its_update(rice_game):
    # a teammate's entry committed while a whole log was rendered was in it, and was appended again
    # by the next update: the live page showed that line twice
    since = _a_third_minute_of_waits(rice_game.pk)
    who = Viewer(agents=[0])
    update = load_update(rice_game.pk, who, since)  # read before the teammate's next line commits
    services.apply_action(rice_game.pk, agent=1, action="pick rice")
    whole = render_to_string("games/live/_update.html", presenters.live_context(update, who, full=False))
    assert 'id="game-log-list"' in whole and "is doing pick rice" not in whole
    later = _live(rice_game.pk, update.seq)
    assert "is doing pick rice" in later  # it comes once, with its own update
    assert max(map(int, re.findall(r'data-seq="(\d+)"', whole))) <= update.seq


def test_joined_words_read_as_words():
    from games.tasks_view import spaced

    assert spaced("add tea_leaves to teapot") == "add tea leaves to teapot"
    assert spaced("set_up ironing_board") == "set up ironing board"
    assert spaced("You wait until something finishes, at t=12.") == "You wait until something finishes, at t=12."


def test_the_play_page_writes_the_grammars_joined_words_as_words(client, participant):
    from games.domains.tasks.tests.helpers import task

    tea = task("tea", [("fill kettle", 1, False, []), ("add tea_leaves to teapot", 1, False, [])])
    save_scenario(domain="tasks", slug="test/tea", title="Tea", source="test", definition=tea)
    game = services.create_game("test/tea", [{"kind": "human", "user": participant}], clock="lockstep")
    services.apply_action(game.pk, agent=0, action="add tea leaf to teapot")  # refused
    services.apply_action(game.pk, agent=0, action="add tea_leaves to teapot")
    client.force_login(participant)
    html = client.get(reverse("games:play", args=[game.pk])).content.decode()
    # the button keeps the grammar's command; people read words
    assert 'data-action="fill kettle"' in html
    assert "You are doing add tea leaves to teapot" in html and "tea_leaves is in" not in html
    assert "finished add tea leaves to teapot: tea leaves are in teapot." in html  # after "You"
    assert "could not: &#x27;add tea leaf to teapot&#x27; is not an action." in html
    assert ">add tea leaves to teapot</span>" in html  # the board's row
    events = client.get(reverse("games:api_events", args=[game.pk])).json()["events"]
    # programs read the rules' words
    assert any(e["message"].startswith("You are doing add tea_leaves to teapot") for e in events)


def test_a_waiting_player_reads_waiting_not_busy_with_wait(client, participant):
    save_scenario(domain="tasks", slug="test/rice", title="Rice", source="test", definition=RICE)
    game = services.create_game("test/rice", [{"kind": "human", "user": participant}], clock="real_time")
    client.force_login(participant)
    services.apply_action(game.pk, agent=0, action="wait")
    html = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "You are waiting until t=1; your next actions appear when you are free." in html
    assert "busy with wait" not in html


def test_an_action_under_way_is_said_to_be_yours_or_a_teammates_not_agent_ones():
    # "boil kettle is already under way (agent 1, until t=5)" told the LLM teammate's refusal to a
    # player who is not numbered anywhere on the page
    from games.tasks_view import PRESENTER

    said = "boil_kettle is already under way (agent 1, until t=5); pick another action."
    refusal = dict(_line(1, 1, said), kind="rejected")
    (line,) = PRESENTER.log_lines([refusal], ["You", "Teammate 1 (LLM NPC)"], {})
    assert line["message"] == "could not: boil kettle is already under way (by you, until t=5); pick another action."
    (line,) = PRESENTER.log_lines([refusal], ["Player 1 (alice)", "Player 2 (bob)"], {})  # a watcher's names
    assert "(by Player 1, until t=5)" in line["message"]
    assert "(by you, until" in PRESENTER.feedback(said, 0)
    assert "(by a teammate, until" in PRESENTER.feedback(said, 1)
    unknown = dict(refusal, message=said.replace("agent 1,", "agent 3,"))
    (line,) = PRESENTER.log_lines([unknown], ["You"], {})
    assert "(agent 3, until t=5)" in line["message"]  # a seat the names do not know keeps its number


def test_a_players_own_refusal_reads_in_their_words_and_a_teammates_after_its_name():
    """The log read "could not: You are busy with fill kettle ..." with no name before it (the name
    is left out where the rules' words begin with "You")."""
    from games.tasks_view import PRESENTER

    busy = dict(_line(0, 0, "You are busy with fill_kettle until t=1; act again once you are free."), kind="rejected")
    labels = ["You", "Teammate 1 (LLM NPC)"]
    mine = PRESENTER.log_lines(presenters.reader_lines([busy], labels, [0]), labels, {})
    assert [(e["agent_label"], e["message"]) for e in mine] == [
        ("", "You are busy with fill kettle until t=1; act again once you are free.")
    ]
    theirs = PRESENTER.log_lines(presenters.reader_lines([dict(busy, agent=1)], labels, [0]), labels, {})
    assert [(e["agent_label"], e["message"]) for e in theirs] == [
        ("Teammate 1 (LLM NPC)", "could not: is busy with fill kettle until t=1.")
    ]
    from games.recipes_view import RecipesPresenter

    cook = dict(busy, message="You are busy with step 2 of Tea until 00:05:00; act again once you are free.")
    (line,) = RecipesPresenter().log_lines(presenters.reader_lines([cook], labels, [0]), labels, {})
    assert line["message"].startswith("You are busy with step 2 of Tea")  # no "could not: " before it
