"""Pilot runs started from the design page: ``studies.pilot``'s scripted participants, run in the
background against the site itself (the URL the researcher used), each one's outcome kept on its
``PilotRun`` as it finishes, so the page shows progress while they play."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

from django.db import close_old_connections, connections
from django.utils import timezone

from arena_site import background
from studies import pilot, services
from studies.errors import StudyError
from studies.models import (
    ACTIVE_PILOT_RUN,
    EpisodeStatus,
    Participant,
    ParticipantStatus,
    PilotRun,
    PilotRunStatus,
    Study,
)
from studies.pilot_tokens import pilot_token

log = logging.getLogger(__name__)

MAX_PILOTS = 8  # a pilot run checks the study works; a load test is bench's job
THINK_SECONDS = 0.3  # the longest pause before a pilot's action
TIMEOUT_SECONDS = 1800.0  # one pilot gives up after this (a real-time study is minutes per game)


def request_pilots(study: Study, *, participants: int, base_url: str, user: Any = None) -> PilotRun:
    """Queue ``participants`` pilots through ``study``; StudyError (nothing queued) when the number
    is out of range, the study cannot be played yet, or pilots of it are still running."""
    if not 1 <= participants <= MAX_PILOTS:
        raise StudyError(f"Run 1 to {MAX_PILOTS} pilots at a time (asked for {participants}).")
    problems = services.readiness_problems(study)
    if problems:
        raise StudyError(f"Pilots cannot play this study yet: {problems[0]}")
    if study.pilot_runs.filter(status__in=ACTIVE_PILOT_RUN).exists():
        raise StudyError("Pilots of this study are still running; wait for them to finish.")
    run = PilotRun.objects.create(study=study, requested_by=user, participants=participants, base_url=base_url)
    background.submit_on_commit("studies.run_pilots", run.pk)
    return run


def cut_off_runs() -> list[int]:
    """Runs a stopped server cut off: queued ones start when it starts again; running ones are
    closed as stopped (their pilots were cut off mid-game; the monitor shows how far they got)."""
    return list(PilotRun.objects.filter(status__in=ACTIVE_PILOT_RUN).values_list("pk", flat=True))


def pilot_id(run_pk: int, n: int) -> str:
    """Pilot ``n`` (from 0) of run ``run_pk``: its participant's external id, so the run finds its
    pilots while they play."""
    return f"pilot-r{run_pk}-{n + 1}"


def _pilots_of(run: PilotRun) -> Any:
    """The participations the run's pilots made (their external ids name the run)."""
    return Participant.objects.filter(study=run.study, is_pilot=True, external_id__startswith=f"pilot-r{run.pk}-")


@dataclass(frozen=True)
class InFlight:
    participant: str
    where: str  # "consent and onboarding", "game 2 of 4", "questionnaire after game 1", "finishing"
    done: int  # games played and surveyed
    games: int


def in_flight(run: PilotRun) -> tuple[float, list[InFlight]]:
    """How far the run's pilots are: the share of their games done (a finished pilot counts whole)
    and, for each pilot that has joined and not finished, where it is now."""
    finished = {r.get("participant") for r in run.results}
    joined = _pilots_of(run).prefetch_related("episodes").order_by("pk")
    rows = []
    share = float(len(finished))
    for participant in joined:
        if participant.external_id in finished:
            continue
        episodes = sorted(participant.episodes.all(), key=lambda e: e.index)
        done = sum(1 for e in episodes if e.status == EpisodeStatus.DONE)
        current = next((e for e in episodes if e.status != EpisodeStatus.DONE), None)
        if current is None:
            where = "finishing" if episodes else "consent and onboarding"
        elif current.status == EpisodeStatus.SURVEY:
            where = f"questionnaire after game {current.index + 1}"
        elif current.status in (EpisodeStatus.PLAYING, EpisodeStatus.LOBBY):
            where = f"game {current.index + 1} of {len(episodes)}"
        else:
            where = "consent and onboarding" if done == 0 else f"before game {current.index + 1}"
        rows.append(InFlight(participant.external_id, where, done, len(episodes)))
        share += done / len(episodes) if episodes else 0.0
    return (share / run.participants if run.participants else 1.0), rows


def _outcome(result: pilot.PilotResult) -> dict[str, Any]:
    return {
        "participant": result.participant,
        "completed": result.completed,
        "completion_code": result.completion_code,
        "episodes": result.episodes,
        "actions": result.actions,
        "seconds": round(result.seconds, 1),
        "error": result.error,
    }


def _one(run: PilotRun, token: str, external_id: str, seed: int) -> pilot.PilotResult:
    close_old_connections()
    try:
        return pilot.run_participant(
            run.base_url,
            run.study.slug,
            token,
            external_id,
            seed=seed,
            think_seconds=THINK_SECONDS,
            timeout_seconds=TIMEOUT_SECONDS,
        )
    finally:
        connections.close_all()


def _drop_unfinished(run: PilotRun, reason: str) -> None:
    """The run's pilots that did not finish drop out, so their games stop instead of running on
    with nobody at them (a pilot that gave up, or one a restart cut off)."""
    left = _pilots_of(run).exclude(status__in=[ParticipantStatus.COMPLETED, ParticipantStatus.DROPPED])
    for participant in left:
        try:
            services.drop_out(participant, reason=reason)
        except StudyError:  # it finished or dropped meanwhile
            continue


def run(run_id: int) -> None:
    pilots = PilotRun.objects.select_related("study").get(pk=run_id)
    if pilots.status == PilotRunStatus.RUNNING:  # a server restart cut it off
        PilotRun.objects.filter(pk=pilots.pk).update(
            status=PilotRunStatus.FAILED,
            error="The server stopped while the pilots played; run them again.",
            finished_at=timezone.now(),
        )
        _drop_unfinished(pilots, "pilot cut off by a server restart")
        return
    if pilots.status != PilotRunStatus.QUEUED:
        return
    PilotRun.objects.filter(pk=pilots.pk).update(status=PilotRunStatus.RUNNING)
    token = pilot_token(pilots.study)
    results: list[dict[str, Any]] = []
    try:
        with ThreadPoolExecutor(max_workers=pilots.participants) as pool:
            futures = [
                pool.submit(_one, pilots, token, pilot_id(pilots.pk, n), pilots.pk * 1000 + n)
                for n in range(pilots.participants)
            ]
            for future in as_completed(futures):
                results.append(_outcome(future.result()))
                PilotRun.objects.filter(pk=pilots.pk).update(results=results)
    except Exception as error:  # the researcher reads why on the design page
        log.exception("pilot run %s failed", pilots.pk)
        PilotRun.objects.filter(pk=pilots.pk).update(
            status=PilotRunStatus.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
        )
        _drop_unfinished(pilots, "pilot run failed")
        return
    _drop_unfinished(pilots, "pilot stopped before the end")
    PilotRun.objects.filter(pk=pilots.pk).update(status=PilotRunStatus.DONE, finished_at=timezone.now())
