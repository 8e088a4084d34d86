"""A participation is its own identity (issue 16): it never signs in as, attaches to or deletes a
person's account; a study link never changes who is signed in; a pid alone resumes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts.roles import Role, grant
from games.models import Game
from games.services import create_game
from studies import services
from studies.models import Participant
from studies.pilot_tokens import pilot_token

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def annotator(db):
    user = get_user_model().objects.create_user("annotator", password="pw-annotator-1")
    grant(user, Role.ANNOTATOR)
    return user


def signed_in_as(client):
    return client.session.get("_auth_user_id")


def test_knowing_a_pid_never_signs_in_as_anyone(make_study, annotator):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    mine = Client()
    mine.force_login(annotator)
    # the annotator opens the link: they are not joined, not switched, and keep their account
    page = mine.get(entry + "?pid=ANN-1")
    assert 'data-step="signed-in"' in page.content.decode()
    refused = mine.post(entry, {"pid": "ANN-1", "choice": "agree", "agree": "1"})
    assert refused.status_code == 403
    assert not Participant.objects.exists()
    assert signed_in_as(mine) == str(annotator.pk)
    # a participant who joins with that pid gets a fresh account of their own ...
    Client().post(entry, {"pid": "ANN-1", "choice": "agree", "agree": "1"})
    participant = Participant.objects.get()
    assert participant.user != annotator and participant.user.get_username().startswith("p-")
    assert not participant.user.has_usable_password()
    # ... and whoever opens the same link later becomes neither the annotator nor the participant
    later = Client()
    page = later.get(entry + "?pid=ANN-1")
    assert 'data-step="resume"' in page.content.decode()
    assert signed_in_as(later) is None
    assert later.post(entry, {"pid": "ANN-1", "choice": "agree", "agree": "1"}).status_code == 409
    assert signed_in_as(later) is None and Participant.objects.count() == 1


def test_a_get_of_a_study_link_never_changes_who_is_signed_in(make_study, researcher, annotator):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    Client().post(entry, {"pid": "P7", "choice": "agree", "agree": "1"})
    for person in (researcher, annotator):
        client = Client()
        client.force_login(person)
        for url in (entry, entry + "?pid=P7", entry + "?pid=NEW", reverse("studies:step", args=[study.slug])):
            client.get(url)
            assert signed_in_as(client) == str(person.pk), url
    client = Client()
    client.force_login(researcher)
    assert client.get(reverse("studies:list")).status_code == 200  # still the researcher
    # signing out is the visitor's explicit choice, after which they take part as a new participation
    client.post(entry, {"pid": "R-1", "choice": "signout"})
    assert signed_in_as(client) is None
    client.post(entry, {"pid": "R-1", "choice": "agree", "agree": "1"})
    assert Participant.objects.get(external_id="R-1").user != researcher


def test_each_participation_has_its_own_account_and_a_browser_keeps_both(make_study):
    first, second = make_study(), make_study()
    client = Client()
    for study in (first, second):
        client.post(reverse("studies:entry", args=[study.slug]), {"pid": "SAME", "choice": "agree", "agree": "1"})
    a, b = Participant.objects.get(study=first), Participant.objects.get(study=second)
    assert a.user != b.user
    # the browser goes back to the first study's page and is that participation again
    assert client.get(reverse("studies:step", args=[first.slug])).status_code == 200
    assert signed_in_as(client) == str(a.user_id)


def test_a_second_person_on_a_lab_computer_gets_their_own_participation(client, make_study):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    client.post(entry, {"pid": "LAB-1", "choice": "agree", "agree": "1"})
    page = client.get(entry + "?pid=LAB-2")
    assert 'data-step="consent"' in page.content.decode()
    client.post(entry, {"pid": "LAB-2", "choice": "agree", "agree": "1"})
    assert Participant.objects.count() == 2
    assert Participant.objects.get(external_id="LAB-2").user_id == int(signed_in_as(client))


def test_wrong_resume_codes_are_limited(make_study):
    study = make_study()
    entry = reverse("studies:entry", args=[study.slug])
    Client().post(entry, {"pid": "GUESS", "choice": "agree", "agree": "1"})
    code = Participant.objects.get().resume_code
    attacker = Client()
    for _ in range(services.participation.MAX_RESUME_TRIES):
        attacker.post(entry, {"pid": "GUESS", "choice": "resume", "code": "ZZZZ-ZZZZ"})
    locked = attacker.post(entry, {"pid": "GUESS", "choice": "resume", "code": code})
    assert locked.status_code == 400 and "Too many" in locked.content.decode()
    assert signed_in_as(attacker) is None


def test_deleting_pilot_data_deletes_pilot_participations_and_games_only(make_study, annotator):
    study = make_study()
    services.set_status(study, "draft")
    entry = reverse("studies:entry", args=[study.slug])
    step_url = reverse("studies:step", args=[study.slug])
    # the annotator opens the pilot link while signed in: it does not attach to their account
    own = Client()
    own.force_login(annotator)
    own.post(entry, {"choice": "agree", "agree": "1", "pilot": pilot_token(study)})
    assert not Participant.objects.exists()
    pilot = Client()
    pilot.post(entry, {"choice": "agree", "agree": "1", "pilot": pilot_token(study)})
    pilot.post(step_url, {"action": "onboarding", "index": "0"})
    pilot.post(step_url, {"action": "start", "index": "0"})
    pilot_user = Participant.objects.get().user
    other_game = create_game(Game.objects.get().scenario, [{"kind": "human", "user": annotator}])

    assert services.delete_pilot_data(study) == 1

    assert not Participant.objects.exists()
    assert list(Game.objects.all()) == [other_game]  # the pilot's game went, nobody else's
    users = get_user_model().objects
    assert users.filter(pk=annotator.pk).exists() and users.get(pk=annotator.pk).has_usable_password()
    assert not users.filter(pk=pilot_user.pk).exists()
