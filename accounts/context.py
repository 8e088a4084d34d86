"""Navigation per role, for every template (a context processor).

Entries point at URL names; an entry whose URL does not exist (its feature not installed) is left
out, so apps can land one by one.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse

from accounts.roles import Role, primary_role, roles_of

NAV: dict[Role, list[tuple[str, str]]] = {
    Role.RESEARCHER: [
        ("Dashboard", "home"),
        ("Scenarios", "games:scenarios"),
        ("Studio", "studio:index"),
        ("Games", "games:list"),
        ("Benchmarks", "games:benchmarks"),
        ("Annotation", "annotations:projects"),
        ("Studies", "studies:list"),
        ("Admin", "admin:index"),
    ],
    Role.ANNOTATOR: [("Dashboard", "home"), ("My queue", "annotations:queue"), ("My games", "games:mine")],
    Role.PARTICIPANT: [("Dashboard", "home"), ("My games", "games:mine")],
}


def _resolve(entries: list[tuple[str, str]], current: str) -> list[dict[str, Any]]:
    items = []
    for label, name in entries:
        try:
            url = reverse(name)
        except NoReverseMatch:
            continue
        active = current == url or (url != "/" and current.startswith(url))
        items.append({"label": label, "url": url, "active": active})
    return items


def navigation(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    role = primary_role(user)
    seen: list[tuple[str, str]] = []
    for r in (Role.RESEARCHER, Role.ANNOTATOR, Role.PARTICIPANT):
        if r in roles_of(user):
            seen += [entry for entry in NAV[r] if entry not in seen]
    return {"nav_items": _resolve(seen, request.path), "user_role": role.value if role else ""}
