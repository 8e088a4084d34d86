"""Property tests: whatever agents command, items are only created or lost by recipes, storage
and serving, and no tool ever holds more than its capacity."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bundled import CONTENT_DIR
from games.domains.kitchen.commands import Command
from games.domains.kitchen.execution import legal_commands, refusal
from games.domains.kitchen.levels import read_levels
from games.domains.kitchen.rules import RULES
from games.domains.kitchen.state import KitchenState
from games.domains.kitchen.world import BASE_INGREDIENTS, TOOL_KINDS
from games.engine.types import COMPLETED

LEVELS = read_levels(CONTENT_DIR / "kitchen")


def world_items(state: KitchenState) -> Counter[str]:
    items: Counter[str] = Counter(agent.holding for agent in state.agents if agent.holding)
    for tool in state.tools:
        items.update(tool.contents)
    return items


def expected_change(state: KitchenState, events) -> Counter[str]:
    """What the step's accepted commands may add (+) or remove (−), from their events."""
    kinds = state.level.kinds
    change: Counter[str] = Counter()
    for event in events:
        if event.kind != COMPLETED:
            continue
        verb = event.data["command"].split("(")[0]
        location = event.data["command"].split(",")[1].strip(" )") if verb != "noop" else None
        if verb == "get" and kinds[location] == "storage":
            change[event.data["item"]] += 1
        elif verb == "put" and kinds[location] in ("storage", "servingtable"):
            change[event.data["item"]] -= 1
        elif verb == "activate":
            change.subtract(Counter(event.data["ingredients"]))
            change[event.data["product"]] += 1
    return change


def any_command(level_state: KitchenState):
    """Commands that are often illegal: to exercise every refusal."""
    names = [name for name, _ in level_state.level.locations]
    items = list(BASE_INGREDIENTS[:6]) + list(level_state.level.recipes)
    return st.one_of(
        st.just("noop"),
        st.sampled_from(names).map(lambda n: f"goto {n}"),
        st.sampled_from(names).map(lambda n: f"put {n}"),
        st.sampled_from(names).map(lambda n: f"activate {n}"),
        st.sampled_from(names).map(lambda n: f"get {n}"),
        st.sampled_from(items).map(lambda i: f"get storage0 {i}"),
    )


def mostly_legal(data, state: KitchenState, legal: list[str]) -> str:
    """Mostly a legal command (so recipes really get cooked), sometimes anything at all."""
    if legal and data.draw(st.integers(0, 3)) > 0:
        return data.draw(st.sampled_from(legal))
    return data.draw(any_command(state))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(sorted(LEVELS)), agents=st.integers(1, 4), seed=st.integers(0, 50))
def test_items_are_conserved_and_capacities_hold(data, name, agents, seed):
    state = RULES.initial_state(LEVELS[name], seed=seed, agents=agents, options={"max_steps": 30})
    for _ in range(30):
        for agent in data.draw(st.permutations(range(agents))):
            command = mostly_legal(data, state, RULES.legal_actions(state, agent))
            state = RULES.act(state, agent, command, state.step).state
        before = world_items(state)
        transition = RULES.advance(state, state.step + 1)
        state = transition.state
        expected = before.copy()
        expected.update(expected_change(state, transition.events))
        assert world_items(state) == +expected
        assert all(count >= 0 for count in expected.values())
        for tool in state.tools:
            capacity = TOOL_KINDS[tool.kind].capacity
            assert capacity is None or len(tool.contents) <= capacity
        assert state.completed + state.failed + len(state.orders) == state.orders_made
        if state.step >= state.level.max_steps:
            break


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(LEVELS)), seed=st.integers(0, 1000), steps=st.integers(0, 30))
def test_states_round_trip_through_json_at_any_point(name, seed, steps):
    from games.planners.kitchen_dispatcher import random_dispatcher

    state = RULES.initial_state(LEVELS[name], seed=seed, agents=3)
    for _ in range(steps):
        for agent, command in random_dispatcher(state, [0, 1, 2]).items():
            state = RULES.act(state, agent, command, state.step).state
        assert RULES.load_state(RULES.dump_state(state)) == state
        state = RULES.advance(state, state.step + 1).state


def _every_command_refusal_allows(state: KitchenState, agent: int) -> list:
    """legal_commands by its definition: every command that could be meant here, checked one by one."""
    level = state.level
    if state.step >= level.max_steps:
        return []
    location = state.agents[agent].location
    candidates = [Command("noop"), *level.gotos[location], *level.tries[location, False], *level.tries[location, True]]
    tools = {tool.name: tool for tool in state.tools}
    unique = list(dict.fromkeys(candidates))
    return [c for c in unique if refusal(state, state.agents, _tool_of(tools, c), state.orders, agent, c) is None]


def _tool_of(tools, command):
    return None if command.verb in ("noop", "goto") else tools[command.location]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(sorted(LEVELS)), agents=st.integers(1, 4), seed=st.integers(0, 50))
def test_the_level_remembers_legal_commands_exactly_as_the_rules_decide_them(data, name, agents, seed):
    # legal_commands answers from a per-level memo keyed by what the rules read; every answer,
    # remembered or not, must be what checking each command against the current state gives.
    state = RULES.initial_state(LEVELS[name], seed=seed, agents=agents, options={"max_steps": 30})
    for _ in range(30):
        for agent in data.draw(st.permutations(range(agents))):
            legal = legal_commands(state, agent)
            if state.agents[agent].busy_until > state.step:
                assert legal == [Command("noop")]
            else:
                assert sorted(map(str, legal)) == sorted(map(str, _every_command_refusal_allows(state, agent)))
            action = mostly_legal(data, state, [command.text() for command in legal])
            state = RULES.act(state, agent, action, state.step).state
        state = RULES.advance(state, state.step + 1).state
        if state.step >= state.level.max_steps:
            break
