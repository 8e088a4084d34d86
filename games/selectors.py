"""Read-only queries over scenarios (and later games) for views and commands."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from games.models import Scenario


def current_scenarios(domain: str | None = None, search: str = "") -> QuerySet[Scenario]:
    queryset = Scenario.objects.current().order_by("domain", "slug")
    if domain:
        queryset = queryset.filter(domain=domain)
    if search:
        queryset = queryset.filter(title__icontains=search) | queryset.filter(slug__icontains=search)
    return queryset


def scenario_counts() -> dict[str, int]:
    rows = Scenario.objects.current().values("domain").annotate(n=Count("id"))
    return {row["domain"]: row["n"] for row in rows}
