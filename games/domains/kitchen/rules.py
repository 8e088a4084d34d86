"""The kitchen rule set (CuisineWorld, SPEC section 4), id ``kitchen-v1``; time unit: step.

One dispatcher commands several agents. Per step every agent gets at most one command:

- ``act(state, agent, command, now)`` *commits* the agent's command for the current step (a second
  command from the same agent in the same step replaces the first). Only the grammar is checked
  here; a malformed command is rejected at once.
- ``advance(state, until)`` executes each step up to ``until``: the committed commands run **in
  commit order** (the human's command first when it was sent before the dispatcher answered, and
  the dispatcher's commands in the order it gave them), then the step counter moves on, orders run
  out, a new order may arrive. A command that cannot run is rejected then, with feedback naming
  the agent and the reason. An agent without a command does nothing (counted as idle).
- ``awaiting(state)`` is the agents that have not committed yet this step (and are not busy);
  lockstep play advances when it is empty, real-time play advances when the step's time is up.

Options: ``alpha`` (default 1.0), ``beta`` (2.5), ``max_steps`` (the scenario's, else 60).

``observe(state, agent).data`` is the structured view for the browser::

    {
      "domain": "kitchen", "level": str, "step": int, "max_steps": int, "over": bool, "you": int,
      "alpha": float, "task_interval": int, "next_order_at": int | None,
      "agents": [{"id": int, "name": "agent0", "location": str, "holding": str | None,
                  "busy": bool, "busy_until": int, "pending": str | None,   # committed command
                  "accepted": int, "rejected": int, "idle": int}],
      "locations": [{"name": "pot0", "kind": "pot", "contents": [str], "capacity": int | None,
                     "busy": bool, "busy_until": int, "pickable": bool, "busy_steps": int}],
      "orders": [{"id": int, "dish": str, "arrived": int, "deadline": int,
                  "remaining": int, "lifetime": int}],          # soonest deadline first
      "counts": {"completed": int, "failed": int, "pending": int, "thrown_away": int},
      "feedback": [{"agent": int, "kind": str, "message": str}],   # from the last step
      "suggestions": [{"agent": int, "kind": str, "message": str}],
      "recipes": {product: {"tool": str, "ingredients": [str]}},
      "dishes": [str],
      "legal_actions": [str],                                    # for ``you``, short form
    }
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.domains.kitchen import text as kitchen_text
from games.domains.kitchen.commands import CommandError
from games.domains.kitchen.execution import COMMITTED, command_of, execute_step, legal_commands, new_order
from games.domains.kitchen.state import (
    MAX_AGENTS,
    MAX_PACE,
    MAX_STEPS,
    AgentState,
    KitchenState,
    ToolState,
    level_of,
)
from games.domains.kitchen.world import ALWAYS_PICKABLE, SERVING_TABLE, TOOL_KINDS, LevelError
from games.engine.options import above_zero, checked, whole
from games.engine.types import JSON, Event, Feedback, Observation, Outcome, Transition, rejected
from games.engine.values import evolve, evolver

_evolve_state = evolver(KitchenState)


# What a game's options may set, and what each must be (games.engine.options).
OPTIONS = {"alpha": above_zero(MAX_PACE), "beta": above_zero(MAX_PACE), "max_steps": whole(1, MAX_STEPS)}


class KitchenRules:
    id = "kitchen-v1"
    domain = "kitchen"
    time_unit = "step"

    def initial_state(
        self, scenario: Mapping[str, Any], *, seed: int = 0, agents: int = 1, options: Mapping[str, Any] | None = None
    ) -> KitchenState:
        if not 1 <= agents <= MAX_AGENTS:
            raise LevelError(f"a kitchen takes 1 to {MAX_AGENTS} agents, not {agents}")
        level = level_of(scenario, seed=seed, options=checked("kitchen", options, OPTIONS))
        serving = next(name for name, kind in level.locations if kind == SERVING_TABLE)
        state = KitchenState(
            level=level,
            step=0,
            agents=tuple(AgentState(location=serving) for _ in range(agents)),
            tools=tuple(
                ToolState(name=name, kind=kind, pickable=kind in ALWAYS_PICKABLE) for name, kind in level.locations
            ),
        )
        first = new_order(state, 0, 0)  # the kitchen opens with one order
        return evolve(state, orders=(first,), orders_made=1)

    def now(self, state: KitchenState) -> float:
        return state.step

    def legal_actions(self, state: KitchenState, agent: int) -> list[str]:
        if not 0 <= agent < len(state.agents):
            return []
        return [command.text() for command in legal_commands(state, agent)]

    def observe(self, state: KitchenState, agent: int) -> Observation:
        return Observation(text=kitchen_text.state_text(state, agent), data=self._view(state, agent))

    def act(self, state: KitchenState, agent: int, action: str, now: float) -> Transition[KitchenState]:
        step = state.step
        if not 0 <= agent < len(state.agents):
            problem = Feedback("unknown_agent", f"there is no agent{agent}; agents are 0..{len(state.agents) - 1}")
            return Transition(state, (rejected(step, agent, action, problem),))
        if step >= state.level.max_steps:
            return Transition(state, (rejected(step, agent, action, Feedback("over", "the episode is over")),))
        try:
            command = command_of(state.level, action, agent)
        except CommandError as error:
            return Transition(state, (rejected(step, agent, action, Feedback("syntax", str(error))),))
        replaced = None
        commands = []
        for entry in state.commands:
            if entry[0] == agent:
                replaced = entry[1]
            else:
                commands.append(entry)
        text = command.text()
        commands.append((agent, text))
        event = Event(
            COMMITTED,
            step,
            f"agent{agent} will {text} at step {step}",
            agent,
            {"command": command.dispatch_text(agent), "step": step, "replaces": replaced},
        )
        return Transition(_evolve_state(state, commands=tuple(commands)), (event,))

    def advance(self, state: KitchenState, until: float) -> Transition[KitchenState]:
        events: list[Event] = []
        # Step s runs when its time is over (until >= s + 1); a fractional ``until`` (real-time
        # play mid-step) leaves the current step open for commands.
        while state.step + 1 <= until and state.step < state.level.max_steps:
            state, step_events = execute_step(state)
            events.extend(step_events)
        return Transition(state, tuple(events))

    def next_deadline(self, state: KitchenState) -> float | None:
        return None if state.step >= state.level.max_steps else float(state.step + 1)

    def awaiting(self, state: KitchenState) -> frozenset[int]:
        if state.step >= state.level.max_steps:
            return frozenset()
        committed = {agent for agent, _ in state.commands}
        return frozenset(
            index
            for index, agent in enumerate(state.agents)
            if index not in committed and agent.busy_until <= state.step
        )

    def outcome(self, state: KitchenState) -> Outcome:
        if state.step >= state.level.max_steps:
            return Outcome(truncated=True, reason=f"the kitchen closed after {state.level.max_steps} steps")
        return Outcome()

    def result(self, state: KitchenState) -> dict[str, Any]:
        finished = state.completed + state.failed
        return {
            "level": state.level.name,
            "alpha": state.level.alpha,
            "task_interval": state.level.task_interval,
            "steps": state.step,
            "completed": state.completed,
            "failed": state.failed,
            "pending": len(state.orders),
            "success_rate": state.completed / finished if finished else 0.0,
            "thrown_away": state.thrown_away,
            "agents": [
                {"agent": index, "accepted": agent.accepted, "rejected": agent.rejected, "idle": agent.idle}
                for index, agent in enumerate(state.agents)
            ],
        }

    def dump_state(self, state: KitchenState) -> JSON:
        return state.to_json()

    def load_state(self, raw: Mapping[str, Any]) -> KitchenState:
        return KitchenState.from_json(raw)

    def _view(self, state: KitchenState, agent: int) -> dict[str, Any]:
        step = state.step
        level = state.level
        interval = level.task_interval
        next_order = (step // interval + 1) * interval
        return {
            "domain": self.domain,
            "level": level.name,
            "step": step,
            "max_steps": level.max_steps,
            "over": step >= level.max_steps,
            "you": agent,
            "alpha": level.alpha,
            "task_interval": interval,
            "next_order_at": next_order if next_order < level.max_steps else None,
            "agents": [
                {
                    "id": index,
                    "name": f"agent{index}",
                    "location": member.location,
                    "holding": member.holding,
                    "busy": member.busy_until > step,
                    "busy_until": member.busy_until,
                    "pending": state.pending_command(index),
                    "accepted": member.accepted,
                    "rejected": member.rejected,
                    "idle": member.idle,
                }
                for index, member in enumerate(state.agents)
            ],
            "locations": [
                {
                    "name": tool.name,
                    "kind": tool.kind,
                    "contents": list(tool.contents),
                    "capacity": TOOL_KINDS[tool.kind].capacity,
                    "busy": tool.busy(step),
                    "busy_until": tool.busy_until,
                    "pickable": tool.pickable,
                    "busy_steps": TOOL_KINDS[tool.kind].busy_steps,
                }
                for tool in state.tools
            ],
            "orders": [
                {
                    "id": order.id,
                    "dish": order.dish,
                    "arrived": order.arrived,
                    "deadline": order.deadline,
                    "remaining": order.remaining(step),
                    "lifetime": order.deadline - order.arrived,
                }
                for order in sorted(state.orders, key=lambda o: (o.deadline, o.id))
            ],
            "counts": {
                "completed": state.completed,
                "failed": state.failed,
                "pending": len(state.orders),
                "thrown_away": state.thrown_away,
            },
            "feedback": [note.to_json() for note in state.feedback],
            "suggestions": [note.to_json() for note in state.suggestions],
            "recipes": {product: recipe.to_json() for product, recipe in level.recipes.items()},
            "dishes": list(level.dishes),
            "legal_actions": self.legal_actions(state, agent),
        }


RULES = KitchenRules()
