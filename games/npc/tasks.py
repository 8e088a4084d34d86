"""Celery tasks: NPC turns of live games and benchmark runs (see ``background`` for where they run)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="npc.turns", ignore_result=True)
def npc_turns(game_id: int) -> None:
    from games.npc.turns import run_turns

    run_turns(game_id)


@shared_task(name="npc.retry", ignore_result=True)
def npc_retry(game_id: int) -> None:
    """A real-time NPC idled (late or failed call): give it another chance even if nothing changed."""
    from games.npc.turns import request_turn

    request_turn(game_id, force=True)


@shared_task(name="npc.benchmark", ignore_result=True, acks_late=True)
def benchmark_run(run_id: int) -> None:
    """With a broker, episodes fan out as ``npc.benchmark_item`` tasks over every worker; in the
    embedded default they play in threads of the process running this."""
    from django.conf import settings

    from games.npc.benchmarks import run_benchmark

    inline = settings.CELERY_TASK_ALWAYS_EAGER or getattr(settings, "NPC_RUN_INLINE", False)
    run_benchmark(run_id, fan_out=not inline)


@shared_task(name="npc.benchmark_item", ignore_result=True, acks_late=True)
def benchmark_item(run_id: int, key: str) -> None:
    from games.npc.benchmarks import play_one

    play_one(run_id, key)
