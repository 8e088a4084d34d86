"""Building the agent a benchmark run names (``--agent``) from its configuration."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.agents.dispatcher import BENCHMARK_AGENTS
from games.agents.llm import LlmClient, LlmConfig
from games.agents.llm_dispatcher import LlmDispatcher, PromptOptions
from games.agents.plan_and_solve import PlanAndSolveAgent
from games.agents.planner_agent import PlannerBrain
from games.agents.random_agent import RandomBrain
from games.agents.react import ReactAgent
from games.agents.turns import Brain
from games.engine import registry

LLM_AGENTS = {"react", "plan-and-solve", "dispatcher", "tdag"}


class AgentError(ValueError):
    pass


def prompt_parts(agent: str) -> tuple[str, ...]:
    """The switchable prompt parts (``hints``, ``demo``) an agent's prompt has: the benchmark form
    offers and the run's page reports only those (TDAG's prompts have neither, ReAct's and
    Plan-and-Solve's no demonstration)."""
    if agent == "tdag":
        from games.agents.tdag import TdagAgent

        return TdagAgent.prompt_parts
    parts: dict[str, tuple[str, ...]] = {
        "react": ReactAgent.prompt_parts,
        "plan-and-solve": PlanAndSolveAgent.prompt_parts,
        "dispatcher": LlmDispatcher.prompt_parts,
    }
    return parts.get(agent, ())


def make_agent(
    domain: str,
    agent: str,
    *,
    llm: LlmConfig | None = None,
    prompt: Mapping[str, Any] | None = None,
    npc_agents: Sequence[int] = (0,),
    seed: int = 0,
    client: Any = None,
) -> Brain:
    """``client``: what the agent calls instead of a fresh ``LlmClient(config=llm)`` (a benchmark's
    caching, rate-limited client)."""
    if agent not in BENCHMARK_AGENTS:
        raise AgentError(f"unknown agent {agent!r}; choose one of {', '.join(BENCHMARK_AGENTS)}")
    if agent == "planner":
        return PlannerBrain(domain)
    if agent == "random":
        return RandomBrain(seed=seed)
    if llm is None:
        raise AgentError(f"the {agent} agent needs an LLM endpoint (--base-url/--model or LLM_* settings)")
    client = client or LlmClient(config=llm)
    options = PromptOptions.from_json(dict(prompt or {}))
    if agent == "react":
        return ReactAgent(client, domain, options)
    if agent == "plan-and-solve":
        return PlanAndSolveAgent(client, domain, options)
    if agent == "tdag":
        from games.agents.tdag import DOMAIN as TDAG_DOMAIN
        from games.agents.tdag import TdagAgent

        if domain != TDAG_DOMAIN:
            raise AgentError(f"the tdag agent plans itineraries; use it with the {TDAG_DOMAIN} domain")
        return TdagAgent(client, options=options)
    sends_refused = registry.descriptor(domain).benchmark_sends_refused
    return LlmDispatcher(client, domain, npc_agents=list(npc_agents), options=options, sends_refused=sends_refused)
