"""A TDAG-style itinerary agent (Wang et al., "TDAG: a multi-agent framework based on dynamic task
decomposition and agent generation"), as SPEC section 7 describes it.

1. The **main agent** decomposes the traveller's brief into a few subtasks (one call).
2. For each subtask a **sub-agent is generated**: its prompt is instantiated from a template with
   the subtask, the results of the earlier subtasks and the tools it may use: a read-only SQL query
   over this brief's travel data (``games.domains.itinerary.tools``, the published schema) and a
   plan check (the actions dry-run through the rules on the current state, which costs nothing and
   changes nothing). It may call tools a few times, then answers with actions.
3. After each subtask the main agent **updates the remaining subtasks** from the results.

Everything the model writes is parsed: ``SQL:`` lines go to the guarded database, ``CHECK:`` and
action lines through the domain's action parser. Nothing is executed as code.
"""

from __future__ import annotations

import re
from typing import Any

from games.agents import memory as mem
from games.agents.extraction import extract
from games.agents.llm import Message
from games.agents.llm_dispatcher import ChatClient, PromptOptions, domain_text
from games.agents.prompting import render, section
from games.agents.turns import CallRecord, Decision, Turn
from games.domains.itinerary.tools import TABLES_HELP, TravelDatabase

DOMAIN = "itinerary"
NUMBERED = re.compile(r"^\s*(?:subtask\s*)?\d+\s*[.):-]\s*(.+)$", re.I)


def parse_subtasks(text: str, limit: int) -> list[str]:
    items = [m.group(1).strip() for line in text.splitlines() if (m := NUMBERED.match(line))]
    return [item[:300] for item in items if item][:limit]


class TdagAgent:
    kind = "tdag"
    # the prompt options it reads besides its reply length: none (its prompts are its own, per subtask)
    prompt_parts: tuple[str, ...] = ()

    def __init__(
        self,
        client: ChatClient,
        *,
        options: PromptOptions | None = None,
        max_subtasks: int = 5,
        max_tool_steps: int = 3,
        max_state_chars: int = 3500,
    ) -> None:
        self.client = client
        self.options = options or PromptOptions(max_tokens=256)
        self.max_subtasks = max_subtasks
        self.max_tool_steps = max_tool_steps
        self.max_state_chars = max_state_chars
        self._databases: dict[int, TravelDatabase] = {}

    # -- the main agent ----------------------------------------------------------------------

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        """The next subtask's actions. A subtask whose sub-agent gives none is followed in the same
        turn by the next (at most ``max_subtasks`` per turn): a trip does not move by itself, so a
        turn without an action ends the episode, and the subtasks after it were never tried."""
        agent = turn.agents[0]
        decision = Decision()
        for _ in range(self.max_subtasks):
            if "subtasks" not in memory:
                decision.calls.append(self._decompose(turn, agent, memory))
            elif memory.get("pending_update"):
                decision.calls.append(self._update(turn, agent, memory))
            subtasks: list[str] = memory["subtasks"]
            index = int(memory.get("index", 0))
            if index >= len(subtasks):
                break  # every subtask handled: the agent stops and the trip runs out
            actions, calls = self._solve(turn, agent, index, subtasks[index], memory)
            decision.calls += calls
            memory["index"] = index + 1
            memory["pending_update"] = True
            mem.remember(
                memory,
                f"subtask {index + 1} ({subtasks[index]}): {'; '.join(actions) or 'no actions'}",
                self.max_subtasks * 2,
            )
            if actions:
                decision.actions = [(agent, action) for action in actions]
                break
        return decision

    def _state(self, turn: Turn, agent: int) -> str:
        text = turn.rules.observe(turn.state, agent).text
        return text if len(text) <= self.max_state_chars else text[: self.max_state_chars] + "\n..."

    def _decompose(self, turn: Turn, agent: int, memory: dict[str, Any]) -> CallRecord:
        messages: list[Message] = [
            {"role": "system", "content": render("tdag_main_system", DOMAIN, rules=domain_text(DOMAIN, "rules"))},
            {
                "role": "user",
                "content": render("tdag_decompose", DOMAIN, state=self._state(turn, agent), limit=self.max_subtasks),
            },
        ]
        reply = self.client.chat(messages, max_tokens=self.options.max_tokens)
        subtasks = parse_subtasks(reply.text, self.max_subtasks) if reply.ok else []
        # A model that cannot decompose still gets one sub-agent for the whole trip.
        memory["subtasks"] = subtasks or ["Plan the whole trip the brief asks for."]
        memory["index"] = 0
        return CallRecord(
            "tdag/main", messages, reply, memory["subtasks"], [] if subtasks else ["no numbered subtasks"]
        )

    def _update(self, turn: Turn, agent: int, memory: dict[str, Any]) -> CallRecord:
        index = int(memory.get("index", 0))
        remaining = memory["subtasks"][index:]
        feedback = mem.feedback_lines(turn.events, [agent])
        messages: list[Message] = [
            {"role": "system", "content": render("tdag_main_system", DOMAIN, rules=domain_text(DOMAIN, "rules"))},
            {
                "role": "user",
                "content": render(
                    "tdag_update",
                    DOMAIN,
                    results=mem.history_text(memory),
                    feedback_section=section("What the rules refused:", "\n".join(feedback)),
                    remaining="\n".join(f"{i + 1}. {s}" for i, s in enumerate(remaining)) or "(none)",
                    state=self._state(turn, agent),
                    limit=self.max_subtasks,
                ),
            },
        ]
        reply = self.client.chat(messages, max_tokens=self.options.max_tokens)
        memory["pending_update"] = False
        updated = parse_subtasks(reply.text, self.max_subtasks) if reply.ok else []
        if updated or (reply.ok and "none" in reply.text.lower()):
            memory["subtasks"] = memory["subtasks"][:index] + updated
        return CallRecord("tdag/main", messages, reply, updated)

    # -- a generated sub-agent ---------------------------------------------------------------

    def _database(self, turn: Turn) -> TravelDatabase:
        definition = getattr(getattr(turn.state, "world", None), "definition", {})
        key = id(definition)
        if key not in self._databases:
            self._databases = {key: TravelDatabase(definition)}
        return self._databases[key]

    def _solve(
        self, turn: Turn, agent: int, index: int, subtask: str, memory: dict[str, Any]
    ) -> tuple[list[str], list[CallRecord]]:
        label = f"tdag/sub-{index + 1}"
        messages: list[Message] = [
            {
                "role": "system",
                "content": render(
                    "tdag_sub_system",
                    DOMAIN,
                    subtask=subtask,
                    rules=domain_text(DOMAIN, "rules"),
                    schema=TABLES_HELP,
                ),
            },
            {
                "role": "user",
                "content": render(
                    "tdag_sub_turn",
                    DOMAIN,
                    results_section=section("Earlier subtasks and their results:", mem.history_text(memory)),
                    state=self._state(turn, agent),
                    subtask=subtask,
                ),
            },
        ]
        calls: list[CallRecord] = []
        for _step in range(self.max_tool_steps + 1):
            reply = self.client.chat(messages, max_tokens=self.options.max_tokens)
            if not reply.ok:
                calls.append(CallRecord(label, list(messages), reply, problems=[reply.error]))
                return [], calls
            tool = self._tool(turn, agent, reply.text)
            if tool is not None:
                calls.append(CallRecord(label, list(messages), reply, problems=[]))
                messages = [*messages, {"role": "assistant", "content": reply.text}, {"role": "user", "content": tool}]
                continue
            found = extract(DOMAIN, reply.text, [agent], {}, one_each=False, state=turn.state)
            actions = [c.action for c in found.commands]
            calls.append(CallRecord(label, list(messages), reply, actions, found.problems))
            if actions:
                return actions, calls
            messages = [
                *messages,
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": "No action found. Write actions, one per line, in the grammar above."},
            ]
        return [], calls

    def _tool(self, turn: Turn, agent: int, text: str) -> str | None:
        """Run the first tool call in the reply (``SQL: ...`` or ``CHECK: ...``), if any."""
        for line in text.splitlines():
            stripped = line.strip().strip("`")
            if stripped.upper().startswith("SQL:"):
                return "SQL result:\n" + self._database(turn).query_text(stripped[4:])
            if stripped.upper().startswith("CHECK:"):
                body = text[text.upper().index("CHECK:") + 6 :]
                return "Check result:\n" + self._check(turn, agent, body)
        return None

    def _check(self, turn: Turn, agent: int, body: str) -> str:
        found = extract(DOMAIN, body, [agent], {}, one_each=False, state=turn.state)
        if not found.commands:
            return "no actions to check; " + "; ".join(found.problems or ["write actions after CHECK:"])
        state = turn.state
        lines = []
        for command in found.commands:
            transition = turn.rules.act(state, agent, command.action, turn.rules.now(state))
            refusal = transition.rejection
            if refusal is not None:
                lines.append(f"REFUSED {command.action}: {refusal.message}")
                break
            lines.append(f"ok {command.action}")
            state = transition.state
        return "\n".join(lines)
