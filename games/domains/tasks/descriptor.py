"""The tasks game's descriptor: what the rest of the Arena knows about it (see ``games.engine.domain``)."""

from __future__ import annotations

from typing import Any

from games.engine.domain import Domain


def horizon(state: Any) -> float:
    """The episode's time limit, in minutes."""
    return float(state.options.time_limit)


DOMAIN = Domain(
    name="tasks",
    title="Tasks (TimeArena)",
    rule_sets={"tasks-v1": "games.domains.tasks.rules:RULES"},
    llm_title="household, cooking and lab tasks (TimeArena)",
    # one game minute every 10 s, until a scenario's own pace replaces it (games/speeds.py)
    default_speed=0.1,
    paced_by_length=True,
    horizon="games.domains.tasks.descriptor:horizon",
    npc_policy="games.planners.tasks_npc:npc_policy",
    combine="games.domains.tasks.definition:compose",
    bundled="games.importers.bundled_tasks:load",
    cli="games.cli.tasks",
    generator="games.generators.tasks",
    authoring="games.studio.formats:TASKS",
    board_template="games/boards/tasks.html",
    display_base=1,
    benchmark_items="games.npc.tasksets:tasks_items",
    benchmark_table="games.npc.tables:tasks_table",
    game_item="games.npc.tasksets:tasks_game_item",
    benchmark_metrics="games.npc.stats:TASKS_METRICS",
    success="games.npc.stats:tasks_success",
    success_meaning="every task completed",
    measures="studies.measures:TASKS",
    # the play page's log: a run of one-minute waits as one line
    extra={"presenter": "games.tasks_view:PRESENTER"},
)
