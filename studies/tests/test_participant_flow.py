"""A participant's whole path through the web pages: link, consent, onboarding, episodes (real games
through games.services), questionnaires, completion code; resuming; acting only in one's own episodes."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from games import permissions as game_permissions
from games import services as game_services
from games.models import Game, Seat
from studies.models import Episode, EpisodeStatus, Participant, ParticipantStatus, Response

pytestmark = pytest.mark.django_db(transaction=True)  # the game-finished hook runs on commit


def answers(study, value=4):
    return {f"item-{item.pk}": str(value) for item in study.items.all()}


def test_consent_needs_the_box_ticked_and_nothing_is_stored_until_then(client, make_study):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    page = client.get(entry + "?pid=PROLIFIC1")
    assert page.status_code == 200
    assert "Before you start" in page.content.decode()
    # no account is needed: the header's "Sign in" read as a step to take
    assert reverse("accounts:login") not in page.content.decode()
    refused = client.post(entry, {"pid": "PROLIFIC1", "choice": "agree"})
    assert refused.status_code == 400
    assert "tick the box" in refused.content.decode()
    assert not Participant.objects.exists()


def test_a_participant_goes_from_the_link_to_the_completion_code(client, make_study):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    response = client.post(entry, {"pid": "PROLIFIC1", "choice": "agree", "agree": "1"})
    assert response.status_code == 302 and response["Location"] == step_url
    participant = Participant.objects.get(external_id="PROLIFIC1")
    assert participant.status == ParticipantStatus.ACTIVE
    assert participant.assignment.condition_order in ([0, 1], [1, 0])

    page = client.get(step_url)
    assert "Rules" in page.content.decode()
    client.post(step_url, {"action": "onboarding", "index": "0"})

    for position in range(2):
        page = client.get(step_url)
        assert f"Game {position + 1}" in page.content.decode()
        # the bar shows what is done: half full before any game was played read as half done
        assert f'<span style="width: {50 * position}%">' in page.content.decode()
        client.post(step_url, {"action": "start", "index": str(position)})
        episode = participant.episodes.get(index=position)
        assert episode.status == EpisodeStatus.PLAYING
        game = episode.game
        seats = list(game.seats.order_by("agent"))
        assert seats[0].user == participant.user and seats[0].kind == "human"
        assert len(seats) == 1 + episode.condition.npc_count
        assert all(s.dispatcher == "random" for s in seats[1:])
        assert game.disconnect_policy == "pause"
        # The participant plays in their game through the games service; then the game ends.
        game_services.apply_action(game.pk, agent=0, action="do dust", by=participant.user)
        game_services.finish(game.pk, reason="test over")
        episode.refresh_from_db()
        assert episode.status == EpisodeStatus.SURVEY  # the GAME_FINISHED hook opened the questionnaire
        assert "progress" in episode.metrics

        page = client.get(step_url)
        assert "How was game" in page.content.decode()
        incomplete = answers(study)
        incomplete.pop(next(iter(incomplete)))
        refused = client.post(step_url, {"action": "questionnaire", "index": str(position), **incomplete})
        assert refused.status_code == 400 and "1 left" in refused.content.decode()
        assert not Response.objects.filter(episode=episode).exists()
        client.post(step_url, {"action": "questionnaire", "index": str(position), **answers(study)})
        asked = (
            study.items.count() if episode.condition.npc_count else study.items.filter(needs_teammates=False).count()
        )
        assert Response.objects.filter(episode=episode).count() == asked

    page = client.get(step_url)
    assert study.completion_code in page.content.decode()
    participant.refresh_from_db()
    assert participant.status == ParticipantStatus.COMPLETED


@pytest.mark.parametrize("index", [None, "", "-1", "x", "²"])
def test_a_step_form_without_a_readable_step_says_to_reload_and_changes_nothing(client, make_study, index):
    study = make_study()
    step_url = reverse("studies:step", args=[study.slug])
    client.post(reverse("studies:entry", args=[study.slug]), {"pid": "P1", "choice": "agree", "agree": "1"})
    sent = {"action": "onboarding"} if index is None else {"action": "onboarding", "index": index}
    page = client.post(step_url, sent, follow=True).content.decode()
    assert "did not say which step it is for; reload the page" in page
    assert Participant.objects.get(external_id="P1").onboarding_done == 0


def test_reload_resumes_and_a_new_device_needs_the_resume_code(client, make_study):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    client.post(entry, {"pid": "ABC", "choice": "agree", "agree": "1"})
    client.post(step_url, {"action": "onboarding", "index": "0"})
    client.post(step_url, {"action": "start", "index": "0"})
    code = Participant.objects.get().resume_code
    assert code in client.get(step_url).content.decode()  # shown to the participant

    assert client.get(entry + "?pid=ABC")["Location"] == step_url  # reload of the link
    other_device = Client()
    asked = other_device.get(entry + "?pid=ABC")
    assert asked.status_code == 200 and 'data-step="resume"' in asked.content.decode()
    # someone who never started it (another used their id) or lost the code is told whom to ask
    assert "message the researcher through the site that sent you here" in asked.content.decode()
    assert other_device.get(step_url)["Location"].startswith(entry)  # the pid alone opens nothing
    wrong = other_device.post(entry, {"pid": "ABC", "choice": "resume", "code": "AAAA-AAAA"})
    assert wrong.status_code == 400 and "does not match" in wrong.content.decode()
    typed = code.lower().replace("-", " ")  # typed loosely
    assert other_device.post(entry, {"pid": "ABC", "choice": "resume", "code": typed})["Location"] == step_url
    page = other_device.get(step_url).content.decode()
    assert "Your game is running" in page
    assert Participant.objects.count() == 1
    assert Game.objects.count() == 1  # starting again did not create a second game
    other_device.post(step_url, {"action": "start", "index": "0"})
    assert Game.objects.count() == 1


def test_participants_act_only_in_their_own_episodes(make_study):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    alice, bob = Client(), Client()
    for client, pid in ((alice, "ALICE"), (bob, "BOB")):
        client.post(entry, {"pid": pid, "choice": "agree", "agree": "1"})
        client.post(step_url, {"action": "onboarding", "index": "0"})
        client.post(step_url, {"action": "start", "index": "0"})
    a = Participant.objects.get(external_id="ALICE")
    b = Participant.objects.get(external_id="BOB")
    a_game = a.episodes.get(index=0).game
    assert not game_permissions.can_act(b.user, a_game, 0)
    assert game_permissions.can_act(a.user, a_game, 0)
    game_services.finish(a_game.pk, reason="done")
    # Bob's questionnaire for "episode 0" is his own episode 0 (still playing), never Alice's.
    response = bob.post(step_url, {"action": "questionnaire", "index": "0", **answers(study)}, follow=True)
    assert "finish the game first" in response.content.decode()
    assert not Response.objects.exists()
    assert a.episodes.get(index=0).status == EpisodeStatus.SURVEY
    # Someone without a participation gets sent to the study link, not into anybody's step.
    stranger = Client()
    assert stranger.post(step_url, {"action": "start", "index": "0"})["Location"].startswith(entry)


def test_withdrawing_marks_the_participant_dropped_and_stops_their_game(client, make_study):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    client.post(entry, {"choice": "agree", "agree": "1"})
    client.post(step_url, {"action": "onboarding", "index": "0"})
    client.post(step_url, {"action": "start", "index": "0"})
    client.post(step_url, {"action": "withdraw"})
    participant = Participant.objects.get()
    assert participant.status == ParticipantStatus.DROPPED
    assert participant.episodes.get(index=0).game.is_finished
    assert "participation has ended" in client.get(step_url).content.decode()
    assert "participation has ended" in client.get(entry, follow=True).content.decode()


def test_the_researcher_releases_a_participant_id_someone_else_took_first(make_study, researcher):
    """Whoever opens a panel id's link first holds it; its owner then only sees the resume page.
    The monitor's "Release id" frees it: the squatter's participation ends and keeps its data
    (excluded from analysis), and the owner's link starts a participation of their own."""
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    squatter, owner, staff = Client(), Client(), Client()
    squatter.post(entry, {"pid": "PANEL7", "choice": "agree", "agree": "1"})
    squatter.post(step_url, {"action": "onboarding", "index": "0"})
    squatter.post(step_url, {"action": "start", "index": "0"})
    taken = Participant.objects.get(external_id="PANEL7")
    old_code = taken.resume_code
    assert 'data-step="resume"' in owner.get(entry + "?pid=PANEL7").content.decode()

    staff.force_login(researcher)
    monitor = staff.get(reverse("studies:monitor", args=[study.pk])).content.decode()
    release_url = reverse("studies:release", args=[study.pk, taken.pk])
    assert release_url in monitor and "Release PANEL7" in monitor
    done = staff.post(release_url, follow=True).content.decode()
    assert "Released PANEL7: its link now starts a new participation" in done

    taken.refresh_from_db()
    assert taken.status == ParticipantStatus.DROPPED and taken.external_id == ""
    assert "id PANEL7 released by the researcher" in taken.drop_reason
    assert taken.episodes.get(index=0).game.is_finished  # kept, and stopped
    assert "participation has ended" in squatter.get(step_url).content.decode()
    assert owner.post(entry, {"pid": "PANEL7", "choice": "resume", "code": old_code}).status_code == 400

    assert "Before you start" in owner.get(entry + "?pid=PANEL7").content.decode()
    owner.post(entry, {"pid": "PANEL7", "choice": "agree", "agree": "1"})
    mine = Participant.objects.get(external_id="PANEL7")
    assert mine.pk != taken.pk and mine.status == ParticipantStatus.ACTIVE
    assert owner.get(step_url).status_code == 200

    # a completed participation keeps its id: one id never completes a study twice
    Participant.objects.filter(pk=mine.pk).update(status=ParticipantStatus.COMPLETED)
    refused = staff.post(reverse("studies:release", args=[study.pk, mine.pk]), follow=True).content.decode()
    assert "completed the study; its id stays" in refused
    assert Participant.objects.get(pk=mine.pk).external_id == "PANEL7"
    # only researchers release ids, and only with a POST
    assert squatter.post(reverse("studies:release", args=[study.pk, mine.pk])).status_code == 403
    assert staff.get(reverse("studies:release", args=[study.pk, mine.pk])).status_code == 405
    assert Participant.objects.get(pk=mine.pk).external_id == "PANEL7"


def test_every_participant_form_is_csrf_protected(make_study):
    study = make_study()
    client = Client(enforce_csrf_checks=True)
    entry = reverse("studies:entry", args=[study.slug])
    assert client.post(entry, {"choice": "agree", "agree": "1"}).status_code == 403
    page = client.get(entry).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page
    assert not Participant.objects.exists()


def test_a_draft_study_turns_participants_away_but_accepts_signed_pilots(client, make_study):
    from studies import services
    from studies.pilot_tokens import pilot_token

    study = make_study()
    services.set_status(study, "draft")
    entry = reverse("studies:entry", args=[study.slug])
    closed = client.get(entry).content.decode()
    assert "not opened yet" in closed and "<h1>Not open now</h1>" in closed  # it repeated the study's name
    refused = client.post(entry, {"choice": "agree", "agree": "1", "pilot": "forged"})
    assert refused.status_code == 400
    bad = client.get(entry + "?pid=" + "x" * 300).content.decode()
    assert "<h1>This link cannot start the study</h1>" in bad and f"<h1>{study.title}</h1>" not in bad
    client.post(entry, {"choice": "agree", "agree": "1", "pilot": pilot_token(study)})
    assert Participant.objects.get().is_pilot


@pytest.mark.parametrize("pid", ["<script>", "-2-3", "@A1"])  # the last two: formulas in a spreadsheet
def test_a_bad_external_id_gets_a_clear_message(client, make_study, pid):
    study = make_study()
    response = client.get(reverse("studies:entry", args=[study.slug]), {"pid": pid})
    assert response.status_code == 400
    assert "Check the link" in response.content.decode()


def test_a_tutorial_page_starts_a_solo_practice_game(client, make_study, toy_scenario):
    from studies import services

    study = make_study(pages=False)
    services.set_status(study, "draft")
    services.add_onboarding_page(study, kind="tutorial", title="Practice", tutorial_scenario=toy_scenario)
    services.set_status(study, "open")
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    client.post(entry, {"choice": "agree", "agree": "1"})
    first = client.get(step_url).content.decode()
    assert "Practice game" in first
    # Enter plays the practice (it was Continue's, and went on past it)
    leads = re.findall(r'<(?:button|a)[^>]*class="[^"]*primary[^"]*"[^>]*autofocus[^>]*>([^<]+)<', first)
    assert leads == ["Play the practice game"], leads
    client.post(step_url, {"action": "tutorial", "index": "0"})
    participant = Participant.objects.get()
    assert participant.tutorial_game is not None
    assert [s.kind for s in participant.tutorial_game.seats.all()] == ["human"]
    assert not Episode.objects.filter(game=participant.tutorial_game).exists()
    # the practice game links back to the study while it runs, not only once it ends
    practice = client.get(reverse("games:play", args=[participant.tutorial_game_id])).content.decode()
    assert f'href="{step_url}"' in practice and "Back to the study" in practice
    page = client.get(step_url).content.decode()
    assert "Back to your practice game" in page and "Start a new practice game" in page
    assert "Stop practising and continue" in page and "without practising" not in page
    # "Start a new practice game" does: the running one stops and another starts (it used to send
    # them back into the same game); the same form sent twice starts one, not two
    first = participant.tutorial_game_id
    assert f'name="replacing" value="{first}"' in page
    client.post(step_url, {"action": "tutorial", "index": "0", "replacing": str(first)})
    participant.refresh_from_db()
    assert participant.tutorial_game_id != first and not participant.tutorial_game.is_finished
    assert Game.objects.get(pk=first).is_finished
    second = participant.tutorial_game_id
    client.post(step_url, {"action": "tutorial", "index": "0", "replacing": str(first)})
    client.post(step_url, {"action": "tutorial", "index": "0"})  # a reload of the first button
    participant.refresh_from_db()
    assert participant.tutorial_game_id == second
    # once it is over the page says so, and does not send them "back" to a finished game
    Game.objects.filter(pk=participant.tutorial_game_id).update(status="finished")
    page = client.get(step_url).content.decode()
    assert "You finished a practice game" in page and "Practise again" in page
    leads = re.findall(r'<(?:button|a)[^>]*class="[^"]*primary[^"]*"[^>]*autofocus[^>]*>([^<]+)<', page)
    assert leads == ["Continue"], leads  # once practised, Enter goes on
    assert "Back to your practice game" not in page
    client.post(step_url, {"action": "onboarding", "index": "0"})
    assert "Game 1" in client.get(step_url).content.decode()
    assert Seat.objects.filter(user=participant.user).count() == 2  # the two practice games
    participant.tutorial_game.refresh_from_db()
    assert participant.tutorial_game.is_finished  # moving on stopped the practice clock


def test_the_dashboards_point_to_the_study(client, researcher, make_study):
    from studies.dashboard import participant_panel, researcher_panel

    study = make_study()
    client.post(reverse("studies:entry", args=[study.slug]), {"pid": "DASH", "choice": "agree", "agree": "1"})
    participant = Participant.objects.get(external_id="DASH")
    panel = participant_panel(participant.user)
    assert panel["link"] == reverse("studies:step", args=[study.slug])
    assert "Introduction 1/1" in panel["body"]
    body = researcher_panel(researcher)["body"]
    assert "1 open of 1" in body and "0 of 1 participant finished" in body  # not "0/1 completed"
    # finished, the dashboard still leads back: to the completion code (it listed games only)
    Participant.objects.filter(pk=participant.pk).update(status="completed")
    done = participant_panel(participant.user)
    assert done["link"] == reverse("studies:step", args=[study.slug]) and "completion code" in done["body"]


def test_a_finished_game_links_back_to_its_study(make_study):
    from django.template.loader import render_to_string

    from studies import services

    study = make_study(pages=False)
    participant = services.give_consent(services.join(study, external_id="BACK"))
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    html = render_to_string("studies/_back_to_study.html", {"game": episode.game})
    assert reverse("studies:step", args=[study.slug]) in html and "questions about this game" in html
    # stopped taking part (another tab): the game page's way back promises no questions
    services.drop_out(participant, reason="withdrew")
    html = render_to_string("studies/_back_to_study.html", {"game": episode.game})
    assert reverse("studies:step", args=[study.slug]) in html and "questions" not in html
    solo = game_services.create_game(episode.scenario, [{"kind": "human", "user": participant.user}])
    assert "href" not in render_to_string("studies/_back_to_study.html", {"game": solo})


def test_the_game_page_of_a_finished_episode_leads_back_to_the_study(client, make_study):
    study = make_study(pages=False)
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    client.post(entry, {"pid": "ROUND", "choice": "agree", "agree": "1"})
    started = client.post(step_url, {"action": "start", "index": "0"})
    game = Participant.objects.get(external_id="ROUND").episodes.get(index=0).game
    assert started["Location"].startswith(reverse("games:play", args=[game.pk]))  # straight into the game
    game_services.finish(game.pk, reason="time is up")
    page = client.get(reverse("games:play", args=[game.pk])).content.decode()
    assert f'href="{step_url}"' in page and "Continue the study" in page


def test_after_a_solo_game_questions_about_teammates_are_not_asked(client, make_study):
    study = make_study()  # Alone, then Random NPC (or the reverse: the Latin square decides)
    teammate_items = set(study.items.filter(needs_teammates=True).values_list("pk", flat=True))
    assert teammate_items  # the default questionnaire marks its teammate constructs
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    client.post(entry, {"pid": "SOLO", "choice": "agree", "agree": "1"})
    client.post(step_url, {"action": "onboarding", "index": "0"})
    participant = Participant.objects.get()
    for index in (0, 1):
        client.post(step_url, {"action": "start", "index": str(index)})
        episode = participant.episodes.select_related("condition").get(index=index)
        game_services.finish(episode.game_id, reason="test")
        page = client.get(step_url).content.decode()
        asked = {item.pk for item in study.items.all() if f'name="item-{item.pk}"' in page}
        alone = episode.condition.npc_kind == "none"
        assert asked.isdisjoint(teammate_items) if alone else teammate_items <= asked
        answers = {f"item-{pk}": "3" for pk in asked}  # only what was asked
        client.post(step_url, {"action": "questionnaire", "index": str(index), **answers})
        episode.refresh_from_db()
        assert episode.status == EpisodeStatus.DONE
        stored = set(Response.objects.filter(episode=episode).values_list("item_id", flat=True))
        assert stored == asked


@pytest.mark.parametrize("seconds, bundled_pace", [(None, True), (2.0, False)])
def test_a_study_left_at_the_scenarios_own_pace_plays_each_at_it(researcher, seconds, bundled_pace):
    """A study's pace was 2 s per game time unit for every domain by default: a kitchen step every
    2 s, but a recipes second every 2 s too, so Quick lunch (about 46 recipe minutes as the
    planner plays it) took its participants an hour and a half. Left blank, each game gets its scenario's own pace."""
    from games.engine import registry
    from games.models import Scenario
    from games.speeds import default_speed
    from studies import services
    from studies.models import StudyStatus

    registry.descriptor("recipes").part("bundled")(log=lambda line: None)
    lunch = Scenario.objects.get(slug="bundled/Omelette_Tomato-Soup", is_current=True)
    study = services.create_study(title="Recipes", created_by=researcher, seconds_per_time_unit=seconds)
    services.add_condition(study, name="Alone", npc_kind="none", npc_count=0)
    services.add_scenario(study, lunch)
    services.set_status(study, StudyStatus.OPEN)
    participant = services.give_consent(services.join(study, external_id="P1"))
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    own = default_speed("recipes", lunch.definition)
    assert own >= 8  # recipe seconds per second, as the bundled scenarios are paced
    assert episode.game.speed == (own if bundled_pace else 0.5)


def test_a_participant_who_joined_without_an_id_comes_back_with_the_resume_code_alone(client, make_study):
    # signing out (or clearing cookies, or another device) lost such a participation for good
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    client.post(entry, {"choice": "agree", "agree": "1"})
    client.post(step_url, {"action": "onboarding", "index": "0"})
    participant = Participant.objects.get()
    assert participant.external_id == "" and participant.resume_code in client.get(step_url).content.decode()

    other_device = Client()
    consent = other_device.get(entry).content.decode()
    assert f'href="{entry}?resume=1"' in consent  # "Started this study before?"
    asked = other_device.get(entry, {"resume": "1"}).content.decode()
    assert 'data-step="resume"' in asked and 'name="code"' in asked
    wrong = other_device.post(entry, {"choice": "resume", "code": "AAAA-AAAA"})
    assert wrong.status_code == 400 and "does not match" in wrong.content.decode()
    back = other_device.post(entry, {"choice": "resume", "code": participant.resume_code.lower()})
    assert back["Location"] == step_url
    assert "Game 1" in other_device.get(step_url).content.decode()  # where they left off: onboarding done
    assert Participant.objects.count() == 1


def test_guessing_resume_codes_without_an_id_stops_after_ten_tries(make_study):
    from django.core.cache import cache

    from studies import services
    from studies.errors import StudyError

    cache.clear()  # the tries are counted in the cache, by study and address
    study = make_study()
    participant = services.give_consent(services.join(study, external_id=""))
    with_id = services.give_consent(services.join(study, external_id="HAS-ID"))
    # an id's code is no id-less one, and the message says where it works (a playtester's right code
    # read as wrong on the bare link)
    with pytest.raises(StudyError, match=r"does not match.*open that link again"):
        services.resume(study, external_id="", code=with_id.resume_code, client="10.0.0.1")
    for _ in range(9):
        with pytest.raises(StudyError, match="does not match"):
            services.resume(study, external_id="", code="AAAA-AAAA", client="10.0.0.1")
    with pytest.raises(StudyError, match="Too many wrong resume codes"):
        services.resume(study, external_id="", code=participant.resume_code, client="10.0.0.1")
    assert services.resume(study, external_id="", code=participant.resume_code, client="10.0.0.2") == participant
