"""An itinerary has one traveller: every seat moves it and each move takes the trip's clock to its
end, so an NPC seated beside a person played the whole trip within seconds (lockstep too) and the
person never acted. Such a game is refused wherever it is made: the API's service, the site's form
and a study's conditions."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services
from games.models import Game
from studies import services as studies
from studies.models import PageKind, StudyStatus

pytestmark = pytest.mark.django_db

SAID = "Itinerary (ItineraryBench) takes at most 1 seat: its one traveller is moved by every seat"


@pytest.fixture
def brief(db):
    from games.importers import bundled_itinerary

    bundled_itinerary.load(log=lambda line: None)
    return "bundled/harbourton-morning"


def test_a_second_seat_is_refused_with_the_reason_and_nothing_is_made(brief, researcher):
    for clock in ("real_time", "lockstep"):
        with pytest.raises(services.InvalidInput, match=re.escape(SAID)):
            services.create_game(
                brief, [{"kind": "human", "user": researcher}, {"kind": "npc", "dispatcher": "random"}], clock=clock
            )
    assert not Game.objects.exists()
    alone = services.create_game(brief, [{"kind": "npc", "dispatcher": "planner"}], clock="fast")
    assert alone.seats.count() == 1


def test_the_new_game_form_says_why(brief, client, researcher):
    client.force_login(researcher)
    fields = {
        "scenario": brief,
        "player": researcher.username,
        "seat1": "npc:random",
        "clock": "real_time",
        "seed": "0",
        "disconnect_policy": "pause",
    }
    page = client.post(reverse("games:create"), fields)
    assert page.status_code == 200 and SAID in page.content.decode()
    assert not Game.objects.exists()


def test_a_study_with_teammates_on_a_brief_cannot_open(brief, researcher):
    from games.models import Scenario

    study = studies.create_study(title="Trips", created_by=researcher)
    studies.add_condition(study, name="With a teammate", npc_kind="random", npc_count=1)
    studies.add_scenario(study, Scenario.objects.get(slug=brief, is_current=True))
    studies.add_onboarding_page(study, kind=PageKind.TEXT, title="Rules", body="x")
    with pytest.raises(studies.StudyError, match=re.escape("“With a teammate” seats 2, but " + SAID)):
        studies.set_status(study, StudyStatus.OPEN)
    study.refresh_from_db()
    assert study.status == StudyStatus.DRAFT


def test_the_page_says_a_move_takes_the_clock_to_its_end(brief, client, researcher):
    # a playtester read "Real time · 1 minute every 1 s" and saw a 60-minute visit end at once
    game = services.create_game(
        brief, [{"kind": "human", "user": researcher}], clock="real_time", created_by=researcher, start_when_ready=True
    )
    client.force_login(researcher)
    page = " ".join(client.get(reverse("games:play", args=[game.pk])).content.decode().split())
    assert "while you choose, and a train, a walk or a visit takes it to that leg's end at once" in page
