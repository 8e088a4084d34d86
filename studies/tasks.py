"""Background work of the studies app (``arena_site.background`` says where it runs)."""

from __future__ import annotations

from celery import shared_task

from studies import export_jobs, pilot_runs


@shared_task(name="studies.run_export")
def run_export(job_id: int) -> None:
    export_jobs.run(job_id)


@shared_task(name="studies.run_pilots")
def run_pilots(run_id: int) -> None:
    pilot_runs.run(run_id)
