"""Every role check of the site in one place, as predicates and view decorators.

Views, consumers and services ask these functions; nobody tests ``is_staff`` or group names
elsewhere. Object-level checks (may this user act in this game seat?) live next to their objects
but are built from these predicates.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from accounts.roles import Role, roles_of


def is_researcher(user: Any) -> bool:
    return Role.RESEARCHER in roles_of(user)


def is_annotator(user: Any) -> bool:
    """Annotators label items; researchers may label too (they run pilots)."""
    roles = roles_of(user)
    return Role.ANNOTATOR in roles or Role.RESEARCHER in roles


def is_participant(user: Any) -> bool:
    return Role.PARTICIPANT in roles_of(user)


def can_use_admin(user: Any) -> bool:
    return is_researcher(user)


def can_manage_annotation_projects(user: Any) -> bool:
    return is_researcher(user)


def can_manage_studies(user: Any) -> bool:
    return is_researcher(user)


def can_watch_any_game(user: Any) -> bool:
    return is_researcher(user)


def can_make_api_tokens(user: Any) -> bool:
    """Researchers make their own tokens on the web (programs, benchmark harnesses); anyone else's
    token is made by an administrator (``manage.py create_api_token``): a study participant never
    gets one."""
    return is_researcher(user)


def can_create_games(user: Any) -> bool:
    """Researchers create games from the UI; API clients (any token user) through the API."""
    return getattr(user, "is_authenticated", False)


ViewFunc = Callable[..., HttpResponseBase]  # a page, a redirect, a stream or a file


def require(predicate: Callable[[Any], bool]) -> Callable[[ViewFunc], ViewFunc]:
    """View decorator: anonymous users go to the login page; signed-in users without the role get 403."""

    def decorator(view: ViewFunc) -> ViewFunc:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not predicate(request.user):
                raise PermissionDenied("Your account does not have the role this page needs.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


researcher_required = require(is_researcher)
annotator_required = require(is_annotator)
