"""What surrounds a study participant's pages (docs/decisions.md, Studies): the header leads back to
the study only (no Dashboard, My games or Sign out, which led away and lost the participation in
that browser), and a finished game offers the study's next step alone (no replay competing with it)."""

from __future__ import annotations

import re

import pytest
from django.test import Client as HttpClient
from django.urls import reverse

from studies import services
from studies.tests.factories import generated_study, play_with_the_planner

pytestmark = pytest.mark.django_db


def header(page: str) -> str:
    return re.search(r'<header class="site-header">(.*?)</header>', page, re.S).group(1)


def test_a_participant_s_finished_game_leads_only_back_to_the_study(researcher):
    study, _ = generated_study(researcher)
    player = services.give_consent(services.join(study, external_id="PANEL1"))
    game = play_with_the_planner(player, player.episodes.get(index=0))
    browser = HttpClient()
    browser.force_login(player.user)
    page = browser.get(reverse("games:play", args=[game.pk])).content.decode()
    step = reverse("studies:step", args=[study.slug])
    assert "Continue the study: questions about this game" in page
    assert "Watch the replay" not in page and "Back to My games" not in page
    top = header(page)
    assert "Your study" in top and f'href="{step}"' in top
    for away in ("Dashboard", "My games", "Sign out"):
        assert away not in top, away
    # the study's own pages too
    assert "Sign out" not in header(browser.get(step).content.decode())
    # a researcher watching the game is not offered the participant's next step (it led to "You are
    # signed in with your own account")
    watcher = HttpClient()
    watcher.force_login(researcher)
    watched = watcher.get(reverse("games:play", args=[game.pk])).content.decode()
    assert "Continue the study" not in watched and "Watch the replay" in watched


def test_a_person_s_own_account_keeps_its_header(client, participant):
    client.force_login(participant)
    top = header(client.get(reverse("home")).content.decode())
    assert "My games" in top and "Sign out" in top and "Your study" not in top
