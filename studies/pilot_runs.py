"""Pilot runs started from the design page: ``studies.pilot``'s scripted participants, run in the
background against the site itself (the URL the researcher used), each one's outcome kept on its
``PilotRun`` as it finishes, so the page shows progress while they play."""

from __future__ import annotations

import logging
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

from django.db import close_old_connections, connections
from django.utils import timezone

from arena_site import background
from studies import pilot, services
from studies.errors import StudyError
from studies.models import PilotRun, PilotRunStatus, Study
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
    if study.pilot_runs.filter(status__in=[PilotRunStatus.QUEUED, PilotRunStatus.RUNNING]).exists():
        raise StudyError("Pilots of this study are still running; wait for them to finish.")
    run = PilotRun.objects.create(study=study, requested_by=user, participants=participants, base_url=base_url)
    background.submit_on_commit("studies.run_pilots", run.pk)
    return run


def cut_off_runs() -> list[int]:
    """Runs a stopped server cut off: queued ones start when it starts again; running ones are
    closed as stopped (their pilots were cut off mid-game; the monitor shows how far they got)."""
    return list(
        PilotRun.objects.filter(status__in=[PilotRunStatus.QUEUED, PilotRunStatus.RUNNING]).values_list("pk", flat=True)
    )


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


def run(run_id: int) -> None:
    pilots = PilotRun.objects.select_related("study").get(pk=run_id)
    if pilots.status == PilotRunStatus.RUNNING:  # a server restart cut it off
        PilotRun.objects.filter(pk=pilots.pk).update(
            status=PilotRunStatus.FAILED,
            error="The server stopped while the pilots played; run them again.",
            finished_at=timezone.now(),
        )
        return
    if pilots.status != PilotRunStatus.QUEUED:
        return
    PilotRun.objects.filter(pk=pilots.pk).update(status=PilotRunStatus.RUNNING)
    token = pilot_token(pilots.study)
    stamp = time.strftime("%Y%m%d%H%M%S")
    results: list[dict[str, Any]] = []
    try:
        with ThreadPoolExecutor(max_workers=pilots.participants) as pool:
            futures = [
                pool.submit(_one, pilots, token, f"pilot-{stamp}-{n + 1}", pilots.pk * 1000 + n)
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
        return
    PilotRun.objects.filter(pk=pilots.pk).update(status=PilotRunStatus.DONE, finished_at=timezone.now())
