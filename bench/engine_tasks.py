"""Engine speed on the tasks domain: steps per second of a headless episode on a three-task game.

Times are CPU time of this process (time.process_time), so other work on a shared machine does not
inflate them.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from games.bundled import CONTENT_DIR
from games.domains.tasks.content import read_task
from games.domains.tasks.definition import compose
from games.domains.tasks.rules import RULES
from games.engine.episode import first_legal, play

COMBO = ["cook-pasta", "make-breakfast", "bake-bread"]


def _definition() -> dict:
    folder = CONTENT_DIR / "tasks"
    return compose([read_task(name, (folder / f"{name}.toml").read_text()) for name in COMBO])


def run(report: Callable[[str, float, str], None]) -> None:
    definition = _definition()
    for agents in (1, 3):
        policies = dict.fromkeys(range(agents), first_legal)
        episodes, steps, started = 0, 0, time.process_time()
        while time.process_time() - started < 1.0:
            episode = play(RULES, definition, policies, seed=episodes)
            steps += len(episode.actions)
            episodes += 1
        elapsed = time.process_time() - started
        report(f"tasks engine, 3 tasks, {agents} agent(s): decisions per second", steps / elapsed, "steps/s")
        report(f"tasks engine, 3 tasks, {agents} agent(s): one headless episode", 1000 * elapsed / episodes, "ms")

    # A 120-minute turn-based episode: one agent waits every minute (120 decisions + 120 advances).
    started = time.process_time()
    repeats = 20
    for _ in range(repeats):
        state = RULES.initial_state(definition, options={"time_limit": 120})
        while not RULES.outcome(state).over:
            state = RULES.act(state, 0, "wait", RULES.now(state)).state
            state = RULES.advance(state, RULES.next_deadline(state) or 120).state
    report(
        "tasks engine: 120-minute episode, a decision every minute",
        1000 * (time.process_time() - started) / repeats,
        "ms",
    )

    state = RULES.initial_state(definition, agents=3)
    started = time.process_time()
    for _ in range(200):
        RULES.observe(state, 0)
    report("tasks engine: observe (text + UI data), 3 tasks", 1e6 * (time.process_time() - started) / 200, "us")
