"""Sign-in pages and the landing dashboard for each role."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts import dashboards
from accounts.roles import Role, primary_role


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"
    redirect_authenticated_user = True


class LogoutView(auth_views.LogoutView):
    pass


def locked_out(request: HttpRequest, original_response: HttpResponse | None, credentials: Any = None) -> HttpResponse:
    """django-axes' answer once one username has failed too often from one address: a 429 page."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    context = {"minutes": minutes, "failure_limit": settings.AXES_FAILURE_LIMIT}
    return render(request, "accounts/locked_out.html", context, status=429)


def home(request: HttpRequest) -> HttpResponse:
    role = primary_role(request.user)
    if role is None:
        return render(request, "accounts/welcome.html")
    panels = dashboards.panels_for(request.user, role)
    return render(request, f"accounts/dashboard_{role.value}.html", {"panels": panels, "role": role})


__all__ = ["LoginView", "LogoutView", "Role", "home", "locked_out"]
