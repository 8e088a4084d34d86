"""Headless episodes driven by NPC brains (``fast`` clock): benchmarks, tests and ``make bench``.

Like ``games.engine.episode.play`` but a brain decides for all free agents at once, sees the
events since its previous turn, and its LLM calls are collected. A brain that returns nothing for
a turn lets time move to the next deadline (an idle step); where there is none, a turn whose model
calls all failed is asked again, up to ``SILENT_TURNS`` in a row. An episode also ends after
``REFUSED_TURNS`` decisions in a row whose every action the rules refused.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.agents.turns import Brain, CallRecord, Turn
from games.engine.episode import LoggedAction
from games.engine.rules import RuleSet
from games.engine.types import Event

# Decisions in a row with no answer from the model after which an episode where nothing moves by
# itself ends (``run_episode``); fewer are asked again.
SILENT_TURNS = 3
# Decisions in a row whose every action the rules refused, after which an episode ends.
REFUSED_TURNS = 10


@dataclass
class HeadlessEpisode:
    state: Any
    events: list[Event] = field(default_factory=list)
    actions: list[LoggedAction] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    turns: int = 0
    says: list[str] = field(default_factory=list)
    stopped: str = ""  # why the loop ended besides the rules' outcome
    halted: bool = False  # ``on_turn`` asked to stop: the episode is unfinished, not a result
    curve: list[list[float]] = field(default_factory=list)  # [game time, turns, score] when the score changed

    def track(self, rules: RuleSet[Any], score: Callable[[Any], float | None] | None, *, end: bool = False) -> None:
        """A point where the score changed; with ``end``, the episode's last moment and decision as
        well, so its curve (and a chart's axes) reach where it stopped, not where it last scored."""
        value = score(self.state) if score else None
        if value is None:
            return
        point = [float(rules.now(self.state)), self.turns, value]
        if not self.curve or self.curve[-1][2] != value or (end and self.curve[-1][:2] != point[:2]):
            self.curve.append(point)


def run_episode(
    rules: RuleSet[Any],
    scenario: Mapping[str, Any],
    brain: Brain,
    *,
    agents: int = 1,
    npc_agents: list[int] | None = None,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    max_turns: int = 500,
    memory: dict[str, Any] | None = None,
    score: Callable[[Any], float | None] | None = None,
    on_turn: Callable[[HeadlessEpisode], bool] | None = None,
) -> HeadlessEpisode:
    """``score(state)`` (the headline metric, 0-100), when given, is followed into ``curve``.
    ``on_turn(episode)``, when given, is called after each decision; when it answers False the
    episode stops there, ``halted`` (a benchmark run stopped by its researcher)."""
    state = rules.initial_state(scenario, seed=seed, agents=agents, options=options)
    episode = HeadlessEpisode(state=state)
    episode.track(rules, score)
    memory = {} if memory is None else memory
    controlled = set(range(agents) if npc_agents is None else npc_agents)
    unseen: list[Event] = []
    silent = 0  # decisions in a row whose model calls all failed (a timeout, an HTTP error)
    refused = 0  # decisions in a row whose every action the rules refused
    while not rules.outcome(episode.state).over:
        if episode.turns >= max_turns:
            episode.stopped = f"stopped after {max_turns} turns"
            break
        free = sorted(rules.awaiting(episode.state) & controlled)
        if free:
            turn = Turn(rules, episode.state, free, tuple(unseen))
            unseen = []
            decision = brain.decide(turn, memory)
            failed = bool(decision.calls) and not decision.actions and not any(c.reply.ok for c in decision.calls)
            silent = silent + 1 if failed else 0
            episode.turns += 1
            episode.calls += decision.calls
            if decision.say:
                episode.says.append(decision.say)
            accepted = False
            for agent, action in decision.actions:
                if rules.outcome(episode.state).over:
                    break
                at = rules.now(episode.state)
                transition = rules.act(episode.state, agent, action, at)
                accepted = accepted or transition.rejection is None
                episode.actions.append(LoggedAction(agent, action, at))
                episode.events += transition.events
                unseen += transition.events
                episode.state = transition.state
            episode.track(rules, score)
            if on_turn is not None and not on_turn(episode):
                episode.halted, episode.stopped = True, "halted"
                break
            if rules.outcome(episode.state).over:
                break
            refused = refused + 1 if decision.actions and not accepted else 0
            if refused >= REFUSED_TURNS:
                # The rules of a trip set no limit on refused actions (tasks and recipes end the
                # game themselves): a model that writes nothing they accept would be asked again at
                # the same moment until the turn limit, one call per turn.
                episode.stopped = f"every action of {refused} decisions in a row was refused"
                break
            if _progressed(decision.actions) and set(rules.awaiting(episode.state)) & controlled:
                # Someone is still free (an itinerary action moved the clock, a rejected recipe
                # step did not): let the brain decide again before time moves on by itself.
                continue
        # A call that timed out must not end the episode as if the agent had given up: where
        # nothing moves by itself (a trip, a recipe pair) or time would run to the end (a task with
        # nothing under way), the brain is asked again, up to SILENT_TURNS decisions in a row.
        retry = bool(free) and 0 < silent < SILENT_TURNS
        deadline = rules.next_deadline(episode.state)
        if deadline is None:
            if retry:
                continue
            episode.stopped = (
                f"the model did not answer {silent} times in a row" if silent else "nothing more can happen"
            )
            break
        transition = rules.advance(episode.state, deadline)
        if silent and rules.outcome(transition.state).over:
            if retry:
                continue
            episode.stopped = f"the model did not answer {silent} times in a row"
        episode.events += transition.events
        unseen += transition.events
        episode.state = transition.state
        episode.track(rules, score)
    episode.track(rules, score, end=True)
    return episode


def _progressed(actions: list[tuple[int, str]]) -> bool:
    return any(action.split("(")[0].strip().lower() not in {"wait", "noop"} for _agent, action in actions)
