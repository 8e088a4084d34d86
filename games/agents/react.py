"""ReAct (Yao et al.), as the TimeArena and Recipe2Plan papers ran it: each turn the model writes a
thought and exactly one action; the observation and the rules' feedback come back next turn.

Where the domain's benchmark agents do not send what the rules will refuse (the descriptor's
``benchmark_sends_refused``: MindAgent's kitchen, one command per agent per step), a refused
action is kept back and its agent does nothing this step; the refusal is the next turn's feedback.
Sent, the rules would refuse it without moving the step, and the agent would be asked again at the
same step for as long as the model kept writing it."""

from __future__ import annotations

from typing import Any

from games.agents import memory as mem
from games.agents.extraction import Command, extract, raw_first_line
from games.agents.llm_dispatcher import ChatClient, PromptOptions, domain_text, hints_section, state_text
from games.agents.prompting import render, section
from games.agents.turns import CallRecord, Decision, Turn, caller
from games.agents.validation import validate
from games.engine import registry


class ReactAgent:
    kind = "react"
    # the prompt options it reads besides its reply length (no demonstration: the paper's prompt has none)
    prompt_parts = ("hints",)

    def __init__(self, client: ChatClient, domain: str, options: PromptOptions | None = None) -> None:
        self.client = client
        self.domain = domain
        self.options = options or PromptOptions(max_tokens=120)

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        decision = Decision()
        for agent in turn.agents:
            # each agent its own history (a kitchen's react agents each write one command a step)
            decision.extend(self._one(turn, agent, memory.setdefault(str(agent), {})))
        return decision

    def _one(self, turn: Turn, agent: int, memory: dict[str, Any]) -> Decision:
        descriptor = registry.descriptor(self.domain)
        base = descriptor.display_base
        kept_back = memory.pop("refused", [])
        feedback = kept_back + mem.feedback_lines(turn.events, [agent], base) + mem.suggestion_lines(turn.events)
        system = render(
            "react_system",
            self.domain,
            rules=domain_text(self.domain, "rules"),
            hints_section=hints_section(self.domain, self.options),
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
        label = caller(self.kind, self.domain, agent)
        if not reply.ok:
            return Decision(calls=[CallRecord(label, messages, reply, problems=[reply.error])])
        legal = {agent: turn.rules.legal_actions(turn.state, agent)}
        found = extract(self.domain, reply.text, [agent], legal, state=turn.state)
        # Benchmark agents act like the papers' agents: an action that does not parse still goes
        # to the rules, which reject it and count it (invalid action).
        action = found.commands[0].action if found.commands else written_action(reply.text) or "wait"
        problems = list(found.problems)
        done: str | None = action
        if not descriptor.benchmark_sends_refused:
            checked = validate(turn.rules, turn.state, [Command(agent, action)], base)
            done = checked.accepted[0].action if checked.accepted else None
            if checked.problems:
                memory["refused"] = checked.problems
                problems += checked.problems
        mem.remember(
            memory, f"{mem.when(turn.now, turn.rules.time_unit)} Action: {action}", self.options.history_window
        )
        return Decision(
            actions=[(agent, done)] if done else [],
            calls=[CallRecord(label, messages, reply, [done] if done else [], problems)],
        )


def written_action(reply: str) -> str:
    """What the model wrote as its action when it did not parse: its ``Action:`` line (the format
    the prompt asks for), else its first line."""
    for line in reply.splitlines():
        head, colon, rest = line.partition(":")
        if colon and head.strip().lower() == "action" and rest.strip():
            return raw_first_line(rest)
    return raw_first_line(reply)
