"""The researcher's dashboard panel for benchmark runs (see accounts/dashboards.py)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from games.npc.benchmarks import stop_abandoned_runs
from games.npc.models import BenchmarkRun, RunStatus


def researcher_panel(user: Any) -> dict[str, Any]:
    stop_abandoned_runs()
    runs = BenchmarkRun.objects.all()
    total = runs.count()
    under_way = runs.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).count()
    latest = runs.order_by("-created_at").first()
    if latest is None:
        body = (
            "No runs yet: play LLM agents, planners or baselines over a task set, headless, "
            "and compare them with people."
        )
    else:
        done = latest.results.count()
        body = (
            f"Latest: {latest.label or f'{latest.domain} / {latest.agent}'} "
            f"({latest.get_status_display().lower()}, {done} of {len(latest.items)} episodes)."
        )
    return {
        "title": f"Benchmarks: {total} run{'s' if total != 1 else ''}, {under_way} under way",
        "body": body,
        "link": reverse("games:benchmark", args=[latest.pk]) if under_way and latest else reverse("games:benchmarks"),
        "link_label": "Watch the run" if under_way and latest else "Open benchmarks",
    }
