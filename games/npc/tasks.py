"""Celery tasks: NPC turns of live games and benchmark runs (``arena_site.background`` says where
they run). Runners never import this module; they queue a task by its name."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from arena_site import background
from games.npc import benchmarks, turns


@shared_task(name="npc.turns", ignore_result=True)
def npc_turns(game_id: int) -> None:
    turns.run_turns(game_id)


@shared_task(name="npc.retry", ignore_result=True)
def npc_retry(game_id: int) -> None:
    """A real-time NPC idled (late or failed call): give it another chance even if nothing changed."""
    turns.request_turn(game_id, force=True)


@shared_task(name="npc.benchmark", ignore_result=True, acks_late=True)
def benchmark_run(run_id: int) -> None:
    """With a broker, episodes fan out as ``npc.benchmark_item`` tasks over every worker; in the
    embedded default they play in threads of the process running this."""
    here = settings.CELERY_TASK_ALWAYS_EAGER or background.inline()
    benchmarks.run_benchmark(run_id, fan_out=not here, taken_by=benchmarks.SERVER if here else benchmarks.WORKER)


@shared_task(name="npc.benchmark_item", ignore_result=True, acks_late=True)
def benchmark_item(run_id: int, key: str) -> None:
    benchmarks.play_one(run_id, key)
