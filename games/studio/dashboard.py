"""The researcher's dashboard panel for the scenario studio (see accounts/dashboards.py)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from games.models import Scenario
from games.studio.views import SOURCE


def researcher_panel(user: Any) -> dict[str, Any]:
    current = Scenario.objects.current()
    authored = current.filter(source=SOURCE).count()
    generated = current.filter(source="generated").count()
    return {
        "title": "Studio",
        "body": (
            f"{authored} authored and {generated} generated scenarios. Write a task, recipe pair, kitchen or trip "
            "and see its optimal plan as you type, or generate a family with certified optima."
        ),
        "link": reverse("studio:index"),
        "link_label": "Open the studio",
    }
