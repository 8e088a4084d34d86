"""One dispatcher per game: it commands every NPC seat and never the human (SPEC section 7).

Seats choose a kind: ``llm`` (all LLM seats share one model call per turn: MindAgent's
centralised dispatcher), ``planner``, ``random`` or ``replay``; benchmark runs also use the
single-agent ``react`` and ``plan-and-solve`` agents and the itinerary ``tdag`` agent. The
dispatcher splits a turn among its brains, each with its own slice of the persisted memory, and
merges their decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.agents.llm_dispatcher import ChatClient, LlmDispatcher, seat_prompt_options
from games.agents.planner_agent import PlannerBrain
from games.agents.random_agent import RandomBrain
from games.agents.replay_agent import ReplayBrain
from games.agents.turns import Brain, Decision, Turn
from games.engine.episode import LoggedAction

KINDS = ("llm", "planner", "random", "replay")
BENCHMARK_AGENTS = ("react", "plan-and-solve", "dispatcher", "tdag", "planner", "random")


class DispatcherError(ValueError):
    pass


@dataclass(frozen=True)
class NpcSeat:
    agent: int
    kind: str  # one of KINDS
    settings: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Dispatcher:
    brains: dict[str, Brain]
    assignment: dict[int, str]  # agent -> brain key; humans are absent, so never commanded

    @property
    def npc_agents(self) -> list[int]:
        return sorted(self.assignment)

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        """Each brain decides for its own seats, in turn, on the state the earlier brains' actions
        leave (as the loop will apply them, in this order): two planner seats are two brains, and
        given the same state both took the same step, the second refused every time."""
        decision = Decision()
        # Defence in depth: whatever a brain returns, only free NPC agents act.
        allowed = set(turn.agents) & set(self.assignment)
        state, now = turn.state, turn.now
        for key, brain in self.brains.items():
            agents = [a for a in turn.agents if self.assignment.get(a) == key]
            if not agents:
                continue
            sub = Turn(turn.rules, state, agents, turn.events, turn.chat)
            own = brain.decide(sub, memory.setdefault(key, {}))
            own.actions = [(agent, action) for agent, action in own.actions if agent in allowed]
            decision.extend(own)
            for agent, action in own.actions:
                transition = turn.rules.act(state, agent, action, now)
                if transition.rejection is None:
                    state = transition.state
        return decision


def build_dispatcher(
    domain: str,
    seats: Sequence[NpcSeat],
    *,
    human_agents: Sequence[int] = (),
    client_factory: Callable[[Mapping[str, Any]], ChatClient] | None = None,
    replay_actions: Callable[[Mapping[str, Any]], Sequence[LoggedAction]] | None = None,
    seed: int = 0,
) -> Dispatcher:
    """A dispatcher for a seat plan. ``client_factory(settings)`` builds the LLM client from the
    seat's (or condition's) settings; ``replay_actions(settings)`` loads a stored episode's actions."""
    brains: dict[str, Brain] = {}
    assignment: dict[int, str] = {}
    llm_seats = [seat for seat in seats if seat.kind == "llm"]
    if llm_seats:
        if client_factory is None:
            raise DispatcherError("llm seats need an LLM client")
        settings = dict(llm_seats[0].settings)
        brains["llm"] = LlmDispatcher(
            client_factory(settings),
            domain,
            npc_agents=[seat.agent for seat in llm_seats],
            human_agents=human_agents,
            options=seat_prompt_options(settings),
        )
        assignment.update({seat.agent: "llm" for seat in llm_seats})
    for seat in seats:
        if seat.kind == "llm":
            continue
        key = f"{seat.kind}-{seat.agent}"
        if seat.kind == "planner":
            brains[key] = PlannerBrain(domain)
        elif seat.kind == "random":
            brains[key] = RandomBrain(seed=int(seat.settings.get("seed", seed)) * 1000 + seat.agent)
        elif seat.kind == "replay":
            if replay_actions is None:
                raise DispatcherError("replay seats need a source episode")
            source_agent = int(seat.settings.get("source_agent", seat.agent))
            brains[key] = ReplayBrain(replay_actions(seat.settings), {source_agent: seat.agent})
        else:
            raise DispatcherError(f"unknown NPC kind {seat.kind!r}; choose one of {', '.join(KINDS)}")
        assignment[seat.agent] = key
    return Dispatcher(brains, assignment)
