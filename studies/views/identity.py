"""Which participation a browser is, kept apart from anyone's own account.

A participation owns a login-less account (``services.join`` makes a new one each time). The browser
that joined remembers its participations in the session (study -> participant), so a reload or a new
tab resumes; another device needs the resume code shown on the study pages. A visitor signed in with
their own account is never signed out, attached or switched implicitly: they are asked to use a
private window (or to sign out themselves) before taking part.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.http import HttpRequest

from studies import services
from studies.models import Participant, Study

SESSION_KEY = "studies.participations"
BACKEND = "django.contrib.auth.backends.ModelBackend"


def has_own_account(request: HttpRequest) -> bool:
    """Signed in as a person's account (researcher, annotator, API user), not a participation."""
    user = request.user
    return bool(user.is_authenticated) and not services.is_participation_account(user)


def remember(request: HttpRequest, participant: Participant) -> None:
    """Act as ``participant`` in this browser. Only ever called when no own account is signed in."""
    if has_own_account(request):
        raise ValueError("refusing to replace a signed-in account with a participation")
    known = dict(request.session.get(SESSION_KEY, {}))  # login() flushes the session when the user changes
    if request.user != participant.user:
        login(request, participant.user, backend=BACKEND)
    known[str(participant.study_id)] = participant.pk
    request.session[SESSION_KEY] = known


def current(request: HttpRequest, study: Study) -> Participant | None:
    """This browser's participation in ``study``, if it has one (and no own account is signed in)."""
    if has_own_account(request):
        return None
    user = request.user
    if user.is_authenticated:
        found = study.participants.filter(user=user).first()
        if found is not None:
            return found
    pk = request.session.get(SESSION_KEY, {}).get(str(study.pk))
    found = study.participants.filter(pk=pk).first() if pk else None
    if found is not None:
        remember(request, found)  # this browser took part in another study since: act as this one again
    return found
