"""Conditions played by several participants together: the lobby, its timeout (backfill or solo
fallback), the clock waiting for everyone, and a participant who leaves mid-game."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services as game_services
from games.models import Game, Seat
from studies import services
from studies.exports.base import Options
from studies.exports.episodes import episode_rows, event_rows
from studies.models import Episode, EpisodeStatus, Lobby, LobbyStatus, PageKind, StudyStatus

# the games' hooks run on commit; each test starts as a fresh server process
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_presence")]


@pytest.fixture
def shared_study(toy_scenario, researcher):
    def make(**sharing):
        study = services.create_study(title="Together", created_by=researcher, design="between", clock_mode="real_time")
        solo = services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
        if sharing.pop("solo_fallback", False):
            sharing.update(lobby_fallback="solo", fallback_condition=solo)
        services.add_condition(study, name="Two people", npc_kind="none", npc_count=0, human_count=2, **sharing)
        solo.delete()  # between-subject: everyone plays "Two people" (the fallback stays a condition row)
        study.conditions.update(index=0)
        if sharing.get("lobby_fallback") == "solo":
            from studies.models import Condition

            Condition.objects.create(study=study, index=1, name="Alone", npc_kind="none", npc_count=0)
            shared = study.conditions.get(name="Two people")
            shared.fallback_condition = study.conditions.get(name="Alone")
            shared.save()
        services.add_scenario(study, toy_scenario)
        services.add_onboarding_page(study, kind=PageKind.TEXT, title="Rules", body="Do the chores.")
        services.set_status(study, StudyStatus.OPEN)
        return study

    return make


def arrive(study, pid):
    participant = services.give_consent(services.join(study, external_id=pid))
    services.advance_onboarding(participant, 0)
    participant.refresh_from_db()
    episode = participant.episodes.get(condition__name="Two people") if study.design == "within" else None
    episode = episode or participant.episodes.get(index=0)
    return participant, episode


def test_the_lobby_waits_for_everyone_and_shows_neutral_names(shared_study):
    study = shared_study()
    first, episode = arrive(study, "PROLIFIC_A")
    episode = services.start_episode(first, episode)
    assert episode.status == EpisodeStatus.LOBBY and episode.game is None
    view = services.lobby.poll(first)
    assert view.names == ["Participant 1"] and view.missing == 1 and not view.started
    assert 115 <= view.seconds_left <= 120
    assert "PROLIFIC_A" not in repr(view)

    second, other = arrive(study, "PROLIFIC_B")
    other = services.start_episode(second, other)
    assert other.status == EpisodeStatus.PLAYING  # the second arrival fills the lobby: the game starts
    assert services.lobby.poll(first) is None  # not waiting any more: the step page sends them to the game
    episode.refresh_from_db()
    assert episode.status == EpisodeStatus.PLAYING and episode.game_id == other.game_id
    assert (episode.seat, other.seat) == (0, 1)
    seats = list(Seat.objects.filter(game_id=other.game_id).order_by("agent"))
    assert [(s.kind, s.user_id) for s in seats] == [("human", first.user_id), ("human", second.user_id)]
    assert all(s.settings["backfill"]["after_seconds"] == study.backfill_after_seconds for s in seats)
    lobby = Lobby.objects.get()
    assert (lobby.status, lobby.humans, lobby.backfilled) == (LobbyStatus.STARTED, 2, 0)


def test_the_game_clock_starts_only_when_every_participant_is_connected_and_ready(shared_study):
    study = shared_study()
    (a, ea), (b, eb) = arrive(study, "A"), arrive(study, "B")
    services.start_episode(a, ea)
    game_id = services.start_episode(b, eb).game_id
    start = Game.objects.get(pk=game_id).anchor_at
    assert Game.objects.get(pk=game_id).pause_reason == "waiting"
    game_services.seat_connected(game_id, 0, now=start + timedelta(seconds=3))
    assert Game.objects.get(pk=game_id).paused  # the second participant is still loading the page
    game_services.seat_connected(game_id, 1, now=start + timedelta(seconds=9))
    assert Game.objects.get(pk=game_id).waits_for_start  # both here: each reads the brief, then presses Start
    game_services.start(game_id, by=b.user, now=start + timedelta(seconds=40))
    assert Game.objects.get(pk=game_id).paused
    game_services.start(game_id, by=a.user, now=start + timedelta(seconds=70))
    game = Game.objects.get(pk=game_id)
    assert not game.paused and game.anchor_at == start + timedelta(seconds=70) and game.anchor_time == 0


def test_at_the_timeout_empty_seats_go_to_the_backfill_npc_recorded_and_exported(shared_study):
    study = shared_study(lobby_timeout_seconds=30, backfill_kind="random")
    alone, episode = arrive(study, "LONELY")
    services.start_episode(alone, episode)
    services.lobby.poll(alone, now=timezone.now() + timedelta(seconds=10))
    assert Episode.objects.get(pk=episode.pk).status == EpisodeStatus.LOBBY
    view = services.lobby.poll(alone, now=timezone.now() + timedelta(seconds=31))
    assert view.started
    episode.refresh_from_db()
    assert episode.status == EpisodeStatus.PLAYING and episode.seat == 0
    seats = list(Seat.objects.filter(game_id=episode.game_id).order_by("agent"))
    assert [(s.kind, s.dispatcher) for s in seats] == [("human", ""), ("npc", "random")]
    # one person: the clock waits for their Start (time to read the brief), not for anyone else
    assert Game.objects.get(pk=episode.game_id).waits_for_start
    lobby = Lobby.objects.get()
    assert (lobby.status, lobby.humans, lobby.backfilled) == (LobbyStatus.STARTED, 1, 1)

    row = next(episode_rows(study, Options(include_excluded=True)))
    assert row["participants_in_game"] == 1 and row["backfilled_seats"] == 1 and row["seat"] == 0
    assert row["lobby_outcome"] == "started" and row["lobby_wait_seconds"] != ""


def test_the_solo_fallback_sends_the_waiting_participant_to_the_solo_condition(shared_study):
    study = shared_study(lobby_timeout_seconds=30, solo_fallback=True)
    alone, episode = arrive(study, "LONELY")
    services.start_episode(alone, episode)
    services.lobby.poll(alone, now=timezone.now() + timedelta(seconds=31))
    episode.refresh_from_db()
    assert episode.status == EpisodeStatus.PLAYING
    assert episode.condition.name == "Alone" and episode.routed_from.name == "Two people"
    assert Seat.objects.filter(game_id=episode.game_id).count() == 1
    assert Lobby.objects.get().status == LobbyStatus.ROUTED
    row = next(episode_rows(study, Options(include_excluded=True)))
    assert row["condition"] == "Alone" and row["routed_from"] == "Two people"


def test_someone_who_stopped_waiting_is_not_waited_for(shared_study):
    study = shared_study()
    gone, gone_episode = arrive(study, "GONE")
    services.start_episode(gone, gone_episode)
    # "GONE" closed the page: their lobby page has not asked for a while
    quiet = timezone.now() - timedelta(seconds=services.lobby.PRESENT_SECONDS + 5)
    Episode.objects.filter(pk=gone_episode.pk).update(lobby_seen_at=quiet)
    here, episode = arrive(study, "HERE")
    services.start_episode(here, episode)
    view = services.lobby.poll(here)
    assert view.names == ["Participant 1"] and view.missing == 1
    assert Episode.objects.get(pk=episode.pk).lobby_id == Episode.objects.get(pk=gone_episode.pk).lobby_id
    services.lobby.poll(gone)  # ... and comes back
    assert Episode.objects.get(pk=episode.pk).status == EpisodeStatus.PLAYING


def test_a_participant_away_mid_game_is_backfilled_and_can_answer_later(shared_study):
    study = shared_study()
    (a, ea), (b, eb) = arrive(study, "A"), arrive(study, "B")
    services.start_episode(a, ea)
    game_id = services.start_episode(b, eb).game_id
    now = timezone.now()
    game_services.seat_connected(game_id, 0, now=now)
    game_services.seat_connected(game_id, 1, now=now)
    game_services.seat_disconnected(game_id, 1, now=now + timedelta(seconds=5))
    game_services.backfill_due(now=now + timedelta(seconds=6))
    after = now + timedelta(seconds=6 + study.backfill_after_seconds)
    assert game_services.backfill_due(now=after) == [(game_id, 1)]

    eb.refresh_from_db()
    assert eb.status == EpisodeStatus.SURVEY and eb.left_at is not None  # they answer when they come back
    assert Episode.objects.get(pk=ea.pk).status == EpisodeStatus.PLAYING
    assert Seat.objects.get(game_id=game_id, agent=1).kind == "npc"
    game_services.finish(game_id, reason="test")
    ea.refresh_from_db()
    eb.refresh_from_db()
    assert ea.status == EpisodeStatus.SURVEY and eb.metrics == ea.metrics != {}
    rows = {r["participant"]: r for r in episode_rows(study, Options(include_excluded=True))}
    assert rows[b.code]["left_at"] != "" and rows[a.code]["left_at"] == ""
    assert rows[a.code]["seats_taken_over"] == 1


def test_withdrawing_mid_game_hands_the_seat_over_instead_of_ending_the_others_game(shared_study):
    study = shared_study()
    (a, ea), (b, eb) = arrive(study, "A"), arrive(study, "B")
    services.start_episode(a, ea)
    game_id = services.start_episode(b, eb).game_id
    services.drop_out(b, reason="withdrew")
    game = Game.objects.get(pk=game_id)
    assert not game.is_finished
    assert Seat.objects.get(game_id=game_id, agent=1).kind == "npc"
    assert Episode.objects.get(pk=ea.pk).status == EpisodeStatus.PLAYING


def test_bad_sharing_settings_are_refused(shared_study, toy_scenario, researcher):
    study = services.create_study(title="Bad", created_by=researcher)
    with pytest.raises(services.StudyError, match="at most 5 seats"):
        services.add_condition(study, name="Crowd", npc_kind="random", npc_count=4, human_count=2)
    with pytest.raises(services.StudyError, match="10 to 3600"):
        services.add_condition(
            study, name="Quick", npc_kind="none", npc_count=0, human_count=2, lobby_timeout_seconds=1
        )
    with pytest.raises(services.StudyError, match="solo fallback needs"):
        services.add_condition(study, name="Solo", npc_kind="none", npc_count=0, human_count=2, lobby_fallback="solo")
    assert not study.conditions.exists()


def test_the_lobby_page_shows_who_is_here_and_sends_everyone_to_the_game(shared_study):
    from django.test import Client
    from django.urls import reverse

    study = shared_study()
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    lobby_url = reverse("studies:lobby", args=[study.slug])
    first, second = Client(), Client()
    for client, pid in ((first, "PROLIFIC_AAA"), (second, "PROLIFIC_BBB")):
        client.post(entry, {"pid": pid, "choice": "agree", "agree": "1"})
        client.post(step_url, {"action": "onboarding", "index": "0"})

    assert "other participant" in first.get(step_url).content.decode()
    assert first.post(step_url, {"action": "start", "index": "0"})["Location"] == step_url
    page = first.get(step_url).content.decode()
    assert 'data-step="lobby"' in page and 'hx-trigger="every 2s"' in page
    assert "Waiting for 1 more participant" in page and "with a computer teammate" in page
    assert "Participant 1" in page and "(you)" in page and "Empty seat" in page
    assert "PROLIFIC_AAA" not in page
    fragment = first.get(lobby_url, headers={"HX-Request": "true"})
    assert fragment.status_code == 200 and 'id="lobby"' in fragment.content.decode()
    assert "<html" not in fragment.content.decode()

    started = second.post(step_url, {"action": "start", "index": "0"})
    game_id = Episode.objects.get(participant__external_id="PROLIFIC_BBB").game_id
    assert started.status_code == 302 and f"/{game_id}/" in started["Location"]  # straight into the game
    moved = first.get(lobby_url, headers={"HX-Request": "true"})
    assert moved.status_code == 204 and f"/{game_id}/" in moved["HX-Redirect"]
    assert 'data-step="episode"' in first.get(step_url).content.decode()


def test_the_lobby_fragment_without_a_participation_goes_to_the_study_link(shared_study, client):
    from django.urls import reverse

    study = shared_study()
    response = client.get(reverse("studies:lobby", args=[study.slug]))
    assert response.status_code == 302 and response["Location"] == reverse("studies:entry", args=[study.slug])


def test_a_researcher_adds_a_shared_condition_on_the_design_page(client, researcher):
    from django.urls import reverse

    study = services.create_study(title="Design", created_by=researcher)
    solo = services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
    client.force_login(researcher)
    add = reverse("studies:add_condition", args=[study.pk])
    fields = {
        "name": "Pair",
        "npc_kind": "none",
        "npc_count": "0",
        "human_count": "2",
        "lobby_timeout_seconds": "90",
        "lobby_fallback": "solo",
        "backfill_kind": "random",
        "fallback_condition": str(solo.pk),
    }
    client.post(add, {f"condition-{k}": v for k, v in fields.items()})
    pair = study.conditions.get(name="Pair")
    assert (pair.human_count, pair.lobby_timeout_seconds, pair.lobby_fallback) == (2, 90, "solo")
    assert pair.fallback_condition == solo
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert "2 participants" in page and "lobby 90 s, then “Alone”" in page


def test_a_study_cannot_open_with_more_seats_than_a_scenario_takes(toy_scenario, researcher, monkeypatch):
    from games.tests.toy import ToyRules

    original = ToyRules.initial_state

    def one_seat_only(self, scenario, *, seed=0, agents=1, options=None):
        if agents > 1:
            raise ValueError(f"a toy takes 1 agent, not {agents}")
        return original(self, scenario, seed=seed, agents=agents, options=options)

    monkeypatch.setattr(ToyRules, "initial_state", one_seat_only)
    study = services.create_study(title="Crowded", created_by=researcher)
    services.add_condition(study, name="Pair", npc_kind="none", npc_count=0, human_count=2)
    services.add_scenario(study, toy_scenario)
    services.add_onboarding_page(study, kind=PageKind.TEXT, title="Rules", body="x")
    with pytest.raises(services.StudyError, match="“Pair” needs 2 seats, but “Toy chores” cannot seat them"):
        services.set_status(study, StudyStatus.OPEN)
    study.refresh_from_db()
    assert study.status == StudyStatus.DRAFT


def test_a_monitor_message_to_one_of_two_players_stays_out_of_their_shared_game(shared_study):
    from games.models import GameEvent

    study = shared_study()
    (a, ea), (b, eb) = arrive(study, "A"), arrive(study, "B")
    services.start_episode(a, ea)
    game_id = services.start_episode(b, eb).game_id
    services.message_participant(b, "Your connection looks unstable")
    assert not GameEvent.objects.filter(game_id=game_id, category="chat").exists()  # A would read it
    b.refresh_from_db()
    assert b.researcher_message == "Your connection looks unstable"  # on B's study pages


def test_a_shared_condition_with_an_llm_backfill_is_probed_before_opening(toy_scenario, researcher, settings):
    study = services.create_study(title="LLM backfill", created_by=researcher)
    services.add_condition(study, name="Pair", npc_kind="none", npc_count=0, human_count=2, backfill_kind="llm")
    services.add_scenario(study, toy_scenario)
    services.add_onboarding_page(study, kind=PageKind.TEXT, title="Rules", body="x")
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    with pytest.raises(services.StudyError, match="Condition “Pair”: the LLM endpoint"):
        services.set_status(study, StudyStatus.OPEN)


def test_an_llm_backfill_takes_its_conditions_llm_settings_whatever_its_npcs_are(toy_scenario, researcher):
    """With random NPCs and an LLM backfill, the design page showed the condition's model and hints
    while the backfilling seat ran on the site's defaults."""
    study = services.create_study(title="LLM backfill", created_by=researcher)
    chosen = {"model": "m", "prompt": {"own_hints": "Sweep first."}}
    for name, npc_kind, backfill_kind in (
        ("Random", "random", "llm"),
        ("LLM", "llm", "llm"),
        ("Plain", "none", "random"),
    ):
        services.add_condition(
            study,
            name=name,
            npc_kind=npc_kind,
            npc_count=0 if npc_kind == "none" else 1,
            human_count=2,
            backfill_kind=backfill_kind,
            dispatcher=chosen,
        )
    seats = {c.name: c.backfill_seat() for c in study.conditions.all()}
    assert seats["Random"] == {"kind": "npc", "dispatcher": "llm", "settings": chosen}
    assert seats["LLM"] == {"kind": "npc", "dispatcher": "llm", "settings": chosen}
    assert seats["Plain"] == {"kind": "npc", "dispatcher": "random", "settings": {}}


def test_the_events_export_names_who_acted_in_a_shared_game_once_per_entry(shared_study):
    study = shared_study()
    (a, ea), (b, eb) = arrive(study, "A"), arrive(study, "B")
    services.start_episode(a, ea)
    game_id = services.start_episode(b, eb).game_id
    now = timezone.now()
    game_services.seat_connected(game_id, 0, now=now)
    game_services.seat_connected(game_id, 1, now=now)
    for player in (a, b):
        game_services.start(game_id, by=player.user, now=now)
    game_services.apply_action(game_id, agent=0, action="do dust", by=a.user, now=now + timedelta(seconds=1))
    game_services.apply_action(game_id, agent=1, action="do sweep", by=b.user, now=now + timedelta(seconds=2))
    game_services.replace_seat(game_id, 1, dispatcher="random", now=now + timedelta(seconds=3))
    game_services.post_chat(game_id, text="still here", agent=1, now=now + timedelta(seconds=4))

    rows = list(event_rows(study, Options(include_excluded=True)))
    assert [r["seq"] for r in rows] == list(range(1, Game.objects.get(pk=game_id).events.count() + 1))
    actions = {json.dumps(r["data"]): r for r in rows if r["category"] == "action"}
    dust = next(r for text, r in actions.items() if "dust" in text)
    sweep = next(r for text, r in actions.items() if "sweep" in text)
    assert (dust["participant"], dust["agent"], dust["seat_kind"]) == (a.code, 0, "participant")
    assert (sweep["participant"], sweep["agent"], sweep["seat_kind"]) == (b.code, 1, "participant")
    assert dust["episode"] == sweep["episode"] == 1
    replaced = next(r for r in rows if r["kind"] == "seat_replaced")
    assert replaced["participant"] == b.code  # the entry says who left ...
    chat = next(r for r in rows if r["category"] == "chat" and r["agent"] == 1)
    assert (chat["participant"], chat["seat_kind"]) == ("", "backfill")  # ... what follows is the computer's
    assert all(r["participant"] == "" for r in rows if r["agent"] == "")  # nobody caused it: nobody named
    assert {r["condition"] for r in rows} == {"Two people"}


def test_the_events_export_marks_seats_the_lobby_gave_to_the_backfill(shared_study):
    study = shared_study(lobby_timeout_seconds=30, backfill_kind="random")
    alone, episode = arrive(study, "LONELY")
    services.start_episode(alone, episode)
    services.lobby.poll(alone, now=timezone.now() + timedelta(seconds=31))
    episode.refresh_from_db()
    game_services.start(episode.game_id, by=alone.user)
    game_services.apply_action(episode.game_id, agent=1, action="do sweep")
    rows = list(event_rows(study, Options(include_excluded=True)))
    sweep = next(r for r in rows if r["category"] == "action")
    assert (sweep["agent"], sweep["seat_kind"]) == (1, "backfill")
    assert {r["participant"] for r in rows} == {alone.code}  # played alone: every entry is their game's


def test_the_monitor_shows_who_waits_in_the_lobby_and_whose_seat_went_to_the_backfill(shared_study, client, researcher):
    study = shared_study()
    client.force_login(researcher)
    monitor = reverse("studies:monitor", args=[study.pk])
    a, ea = arrive(study, "A")
    services.start_episode(a, ea)
    Episode.objects.filter(pk=ea.pk).update(lobby_entered_at=timezone.now() - timedelta(seconds=42))
    assert re.search(r"in lobby \(waiting 4[23] s\)", client.get(monitor).content.decode())
    # its page closed: "waiting 277 s" past the timeout read as a lobby that never gave up
    Episode.objects.filter(pk=ea.pk).update(lobby_seen_at=timezone.now() - timedelta(seconds=30))
    closed = client.get(monitor).content.decode()
    assert re.search(r"lobby page closed 3[01] s ago: nothing happens until they return", closed)
    Episode.objects.filter(pk=ea.pk).update(lobby_seen_at=timezone.now())

    b, eb = arrive(study, "B")
    game_id = services.start_episode(b, eb).game_id
    page = client.get(monitor).content.decode()
    assert "in lobby" not in page and "taken over" not in page
    services.drop_out(b, reason="withdrew")  # their seat goes to the backfill NPC
    assert "seat taken over by backfill (game 1)" in client.get(monitor).content.decode()
    assert Seat.objects.get(game_id=game_id, agent=1).kind == "npc"


def test_the_analysis_leaves_out_shared_games_a_computer_helped_fill_unless_asked(shared_study, client, researcher):
    """A "Two people" game played beside the backfill (nobody else came) was averaged with the real
    pairs' games, and the analysis page said nothing of it."""
    from studies import selectors

    study = shared_study(lobby_timeout_seconds=30, backfill_kind="random")
    (a, ea), (b, eb) = arrive(study, "A"), arrive(study, "B")
    services.start_episode(a, ea)
    pair = services.start_episode(b, eb).game_id
    alone, lonely = arrive(study, "LONELY")
    services.start_episode(alone, lonely)
    services.lobby.poll(alone, now=timezone.now() + timedelta(seconds=31))
    lonely.refresh_from_db()
    for game_id in (pair, lonely.game_id):
        game_services.finish(game_id, reason="time is up")
    assert Episode.objects.filter(status=EpisodeStatus.SURVEY).count() == 3

    left_out = selectors.study_analysis(study)
    assert (left_out.n_backfilled, left_out.n_episodes, left_out.n_participants) == (1, 2, 2)
    # the pair's one game has one team score: counted once (twice, its SD read 0 and n doubled)
    assert (left_out.n_games, left_out.n_shared_games) == (1, 1)
    assert left_out.objective and all(g.n == 1 for m in left_out.objective for g in m.groups if g.n), [
        (m.label, [(g.condition, g.n) for g in m.groups]) for m in left_out.objective
    ]
    counted = selectors.study_analysis(study, include_backfilled=True)
    assert (counted.n_backfilled, counted.n_episodes, counted.n_participants) == (1, 3, 3)
    assert counted.n_games == 2 and {g.n for g in counted.objective[0].groups if g.n} == {2}
    client.force_login(researcher)
    page = " ".join(client.get(reverse("studies:analysis", args=[study.pk])).content.decode().split())
    assert (
        "1 shared game had a computer teammate in a person's seat (nobody came in time, or someone left): left out"
        in page
    )
    assert 'name="backfilled" value="1"' in page
    ticked = " ".join(
        client.get(reverse("studies:analysis", args=[study.pk]) + "?backfilled=1").content.decode().split()
    )
    assert "counted with its condition, as ticked" in ticked


def test_the_design_page_says_when_a_within_subject_shared_condition_rarely_pairs_people(
    toy_scenario, researcher, client
):
    """Two playtesters waited for the same shared condition at once, on different places of their
    orders (different scenarios): they never met, and the design page had not said it could be so."""
    study = services.create_study(title="Mixed", created_by=researcher, design="within")
    services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
    services.add_condition(study, name="Pair", npc_kind="none", npc_count=0, human_count=2)
    services.add_scenario(study, toy_scenario)
    client.force_login(researcher)
    page = " ".join(client.get(reverse("studies:design", args=[study.pk])).content.decode().split())
    assert "participants share a game of “Pair” only when they wait for it at the same time" in page
    study.design = "between"
    study.save()
    page = client.get(reverse("studies:design", args=[study.pk])).content.decode()
    assert "only when they wait for it at the same time" not in page  # one condition each: they meet
