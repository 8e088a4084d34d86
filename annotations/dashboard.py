"""Dashboard panels the annotations app contributes (see accounts/dashboards.py)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from annotations import selectors
from annotations.models import Annotator, Assignment, Project


def researcher_panel(user: Any) -> dict[str, Any]:
    projects = Project.objects.count()
    assignments = Assignment.objects.count()
    submitted = Assignment.objects.filter(submitted_at__isnull=False).count()
    body = (
        f"{projects} project{'s' if projects != 1 else ''}; {submitted} of {assignments} recipe assignments submitted."
        if projects
        else "No annotation projects yet: create one from recipes."
    )
    return {
        "title": "Annotation",
        "body": body,
        "link": reverse("annotations:projects"),
        "link_label": "Open projects",
    }


def annotator_panel(user: Any) -> dict[str, Any]:
    annotator = Annotator.objects.filter(user=user).first()
    entries = selectors.queue(annotator) if annotator else []
    open_entries = [e for e in entries if e.assignment.submitted_at is None]
    if not entries:
        body = "Nothing assigned to you yet."
    elif open_entries:
        body = (
            f"{len(open_entries)} of {len(entries)} recipes to label; next: {open_entries[0].assignment.recipe.title}."
        )
    else:
        body = f"All {len(entries)} recipes submitted. Thank you!"
    if open_entries:  # "Continue labelling" opens the recipe the panel names, not the queue
        link = reverse("annotations:label", kwargs={"pk": open_entries[0].assignment.recipe_id})
        return {"title": "My labelling queue", "body": body, "link": link, "link_label": "Continue labelling"}
    return {
        "title": "My labelling queue",
        "body": body,
        "link": reverse("annotations:queue"),
        "link_label": "Open my queue",
    }
