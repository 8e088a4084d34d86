"""The recipes game's descriptor: what the rest of the Arena knows about it (see ``games.engine.domain``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.engine.domain import Domain


def headline_text(result: Mapping[str, Any], observation: Mapping[str, Any]) -> str:
    """How many of the recipes' steps are done."""
    progress = observation.get("progress")
    if isinstance(progress, Mapping) and "total" in progress:
        return f"{progress.get('done', 0)} of {progress['total']} steps done"
    return "steps done"


DOMAIN = Domain(
    name="recipes",
    title="Recipes (Recipe2Plan)",
    rule_sets={"recipes-v1": "games.domains.recipes.rules:RULES"},
    llm_title="cooking two recipes at once (Recipe2Plan)",
    # twenty recipe seconds per second, until a scenario's own pace replaces it (games/speeds.py)
    default_speed=20.0,
    paced_by_length=True,
    npc_policy="games.planners.recipes_npc:npc_policy",
    paced_policy="games.planners.recipes_npc:paced_policy",
    playtest_judge="games.playtest:recipes_judge",
    headline_text="games.domains.recipes.descriptor:headline_text",
    headline_title="Recipe steps done (%)",
    bundled="games.importers.bundled_recipes:load",
    text="games.domains.recipes.text:extract_reply",
    cli="games.cli.recipes",
    knowledge="games.domains.recipes.knowledge:relevant_knowledge",
    generator="games.generators.recipes",
    authoring="games.studio.formats:RECIPES",
    board_template="games/boards/recipes.html",
    benchmark_items="games.npc.tasksets:recipes_items",
    benchmark_table="games.npc.tables:recipes_table",
    game_item="games.npc.tasksets:recipes_game_item",
    benchmark_metrics="games.npc.stats:RECIPES_METRICS",
    success="games.npc.stats:recipes_success",
    success_meaning="every recipe complete (within its time constraints)",
    constraint_variants=True,
    measures="studies.measures:RECIPES",
    # People play without the benchmark's revision limits (10 refusals, 3 repeats end an episode).
    extra={"presenter": "games.recipes_view:PRESENTER", "game_options": {"max_rejections": 0, "max_repeats": 0}},
)
