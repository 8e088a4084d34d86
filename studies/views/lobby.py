"""The lobby of a shared condition, as its participants see it: who is here (by neutral names,
never ids) and how long until the fallback. The page asks again every 2 s (HTMX); each ask is the
participant saying they are still here, and may start the game (``services.lobby.poll``). Once the
game has started the answer sends the browser there.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from arena_site.htmx import HtmxHttpRequest
from studies import flow, services
from studies.errors import StudyError
from studies.models import EpisodeStatus, Participant, Study
from studies.views import identity


def clock_text(seconds: int) -> str:
    """1:42, as the countdown reads."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def lobby_context(view: services.lobby.LobbyView) -> dict[str, Any]:
    return {"lobby": view, "clock": clock_text(view.seconds_left), "empty_seats": range(view.missing)}


def where_next(participant: Participant, study: Study) -> str:
    """The game page once the participant's game has started, else their step page."""
    step_url = reverse("studies:step", args=[study.slug])
    episode = participant.episodes.filter(status=EpisodeStatus.PLAYING).select_related("game").first()
    if episode is not None and episode.game is not None:
        return flow.game_url(episode.game, next_url=step_url) or step_url
    return step_url


def lobby(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The lobby's live part (GET, HTMX); anything else goes to the participant's step page."""
    study = get_object_or_404(Study, slug=slug)
    participant = identity.current(request, study)
    if participant is None:
        return redirect("studies:entry", slug=study.slug)
    services.touch(participant)
    try:
        view = services.lobby.poll(participant)
    except StudyError:  # the game could not start: the step page says why
        view = None
    if view is None or view.started:
        target = where_next(participant, study)
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = target
            return response
        return redirect(target)
    if not request.htmx:
        return redirect("studies:step", slug=study.slug)
    return render(request, "studies/participant/_lobby.html", {"study": study, **lobby_context(view)})
