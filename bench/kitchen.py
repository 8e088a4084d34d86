"""Kitchen engine speed: steps per second with 4 agents on the busiest bundled level (the one with
the most locations), driven by the heuristic dispatcher (planning included) and by the random one,
and the bare rules (commit + execute) with the commands replayed."""

from __future__ import annotations

import time
from collections.abc import Callable

from games.bundled import CONTENT_DIR
from games.domains.kitchen.levels import read_levels
from games.domains.kitchen.rules import RULES
from games.planners.kitchen_dispatcher import heuristic, random_dispatcher

AGENTS = 4
EPISODES = 20


def busiest() -> tuple[str, dict]:
    levels = read_levels(CONTENT_DIR / "kitchen")
    name = max(levels, key=lambda n: (len(levels[n]["kitchen"]), n))
    return name, levels[name]


def run(report: Callable[[str, float, str], None]) -> None:
    name, definition = busiest()
    for label, dispatcher in (("heuristic", heuristic), ("random", random_dispatcher)):
        steps = 0
        log: list[list[tuple[int, str]]] = []
        started = time.perf_counter()
        for seed in range(EPISODES):
            state = RULES.initial_state(definition, seed=seed, agents=AGENTS)
            while state.step < state.level.max_steps:
                commands = list(dispatcher(state, range(AGENTS)).items())
                log.append(commands)
                for agent, command in commands:
                    state = RULES.act(state, agent, command, state.step).state
                state = RULES.advance(state, state.step + 1).state
                steps += 1
        elapsed = time.perf_counter() - started
        report(f"kitchen {name}, {AGENTS} agents, {label} dispatcher", steps / elapsed, "steps/s")
        # The same commands again without planning: the cost of the rules alone.
        started = time.perf_counter()
        replayed = 0
        index = 0
        for seed in range(EPISODES):
            state = RULES.initial_state(definition, seed=seed, agents=AGENTS)
            while state.step < state.level.max_steps:
                for agent, command in log[index]:
                    state = RULES.act(state, agent, command, state.step).state
                state = RULES.advance(state, state.step + 1).state
                index += 1
                replayed += 1
        elapsed = time.perf_counter() - started
        report(f"kitchen {name}, {AGENTS} agents, rules only ({label} commands)", replayed / elapsed, "steps/s")
