"""The conformance suite every rule set must pass (Gym/PettingZoo-style API checks).

Domain test modules call ``check_rules(RULES, scenario)`` with one of their scenarios; the
checks are the contract of SPEC section 1 that the game loop, NPCs and replays rely on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from games.engine.episode import Policy, first_legal, play, replay
from games.engine.rules import RuleSet
from games.engine.types import Event, Observation


def check_rules(
    rules: RuleSet[Any],
    scenario: Mapping[str, Any],
    *,
    policy: Policy = first_legal,
    agents: int = 1,
    options: Mapping[str, Any] | None = None,
) -> None:
    """Raise AssertionError where ``rules`` breaks the engine contract on ``scenario``."""
    assert rules.domain and rules.id.startswith(rules.domain + "-v"), "rule set id must be '<domain>-vN'"
    state = rules.initial_state(scenario, seed=1, agents=agents, options=options)
    again = rules.initial_state(scenario, seed=1, agents=agents, options=options)
    assert rules.dump_state(state) == rules.dump_state(again), "same scenario and seed must give the same state"
    _check_roundtrip(rules, state)

    for agent in range(agents):
        observation = rules.observe(state, agent)
        assert isinstance(observation, Observation)
        assert observation.text.strip(), "the text observation must not be empty"
        json.dumps(observation.data)
        for action in rules.legal_actions(state, agent):
            assert isinstance(action, str) and action.strip()

    garbage = rules.act(state, 0, "¿¿ not an action ??", rules.now(state))
    assert garbage.rejection is not None, "a malformed action must be rejected with feedback"
    assert garbage.rejection.message, "feedback must say what to do"

    policies = dict.fromkeys(range(agents), policy)
    episode = play(rules, scenario, policies, seed=1, options=options)
    for event in episode.events:
        assert isinstance(event, Event)
        assert Event.from_json(json.loads(json.dumps(event.to_json()))) == event, "events must survive JSON"
    _check_roundtrip(rules, episode.state)
    json.dumps(rules.result(episode.state))

    rebuilt = replay(
        rules, scenario, episode.actions, seed=1, agents=agents, options=options, until=rules.now(episode.state)
    )
    assert rules.dump_state(rebuilt.state) == rules.dump_state(episode.state), (
        "replaying the actions must rebuild the state"
    )


def _check_roundtrip(rules: RuleSet[Any], state: Any) -> None:
    raw = rules.dump_state(state)
    text = json.dumps(raw, sort_keys=True)
    restored = rules.load_state(json.loads(text))
    assert json.dumps(rules.dump_state(restored), sort_keys=True) == text, "dump/load must round-trip exactly"
