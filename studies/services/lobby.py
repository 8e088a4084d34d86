"""Participants of a shared condition (``Condition.human_count`` > 1) meet in a lobby before their
game: it starts when every seat has a participant, or at the lobby's deadline with the empty seats
given to the condition's backfill NPC (or, with the solo fallback, each waiting participant plays
the fallback condition alone). Who is in the lobby is known from their page's polling: someone not
heard from for ``PRESENT_SECONDS`` has left and is not waited for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from studies import flow
from studies.errors import StudyError
from studies.models import (
    Condition,
    Episode,
    EpisodeStatus,
    Lobby,
    LobbyFallback,
    LobbyStatus,
    Participant,
    ParticipantStatus,
)

PRESENT_SECONDS = 15.0  # the lobby page asks every 2 s; three missed polls and more mean gone


@dataclass(frozen=True)
class LobbyView:
    """What a waiting participant sees: neutral names, never ids."""

    names: list[str]  # "Participant 1", "Participant 2", in order of arrival
    me: int  # index into names
    seats: int
    seconds_left: int
    fallback: str  # LobbyFallback value
    started: bool

    @property
    def missing(self) -> int:
        return max(0, self.seats - len(self.names))


def enter(episode: Episode, *, now: datetime | None = None) -> Episode:
    """Put a pending episode of a shared condition in a waiting lobby for its condition and
    scenario (a new one if none has room); called inside ``start_episode``'s transaction."""
    now = now or timezone.now()
    condition = Condition.objects.select_for_update().get(pk=episode.condition_id)  # one matcher at a time
    is_pilot = episode.participant.is_pilot
    lobby = None
    for candidate in Lobby.objects.filter(
        condition=condition, scenario_id=episode.scenario_id, is_pilot=is_pilot, status=LobbyStatus.WAITING
    ).order_by("opened_at"):
        if len(_present(candidate, now)) < condition.human_count:
            lobby = candidate
            break
    if lobby is None:
        lobby = Lobby.objects.create(
            study_id=condition.study_id,
            condition=condition,
            scenario_id=episode.scenario_id,
            is_pilot=is_pilot,
            opened_at=now,
            deadline_at=now + timedelta(seconds=condition.lobby_timeout_seconds),
        )
    episode.lobby = lobby
    episode.status = EpisodeStatus.LOBBY
    episode.lobby_entered_at = episode.lobby_seen_at = now
    episode.save(update_fields=["lobby", "status", "lobby_entered_at", "lobby_seen_at"])
    _settle(lobby, now)
    episode.refresh_from_db()
    return episode


def _present(lobby: Lobby, now: datetime) -> list[Episode]:
    since = now - timedelta(seconds=PRESENT_SECONDS)
    return list(
        lobby.episodes.filter(status=EpisodeStatus.LOBBY, lobby_seen_at__gte=since)
        .select_related("participant")
        .order_by("lobby_entered_at", "pk")
    )


@transaction.atomic
def poll(participant: Participant, *, now: datetime | None = None) -> LobbyView | None:
    """The participant's lobby page asks: they are here; start the game if it is time. None when
    they are not in a lobby (any more): the step page says where they are."""
    now = now or timezone.now()
    episode = participant.episodes.filter(status=EpisodeStatus.LOBBY).select_related("lobby").first()
    if episode is None or episode.lobby_id is None:
        return None
    if participant.status != ParticipantStatus.ACTIVE:
        return None
    # the same lock order as ``enter`` (condition, then lobby), so the two never wait on each other
    Condition.objects.select_for_update().filter(pk=episode.condition_id).first()
    lobby = Lobby.objects.select_for_update().select_related("condition").get(pk=episode.lobby_id)
    Episode.objects.filter(pk=episode.pk).update(lobby_seen_at=now)
    _settle(lobby, now)
    episode.refresh_from_db()
    if episode.status != EpisodeStatus.LOBBY:
        return LobbyView([], 0, lobby.condition.human_count, 0, lobby.condition.lobby_fallback, started=True)
    present = _present(lobby, now)
    me = next((k for k, e in enumerate(present) if e.pk == episode.pk), 0)
    left = max(0, int((lobby.deadline_at - now).total_seconds() + 0.999))
    return LobbyView(
        names=[f"Participant {k + 1}" for k in range(len(present))],
        me=me,
        seats=lobby.condition.human_count,
        seconds_left=left,
        fallback=lobby.condition.lobby_fallback,
        started=False,
    )


def _settle(lobby: Lobby, now: datetime) -> None:
    """Start the lobby's game if every seat is taken, or apply the fallback after the deadline."""
    lobby = Lobby.objects.select_for_update().select_related("condition", "study").get(pk=lobby.pk)
    if lobby.status != LobbyStatus.WAITING:
        return
    condition = lobby.condition
    present = _present(lobby, now)
    if len(present) >= condition.human_count:
        _start(lobby, present[: condition.human_count], empty=0, now=now)
        _requeue_extra(present[condition.human_count :], now)
        return
    if now < lobby.deadline_at:
        return
    if not present:
        lobby.status, lobby.closed_at = LobbyStatus.EMPTY, now
        lobby.save(update_fields=["status", "closed_at"])
        return
    fallback = condition.fallback_condition if condition.lobby_fallback == LobbyFallback.SOLO else None
    if fallback is not None:
        _route_solo(lobby, fallback, present, now)
    else:
        _start(lobby, present, empty=condition.human_count - len(present), now=now)


def _start(lobby: Lobby, episodes: list[Episode], *, empty: int, now: datetime) -> None:
    game = flow.start_shared_game(lobby, episodes, empty=empty)
    for agent, episode in enumerate(episodes):
        episode.game = game
        episode.seat = agent
        episode.status = EpisodeStatus.PLAYING
        episode.started_at = now
        episode.save(update_fields=["game", "seat", "status", "started_at"])
    lobby.status, lobby.closed_at, lobby.game = LobbyStatus.STARTED, now, game
    lobby.humans, lobby.backfilled = len(episodes), empty
    lobby.save(update_fields=["status", "closed_at", "game", "humans", "backfilled"])
    # whoever was in the lobby but stopped asking is put back to "not started" (they get a new lobby)
    lobby.episodes.filter(status=EpisodeStatus.LOBBY).update(status=EpisodeStatus.PENDING, lobby=None)


def _requeue_extra(episodes: list[Episode], now: datetime) -> None:
    for episode in episodes:  # more arrived at once than there were seats: they wait for the next game
        Episode.objects.filter(pk=episode.pk).update(status=EpisodeStatus.PENDING, lobby=None)
        enter(Episode.objects.select_related("participant").get(pk=episode.pk), now=now)


def _route_solo(lobby: Lobby, fallback: Condition, episodes: list[Episode], now: datetime) -> None:
    """The solo fallback: each waiting participant plays the fallback condition on their own."""
    for episode in episodes:
        episode.routed_from = lobby.condition
        episode.condition = fallback
        flow.start_game(episode)  # sets episode.game
        episode.seat = 0
        episode.status = EpisodeStatus.PLAYING
        episode.started_at = now
        episode.save(update_fields=["routed_from", "condition", "game", "seat", "status", "started_at"])
    lobby.status, lobby.closed_at, lobby.humans = LobbyStatus.ROUTED, now, len(episodes)
    lobby.save(update_fields=["status", "closed_at", "humans"])
    lobby.episodes.filter(status=EpisodeStatus.LOBBY).update(status=EpisodeStatus.PENDING, lobby=None)


def leave(episode: Episode) -> None:
    """A participant leaves the lobby (withdraws, or is dropped): the others are not kept waiting for them."""
    Episode.objects.filter(pk=episode.pk, status=EpisodeStatus.LOBBY).update(status=EpisodeStatus.PENDING, lobby=None)


def check_fallback(condition: Condition) -> None:
    """A solo fallback names another condition of the same study that is played alone."""
    fallback = condition.fallback_condition
    if condition.lobby_fallback != LobbyFallback.SOLO:
        return
    if fallback is None:
        raise StudyError("The solo fallback needs a condition to send the waiting participants to.")
    if fallback.study_id != condition.study_id or fallback.is_shared or fallback.pk == condition.pk:
        raise StudyError("The solo fallback must be another condition of this study, played by one participant.")


def wait_seconds(episode: Episode) -> Any:
    """How long the participant waited in the lobby (for exports); empty if they never did."""
    if episode.lobby_entered_at is None or episode.started_at is None:
        return ""
    return round((episode.started_at - episode.lobby_entered_at).total_seconds(), 1)
