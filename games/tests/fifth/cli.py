"""The fifth game's ``plan`` and ``describe`` verbs (``manage.py plan chores --scenario SLUG``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.engine.episode import play
from games.management.domain_command import UsageError
from games.models import Scenario
from games.tests.fifth.planner import npc_policy
from games.tests.fifth.rules import RULES


def _definition(slug: str) -> dict[str, Any]:
    scenario = Scenario.objects.current().filter(domain="chores", slug=slug).first()
    if scenario is None:
        raise UsageError(f"no chores scenario {slug!r}; load the bundled content first")
    return dict(scenario.definition)


def configure_plan(parser: Any) -> None:
    parser.add_argument("--scenario", required=True)


def run_plan(options: dict[str, Any], log: Callable[[str], None]) -> dict[str, Any]:
    episode = play(RULES, _definition(options["scenario"]), {0: npc_policy}, seed=0)
    return {
        "actions": [f"{a.time:g}: agent {a.agent} {a.action}" for a in episode.actions],
        "result": RULES.result(episode.state),
    }


def configure_describe(parser: Any) -> None:
    parser.add_argument("--scenario", required=True)


def run_describe(options: dict[str, Any], log: Callable[[str], None]) -> dict[str, Any]:
    definition = _definition(options["scenario"])
    return {"jobs": sorted(definition["jobs"]), "background": sorted(definition.get("background", {}))}
