"""What each role's dashboard shows: panels contributed by the apps.

An app contributes a panel by adding a function to ``PROVIDERS`` for a role; each function
returns a dict ``{"title", "body", "link", "link_label"}`` or None. Kept as a plain registry so the
dashboard view never imports app internals.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from accounts.roles import Role

Panel = dict[str, Any]
PanelProvider = Callable[[Any], Panel | None]

# role -> dotted paths of panel providers ("module:function"); a missing one is an error.
PROVIDERS: dict[Role, list[str]] = {
    Role.RESEARCHER: [
        "games.dashboard:researcher_panel",
        "games.npc.dashboard:researcher_panel",
        "games.studio.dashboard:researcher_panel",
        "annotations.dashboard:researcher_panel",
        "studies.dashboard:researcher_panel",
        "accounts.dashboards:tokens_panel",
    ],
    # annotators play too when a researcher seats them in a game ("Human (a signed-in player)")
    Role.ANNOTATOR: ["games.dashboard:player_panel", "annotations.dashboard:annotator_panel"],
    Role.PARTICIPANT: ["games.dashboard:player_panel", "studies.dashboard:participant_panel"],
}


def panels_for(user: Any, role: Role) -> list[Panel]:
    panels = []
    for path in PROVIDERS.get(role, []):
        module_name, func_name = path.split(":")
        provider: PanelProvider = getattr(import_module(module_name), func_name)  # a missing one is a defect
        panel = provider(user)
        if panel:
            panels.append(panel)
    return panels


def tokens_panel(user: Any) -> Panel:
    """The researcher's API tokens: programs play through the API with one."""
    from django.urls import reverse

    from accounts.models import ApiToken

    active = ApiToken.objects.filter(user=user, revoked=False).count()
    return {
        "title": "API tokens",
        "body": (
            f"{active} active token{'' if active == 1 else 's'}. Bots, LLM agents and benchmark harnesses play "
            "through the REST and websocket API with a token."
        ),
        "link": reverse("accounts:tokens"),
        "link_label": "Manage API tokens",
    }
