"""The kitchen game's descriptor: what the rest of the Arena knows about it (see ``games.engine.domain``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.engine.domain import Domain


def headline(result: Mapping[str, Any]) -> float | None:
    """The success rate of the orders finished so far, in percent."""
    rate = result.get("success_rate")
    if not isinstance(rate, int | float) or isinstance(rate, bool):
        return None
    return round(100.0 * rate, 2)


DOMAIN = Domain(
    name="kitchen",
    title="Kitchen (CuisineWorld)",
    rule_sets={"kitchen-v1": "games.domains.kitchen.rules:RULES"},
    llm_title="a restaurant kitchen with orders (CuisineWorld)",
    wait_verbs=("noop",),
    npc_policy="games.planners.kitchen_npc:npc_policy",
    headline="games.domains.kitchen.descriptor:headline",
    headline_title="Orders served on time (% of the orders finished so far)",
    bundled="games.importers.bundled_kitchen:load",
    text="games.domains.kitchen.text:extract_reply",
    cli="games.cli.kitchen",
    board_template="games/boards/kitchen.html",
    benchmark_items="games.npc.tasksets:kitchen_items",
    benchmark_table="games.npc.tables:kitchen_table",
    game_item="games.npc.tasksets:kitchen_game_item",
    # the play page's floor plan, recipe book, grouped commands, readable log and refusals
    extra={"presenter": "games.kitchen_view:PRESENTER"},
)
