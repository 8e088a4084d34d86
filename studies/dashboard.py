"""Dashboard panels of the studies app (see accounts/dashboards.py)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from studies import selectors
from studies.models import ParticipantStatus, StudyStatus


def researcher_panel(user: Any) -> dict[str, Any]:
    studies = list(selectors.studies_overview())
    open_studies = [s for s in studies if s.status == StudyStatus.OPEN]
    if not studies:
        body = "No studies yet: design one (conditions, scenarios, questionnaire) and share its link."
    else:
        body = f"{len(open_studies)} open of {len(studies)}. " + "; ".join(
            f"{s.title}: {_progress(getattr(s, 'n_completed', 0), getattr(s, 'n_participants', 0))}"
            for s in (open_studies or studies)[:3]
        )
    return {
        "title": f"Studies ({len(studies)})",
        "body": body,
        "link": reverse("studies:list"),
        "link_label": "Open studies",
    }


def _progress(completed: int, joined: int) -> str:
    """How far a study's participants are, as the panel says it ("2 of 5 participants finished")."""
    if not joined:
        return "no participant yet"
    return f"{completed} of {joined} participant{'s' if joined != 1 else ''} finished"


def participant_panel(user: Any) -> dict[str, Any] | None:
    """A participant with an unfinished study gets a link back to where they left off."""
    from studies.models import Participant

    participation = (
        Participant.objects.filter(user=user, status__in=[ParticipantStatus.JOINED, ParticipantStatus.ACTIVE])
        .select_related("study")
        .order_by("-joined_at")
        .first()
    )
    if participation is None:
        return None
    step = selectors.participant_step(participation)
    return {
        "title": participation.study.title,
        "body": f"You are at: {step.label}.",
        "link": reverse("studies:step", args=[participation.study.slug]),
        "link_label": "Continue the study",
    }
