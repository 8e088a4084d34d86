"""ReAct (Yao et al.), as the TimeArena and Recipe2Plan papers ran it: each turn the model writes a
thought and exactly one action; the observation and the rules' feedback come back next turn."""

from __future__ import annotations

from typing import Any

from games.agents import memory as mem
from games.agents.extraction import extract, raw_first_line
from games.agents.llm_dispatcher import ChatClient, PromptOptions, domain_text, state_text
from games.agents.prompting import render, section
from games.agents.turns import CallRecord, Decision, Turn
from games.engine import registry


class ReactAgent:
    kind = "react"

    def __init__(self, client: ChatClient, domain: str, options: PromptOptions | None = None) -> None:
        self.client = client
        self.domain = domain
        self.options = options or PromptOptions(max_tokens=120)

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        decision = Decision()
        for agent in turn.agents:
            decision.extend(self._one(turn, agent, memory))
        return decision

    def _one(self, turn: Turn, agent: int, memory: dict[str, Any]) -> Decision:
        base = registry.descriptor(self.domain).display_base
        feedback = mem.feedback_lines(turn.events, [agent], base) + mem.suggestion_lines(turn.events)
        system = render(
            "react_system",
            self.domain,
            rules=domain_text(self.domain, "rules"),
            hints_section=section("Hints:", domain_text(self.domain, "hints")) if self.options.hints else "",
        )
        user = render(
            "react_turn",
            self.domain,
            history_section=section("Your recent steps:", mem.history_text(memory)),
            feedback_section=section("Feedback:", "\n".join(feedback)),
            state=state_text(turn, [agent], self.options.max_state_chars),
        )
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        reply = self.client.chat(messages, max_tokens=self.options.max_tokens)
        if not reply.ok:
            return Decision(calls=[CallRecord("react", messages, reply, problems=[reply.error])])
        legal = {agent: turn.rules.legal_actions(turn.state, agent)}
        found = extract(self.domain, reply.text, [agent], legal, state=turn.state)
        # Benchmark agents act like the papers' agents: an action that does not parse still goes
        # to the rules, which reject it and count it (invalid action).
        action = found.commands[0].action if found.commands else raw_first_line(reply.text) or "wait"
        mem.remember(
            memory, f"{mem.when(turn.now, turn.rules.time_unit)} Action: {action}", self.options.history_window
        )
        return Decision(
            actions=[(agent, action)], calls=[CallRecord("react", messages, reply, [action], found.problems)]
        )
