"""The generator page's runs: instances solved in the background, one by one, each kept as it is
finished (``GeneratorRun.instances``), so the page shows a progress bar and the instances as they
come instead of holding the request for the whole family (ten 3-recipe pairs of 30 steps take
about a minute). A run cut off by a stopped server resumes where it was (the instances of a
family are the same on every run); a researcher may stop a run, keeping what is done.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from arena_site import background
from games.generators import family
from games.models import ACTIVE_GENERATOR_RUN, GeneratorRun, GeneratorRunStatus
from games.scenarios import save_generated

log = logging.getLogger(__name__)

TASK = "games.generate"


class Busy(Exception):
    """The researcher already has a run under way (one at a time each: in the embedded default a
    run is a thread of the web server, and two would share its cores with the games being played)."""

    def __init__(self, run: GeneratorRun) -> None:
        super().__init__(f"your run {run.pk} is still under way: wait for it or stop it first")
        self.run = run


def start(
    domain: str, *, count: int, seed: int, knobs: dict[str, Any], max_seconds: float, save: bool, user: Any
) -> GeneratorRun:
    """Queue a run; raises KnobError (nothing stored) for an unknown domain, bad knobs, count or
    seed, and Busy while the researcher has another run under way."""
    family.checked(domain, count=count, seed=seed, knobs=knobs)
    under_way = GeneratorRun.objects.filter(requested_by=user, status__in=ACTIVE_GENERATOR_RUN).first()
    if under_way is not None:
        raise Busy(under_way)
    run = GeneratorRun.objects.create(
        domain=domain, count=count, seed=seed, knobs=knobs, max_seconds=max_seconds, save_family=save, requested_by=user
    )
    background.submit_on_commit(TASK, run.pk)
    return run


def cut_off_runs() -> list[int]:
    """The runs a stopped server cut off (queued or under way), to resume when it starts."""
    return list(GeneratorRun.objects.filter(status__in=ACTIVE_GENERATOR_RUN).values_list("pk", flat=True))


def visible_to(user: Any) -> QuerySet[GeneratorRun]:
    """A researcher's own runs (a superuser sees everyone's; every researcher is staff, for the admin)."""
    runs = GeneratorRun.objects.all()
    return runs if user.is_superuser else runs.filter(requested_by=user)


def stop(run: GeneratorRun) -> bool:
    """Stop a run that has not ended (the instance being solved is dropped; the finished ones stay)."""
    return bool(
        GeneratorRun.objects.filter(pk=run.pk, status__in=ACTIVE_GENERATOR_RUN).update(
            status=GeneratorRunStatus.STOPPED, finished_at=timezone.now()
        )
    )


def save_family(run: GeneratorRun) -> int:
    """Store a run's finished instances as scenarios (a family benchmarks and studies select by its
    slug pattern); the number saved."""
    save_generated(run.domain, run.instances)
    GeneratorRun.objects.filter(pk=run.pk).update(saved=True)
    run.saved = True
    return len(run.instances)


def run(run_id: int) -> None:
    """Solve a run's instances that are not done yet, keeping each as it is finished."""
    job = GeneratorRun.objects.filter(pk=run_id).first()
    if job is None or not job.active:
        return
    GeneratorRun.objects.filter(pk=job.pk, status__in=ACTIVE_GENERATOR_RUN).update(status=GeneratorRunStatus.RUNNING)
    done = list(job.instances)
    try:
        values = family.checked(job.domain, count=job.count, seed=job.seed, knobs=job.knobs)
        found = family.instances(
            job.domain, count=job.count, seed=job.seed, knobs=values, max_seconds=job.max_seconds, start=len(done)
        )
        for instance in found:
            done.append(instance)
            # Kept only while the run is still under way: a researcher who stopped it meanwhile
            # has the instances the page showed, and this one is dropped.
            if not GeneratorRun.objects.filter(pk=job.pk, status=GeneratorRunStatus.RUNNING).update(instances=done):
                return
        job.instances = done
        if job.save_family and not job.saved:
            save_family(job)
    except Exception as error:  # the researcher sees why on the run's page (which stops polling)
        log.exception("generator run %s failed", job.pk)
        GeneratorRun.objects.filter(pk=job.pk, status=GeneratorRunStatus.RUNNING).update(
            status=GeneratorRunStatus.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
        )
        return
    GeneratorRun.objects.filter(pk=job.pk, status=GeneratorRunStatus.RUNNING).update(
        status=GeneratorRunStatus.DONE, finished_at=timezone.now()
    )
