"""The live monitor: participants and their step, drop-outs, running games (watch live), NPC errors.
The page refreshes its body every few seconds with HTMX."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.permissions import researcher_required
from studies import flow, selectors, services
from studies.errors import StudyError
from studies.models import Participant, Study

PARTICIPANTS_PER_PAGE = 50  # a 400-participant study's whole list took 2.5 s to redraw every 5 s
RUNNING_SHOWN = 50  # running games listed (the stat counts them all)


@researcher_required
def monitor(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    services.inactivity.drop_inactive(study)  # those gone past the study's limit read "Dropped out"
    playing = selectors.running_episodes(study)
    running_count = playing.count()
    running = [
        {"episode": episode, "watch_url": flow.game_url(episode.game)}
        for episode in playing[:RUNNING_SHOWN]  # the longest-running first
    ]
    status = request.GET.get("status", "")
    status = status if status in selectors.MONITOR_STATUSES else ""
    page = Paginator(selectors.monitor_participants(study, status), PARTICIPANTS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    context = {
        "study": study,
        "rows": selectors.participants_for_monitor(study, page.object_list),
        "page": page,
        "status": status,
        "statuses": list(selectors.MONITOR_STATUSES),
        "counts": selectors.status_counts(study),
        "running": running,
        "running_count": running_count,
        "npc_errors": selectors.npc_errors(study),
    }
    template = "studies/_monitor_body.html" if getattr(request, "htmx", False) else "studies/monitor.html"
    return render(request, template, context)


@researcher_required
@require_POST
def message(request: HttpRequest, pk: int, participant_pk: int) -> HttpResponse:
    participant = get_object_or_404(Participant, pk=participant_pk, study_id=pk)
    try:
        services.message_participant(participant, request.POST.get("text", ""))
    except StudyError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Sent your message to {participant.code}.")
    return redirect("studies:monitor", pk=pk)


@researcher_required
@require_POST
def drop(request: HttpRequest, pk: int, participant_pk: int) -> HttpResponse:
    participant = get_object_or_404(Participant, pk=participant_pk, study_id=pk)
    reason = request.POST.get("reason", "").strip() or "marked by the researcher"
    try:
        services.drop_out(participant, reason=reason)
    except StudyError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"{participant.code} is marked as dropped out and excluded from analysis.")
    return redirect("studies:monitor", pk=pk)


@researcher_required
@require_POST
def release(request: HttpRequest, pk: int, participant_pk: int) -> HttpResponse:
    """Free a participant id someone else took first, or whose owner lost their resume code."""
    participant = get_object_or_404(Participant, pk=participant_pk, study_id=pk)
    try:
        released = services.release_external_id(participant)
    except StudyError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request,
            f"Released {released}: its link now starts a new participation. "
            f"{participant.code} keeps what it did, excluded from analysis.",
        )
    return redirect("studies:monitor", pk=pk)
