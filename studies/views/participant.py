"""The participant's side: the study link, consent, onboarding, episodes, questionnaires, the end.

Participants have no password: joining creates a login-less account for this participation alone
(``views.identity``), remembered by the browser's session, so a reload or a new tab resumes where
they left off; another device needs the resume code shown on every study page. A signed-in person
is never switched to a participation (they are asked to use a private window). Every page is driven
by ``selectors.participant_step``: a participant can only ever act on their current step.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode

from arena_site.client_address import client_address
from arena_site.params import whole_number
from studies import flow, selectors, services
from studies.errors import StudyError
from studies.measures import LIKERT_LABELS
from studies.models import EpisodeStatus, Participant, Study, StudyStatus
from studies.pilot_tokens import is_pilot_token
from studies.views import identity
from studies.views.lobby import lobby_context


def _is_pilot(request: HttpRequest, study: Study) -> bool:
    return is_pilot_token(request.GET.get("pilot") or request.POST.get("pilot"), study)


def _entry_url(study: Study, pid: str = "", pilot: str = "") -> str:
    url = reverse("studies:entry", args=[study.slug])
    query = urlencode({k: v for k, v in (("pid", pid), ("pilot", pilot)) if v})
    return f"{url}?{query}" if query else url


def _problem(request: HttpRequest, study: Study, message: str, status: int = 400) -> HttpResponse:
    context = {"study": study, "message": message, "status": status}
    return render(request, "studies/participant/problem.html", context, status=status)


def _entry_params(request: HttpRequest, study: Study) -> dict[str, str]:
    """The recruiter's link parameters: read from the link (GET) and kept in the session until the
    participant agrees or declines (the consent form POSTs without them)."""
    key = f"studies.entry.{study.pk}"
    if request.method == "GET":
        params = services.clean_entry_params(study, request.GET)
        if params:
            request.session[key] = params
        return params
    return dict(request.session.get(key, {}))


def entry(request: HttpRequest, slug: str) -> HttpResponse:
    """The study link: resume this browser's participation, else consent (POST: agree or decline),
    or resume another device's participation with its resume code."""
    study = get_object_or_404(Study, slug=slug)
    raw_pid = request.GET.get(study.id_param) if study.id_param else None
    pid = (raw_pid or request.GET.get("pid") or request.POST.get("pid") or "").strip()
    pilot_token_raw = request.GET.get("pilot") or request.POST.get("pilot") or ""
    context: dict[str, Any] = {"study": study, "pid": pid, "pilot": pilot_token_raw}
    try:
        pid = services.clean_external_id(pid)
        params = _entry_params(request, study)
    except StudyError as error:
        return _problem(request, study, str(error))
    choice = request.POST.get("choice") if request.method == "POST" else None

    if identity.has_own_account(request):
        if choice == "signout":  # the visitor's own decision, never a side effect of the link
            logout(request)
            return redirect(_entry_url(study, pid, pilot_token_raw))
        return render(request, "studies/participant/signed_in.html", context, status=403 if choice else 200)

    participant = identity.current(request, study)
    if participant is not None and pid and participant.external_id != pid:
        participant = None  # someone else on this browser (a lab computer): a participation of their own
    taken = bool(pid) and participant is None and study.participants.filter(external_id=pid).exists()
    if taken and (found := services.resume_by_session(study, external_id=pid, entry_params=params)):
        identity.remember(request, found)  # the recruiter's session id is only in that person's link
        return redirect("studies:step", slug=study.slug)

    if choice == "resume":
        try:
            participant = services.resume(
                study, external_id=pid, code=request.POST.get("code", ""), client=client_address(request)
            )
        except StudyError as error:
            context["error"] = str(error)
            return render(request, "studies/participant/resume.html", context, status=400)
        identity.remember(request, participant)
        return redirect("studies:step", slug=study.slug)
    asks_to_resume = request.method == "GET" and bool(request.GET.get("resume")) and not pid and participant is None
    if taken or asks_to_resume:
        return render(request, "studies/participant/resume.html", context, status=409 if choice else 200)
    if choice in ("agree", "decline"):
        if participant is None and choice == "agree" and not request.POST.get("agree"):
            context["error"] = "Please tick the box to confirm you agree, or choose “I do not agree”."
            return render(request, "studies/participant/consent.html", context, status=400)
        try:
            if participant is None:
                participant = services.join(
                    study, external_id=pid, is_pilot=_is_pilot(request, study), entry_params=params
                )
                identity.remember(request, participant)
            if choice == "agree":
                services.give_consent(participant)
            else:
                services.decline_consent(participant)
        except StudyError as error:
            return _problem(request, study, str(error))
        return redirect("studies:step", slug=study.slug)
    if choice is not None:
        return redirect(_entry_url(study, pid, pilot_token_raw))

    if participant is not None:
        return redirect("studies:step", slug=study.slug)
    if study.status == StudyStatus.CLOSED or (study.status == StudyStatus.DRAFT and not _is_pilot(request, study)):
        message = (
            "This study is closed and no longer takes participants. Thank you for your interest."
            if study.status == StudyStatus.CLOSED
            else "This study has not opened yet. Please try the link again later."
        )
        return _problem(request, study, message, status=200)
    return render(request, "studies/participant/consent.html", context)


def _act(request: HttpRequest, participant: Participant) -> HttpResponse | None:
    """Apply the POSTed action to the participant's current step; None means redirect to the step."""
    action = request.POST.get("action", "")
    index = whole_number(request.POST.get("index"))
    study = participant.study
    if action in ("onboarding", "tutorial", "start", "questionnaire") and index is None:
        raise StudyError("This form did not say which step it is for; reload the page and try again.")
    index = index or 0  # (only "withdraw" has no step)
    if action == "onboarding":
        services.advance_onboarding(participant, index)
    elif action == "tutorial":
        game = services.start_tutorial(participant, index, replacing=whole_number(request.POST.get("replacing")))
        url = flow.game_url(game, next_url=reverse("studies:step", args=[study.slug]))
        return redirect(url) if url else None
    elif action == "start":
        episode = participant.episodes.filter(index=index).first()
        if episode is None:
            raise StudyError("There is no such episode in your study.")
        episode = services.start_episode(participant, episode)
        url = flow.game_url(episode.game, next_url=reverse("studies:step", args=[study.slug]))
        return redirect(url) if url else None  # straight into the game
    elif action == "questionnaire":
        try:
            services.submit_questionnaire(participant, index, request.POST)
        except StudyError as error:
            step = selectors.participant_step(participant)
            context = _step_context(participant, step, answers=request.POST)
            context["error"] = str(error)
            return render(request, "studies/participant/questionnaire.html", context, status=400)
    elif action == "withdraw":
        services.drop_out(participant, reason="withdrew (participant)")
    else:
        raise StudyError("Unknown action; reload the page and try again.")
    return None


def _step_context(participant: Participant, step: selectors.Step, answers: Any = None) -> dict[str, Any]:
    study = participant.study
    context: dict[str, Any] = {"study": study, "participant": participant, "step": step}
    if step.kind == "questionnaire":
        given = answers or {}
        # Answers already chosen stay ticked when the form comes back with an error.
        items = services.items_for(step.episode) if step.episode else study.items.order_by("index")
        context["rows"] = [(item, whole_number(given.get(f"item-{item.pk}"))) for item in items]
        context["scale"] = list(enumerate(LIKERT_LABELS, start=1))
    if step.episode is not None and step.episode.game_id:
        context["game_url"] = flow.game_url(step.episode.game, next_url=reverse("studies:step", args=[study.slug]))
    if step.kind == "onboarding" and participant.tutorial_game_id and (practice := participant.tutorial_game):
        context["tutorial_url"] = flow.game_url(practice, next_url=reverse("studies:step", args=[study.slug]))
        context["tutorial_over"] = practice.is_finished
        context["tutorial_game_id"] = practice.pk
    return context


TEMPLATES = {
    "consent": "studies/participant/consent.html",
    "onboarding": "studies/participant/onboarding.html",
    "lobby": "studies/participant/lobby.html",
    "episode": "studies/participant/episode.html",
    "questionnaire": "studies/participant/questionnaire.html",
    "complete": "studies/participant/complete.html",
    "declined": "studies/participant/declined.html",
    "dropped": "studies/participant/dropped.html",
    "screened": "studies/participant/declined.html",
}


def _recruiter_redirect(study: Study, kind: str) -> str:
    """Where the recruiter wants this participant now (completion or screened-out URL with its code)."""
    if kind == "complete" and study.completion_url:
        return study.completion_url.replace("{code}", quote(study.completion_code))
    if kind in ("declined", "screened") and study.screened_out_url:
        return study.screened_out_url.replace("{code}", quote(study.screened_out_code))
    return ""


def step(request: HttpRequest, slug: str) -> HttpResponse:
    """The participant's current step (GET) or an action on it (POST, then back here)."""
    study = get_object_or_404(Study, slug=slug)
    participant = identity.current(request, study)
    if participant is None:
        messages.info(request, "Open the study link you were given to start or continue.")
        return redirect(_entry_url(study))
    # back after the study's inactivity limit: their participation ended meanwhile (the page says so)
    services.inactivity.drop_if_inactive(participant)
    services.touch(participant)
    if request.method == "POST":
        try:
            response = _act(request, participant)
        except StudyError as error:
            messages.error(request, str(error))
            response = None
        if response is not None:
            return response
        return redirect("studies:step", slug=study.slug)
    current = selectors.participant_step(participant)
    if current.episode is not None and current.episode.status == EpisodeStatus.PLAYING:
        services.sync_episode(current.episode)
        current = selectors.participant_step(participant)
    try:
        lobby_view = services.lobby.poll(participant) if current.kind == "lobby" else None
    except StudyError as error:  # the game could not start: say so, keep waiting
        messages.error(request, str(error))
        lobby_view = None
    if current.kind == "lobby" and (lobby_view is None or lobby_view.started):
        current = selectors.participant_step(participant)  # the game started (or they were not waited for)
    context = _step_context(participant, current)
    if lobby_view is not None and current.kind == "lobby" and current.episode is not None:
        context.update(lobby_context(lobby_view), others=current.episode.condition.human_count - 1)
    context["redirect_url"] = _recruiter_redirect(study, current.kind)
    if current.kind == "consent":
        context.update(pid=participant.external_id)
    if current.kind == "dropped":
        context.update(timed_out=services.inactivity.timed_out(participant))
    return render(request, TEMPLATES[current.kind], context)
