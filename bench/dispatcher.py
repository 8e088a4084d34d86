"""NPC dispatcher costs: our overhead per step without the model, and a full step with the local model.

Overhead: the LLM dispatcher over bundled content of each domain with an instant in-process
"model" (so only our work is timed: prompt rendering, extraction, validation by dry run).
Prompt reuse: over the turns of a game the planner plays, how much of each prompt is new after the
longest prefix it shares with the last one (a model server that keeps the last prompt's computed
prefix, as llama.cpp's does, reads only that part; docs/npc.md).
End to end: one dispatcher step with SmolLM2-135M served by llama.cpp on loopback, and the turns of
a recipes game played by the planner (skipped, with the reason, when requirements-llm.txt is not
installed).
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from games.agents.llm import LlmReply, Message

Report = Callable[[str, float, str], None]
STEPS = 200


class InstantModel:
    """Answers at once with a fixed reply (a valid-looking command per domain)."""

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def chat(self, messages: Sequence[Message], *, max_tokens: int | None = None, json_schema: Any = None) -> LlmReply:
        return LlmReply(self.reply, 0.0, 0, 0)


def _scenarios() -> dict[str, tuple[dict[str, Any], int, str]]:
    from games.domains.tasks.content import read_task
    from games.importers import bundled_itinerary, bundled_kitchen, bundled_tasks

    path = bundled_tasks.task_files()[0]
    found: dict[str, tuple[dict[str, Any], int, str]] = {
        "tasks": (read_task(path.stem, path.read_text(encoding="utf-8")), 2, "Agent 2: wait"),
    }
    kitchen = next(iter(bundled_kitchen.definitions().values()))
    found["kitchen"] = (kitchen, 3, "goto(agent1, storage0)\ngoto(agent2, storage0)")
    brief = bundled_itinerary.definitions()[0][1]
    found["itinerary"] = (brief, 1, "stay_in(Nowhere, 2024-05-01 00:00, 2024-05-01 01:00)")
    try:
        from games.catalog.recipes.services import DEFAULT_APPLIANCES
        from games.importers import bundled_recipes

        recipes = bundled_recipes.authored_recipes()
        names = bundled_recipes.pairings()[0]["recipes"]
        pair = {"recipes": [recipes[n] for n in names], "appliances": dict(DEFAULT_APPLIANCES)}
        found["recipes"] = (pair, 1, f"Agent 0: Step(0, {names[0]})")
    except (ImportError, IndexError, AttributeError, KeyError) as error:
        print(f"  (recipes: no bundled pair to measure: {error})")
    return found


def overhead(report: Report) -> None:
    from games.agents.llm_dispatcher import LlmDispatcher
    from games.agents.turns import Turn
    from games.engine import registry

    for domain, (definition, agents, reply) in _scenarios().items():
        try:
            rules = registry.get(domain)
            state = rules.initial_state(definition, agents=agents)
        except Exception as error:  # a bundled file that does not start: say so, measure the rest
            print(f"  ({domain}: cannot start bundled content: {error})")
            continue
        npcs = list(range(1, agents)) if agents > 1 else [0]
        humans = [0] if agents > 1 else []
        brain = LlmDispatcher(InstantModel(reply), domain, npc_agents=npcs, human_agents=humans)
        memory: dict[str, Any] = {}
        times = []
        for _ in range(STEPS):
            started = time.perf_counter()
            brain.decide(Turn(rules, state, npcs), memory)
            times.append(time.perf_counter() - started)
        report(f"dispatcher overhead per step, {domain} (median)", statistics.median(times) * 1000, "ms")


def played_turns(domain: str, definition: dict[str, Any], agents: int, turns: int = 12) -> list[Any]:
    """The states at which the last seat is free to act, over a game the planner plays in every seat."""
    from games.agents.planner_agent import policy_for
    from games.engine import registry

    rules = registry.get(domain)
    state = rules.initial_state(definition, agents=agents)
    policy, npc = policy_for(domain), agents - 1
    found: list[Any] = []
    while not rules.outcome(state).over and len(found) < turns:
        free = sorted(rules.awaiting(state))
        if npc in free and rules.legal_actions(state, npc):
            found.append(state)
        acted = False
        for agent in free:
            action = policy(rules, state, agent)
            if action is not None and not rules.outcome(state).over:
                state, acted = rules.act(state, agent, action, rules.now(state)).state, True
        if acted and rules.awaiting(state):
            continue
        deadline = rules.next_deadline(state)
        if deadline is None:
            break
        state = rules.advance(state, deadline).state
    return found


def _prompts(domain: str, definition: dict[str, Any], agents: int) -> list[list[Message]]:
    """The dispatcher's messages for the last seat at each of ``played_turns``."""
    from games.agents.llm_dispatcher import LlmDispatcher
    from games.agents.turns import Turn
    from games.engine import registry

    rules, npc = registry.get(domain), agents - 1
    brain = LlmDispatcher(InstantModel(""), domain, npc_agents=[npc], human_agents=list(range(npc)))
    return [brain.messages(Turn(rules, state, [npc]), {}) for state in played_turns(domain, definition, agents)]


def _new_after_prefix(before: str, after: str) -> int:
    shared = next(
        (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), min(len(before), len(after))
    )
    return len(after) - shared


def prompt_reuse(report: Report) -> None:
    for domain, (definition, agents, _reply) in _scenarios().items():
        agents = max(agents, 2)
        texts = ["\n".join(m["content"] for m in messages) for messages in _prompts(domain, definition, agents)]
        if len(texts) < 2:
            continue
        new = [_new_after_prefix(a, b) for a, b in itertools.pairwise(texts)]
        report(f"prompt reuse, {domain}: characters per turn", statistics.mean(len(t) for t in texts[1:]), "chars")
        report(f"prompt reuse, {domain}: of which new after the shared prefix", statistics.mean(new), "chars")


def end_to_end(report: Report) -> None:
    from games.agents.llm import LlmClient
    from games.agents.llm_dispatcher import LlmDispatcher
    from games.agents.local_model import MODEL_ALIAS, LocalModelUnavailable, serve_local_model
    from games.agents.turns import Turn
    from games.engine import registry

    scenarios = _scenarios()
    definition, agents, _reply = scenarios["tasks"]
    rules = registry.get("tasks")
    state = rules.initial_state(definition, agents=agents)
    try:
        server = serve_local_model()
        started = time.perf_counter()
        base_url = server.__enter__()
    except LocalModelUnavailable as error:
        print(f"  (end-to-end skipped: {error})")
        return
    try:
        report("local model server start-up", time.perf_counter() - started, "s")
        client = LlmClient(base_url=base_url, model=MODEL_ALIAS, timeout_seconds=120)
        brain = LlmDispatcher(client, "tasks", npc_agents=[1], human_agents=[0])
        steps, calls, tokens = [], [], []
        for _ in range(5):
            started = time.perf_counter()
            decision = brain.decide(Turn(rules, state, [1]), {})
            steps.append(time.perf_counter() - started)
            calls.append(decision.calls[0].reply.latency_seconds)
            tokens.append(decision.calls[0].reply.prompt_tokens)
        report("end-to-end dispatcher step, SmolLM2-135M (median of 5)", statistics.median(steps), "s")
        report("  of which the model call", statistics.median(calls), "s")
        report("  prompt size", statistics.median(tokens), "tokens")
        if "recipes" in scenarios:  # a game's turns one after the other: the prefix is reused
            pair, agents, _ = scenarios["recipes"]
            seconds = [
                client.chat(messages, max_tokens=8).latency_seconds
                for messages in _prompts("recipes", pair, max(agents, 2))
            ]
            report(
                f"a recipes game's turns, SmolLM2-135M (median of {len(seconds) - 1} after the first)",
                statistics.median(seconds[1:]),
                "s",
            )
    finally:
        server.__exit__(None, None, None)


def run(report: Report) -> None:
    import django

    django.setup()
    overhead(report)
    prompt_reuse(report)
    end_to_end(report)
