"""Celery tasks of the annotations app."""

from __future__ import annotations

from celery import shared_task

from annotations import preannotation


@shared_task(name="annotations.preannotate", acks_late=True)
def preannotate(run_id: int) -> str:
    """Pre-annotate a project with an LLM (see preannotation.run); returns the run's status."""
    return preannotation.run(run_id).status
