"""Driving a rule set headlessly: one loop shared by conformance tests, benchmarks and replays.

``play`` runs an episode with a policy per agent in the ``fast`` clock mode: every free agent
decides, then time moves to the next deadline. ``replay`` re-applies a stored action log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine.rules import RuleSet
from games.engine.types import Event

# A policy sees (rules, state, agent) and returns an action string, or None to let time pass.
Policy = Callable[[RuleSet[Any], Any, int], str | None]


@dataclass(frozen=True, slots=True)
class LoggedAction:
    """One entry of an episode's action log: enough to replay it exactly."""

    agent: int
    action: str
    time: float

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "action": self.action, "time": self.time}


@dataclass
class Episode:
    state: Any
    events: list[Event] = field(default_factory=list)
    actions: list[LoggedAction] = field(default_factory=list)


def play(
    rules: RuleSet[Any],
    scenario: Mapping[str, Any],
    policies: Mapping[int, Policy],
    *,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    max_decisions: int = 100_000,
) -> Episode:
    """Play an episode to its end. Agents without a policy do nothing."""
    agents = max(policies) + 1 if policies else 1
    state = rules.initial_state(scenario, seed=seed, agents=agents, options=options)
    episode = Episode(state=state)
    decisions = 0
    while not rules.outcome(episode.state).over and decisions < max_decisions:
        acted = False
        for agent in sorted(rules.awaiting(episode.state)):
            if rules.outcome(episode.state).over:
                break
            policy = policies.get(agent)
            action = policy(rules, episode.state, agent) if policy else None
            if action is None:
                continue
            now = rules.now(episode.state)
            transition = rules.act(episode.state, agent, action, now)
            episode.actions.append(LoggedAction(agent, action, now))
            episode.events.extend(transition.events)
            episode.state = transition.state
            decisions += 1
            acted = True
        if rules.outcome(episode.state).over:
            break
        if acted and any(agent in policies for agent in rules.awaiting(episode.state)):
            # Someone who acted is still free at this moment (a recipe's autonomous step leaves the
            # cook free to start the next one): ask again before time moves on by itself.
            continue
        deadline = rules.next_deadline(episode.state)
        if deadline is None:
            break
        transition = rules.advance(episode.state, deadline)
        episode.events.extend(transition.events)
        episode.state = transition.state
    return episode


def replay(
    rules: RuleSet[Any],
    scenario: Mapping[str, Any],
    actions: list[LoggedAction],
    *,
    seed: int = 0,
    agents: int = 1,
    options: Mapping[str, Any] | None = None,
    until: float | None = None,
) -> Episode:
    """Re-apply a logged action sequence: advance to each action's time, then act."""
    state = rules.initial_state(scenario, seed=seed, agents=agents, options=options)
    episode = Episode(state=state)
    for logged in actions:
        if rules.now(episode.state) < logged.time:
            transition = rules.advance(episode.state, logged.time)
            episode.events.extend(transition.events)
            episode.state = transition.state
        transition = rules.act(episode.state, logged.agent, logged.action, logged.time)
        episode.events.extend(transition.events)
        episode.actions.append(logged)
        episode.state = transition.state
    if until is not None and rules.now(episode.state) < until:
        transition = rules.advance(episode.state, until)
        episode.events.extend(transition.events)
        episode.state = transition.state
    return episode


def first_legal(rules: RuleSet[Any], state: Any, agent: int) -> str | None:
    """A trivial policy: the first legal action, if any."""
    actions = rules.legal_actions(state, agent)
    return actions[0] if actions else None
