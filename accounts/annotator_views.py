"""Researchers make annotator accounts for their labelling projects (it took Django's admin, where
nothing said the "annotators" group is what grants the role). Only the annotator role: no one
makes a researcher or staff account here."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.forms import UserCreationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.permissions import researcher_required
from accounts.roles import Role, grant


@researcher_required
def new_annotator(request: HttpRequest) -> HttpResponse:
    back = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = ""
    form: UserCreationForm[Any] = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        grant(user, Role.ANNOTATOR)
        messages.success(
            request,
            f"Annotator “{user.get_username()}” can sign in now with the password you chose; "
            "tick them among a project's annotators to give them recipes to label.",
        )
        return redirect(back or reverse("accounts:new_annotator"))
    return render(request, "accounts/annotator_new.html", {"form": form, "next": back})
