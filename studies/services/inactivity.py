"""Participants who left without a word are marked dropped out (SPEC section 10: "a participant who
drops out is marked and excluded by default"). Nothing marked them: eight people idle for 8-13
minutes read "Active · idle" on the monitor for good, and a game of theirs stayed "paused
(disconnect)" forever.

A study's ``inactive_after_minutes`` (default 60; 0: never) is how long a participant who has not
finished may show no sign of life: no study page, no game page of theirs open, no move or chat in
their games. Past it they are dropped out with the reason "no activity for N minutes" (their running
game ends, or in a shared game their seat goes to the backfill; they leave any lobby). It is applied
by the games' scheduler loop (``games.hooks.HOUSEKEEPING``, once a minute per process), whenever a
researcher reads the monitor or the analysis, and when the participant comes back (they are told
kindly that the study has ended for them).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from studies.errors import StudyError
from studies.models import Episode, Participant, ParticipantStatus, Study
from studies.services.participation import drop_out

REASON_PREFIX = "no activity for "
UNFINISHED = (ParticipantStatus.JOINED, ParticipantStatus.ACTIVE)


def reason(minutes: int) -> str:
    return f"{REASON_PREFIX}{minutes} minute{'s' if minutes != 1 else ''}"


def timed_out(participant: Participant) -> bool:
    """Whether the participant was dropped out for inactivity (their page says so)."""
    return participant.status == ParticipantStatus.DROPPED and participant.drop_reason.startswith(REASON_PREFIX)


def _cut_off(study: Study, now: datetime) -> datetime | None:
    minutes = study.inactive_after_minutes
    return now - timedelta(minutes=minutes) if minutes else None


def _quiet(participants: Any, cut_off: datetime) -> Any:
    """Of ``participants``, those the study's own pages have not seen since ``cut_off``."""
    return participants.filter(status__in=UNFINISHED).filter(
        Q(last_seen_at__lt=cut_off) | Q(last_seen_at__isnull=True, joined_at__lt=cut_off)
    )


def _active_in_games(candidates: list[Participant], cut_off: datetime) -> set[int]:
    """Of ``candidates``, those with a game page of theirs open now, or who moved or wrote in one of
    their games (episodes and practice) since ``cut_off``."""
    from games.models import GameEvent, Seat, SeatConnection, SeatKind

    by_user = {p.user_id: p.pk for p in candidates}
    games = set(
        Episode.objects.filter(participant__in=candidates, game__isnull=False).values_list("game_id", flat=True)
    )
    games |= {p.tutorial_game_id for p in candidates if p.tutorial_game_id}
    if not games:
        return set()
    seats = {
        (game, agent): by_user[user]
        for game, agent, user in Seat.objects.filter(
            game_id__in=games, kind=SeatKind.HUMAN, user_id__in=list(by_user)
        ).values_list("game_id", "agent", "user_id")
    }
    active = {
        seats[key]
        for key in SeatConnection.objects.filter(game_id__in=games).values_list("game_id", "agent")
        if key in seats
    }
    recent = (
        GameEvent.objects.filter(game_id__in=games, created_at__gte=cut_off, category__in=("action", "chat"))
        .values_list("game_id", "agent")
        .distinct()
    )
    active |= {seats[key] for key in recent if key in seats}
    return active


def drop_inactive(study: Study, now: datetime | None = None) -> list[Participant]:
    """Mark the study's participants inactive past its limit as dropped out; returns them."""
    now = now or timezone.now()
    cut_off = _cut_off(study, now)
    if cut_off is None:
        return []
    candidates = list(_quiet(study.participants.all(), cut_off))
    if not candidates:
        return []
    busy = _active_in_games(candidates, cut_off)
    dropped = []
    for participant in candidates:
        if participant.pk in busy:
            continue
        try:
            drop_out(participant, reason=reason(study.inactive_after_minutes))
        except StudyError:
            continue  # they finished or were dropped meanwhile
        dropped.append(participant)
    return dropped


def drop_if_inactive(participant: Participant, now: datetime | None = None) -> bool:
    """The participant came back: drop them out first if they were away past the study's limit."""
    now = now or timezone.now()
    study = participant.study
    cut_off = _cut_off(study, now)
    if cut_off is None or not _quiet(Participant.objects.filter(pk=participant.pk), cut_off).exists():
        return False
    if _active_in_games([participant], cut_off):
        return False
    try:
        drop_out(participant, reason=reason(study.inactive_after_minutes))
    except StudyError:
        return False
    participant.refresh_from_db()
    return True


def drop_inactive_everywhere(now: datetime | None = None) -> int:
    """Every open or draft study's inactive participants (the scheduler's housekeeping)."""
    now = now or timezone.now()
    studies = Study.objects.filter(inactive_after_minutes__gt=0, participants__status__in=UNFINISHED).distinct()
    return sum(len(drop_inactive(study, now)) for study in studies)
