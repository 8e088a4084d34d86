"""The fifth game's one descriptor: registering it is all the Arena needs to offer the game."""

from __future__ import annotations

from games.engine.domain import Domain

DOMAIN = Domain(
    name="chores",
    title="Chores (a fifth game from the tests)",
    rule_sets={"chores-v1": "games.tests.fifth.rules:RULES"},
    llm_title="a list of household chores",
    npc_policy="games.tests.fifth.planner:npc_policy",
    bundled="games.tests.fifth.content:load",
    cli="games.tests.fifth.cli",
)
