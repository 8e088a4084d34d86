"""The researcher's API tokens page: make a token (shown once), see when each was last used, revoke it."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import ApiToken
from accounts.permissions import can_make_api_tokens, require
from accounts.tokens import create_token

MAX_NAME = ApiToken._meta.get_field("name").max_length or 100
MAX_ACTIVE = 20  # a forgotten loop making tokens stops here; revoke one to make another


@require_http_methods(["GET", "POST"])
@require(can_make_api_tokens)
def tokens(request: HttpRequest) -> HttpResponse:
    """GET lists the user's tokens; POST makes one and shows it on this response only (it is not
    stored, so it is never shown again: reloading asks the browser to send the form again)."""
    user: Any = request.user  # signed in: the decorator saw to it
    mine = ApiToken.objects.filter(user=user)
    context: dict[str, object] = {"tokens": mine, "max_name": MAX_NAME}
    status = 200
    if request.method == "POST":
        name = " ".join(request.POST.get("name", "").split())
        if len(name) > MAX_NAME:
            context["error"] = f"A name is at most {MAX_NAME} characters; this one has {len(name)}."
            status = 400
        elif mine.filter(revoked=False).count() >= MAX_ACTIVE:
            context["error"] = f"You have {MAX_ACTIVE} active tokens, the most one account keeps; revoke one first."
            status = 400
        else:
            context["new_token"] = create_token(user, name=name)
            context["new_name"] = name
            context["api_root"] = request.build_absolute_uri(reverse("games:api_create"))
        context["name"] = name
    return render(request, "accounts/tokens.html", context, status=status)


@require_POST
@require(can_make_api_tokens)
def revoke(request: HttpRequest, pk: int) -> HttpResponse:
    user: Any = request.user
    token = get_object_or_404(ApiToken, pk=pk, user=user)  # another user's token is not found
    if not token.revoked:
        ApiToken.objects.filter(pk=token.pk).update(revoked=True)
        messages.success(
            request,
            f"Revoked {token.prefix}…{f' ({token.name})' if token.name else ''}: "
            "programs using it are refused from now on.",
        )
    return redirect("accounts:tokens")
