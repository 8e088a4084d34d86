"""Dashboard panels the games app contributes (see accounts/dashboards.py)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from games import selectors


def researcher_panel(user: Any) -> dict[str, Any]:
    counts = selectors.scenario_counts()
    total = sum(counts.values())
    body = (
        ", ".join(f"{n} {domain}" for domain, n in sorted(counts.items()))
        or "No scenarios yet: run make run or import a dataset."
    )
    return {
        "title": f"Scenarios ({total})",
        "body": body,
        "link": reverse("games:scenarios"),
        "link_label": "Browse scenarios",
    }
