"""Sign-in pages and the landing dashboard for each role."""

from __future__ import annotations

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


def home(request: HttpRequest) -> HttpResponse:
    role = primary_role(request.user)
    if role is None:
        return render(request, "accounts/welcome.html")
    panels = dashboards.panels_for(request.user, role)
    return render(request, f"accounts/dashboard_{role.value}.html", {"panels": panels, "role": role})


__all__ = ["LoginView", "LogoutView", "Role", "home"]
