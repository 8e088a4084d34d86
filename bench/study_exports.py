"""Study exports on a large synthetic study: rows per second and peak Python memory.

Builds a throwaway test database (SQLite in memory, or ``test_<name>`` on Postgres with
DATABASE_URL) with a study of ``BENCH_STUDY_PARTICIPANTS`` participants (default 200) × 4 episodes,
each with a game of ``BENCH_STUDY_EVENTS`` log entries (default 250), answers to 8 items per
episode; then streams every table as CSV and JSONL. Memory is measured with tracemalloc for the
event log at a quarter of the study and at the whole study: constant memory means the two peaks
are about equal although the second export has four times the rows.
"""

from __future__ import annotations

import os
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

Report = Callable[[str, float, str], None]


def _build(n_participants: int, n_events: int, tag: str) -> Any:
    from django.utils import timezone

    from games.models import Game, GameEvent, Scenario
    from studies import services
    from studies.models import Episode, EpisodeStatus, ParticipantStatus, Response

    scenario, _ = Scenario.objects.get_or_create(
        slug="bench/kitchen",
        version=1,
        defaults={"domain": "kitchen", "title": "Bench kitchen", "source": "bench", "definition": {}},
    )
    study = services.create_study(title=f"Bench {tag}", slug=f"bench-{tag}")
    for name, kind, count in [("Alone", "none", 0), ("1 LLM", "llm", 1), ("2 LLM", "llm", 2), ("Random", "random", 2)]:
        services.add_condition(study, name=name, npc_kind=kind, npc_count=count)
    services.add_scenario(study, scenario)
    # generated data, nobody plays: opened directly, without the checklist's LLM endpoint probe
    type(study).objects.filter(pk=study.pk).update(status="open")
    items = list(study.items.all())
    now = timezone.now()
    for p in range(n_participants):
        participant = services.give_consent(services.join(study, external_id=f"{tag}-{p}"))
        for episode in participant.episodes.all():
            game = Game.objects.create(
                domain="kitchen", rule_set_id="kitchen-v1", scenario=scenario, anchor_at=now, status="finished"
            )
            GameEvent.objects.bulk_create(
                GameEvent(
                    game=game,
                    seq=seq,
                    category="action" if seq % 3 else "engine",
                    kind="started" if seq % 3 else "completed",
                    agent=seq % 3,
                    time=float(seq),
                    created_at=now,
                    data={"action": "get tomato from storage", "message": "agent 1 took a tomato"},
                )
                for seq in range(1, n_events + 1)
            )
            metrics = {"success_rate": (p % 10) / 10, "completed": p % 7, "failed": 2}
            Episode.objects.filter(pk=episode.pk).update(
                game=game, status=EpisodeStatus.DONE, metrics=metrics, played_at=now, surveyed_at=now
            )
            Response.objects.bulk_create(
                Response(episode=episode, item=item, value=1 + (p + item.index) % 5) for item in items
            )
        participant.status = ParticipantStatus.COMPLETED
        participant.save(update_fields=["status"])
    return study


def _consume(study: Any, table: str, fmt: str) -> tuple[int, int]:
    from studies import exports

    lines = size = 0
    for line in exports.lines(study, table, fmt):
        lines += 1
        size += len(line)
    return lines, size


def run(report: Report) -> None:
    import django

    django.setup()
    from django.db import connection

    from studies import exports

    participants = int(os.environ.get("BENCH_STUDY_PARTICIPANTS", "200"))
    events = int(os.environ.get("BENCH_STUDY_EVENTS", "250"))
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        started = time.perf_counter()
        small = _build(max(1, participants // 4), events, "quarter")
        large = _build(participants, events, "whole")
        report("build synthetic studies (seconds)", time.perf_counter() - started, "s")
        report("events in the whole study", float(participants * 4 * events), "rows")
        for table in exports.TABLES:
            for fmt in exports.FORMATS:
                started = time.perf_counter()
                lines, size = _consume(large, table, fmt)
                seconds = time.perf_counter() - started
                report(f"{table}.{fmt}: {lines} lines, {size / 1e6:.1f} MB", seconds, "s")
                if table == "events" and seconds > 0:
                    report(f"events.{fmt} throughput", lines / seconds, "rows/s")
        for name, study in (("quarter", small), ("whole", large)):
            tracemalloc.start()
            lines, _ = _consume(study, "events", "csv")
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            report(f"peak Python memory, events.csv of the {name} study ({lines} lines)", peak / 1e6, "MB")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
