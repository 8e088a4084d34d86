"""Properties of the rules on random task graphs (hypothesis): whatever the agents do,

- no agent does two things at once,
- no object is used by more actions at once than it has instances,
- replaying an episode's actions rebuilds the same events and state,
- nothing the rules accept finishes faster than the exact optimum for the same agents.
"""

from __future__ import annotations

from itertools import pairwise

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.domains.tasks.definition import compile_definition, compose
from games.domains.tasks.rules import RULES
from games.engine.episode import LoggedAction, replay
from games.planners import tasks_optimal

OBJECTS = ["cup", "rice", "dish", "beef", "pot", "fryer"]
APPLIANCES = ["pot", "fryer"]
VERBS = ["wash", "pick", "chop", "cook", "fry"]


CANDIDATES = [f"{verb} {obj}" for verb in VERBS for obj in OBJECTS[:4]] + [
    f"{verb} {obj} in {appliance}" for verb in ("cook", "fry") for obj in OBJECTS[:4] for appliance in APPLIANCES
]


@st.composite
def task_definitions(draw: st.DrawFn, name: str) -> dict:
    texts = draw(st.lists(st.sampled_from(CANDIDATES), min_size=2, max_size=6, unique=True))
    actions: list[dict] = []
    for text in texts:
        earlier = [a["name"] for a in actions]
        requires = draw(st.lists(st.sampled_from(earlier), unique=True, max_size=2)) if earlier else []
        actions.append(
            {"name": text, "minutes": draw(st.integers(1, 6)), "background": draw(st.booleans()), "requires": requires}
        )
    return {
        "format": "tasks-v1",
        "tasks": [{"name": name, "title": name, "goal": "", "appliances": APPLIANCES, "actions": actions}],
    }


@st.composite
def games(draw: st.DrawFn) -> tuple[dict, int, bool, list[int]]:
    tasks = [draw(task_definitions(f"t{i}")) for i in range(draw(st.integers(1, 2)))]
    definition = compose(tasks)
    agents = draw(st.integers(1, 3))
    constrained = draw(st.booleans())
    # Each decision picks among the legal actions by position; large numbers reach "wait" or junk.
    choices = draw(st.lists(st.integers(0, 12), min_size=1, max_size=30))
    return definition, agents, constrained, choices


def play_out(definition: dict, agents: int, constrained: bool, choices: list[int]):
    state = RULES.initial_state(definition, agents=agents, options={"constrained": constrained})
    events, log = [], []
    position = 0
    while not RULES.outcome(state).over and position < len(choices) * 4:
        for agent in sorted(RULES.awaiting(state)):
            legal = RULES.legal_actions(state, agent)
            choice = choices[position % len(choices)]
            position += 1
            action = legal[choice] if choice < len(legal) else ("juggle cup" if choice == 12 else legal[0])
            transition = RULES.act(state, agent, action, RULES.now(state))
            log.append(LoggedAction(agent, action, RULES.now(state)))
            events.extend(transition.events)
            state = transition.state
            if RULES.outcome(state).over:
                break
        deadline = RULES.next_deadline(state)
        if deadline is None:
            break
        transition = RULES.advance(state, deadline)
        events.extend(transition.events)
        state = transition.state
    return state, events, log


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_agents_and_objects_are_never_double_booked_and_replay_is_exact(game):
    definition, agents, constrained, choices = game
    state, events, log = play_out(definition, agents, constrained, choices)
    scenario = compile_definition(definition, constrained=constrained)
    started = [e for e in events if e.kind == "started"]

    for agent in range(agents):
        spans = sorted(
            (e.data["start"], e.data["start"] + (1 if e.data["background"] else e.data["end"] - e.data["start"]))
            for e in started
            if e.agent == agent
        )
        for (_, end), (start, _) in pairwise(spans):
            assert end <= start, f"agent {agent} does two things at once"

    for obj in scenario.objects:
        spans = [
            (e.data["start"], e.data["end"]) for e in started if obj.name in scenario.by_text[e.data["action"]].objects
        ]
        for minute in {start for start, _ in spans}:
            in_use = sum(1 for start, end in spans if start <= minute < end)
            assert in_use <= obj.capacity, f"{obj.name} used {in_use} times at t={minute}"

    rebuilt = replay(
        RULES, definition, log, agents=agents, options={"constrained": constrained}, until=RULES.now(state)
    )
    assert rebuilt.events == events
    assert RULES.dump_state(rebuilt.state) == RULES.dump_state(state)

    if RULES.outcome(state).terminated:
        best = tasks_optimal.plan(scenario, agents=agents, max_seconds=5)
        assert best.optimal
        assert best.makespan <= state.time
