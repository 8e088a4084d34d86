"""Background work of the games app outside the NPC layer (``arena_site.background`` says where it
runs; the NPC tasks are ``games.npc.tasks``). Not to be confused with the domain called tasks
(``games.domains.tasks``): Celery finds an app's tasks in its ``tasks`` module."""

from __future__ import annotations

from celery import shared_task

from games.studio import runs


@shared_task(name="games.generate", acks_late=True)
def generate(run_id: int) -> None:
    runs.run(run_id)
