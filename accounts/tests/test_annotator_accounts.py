"""A researcher makes annotator accounts on the site (a playtester needed Django's admin, where
nothing said the "annotators" group grants the role); no one else may, and no other role is made."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.roles import Role, roles_of

pytestmark = pytest.mark.django_db

URL = reverse("accounts:new_annotator")
GOOD = {"username": "nadia", "password1": "tomato-wedges-42", "password2": "tomato-wedges-42"}


def test_a_researcher_makes_an_annotator_who_can_sign_in_and_is_offered_on_the_project_form(client, researcher):
    client.force_login(researcher)
    back = reverse("annotations:project_new")
    assert 'href="/accounts/annotators/new/?next=' in client.get(back).content.decode()
    done = client.post(URL, {**GOOD, "next": back}, follow=True)
    assert done.redirect_chain[-1][0] == back
    assert "Annotator “nadia” can sign in now" in done.content.decode()
    nadia = get_user_model().objects.get(username="nadia")
    assert roles_of(nadia) == {Role.ANNOTATOR} and not nadia.is_staff and not nadia.is_superuser
    assert f'value="{nadia.pk}"' in done.content.decode()  # among the project form's annotators
    client.logout()
    signed_in = client.post(reverse("accounts:login"), {"username": "nadia", "password": "tomato-wedges-42"})
    assert signed_in.status_code == 302 and client.get(reverse("annotations:queue")).status_code == 200


def test_a_bad_account_is_refused_with_the_reason_and_nothing_is_made(client, researcher):
    client.force_login(researcher)
    taken = client.post(URL, {**GOOD, "username": "res"})
    assert taken.status_code == 200 and "A user with that username already exists." in taken.content.decode()
    weak = client.post(URL, {"username": "nadia", "password1": "nadia", "password2": "nadia"})
    assert weak.status_code == 200 and "This password is too short" in weak.content.decode()
    assert not get_user_model().objects.filter(username="nadia").exists()
    # a "next" to another site is not followed
    away = client.post(URL, {**GOOD, "next": "https://evil.example/"})
    assert away.status_code == 302 and away["Location"] == URL


@pytest.mark.parametrize("who", ["annotator", "participant"])
def test_only_researchers_make_accounts(client, request, who):
    client.force_login(request.getfixturevalue(who))
    assert client.get(URL).status_code == 403
    assert client.post(URL, GOOD).status_code == 403
    assert not get_user_model().objects.filter(username="nadia").exists()
    client.logout()
    assert client.post(URL, GOOD).status_code in (302, 403)  # signed out: to the sign-in page
    assert not get_user_model().objects.filter(username="nadia").exists()
