"""A finished benchmark episode drawn again: its logged actions replayed through the rules (the
engines are deterministic, so the replay is the episode) into the game pages' timeline.

A run stores each episode's actions (``BenchmarkResult.log``), not its events: a few kilobytes
instead of a hundred. The replay is checked against the figures the episode stored; a scenario
that has a new version since the run replays into a different game, and is said so rather than
drawn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from games import timeline
from games.engine import registry
from games.engine.episode import LoggedAction, replay
from games.npc.benchmarks import BenchmarkError, definition_for
from games.npc.models import BenchmarkResult
from games.replays import episode_timeline


@dataclass(frozen=True)
class EpisodeReplay:
    timeline: timeline.Timeline | None
    problem: str = ""  # why there is no timeline, in words for the page


def replayed(result: BenchmarkResult) -> EpisodeReplay:
    """The episode's timeline (a row per agent), or why it cannot be drawn."""
    if not result.log:
        return EpisodeReplay(
            None, "No actions were kept for this episode (it took none, or it was played before runs kept them)."
        )
    domain = result.run.domain
    rules = registry.get(domain)
    item: dict[str, Any] = dict(result.item)
    agents = int(item.get("agents", 1))
    end = float(result.curve[-1][0]) if result.curve else None  # where the episode stopped
    try:
        definition = definition_for(rules, item.get("scenarios", []))
        actions = [LoggedAction(int(agent), str(action), float(at)) for agent, action, at in result.log]
        episode = replay(
            rules,
            definition,
            actions,
            seed=int(item.get("seed", 0)),
            agents=agents,
            options=item.get("options") or {},
            until=end,
        )
    except (BenchmarkError, ValueError, KeyError, TypeError) as error:
        return EpisodeReplay(None, f"It cannot be replayed: {error}.")
    if json.loads(json.dumps(rules.result(episode.state))) != result.metrics:
        return EpisodeReplay(
            None,
            "Its scenario has a new version since the run, so replaying its actions would draw another game.",
        )
    return EpisodeReplay(episode_timeline(rules, domain, episode, [f"Agent {i + 1}" for i in range(agents)]))
