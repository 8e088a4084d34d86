"""The site header for a study participant (a context processor, after ``accounts.context.navigation``).

A participation's login-less account saw "Dashboard · My games · Sign out" on its game pages: each
led away from the study, and signing out lost the participation in that browser (it then needs the
resume code). Inside a study the header offers one way, back to the participant's current step, and
the brand leads there too; there is no Sign out (the withdraw button on the study pages ends a
participation). docs/decisions.md, Studies.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from studies.models import Participant
from studies.services.participation import is_participation_account


def participant_header(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not is_participation_account(user):
        return {}
    participation = Participant.objects.filter(user=user).select_related("study").first()
    if participation is None:
        return {}
    url = reverse("studies:step", args=[participation.study.slug])
    return {
        "nav_items": [{"label": "Your study", "url": url, "active": request.path == url}],
        "study_home": url,
    }
