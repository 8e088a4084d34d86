"""Participants who leave without a word are marked dropped out after the study's inactivity limit
(SPEC section 10): eight people idle for 8-13 minutes read "Active · idle" for good, and a game of
theirs stayed "paused (disconnect)" forever."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client as HttpClient
from django.urls import reverse
from django.utils import timezone

from games import scheduler
from games import services as game_services
from games.models import Game
from studies import services
from studies.forms import StudyBasicsForm
from studies.models import Participant, ParticipantStatus

pytestmark = pytest.mark.django_db


def away(participant: Participant, minutes: float) -> None:
    then = timezone.now() - timedelta(minutes=minutes)
    Participant.objects.filter(pk=participant.pk).update(last_seen_at=then, joined_at=then)


def playing(study, external_id):
    participant = services.give_consent(services.join(study, external_id=external_id))
    episode = services.start_episode(participant, participant.episodes.get(index=0))
    return participant, episode


def test_a_participant_gone_past_the_limit_is_dropped_and_their_game_ends(client, researcher, make_study):
    study = make_study(pages=False)
    assert study.inactive_after_minutes == 60  # the default
    gone, episode = playing(study, "GONE")
    recent, _ = playing(study, "RECENT")  # seen ten minutes ago
    mover, moved = playing(study, "MOVER")  # the study pages not for long, but a move in their game just now
    away(gone, 70)
    away(recent, 10)
    away(mover, 70)
    game_services.apply_action(moved.game_id, agent=0, action="wait", by=mover.user)

    client.force_login(researcher)
    monitor = client.get(reverse("studies:monitor", args=[study.pk])).content.decode()  # reading it applies it
    statuses = dict(Participant.objects.filter(study=study).values_list("external_id", "status"))
    assert statuses == {"GONE": "dropped", "RECENT": "active", "MOVER": "active"}
    gone.refresh_from_db()
    assert gone.drop_reason == "no activity for 60 minutes" and "no activity for 60 minutes" in monitor
    assert Game.objects.get(pk=episode.game_id).is_finished  # not left paused for good

    # they come back: told kindly that the study has ended for them
    browser = HttpClient()
    browser.force_login(gone.user)
    page = " ".join(browser.get(reverse("studies:step", args=[study.slug])).content.decode().split())
    assert "We had not heard from you for 60 minutes, so the study has ended for you." in page


def test_coming_back_after_the_limit_ends_the_participation_first(make_study):
    study = make_study(pages=False)
    participant, _ = playing(study, "LATE")
    away(participant, 61)
    browser = HttpClient()
    browser.force_login(participant.user)
    page = browser.get(reverse("studies:step", args=[study.slug])).content.decode()
    participant.refresh_from_db()
    assert participant.status == ParticipantStatus.DROPPED and "We had not heard from you" in page


def test_the_scheduler_loop_applies_it_and_zero_means_never(make_study):
    study = make_study(pages=False, title="Timed")
    never = make_study(pages=False, title="Never", inactive_after_minutes=0)
    first, _ = playing(study, "A")
    second, _ = playing(never, "B")
    away(first, 24 * 60)
    away(second, 24 * 60)
    assert scheduler.housekeeping(force=True)
    assert not scheduler.housekeeping()  # once a minute, not at every step of the loop
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (ParticipantStatus.DROPPED, ParticipantStatus.ACTIVE)


def test_the_limit_is_a_setting_of_the_study_design():
    form = StudyBasicsForm()
    field = form.fields["inactive_after_minutes"]
    assert field.label == "Drop out after inactivity (minutes)" and field.initial == 60
    assert "0: never" in field.help_text
