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
    """A participant with an unfinished study gets a link back to where they left off; one who
    finished it, a link to its last page (the completion code a recruiter's platform asks for)."""
    from studies.models import Participant

    mine = Participant.objects.filter(user=user).select_related("study").order_by("-joined_at")
    participation = mine.filter(status__in=[ParticipantStatus.JOINED, ParticipantStatus.ACTIVE]).first()
    if participation is None:
        finished = mine.filter(status=ParticipantStatus.COMPLETED).first()
        if finished is None:
            return None
        return {
            "title": finished.study.title,
            "body": "You finished this study. Thank you! Its last page keeps your completion code.",
            "link": reverse("studies:step", args=[finished.study.slug]),
            "link_label": "See your completion code",
        }
    step = selectors.participant_step(participation)
    return {
        "title": participation.study.title,
        "body": f"You are at: {step.label}.",
        "link": reverse("studies:step", args=[participation.study.slug]),
        "link_label": "Continue the study",
    }
