"""The participant's side: the study link, consent, onboarding, episodes, questionnaires, the end.

Participants have no password: the study link (with ``?pid=`` for panels like Prolific) signs them
in to a login-less account that owns their game seats, so a reload, a new tab or a new device with
the same link resumes where they left off. Every page is driven by ``selectors.participant_step``:
a participant can only ever act on their current step.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from studies import flow, selectors, services
from studies.errors import StudyError
from studies.measures import LIKERT_LABELS
from studies.models import EpisodeStatus, Participant, Study, StudyStatus

PILOT_SALT = "studies.pilot"
BACKEND = "django.contrib.auth.backends.ModelBackend"


def pilot_token(study: Study) -> str:
    """A signed marker that lets scripted pilots join a draft study and keeps them out of analysis."""
    return signing.dumps({"study": study.pk}, salt=PILOT_SALT)


def _is_pilot(request: HttpRequest, study: Study) -> bool:
    token = request.GET.get("pilot") or request.POST.get("pilot")
    if not token:
        return False
    try:
        return signing.loads(token, salt=PILOT_SALT, max_age=7 * 24 * 3600).get("study") == study.pk
    except signing.BadSignature:
        return False


def _sign_in(request: HttpRequest, participant: Participant) -> None:
    if request.user != participant.user:
        login(request, participant.user, backend=BACKEND)


def _entry_url(study: Study, pid: str = "") -> str:
    url = reverse("studies:entry", args=[study.slug])
    return f"{url}?pid={pid}" if pid else url


def entry(request: HttpRequest, slug: str) -> HttpResponse:
    """The study link: resume a known participant, else show the consent page (POST: agree or decline)."""
    study = get_object_or_404(Study, slug=slug)
    pid = (request.GET.get("pid") or request.POST.get("pid") or "").strip()
    pilot = _is_pilot(request, study)
    context: dict[str, Any] = {"study": study, "pid": pid, "pilot": request.GET.get("pilot", "")}
    try:
        pid = services.clean_external_id(pid)
    except StudyError as error:
        return render(request, "studies/participant/problem.html", {"study": study, "message": str(error)}, status=400)

    known = study.participants.filter(external_id=pid).first() if pid else None
    known = known or selectors.participant_for(study, request.user)
    if request.method == "POST":
        choice = request.POST.get("choice")
        if choice not in ("agree", "decline", "resume") or (choice == "resume" and known is None):
            return redirect(_entry_url(study, pid))
        if known is None and choice == "agree" and not request.POST.get("agree"):
            context["error"] = "Please tick the box to confirm you agree, or choose “I do not agree”."
            return render(request, "studies/participant/consent.html", context, status=400)
        try:
            participant = known or services.join(study, external_id=pid, user=request.user, is_pilot=pilot)
            _sign_in(request, participant)
            if choice == "agree":
                services.give_consent(participant)
            elif choice == "decline":
                services.decline_consent(participant)
        except StudyError as error:
            return render(
                request, "studies/participant/problem.html", {"study": study, "message": str(error)}, status=400
            )
        return redirect("studies:step", slug=study.slug)

    if known is not None:
        if request.user.is_authenticated and request.user.is_staff and request.user != known.user:
            return render(request, "studies/participant/switch.html", context)
        _sign_in(request, known)
        return redirect("studies:step", slug=study.slug)
    if study.status == StudyStatus.CLOSED or (study.status == StudyStatus.DRAFT and not pilot):
        message = (
            "This study is closed and no longer takes participants. Thank you for your interest."
            if study.status == StudyStatus.CLOSED
            else "This study has not opened yet. Please try the link again later."
        )
        return render(request, "studies/participant/problem.html", {"study": study, "message": message})
    context["signed_in_as"] = request.user if request.user.is_authenticated else None
    return render(request, "studies/participant/consent.html", context)


def _act(request: HttpRequest, participant: Participant) -> HttpResponse | None:
    """Apply the POSTed action to the participant's current step; None means redirect to the step."""
    action = request.POST.get("action", "")
    index = _int(request.POST.get("index"))
    study = participant.study
    if action == "onboarding":
        services.advance_onboarding(participant, index)
    elif action == "tutorial":
        game = services.start_tutorial(participant, index)
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


def _int(raw: Any) -> int:
    try:
        return int(raw)
    except (TypeError, ValueError):
        return -1


def _step_context(participant: Participant, step: selectors.Step, answers: Any = None) -> dict[str, Any]:
    study = participant.study
    context: dict[str, Any] = {"study": study, "participant": participant, "step": step}
    if step.kind == "questionnaire":
        given = answers or {}
        # Answers already chosen stay ticked when the form comes back with an error.
        context["rows"] = [(item, _int(given.get(f"item-{item.pk}"))) for item in study.items.order_by("index")]
        context["scale"] = list(enumerate(LIKERT_LABELS, start=1))
    if step.episode is not None and step.episode.game_id:
        context["game_url"] = flow.game_url(step.episode.game, next_url=reverse("studies:step", args=[study.slug]))
    if step.kind == "onboarding" and participant.tutorial_game_id:
        context["tutorial_url"] = flow.game_url(
            participant.tutorial_game, next_url=reverse("studies:step", args=[study.slug])
        )
    return context


TEMPLATES = {
    "consent": "studies/participant/consent.html",
    "onboarding": "studies/participant/onboarding.html",
    "episode": "studies/participant/episode.html",
    "questionnaire": "studies/participant/questionnaire.html",
    "complete": "studies/participant/complete.html",
    "declined": "studies/participant/declined.html",
    "dropped": "studies/participant/dropped.html",
}


def step(request: HttpRequest, slug: str) -> HttpResponse:
    """The participant's current step (GET) or an action on it (POST, then back here)."""
    study = get_object_or_404(Study, slug=slug)
    participant = selectors.participant_for(study, request.user)
    if participant is None:
        messages.info(request, "Open the study link you were given to start or continue.")
        return redirect(_entry_url(study))
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
    context = _step_context(participant, current)
    if current.kind == "consent":
        context.update(pid=participant.external_id, signed_in_as=None)
    return render(request, TEMPLATES[current.kind], context)
