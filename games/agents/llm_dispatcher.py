"""The LLM dispatcher: one model call per turn commands every free NPC (MindAgent's design).

The prompt has the parts of SPEC section 7, each from an editable template (``prompts/``): rules
and action grammar, what is relevant now, hints, a one-shot demonstration, the current state,
feedback and suggestions from the last step, a sliding window of history, and the human's chat
messages. The reply is parsed strictly (``extraction``), validated against the current state
(``validation``); refused parts go back as feedback next turn. The human (agent 0 in a seat plan
with a human) is never commanded.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol

from games.agents import endpoints
from games.agents import memory as mem
from games.agents.extraction import Command, Extraction, display, extract, raw_first_line, spoken
from games.agents.knowledge import relevant_knowledge
from games.agents.llm import LlmReply, Message
from games.agents.prompting import has_template, render, section
from games.agents.turns import CallRecord, Decision, Turn
from games.agents.validation import validate
from games.engine import registry


class ChatClient(Protocol):
    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int | None = None,
        json_schema: Mapping[str, Any] | None = None,
    ) -> LlmReply: ...


# Constrained replies enumerate each agent's legal actions; past this many, the turn is asked for
# free text (the schema would outgrow what endpoints take).
CONSTRAINED_MAX_CHOICES = 300
# A constrained reply's answer to the human, asked for only on a turn where the human has spoken.
SAY_KEY = "say"


@dataclass(frozen=True)
class PromptOptions:
    hints: bool = True
    demo: bool = True
    history_window: int = 6
    max_tokens: int = 160
    # Long observations (an itinerary's timetable) are cut so small local models keep within
    # their context window; hosted models can take more (seat/condition setting).
    max_state_chars: int = 4000
    # Hold the reply to a JSON object of one legal action per free NPC (``response_format``): endpoints
    # that constrain decoding (llama.cpp, vLLM, OpenAI) then only produce legal commands. Off by
    # default: the papers' agents answer in free text, and benchmarks measure that.
    constrained: bool = False
    # The researcher's own inference knowledge (a study condition's "Hints" box), added to the
    # prompt's hints after the domain's, or alone when those are off.
    own_hints: str = ""

    @classmethod
    def from_json(cls, raw: Mapping[str, Any] | None) -> PromptOptions:
        """The options a seat, condition or benchmark names (``{"max_tokens": 300}``); a
        ``PromptOptionError`` says what is wrong (checked when the game or run is made, so no
        NPC turn fails on them: ``"max_tokens": "lots"`` failed every turn of its game)."""
        raw = raw or {}
        if not isinstance(raw, Mapping):
            raise PromptOptionError('prompt options are an object, e.g. {"max_tokens": 300, "hints": false}')
        unknown = sorted(set(raw) - {f.name for f in fields(cls)})
        if unknown:
            names = ", ".join(f.name for f in fields(cls))
            raise PromptOptionError(f"unknown prompt option(s) {', '.join(unknown)}; use {names}")
        values: dict[str, Any] = {}
        for name, value in raw.items():
            if name in PROMPT_TEXTS:
                limit = PROMPT_TEXTS[name]
                if not isinstance(value, str) or len(value) > limit or "\x00" in value:
                    raise PromptOptionError(f"prompt option {name} is a text of at most {limit:,} characters")
            elif name in PROMPT_RANGES:
                low, high = PROMPT_RANGES[name]
                if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                    raise PromptOptionError(f"prompt option {name} is a whole number from {low} to {high}")
            elif not isinstance(value, bool):
                raise PromptOptionError(f"prompt option {name} is true or false")
            values[name] = value
        return cls(**values)


def seat_prompt_options(settings: Mapping[str, Any]) -> PromptOptions:
    """A seat's (or condition's) prompt options: its ``prompt``, and as the reply's length the
    model settings' ``max_tokens`` where the prompt names none (the agents always ask for the
    prompt's, so a seat's ``{"llm": {"max_tokens": 400}}`` was never used)."""
    given = settings.get("prompt")
    if given is not None and not isinstance(given, Mapping):
        return PromptOptions.from_json(given)  # refused, saying what prompt options are
    prompt = dict(given or {})
    nested = settings.get("llm")
    model: Mapping[str, Any] = nested if isinstance(nested, Mapping) else settings
    chosen = model.get("max_tokens")
    if chosen not in (None, "") and "max_tokens" not in prompt:
        prompt["max_tokens"] = int(chosen)
    return PromptOptions.from_json(prompt)


def check_seat_settings(settings: Mapping[str, Any]) -> None:
    """An llm seat's (or a study condition's) settings as its game will use them, checked when the
    game or condition is made, not at the first turn: a configured endpoint and a model it allows
    (no URL or key), and prompt options it can use. Raises ``EndpointError`` or ``PromptOptionError``."""
    nested = settings.get("llm")
    endpoints.check(nested if isinstance(nested, Mapping) else settings)
    seat_prompt_options(settings)


class PromptOptionError(ValueError):
    """A seat's, condition's or benchmark's prompt options that cannot be used."""


PROMPT_RANGES: dict[str, tuple[int, int]] = {
    "history_window": (0, 100),
    "max_tokens": (1, 8192),  # as endpoints.LIMITS holds a seat's own max_tokens
    "max_state_chars": (200, 200_000),
}


# Text prompt options and their longest lengths: a small local model's whole context is a few
# thousand tokens, and every turn's prompt carries them.
OWN_HINTS_MAX = 2000
PROMPT_TEXTS: dict[str, int] = {"own_hints": OWN_HINTS_MAX}


def held_to_legal_actions() -> dict[str, Any]:
    """The dispatcher settings (of a seat or a study condition) that hold the LLM's replies to legal
    actions: ``PromptOptions.constrained``, read back by ``PromptOptions.from_json``."""
    return {"prompt": {"constrained": True}}


def optional_template(name: str, domain: str, **values: object) -> str:
    return render(name, domain, **values) if has_template(name, domain) else ""


def domain_text(domain: str, name: str) -> str:
    """A per-domain text block (rules, hints, demo) or "" when the domain has none."""
    return optional_template(name, domain)


def hints_section(domain: str, options: PromptOptions) -> str:
    """The prompt's "Hints:" block: the domain's hints (unless turned off), then the researcher's own."""
    parts = [domain_text(domain, "hints") if options.hints else "", options.own_hints.strip()]
    return section("Hints:", "\n".join(part.strip() for part in parts if part.strip()))


def relevant_now(turn: Turn, domain: str) -> str:
    """The recipes or tasks relevant now, when the observation leaves them out."""
    return relevant_knowledge(domain, turn.state)


def state_text(turn: Turn, agents: Sequence[int], limit: int = 4000) -> str:
    agent = agents[0] if agents else 0
    text = turn.rules.observe(turn.state, agent).text
    return text if len(text) <= limit else text[:limit] + "\n... (cut)"


class LlmDispatcher:
    kind = "llm"
    # the prompt options it reads besides its reply length and history window
    prompt_parts = ("hints", "demo")

    def __init__(
        self,
        client: ChatClient,
        domain: str,
        *,
        npc_agents: Sequence[int],
        human_agents: Sequence[int] = (),
        options: PromptOptions | None = None,
        sends_refused: bool = False,
    ) -> None:
        self.client = client
        self.domain = domain
        self.npc_agents = list(npc_agents)
        self.human_agents = list(human_agents)
        self.options = options or PromptOptions()
        # ``sends_refused`` (a benchmark's agent, where its domain's descriptor says so) acts like
        # the papers' agents and ``ReactAgent``: a command the rules would refuse still goes to
        # them, which refuse and count it, and a lone agent's reply with no command is sent as it
        # was written. A teammate in a game keeps only the commands that can run (its refusals
        # would end a tasks game after five in a row).
        self.sends_refused = sends_refused
        # agents as the domain's texts number them (tasks from 1) in the history and feedback
        self.display_base = registry.descriptor(domain).display_base

    def messages(self, turn: Turn, memory: dict[str, Any]) -> list[Message]:
        domain, options = self.domain, self.options
        base = self.display_base
        feedback = list(memory.get("problems", [])) + mem.feedback_lines(turn.events, self.npc_agents, base)
        feedback += mem.suggestion_lines(turn.events)
        names = [str(display(domain, a)) for a in self.human_agents]
        human = (
            f"Agent {', '.join(names)} is the human player: never command it, "
            "but follow the human's instructions when they make sense."
            if self.human_agents
            else ""
        )
        system = render(
            "dispatcher_system",
            domain,
            domain_title=registry.descriptor(domain).llm_title,
            npc_agents=", ".join(str(display(domain, a)) for a in self.npc_agents),
            human_line=human,
            rules=domain_text(domain, "rules"),
            hints_section=hints_section(domain, options),
            demo_section=section("Example of a turn and a good answer:", domain_text(domain, "demo"))
            if options.demo
            else "",
            answer_format=render("answer", domain),
        )
        user = render(
            "dispatcher_turn",
            domain,
            chat_section="\n\n".join(
                part
                for part in (
                    section("The human says:", "\n".join(f'"{text}"' for text in turn.chat)),
                    section(
                        "Earlier the human asked (do it if it is not done yet):",
                        "\n".join(f'"{text}"' for text, _ in memory.get(ASKED, []) if text not in turn.chat),
                    ),
                )
                if part
            ),
            feedback_section=section("Feedback on your last commands (fix these):", "\n".join(feedback)),
            history_section=section(
                "Recent history (oldest first):",
                "\n".join(
                    [
                        *mem.history_text(memory).splitlines(),
                        *mem.event_lines(turn.events, base=base, unit=turn.rules.time_unit),
                    ][-options.history_window * 3 :]
                ),
            ),
            relevant_section=section("Relevant now:", relevant_now(turn, domain)),
            state=state_text(turn, turn.agents, options.max_state_chars),
            free_agents=", ".join(str(display(domain, a)) for a in turn.agents),
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def decide(self, turn: Turn, memory: dict[str, Any]) -> Decision:
        agents = [a for a in turn.agents if a in self.npc_agents]
        if not agents:
            return Decision()
        turn = Turn(turn.rules, turn.state, agents, turn.events, turn.chat)
        legal = {agent: turn.rules.legal_actions(turn.state, agent) for agent in agents}
        if not self.sends_refused and not turn.chat and not any(legal.values()):
            # A teammate keeps only commands that can run, and none can (a recipes cook with no
            # step to start): no call, so the model's time goes to the turns where it can act.
            return Decision()
        messages = self.messages(turn, memory)
        # a request stays in the next prompts too: said once, it was gone from the next turn's prompt
        # while the model, busy, had not done it yet (it did at t=9 what it was asked at t=1)
        memory[ASKED] = [*memory.get(ASKED, []), *([text, ASKED_TURNS] for text in turn.chat)][-ASKED_KEPT:]
        # When the human has spoken, a constrained reply also answers them ("say"); otherwise it is
        # only the commands, which the game's log shows.
        schema = reply_schema(self.domain, agents, legal, say=bool(turn.chat)) if self.options.constrained else None
        if schema is None:
            reply = self.client.chat(messages, max_tokens=self.options.max_tokens)
        else:
            messages[-1] = {**messages[-1], "content": messages[-1]["content"] + "\n\n" + constrained_format(schema)}
            reply = self.client.chat(messages, max_tokens=self.options.max_tokens, json_schema=schema)
        if not reply.ok:
            # The NPCs idle this step; the error is logged with the call. Old feedback is kept.
            return Decision(calls=[CallRecord("dispatcher", messages, reply, problems=[reply.error])])
        if schema is None:
            extraction = extract(self.domain, reply.text, agents, legal, state=turn.state)
        else:
            extraction = read_constrained(self.domain, reply.text, agents)
        checked = validate(turn.rules, turn.state, extraction.commands, self.display_base)
        memory[ASKED] = [[text, left - 1] for text, left in memory.get(ASKED, []) if left > 1]
        problems = extraction.problems + checked.problems
        memory["problems"] = problems
        done = "; ".join(f"agent {display(self.domain, c.agent)}: {c.action}" for c in checked.accepted) or "nothing"
        mem.remember(
            memory, f"{mem.when(turn.now, turn.rules.time_unit)}: you commanded {done}", self.options.history_window
        )
        # Only what the model says to the human is chat: its commands are in the game's log already,
        # in the reader's names ("Teammate 1 went to Storage"); a summary in engine words repeated
        # each of them on every turn.
        actions = [(c.agent, c.action) for c in checked.accepted]
        if self.sends_refused:
            actions = _as_written(actions, extraction.commands, agents, reply.text)
        return Decision(
            actions=actions,
            calls=[CallRecord("dispatcher", messages, reply, [f"agent {a}: {act}" for a, act in actions], problems)],
            say=extraction.say,
        )


# The human's requests (memory key): [text, decisions it stays in the prompt], the last few.
ASKED = "asked"
ASKED_TURNS = 3
ASKED_KEPT = 4


def _as_written(
    accepted: list[tuple[int, str]], commands: Sequence[Command], agents: Sequence[int], reply: str
) -> list[tuple[int, str]]:
    """A benchmark turn's commands: the accepted ones, then each other agent's refused command as
    the model wrote it, and for a lone agent without one, the reply's first line (the rules reject
    it as they would a paper agent's: a TimeArena minute is used up, a recipe attempt counted).
    Otherwise a reply with nothing usable would idle the agent to the rules' next deadline, which
    with nothing under way is the end of the episode."""
    actions = list(accepted)
    commanded = {agent for agent, _ in accepted}
    for command in commands:
        if command.agent in agents and command.agent not in commanded:
            actions.append((command.agent, command.action))
            commanded.add(command.agent)
    if len(agents) == 1 and not commanded:
        written = raw_first_line(reply)
        if written:
            actions.append((agents[0], written))
    return actions


def reply_schema(
    domain: str, agents: Sequence[int], legal: Mapping[int, Sequence[str]], *, say: bool = False
) -> dict[str, Any] | None:
    """The JSON Schema of a constrained reply: ``{"agent 1": <one of its legal actions>, ...}`` for
    the free NPCs, and with ``say`` a ``"say"`` string (the answer to what the human said); None
    when an agent's legal actions cannot be listed (none, or too many)."""
    properties: dict[str, Any] = {}
    for agent in agents:
        choices = list(dict.fromkeys(legal.get(agent, ())))
        if not choices or len(choices) > CONSTRAINED_MAX_CHOICES:
            return None
        properties[f"agent {display(domain, agent)}"] = {"type": "string", "enum": choices}
    if say:
        properties[SAY_KEY] = {"type": "string"}
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def constrained_format(schema: Mapping[str, Any]) -> str:
    keys = ", ".join(
        f'"{key}": "<a short answer to the human>"' if key == SAY_KEY else f'"{key}": "<its action>"'
        for key in schema["properties"]
    )
    return f"Answer with JSON only: {{{keys}}}, each action one of that agent's legal actions."


def read_constrained(domain: str, text: str, agents: Sequence[int]) -> Extraction:
    """The commands of a constrained reply; what is missing or not JSON becomes a problem (fed back
    next turn), and every command is still validated against the state like a free-text one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return Extraction([], ["the reply was not the JSON object asked for"])
    commands, problems = [], []
    for agent in agents:
        key = f"agent {display(domain, agent)}"
        action = data.get(key)
        if isinstance(action, str) and action.strip():
            commands.append(Command(agent, action.strip()))
        else:
            problems.append(f"no command for {key}")
    said = data.get(SAY_KEY)
    return Extraction(commands, problems, say=spoken(said) if isinstance(said, str) else "")
