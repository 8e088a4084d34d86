"""The four roles of SPEC section 11 and how a user gets them.

researcher: a staff user. annotator: member of the ``annotators`` group. participant: member of
the ``participants`` group, or an anonymous visitor joining by a study link (the studies app keeps
them in the session). API client: any user authenticating with a token (see tokens.py).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from django.contrib.auth.models import Group


class Role(StrEnum):
    RESEARCHER = "researcher"
    ANNOTATOR = "annotator"
    PARTICIPANT = "participant"


GROUP_FOR_ROLE = {Role.ANNOTATOR: "annotators", Role.PARTICIPANT: "participants"}


def roles_of(user: Any) -> set[Role]:
    if user is None or not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_arena_roles", None)
    if cached is not None:
        return cached
    roles: set[Role] = set()
    if user.is_staff:
        roles.add(Role.RESEARCHER)
    names = set(user.groups.values_list("name", flat=True))
    for role, group in GROUP_FOR_ROLE.items():
        if group in names:
            roles.add(role)
    user._arena_roles = roles
    return roles


def grant(user: Any, role: Role) -> None:
    """Give ``user`` a role (researchers become staff; others join the role's group)."""
    if role == Role.RESEARCHER:
        if not user.is_staff:
            user.is_staff = True
            user.save(update_fields=["is_staff"])
    else:
        group, _ = Group.objects.get_or_create(name=GROUP_FOR_ROLE[role])
        user.groups.add(group)
    if hasattr(user, "_arena_roles"):
        del user._arena_roles


def primary_role(user: Any) -> Role | None:
    """The role whose dashboard a user lands on: researcher, then annotator, then participant."""
    roles = roles_of(user)
    for role in (Role.RESEARCHER, Role.ANNOTATOR, Role.PARTICIPANT):
        if role in roles:
            return role
    return None
