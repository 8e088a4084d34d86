"""The kitchen game's descriptor: what the rest of the Arena knows about it (see ``games.engine.domain``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.engine.domain import Domain


def headline(result: Mapping[str, Any]) -> float | None:
    """The success rate of the orders finished so far, in percent; None until one has finished (served
    or missed): "0%" before the first order is due read as failing."""
    if not int(result.get("completed") or 0) + int(result.get("failed") or 0):
        return None
    rate = result.get("success_rate")
    if not isinstance(rate, int | float) or isinstance(rate, bool):
        return None
    return round(100.0 * rate, 2)


def headline_text(result: Mapping[str, Any], observation: Mapping[str, Any]) -> str:
    """How many orders were served and missed."""
    served = int(result.get("completed") or 0)
    failed = int(result.get("failed") or 0)
    if not served + failed:
        return "no order finished yet"
    return f"{served} served · {failed} missed"


def result_note(result: Mapping[str, Any]) -> str:
    """How many orders a finished game served, for the games list."""
    return f"{result.get('completed', 0)} served"


def horizon(state: Any) -> float:
    """The level's last step."""
    return float(state.level.max_steps)


DOMAIN = Domain(
    name="kitchen",
    title="Kitchen (CuisineWorld)",
    rule_sets={"kitchen-v1": "games.domains.kitchen.rules:RULES"},
    llm_title="a restaurant kitchen with orders (CuisineWorld)",
    wait_verbs=("noop",),
    benchmark_sends_refused=False,
    plan_lines_loose=False,
    default_speed=0.5,  # one step every 2 s: one command per step at human pace
    npc_policy="games.planners.kitchen_npc:npc_policy",
    team_in_definition=True,
    playtest_judge="games.playtest:kitchen_judge",
    headline="games.domains.kitchen.descriptor:headline",
    horizon="games.domains.kitchen.descriptor:horizon",
    headline_text="games.domains.kitchen.descriptor:headline_text",
    result_note="games.domains.kitchen.descriptor:result_note",
    headline_title="Orders served on time (% of the orders finished so far)",
    bundled="games.importers.bundled_kitchen:load",
    text="games.domains.kitchen.text:extract_reply",
    cli="games.cli.kitchen",
    knowledge="games.domains.kitchen.knowledge:relevant_knowledge",
    generator="games.generators.kitchen",
    authoring="games.studio.formats:KITCHEN",
    board_template="games/boards/kitchen.html",
    benchmark_items="games.npc.tasksets:kitchen_items",
    benchmark_table="games.npc.tables:kitchen_table",
    game_item="games.npc.tasksets:kitchen_game_item",
    benchmark_metrics="games.npc.stats:KITCHEN_METRICS",
    success="games.npc.stats:kitchen_success",
    success_meaning="every order served",
    measures="studies.measures:KITCHEN",
    # the play page's floor plan, recipe book, grouped commands, readable log and refusals
    extra={"presenter": "games.kitchen_view:PRESENTER"},
)
