"""Playing an episode as a real-time game would run, without waiting for the wall clock.

``play_at_pace`` simulates the real-time clock (game time = real seconds x speed): the *paced*
agents (the human seats) decide once every ``think`` real seconds, as a person reading the board
would, while the other agents (NPC teammates) decide at once whenever they are free, as the live
NPC seats do. Between decisions time runs on by itself (completions, arrivals, order expiries).
Used by ``manage.py playtest`` to check that every bundled scenario can be won at human pace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.engine.episode import Policy
from games.engine.rules import RuleSet

NPC_ACTIONS_PER_MOMENT = 20  # a bound, so a teammate that never stops acting cannot hang the loop


@dataclass
class PacedRun:
    state: Any
    real_seconds: float
    decisions: int
    refused: int


def play_at_pace(
    rules: RuleSet[Any],
    scenario: Mapping[str, Any],
    policies: Mapping[int, Policy],
    *,
    paced: set[int],
    speed: float,
    think: float = 2.0,
    agents: int | None = None,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    max_real_seconds: float = 3600.0,
) -> PacedRun:
    count = agents if agents is not None else max(policies) + 1
    state = rules.initial_state(scenario, seed=seed, agents=count, options=options)
    run = PacedRun(state, 0.0, 0, 0)

    def act(agent: int, action: str, at: float) -> None:
        transition = rules.act(run.state, agent, action, max(at, float(rules.now(run.state))))
        run.state = transition.state
        run.decisions += 1
        run.refused += transition.rejection is not None

    def teammates(at: float) -> None:
        for _ in range(NPC_ACTIONS_PER_MOMENT):
            acted = False
            for agent in sorted(rules.awaiting(run.state)):
                policy = policies.get(agent)
                if agent in paced or policy is None or rules.outcome(run.state).over:
                    continue
                action = policy(rules, run.state, agent)
                if action is not None:
                    act(agent, action, at)
                    acted = True
            if not acted:
                return

    tick = 0
    teammates(0.0)
    while not rules.outcome(run.state).over:
        tick += 1
        real = tick * think
        if real > max_real_seconds:
            run.real_seconds = max_real_seconds
            return run
        target = real * speed
        # Let time run to the next decision, teammates answering everything that happens on the way.
        while not rules.outcome(run.state).over:
            deadline = rules.next_deadline(run.state)
            if deadline is None or deadline > target:
                break
            run.state = rules.advance(run.state, deadline).state
            teammates(float(deadline))
        if rules.outcome(run.state).over:
            run.real_seconds = real
            break
        if target > rules.now(run.state):
            run.state = rules.advance(run.state, target).state
        run.real_seconds = real
        for agent in sorted(paced & set(rules.awaiting(run.state))):
            policy = policies.get(agent)
            action = policy(rules, run.state, agent) if policy else None
            if action is not None and not rules.outcome(run.state).over:
                act(agent, action, target)
        teammates(target)
    return run
