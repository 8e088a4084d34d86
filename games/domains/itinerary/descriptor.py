"""The itinerary game's descriptor: what the rest of the Arena knows about it (see ``games.engine.domain``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.engine.domain import Domain


def headline(result: Mapping[str, Any]) -> float | None:
    """ItineraryBench's total, already points of 100 (60 + 20 + 20; ``scoring.py``)."""
    total = result.get("total")
    if not isinstance(total, int | float) or isinstance(total, bool):
        return None
    return round(total, 2)


def headline_text(result: Mapping[str, Any], observation: Mapping[str, Any]) -> str:
    """How many of the brief's goals are met (the header's percent is already the score), or the
    score of 100 where no observation says."""
    goals = observation.get("goals") if isinstance(observation, Mapping) else None
    if goals:
        met = sum(1 for goal in goals if goal.get("met"))
        tally = f"{met} of {len(goals)} goal{'' if len(goals) == 1 else 's'} met"
        # a trip under way scores 60 for holding together before any goal is met: "72% · 0 of 2
        # goals met" read as nearly done; the score is what the trip would get if it ended now
        return tally if observation.get("over", True) else f"score so far · {tally}"
    total = result.get("total")
    if not isinstance(total, int | float) or isinstance(total, bool):
        return "score"
    from games.metrics import whole  # here: the metrics module reads the registry of descriptors

    return f"score {whole(float(total))} of 100"  # never a full 100 that is not one


def horizon(state: Any) -> float:
    """The trip's end, in minutes from its start."""
    return float(state.world.end)


DOMAIN = Domain(
    name="itinerary",
    title="Itinerary (ItineraryBench)",
    rule_sets={"itinerary-v1": "games.domains.itinerary.rules:RULES"},
    llm_title="a travel itinerary (ItineraryBench)",
    wait_verbs=("wait", "stay_in"),
    plan_lines_loose=False,
    # The traveller's clock jumps to the end of each action, so the pace only matters while a
    # player reads: one trip minute per second keeps a minute of reading from costing an hour.
    default_speed=1.0,
    seats_at_most=1,  # one traveller: see ``Domain.seats_at_most``
    npc_policy="games.planners.itinerary_npc:npc_policy",
    length_set_by_reader=True,
    # A traveller who only reads still sees sights open and the trip end (``now.next_change``).
    wakes_at="games.domains.itinerary.now:next_change",
    playtest_judge="games.playtest:itinerary_judge",
    headline="games.domains.itinerary.descriptor:headline",
    horizon="games.domains.itinerary.descriptor:horizon",
    headline_text="games.domains.itinerary.descriptor:headline_text",
    headline_title="Trip score (executability 60 + constraints 20 + efficiency 20, of 100)",
    bundled="games.importers.bundled_itinerary:load",
    text="games.domains.itinerary.reply:extract_reply",
    cli="games.cli.itinerary",
    generator="games.generators.itinerary",
    authoring="games.studio.formats:ITINERARY",
    board_template="games/boards/itinerary.html",
    benchmark_items="games.npc.tasksets:itinerary_items",
    benchmark_table="games.npc.tables:itinerary_table",
    game_item="games.npc.tasksets:itinerary_game_item",
    benchmark_metrics="games.npc.stats:ITINERARY_METRICS",
    success="games.npc.stats:itinerary_success",
    success_meaning="the plan executes and meets every constraint",
    measures="studies.measures:ITINERARY",
    extra={
        "presenter": "games.itinerary_view:PRESENTER",
        "seats_reason": "its one traveller is moved by every seat, and each move takes the clock to its end, so "
        "a second seat would play the whole trip before the first could act; play it alone (a person, a program "
        "or one NPC)",
    },
)
