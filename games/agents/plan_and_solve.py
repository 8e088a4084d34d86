"""Plan-and-Solve (Wang et al.): the model first writes the whole plan, then it is carried out.

The plan is a list of actions in the domain's grammar, executed one by one as the agent becomes
free. When an action is refused, or the plan runs out before the episode ends, the model is asked
for a new plan from the current state with the feedback (at most ``max_replans`` times).
"""

from __future__ import annotations

from typing import Any

from games.agents import memory as mem
from games.agents.extraction import Command, extract, normalise
from games.agents.llm_dispatcher import ChatClient, PromptOptions, domain_text, hints_section, state_text
from games.agents.prompting import render, section
from games.agents.turns import CallRecord, Decision, Turn, caller
from games.engine import registry


class PlanAndSolveAgent:
    kind = "plan-and-solve"
    # the prompt options it reads besides its reply length (no demonstration: the paper's prompt has none)
    prompt_parts = ("hints",)

    def __init__(
        self, client: ChatClient, domain: str, options: PromptOptions | None = None, max_replans: int = 3
    ) -> None:
        self.client = client
        self.domain = domain
        self.options = options or PromptOptions(max_tokens=320)
        self.max_replans = max_replans

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        decision = Decision()
        for agent in turn.agents:
            decision.extend(self._one(turn, agent, memory.setdefault(str(agent), {})))
        return decision

    def _one(self, turn: Turn, agent: int, memory: dict[str, Any]) -> Decision:
        feedback = mem.feedback_lines(turn.events, [agent], registry.descriptor(self.domain).display_base)
        plan: list[str] = memory.setdefault("plan", [])
        decision = Decision()
        if feedback:
            plan.clear()  # the plan met reality: replan from here
        if not plan and memory.get("replans", 0) <= self.max_replans:
            memory["replans"] = memory.get("replans", 0) + 1
            decision.calls.append(self._plan(turn, agent, memory, feedback))
            plan = memory["plan"]  # the new plan's first step is taken now, not after an idle step
        if plan:
            action = plan.pop(0)
            decision.actions.append((agent, action))
            mem.remember(memory, f"{mem.when(turn.now, turn.rules.time_unit)} {action}", self.options.history_window)
        return decision

    def _plan(self, turn: Turn, agent: int, memory: dict[str, Any], feedback: list[str]) -> CallRecord:
        system = render(
            "plan_system",
            self.domain,
            rules=domain_text(self.domain, "rules"),
            hints_section=hints_section(self.domain, self.options),
        )
        user = render(
            "plan_turn",
            self.domain,
            history_section=section("Done so far:", mem.history_text(memory)),
            feedback_section=section("Your previous plan failed here:", "\n".join(feedback)),
            state=state_text(turn, [agent], self.options.max_state_chars),
        )
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        reply = self.client.chat(messages, max_tokens=self.options.max_tokens)
        label = caller(self.kind, self.domain, agent)
        if not reply.ok:
            return CallRecord(label, messages, reply, problems=[reply.error])
        steps = plan_steps(self.domain, reply.text, agent, turn.rules.legal_actions(turn.state, agent), turn)
        if not steps and registry.descriptor(self.domain).benchmark_sends_refused:
            # Nothing in the grammar: as the papers' agents, its first step goes to the rules, which
            # refuse and count it (a TimeArena minute used up, a Recipe2Plan attempt), and the
            # refusal asks for a new plan. Without a step the agent idled to the next deadline,
            # which with nothing under way is the time limit: one unusable reply ended the game.
            steps = [written] if (written := first_step(reply.text)) else []
        memory["plan"] = steps
        return CallRecord(label, messages, reply, steps)


def plan_steps(domain: str, text: str, agent: int, legal_now: list[str], turn: Turn) -> list[str]:
    """Every line of the reply that is an action in the domain's grammar, in order.

    Later steps cannot be checked against today's legal actions, so for listed domains a line is
    kept when it names an action of the scenario's vocabulary (any action legal now, or a line of
    the grammar's shape); the rules judge it when its turn comes."""
    steps: list[str] = []
    for line in text.splitlines():
        body = _body(line)
        if not body:
            continue
        found = extract(domain, body, [agent], {agent: legal_now}, one_each=False, state=turn.state)
        if found.commands:
            steps += [c.action for c in found.commands]
        elif registry.descriptor(domain).plan_lines_loose and looks_like_action(body):
            steps.append(normalise(body))
    return steps[:200]


def first_step(text: str) -> str:
    """The first line of a reply that reads as a step (a list item's text, not a heading such as
    "Plan:"), as written."""
    for line in text.splitlines():
        body = _body(line)
        if body and not body.endswith(":"):
            return normalise(body)[:200]
    return ""


def _body(line: str) -> str:
    """A plan line without its "Step 2:" / "Action:" label and list marker."""
    body = line.split(":", 1)[1] if line.strip().lower().startswith(("step", "action")) and ":" in line else line
    return body.strip().lstrip("-*•0123456789.) ").strip()


def looks_like_action(text: str) -> bool:
    words = normalise(text).split()
    return 1 <= len(words) <= 6 and all(w.replace("_", "").replace(".", "").isalnum() for w in words)


__all__ = ["Command", "PlanAndSolveAgent"]
