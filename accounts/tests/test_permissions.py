"""Each role gets exactly its pages; the checks all come from accounts.permissions."""

import pytest
from django.urls import reverse

from accounts import permissions
from accounts.roles import Role, grant, primary_role

pytestmark = pytest.mark.django_db


def test_predicates_per_role(researcher, annotator, participant, django_user_model):
    nobody = django_user_model.objects.create_user("nobody", password="pw-nobody-12")
    assert permissions.is_researcher(researcher) and not permissions.is_researcher(annotator)
    assert permissions.is_annotator(annotator) and permissions.is_annotator(researcher)
    assert not permissions.is_annotator(participant)
    assert permissions.is_participant(participant) and not permissions.is_participant(annotator)
    assert not any(
        check(nobody) for check in (permissions.is_researcher, permissions.is_annotator, permissions.is_participant)
    )
    assert primary_role(researcher) == Role.RESEARCHER
    assert primary_role(annotator) == Role.ANNOTATOR
    assert primary_role(participant) == Role.PARTICIPANT
    assert primary_role(nobody) is None


def test_anonymous_user_has_no_role():
    from django.contrib.auth.models import AnonymousUser

    assert primary_role(AnonymousUser()) is None
    assert not permissions.is_researcher(AnonymousUser())


def test_grant_researcher_makes_staff(django_user_model):
    user = django_user_model.objects.create_user("r2", password="pw-r2-123456")
    grant(user, Role.RESEARCHER)
    user.refresh_from_db()
    assert user.is_staff


@pytest.mark.parametrize(
    ("who", "status"),
    [("researcher", 200), ("annotator", 403), ("participant", 403)],
)
def test_researcher_only_page(client, request, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("games:scenarios")).status_code == status


def test_anonymous_is_sent_to_login(client):
    response = client.get(reverse("games:scenarios"))
    assert response.status_code == 302
    assert reverse("accounts:login") in response["Location"]


@pytest.mark.parametrize("who", ["researcher", "annotator", "participant"])
def test_dashboard_per_role(client, request, who):
    client.force_login(request.getfixturevalue(who))
    response = client.get(reverse("home"))
    assert response.status_code == 200
    assert f"accounts/dashboard_{who}.html" in [t.name for t in response.templates]
    nav_labels = [item["label"] for item in response.context["nav_items"]]
    assert ("Scenarios" in nav_labels) == (who == "researcher")


def test_a_participant_with_nothing_yet_is_told_where_games_come_from(client, participant):
    client.force_login(participant)
    page = client.get(reverse("home")).content.decode()
    assert "Nothing to play yet. The link a researcher sent you starts your study" in page
    assert "Nothing here yet." not in page
