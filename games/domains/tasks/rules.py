"""The TimeArena rules (SPEC section 2) as the engine's RuleSet ``tasks-v1``.

Time is integer minutes (a fractional ``now`` is rounded down). A type 1 action started at t
occupies its agent during [t, t+d); a type 2 (background) action occupies it during [t, t+1) and
completes by itself at t+d. Every object an action names is locked while it runs; an appliance is a
pool (``fryer`` x2) and is busy only when all its instances are. ``wait`` and, in turn-based play, a
rejected action use up one minute of the agent.

Options (``initial_state(..., options=...)``): ``constrained`` (one of each appliance),
``time_limit`` (default 40 minutes per task), ``max_rejected_in_row`` (default 5; 0 disables),
``rejection_costs_minute`` (default true; a real-time UI may turn it off).

``observe(state, agent).data`` is the structured view for user interfaces::

    {
      "time": 7, "time_limit": 80, "over": false, "reason": "", "progress": 42.5,
      "constrained": false, "agent": 0,
      "legal_actions": ["chop beef", ..., "wait"],
      "agents": [{"agent": 0, "free": true, "busy_until": 7, "doing": ""}, ...],
      "tasks": [{"index": 0, "name": "cooking1", "title": ..., "goal": ..., "progress": 55.0,
                 "done": false,
                 "actions": [{"action": "wash dish_1", "minutes": 3, "background": false,
                              "objects": ["dish_1"], "requires": ["..."],
                              "status": "done" | "running" | "ready" | "blocked" | "waiting",
                              "agent": 0 | null, "start": 0 | null, "end": 3 | null}, ...]}],
      "objects": [{"name": "dish_1", "label": "dish", "task": 0 | null, "appliance": false,
                   "capacity": 1, "in_use": 0,
                   "holders": [{"action": "wash dish_1", "agent": 0, "until": 3}]}],
      "running": [{"action": ..., "agent": 0, "start": 2, "end": 6, "background": true}],
    }

Action status: ``ready`` = could start now, ``blocked`` = prerequisites met but an object is in use,
``waiting`` = prerequisites missing.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping
from operator import attrgetter
from typing import Any

from games.domains.tasks import state as st
from games.domains.tasks.definition import Action, Compiled
from games.domains.tasks.feedback import (
    AGENT_BUSY,
    ALREADY_DONE,
    DEPENDENCY,
    GAME_OVER,
    INVALID_ACTION,
    OBJECT_BUSY,
    UNKNOWN_OBJECT,
    WRONG_OBJECT,
    cannot_start,
    invalid,
    resolve,
    resolve_command,
    startable,
)
from games.domains.tasks.scoring import episode_result
from games.domains.tasks.state import Agent, Counts, Options, Run, TasksState, evolve
from games.domains.tasks.text import WAIT, WAIT_NEXT, observation_text, parse
from games.domains.tasks.view import view
from games.engine.options import checked, switch, whole
from games.engine.types import (
    COMPLETED,
    FINISHED,
    STARTED,
    WAITED,
    Event,
    Feedback,
    Observation,
    Outcome,
    Transition,
    rejected,
)

MINUTES_PER_TASK = 40
# What a game's options may set, and what each must be (games.engine.options).
OPTIONS = {
    "constrained": switch,
    "time_limit": whole(1, 100_000),
    "max_rejected_in_row": whole(0, 1_000),  # 0 turns the rule off
    "rejection_costs_minute": switch,
}

_COUNTER_FOR = {
    INVALID_ACTION: "invalid",
    UNKNOWN_OBJECT: "unknown_object",
    OBJECT_BUSY: "object_busy",
    WRONG_OBJECT: "wrong_object",
    DEPENDENCY: "dependency",
    ALREADY_DONE: "repeated",
}


class TasksRules:
    id = "tasks-v1"
    domain = "tasks"
    time_unit = "minute"

    # -- setting up ----------------------------------------------------------------------------

    def initial_state(
        self, scenario: Mapping[str, Any], *, seed: int = 0, agents: int = 1, options: Mapping[str, Any] | None = None
    ) -> TasksState:
        opts = checked("tasks", options, OPTIONS)
        if agents < 1:
            raise ValueError("a tasks episode needs at least one agent")
        # a definition may ask for one of each appliance itself (a generated instance's optimum holds for that)
        constrained = bool(opts.get("constrained", False)) or bool(scenario.get("constrained", False))
        compiled = st.COMPILED.get(scenario, constrained)
        limit = int(opts.get("time_limit") or MINUTES_PER_TASK * len(compiled.tasks))
        chosen = Options(
            agents=agents,
            constrained=constrained,
            time_limit=limit,
            max_rejected_in_row=int(opts.get("max_rejected_in_row", 5)),
            rejection_costs_minute=bool(opts.get("rejection_costs_minute", True)),
        )
        return TasksState(
            scenario=compiled,
            options=chosen,
            seed=seed,
            agents=tuple(Agent() for _ in range(agents)),
            counts=tuple(Counts() for _ in range(agents)),
        )

    def dump_state(self, state: TasksState) -> dict[str, Any]:
        return st.dump(state)

    def load_state(self, raw: Mapping[str, Any]) -> TasksState:
        options = raw["options"]
        constrained = bool(options.get("constrained"))
        return st.load(raw, st.COMPILED.get(raw["definition"], constrained, key=raw.get("scenario_key")))

    # -- reading -------------------------------------------------------------------------------

    def now(self, state: TasksState) -> float:
        return state.time

    def awaiting(self, state: TasksState) -> frozenset[int]:
        if state.ended:
            return frozenset()
        return frozenset(i for i, agent in enumerate(state.agents) if agent.busy_until <= state.time)

    def next_deadline(self, state: TasksState) -> float | None:
        if state.ended:
            return None
        candidates = [a.busy_until for a in state.agents if a.busy_until > state.time]
        candidates.extend(run.end for run in state.running if run.end > state.time)
        candidates.append(state.options.time_limit)
        return min(candidates)

    def outcome(self, state: TasksState) -> Outcome:
        if not state.ended:
            return Outcome()
        if state.ended == st.ALL_DONE:
            return Outcome(terminated=True, reason=state.ended)
        return Outcome(truncated=True, reason=state.ended)

    def result(self, state: TasksState) -> dict[str, Any]:
        return episode_result(state)

    def startable(self, state: TasksState) -> list[Action]:
        """Actions any free agent could start now, in definition order."""
        return startable(state)

    def legal_actions(self, state: TasksState, agent: int) -> list[str]:
        if state.ended or state.agents[agent].busy_until > state.time:
            return []
        waits = [WAIT, WAIT_NEXT] if _next_finish(state) is not None else [WAIT]
        return [action.text for action in self.startable(state)] + waits

    def observe(self, state: TasksState, agent: int) -> Observation:
        legal = self.legal_actions(state, agent)
        return Observation(text=observation_text(state, agent, legal), data=view(state, agent, legal))

    # -- changing ------------------------------------------------------------------------------

    def advance(self, state: TasksState, until: float) -> Transition[TasksState]:
        target = math.floor(until)
        if state.ended or target <= state.time:
            return Transition(state)
        limit = state.options.time_limit
        stop = min(target, limit)
        if target < limit and (not state.running or state.running[0].end > stop):
            return Transition(evolve(state, time=stop))  # nothing completes: only the clock moves
        events: list[Event] = []
        scenario = state.scenario
        running = state.running  # sorted by end: what completes is a prefix
        done_count = len(state.done)
        done_minutes = state.done_minutes
        progress_time = state.progress_time
        ended, ended_at = "", None
        completed = 0
        while completed < len(running) and running[completed].end <= stop:
            run = running[completed]
            completed += 1
            action = scenario.actions[run.action]
            done_count += run.action not in state.done
            done_minutes += action.minutes
            progress_time = run.end
            events.append(
                Event(
                    COMPLETED,
                    run.end,
                    scenario.completed_messages[run.action],
                    agent=run.agent,
                    data={"action": action.text, "task": action.task, "start": run.start, "end": run.end},
                )
            )
            if done_count == len(scenario.actions):
                ended, ended_at = st.ALL_DONE, run.end
                break
        if not ended and target >= limit:
            ended, ended_at = st.TIME_UP, limit
        new_time = ended_at if ended == st.ALL_DONE and ended_at is not None else stop
        now_finished = running[:completed]
        new = evolve(
            state,
            time=new_time,
            running=running[completed:],
            finished=state.finished + now_finished,
            done=state.done.union(run.action for run in now_finished),
            done_minutes=done_minutes,
            progress_time=progress_time,
            ended=ended,
            ended_at=ended_at,
        )
        if ended:
            events.append(_finished_event(new))
        return Transition(new, tuple(events))

    def act(self, state: TasksState, agent: int, action: str, now: float) -> Transition[TasksState]:
        if not 0 <= agent < len(state.agents):
            raise ValueError(f"agent {agent} is not in this episode (it has {len(state.agents)})")
        moment = math.floor(now)
        if moment < state.time:
            raise ValueError(f"time goes forward only: the state is at t={state.time}, the action at t={moment}")
        prior: tuple[Event, ...] = ()
        if moment > state.time:
            moved = self.advance(state, moment)
            state, prior = moved.state, moved.events
        if state.ended:
            feedback = Feedback(GAME_OVER, f"The episode is over ({state.ended}); no more actions are taken.")
            return Transition(state, (*prior, rejected(state.time, agent, action, feedback)))
        me = state.agents[agent]
        if me.busy_until > state.time:
            feedback = Feedback(
                AGENT_BUSY, f"You are busy with {me.doing} until t={me.busy_until}; act again once you are free."
            )
            return Transition(state, (*prior, rejected(state.time, agent, action, feedback)))

        if action == WAIT:  # the commonest text, and never one of the scenario's actions
            return _with_prior(prior, _wait(state, agent))
        exact = _exact_actions(state.scenario).get(action)
        if exact is not None:  # the text of an action as offered: what parsing it would find
            problem = cannot_start(state, exact)
            if problem is not None:
                return _with_prior(prior, _reject(state, agent, action, problem))
            return _with_prior(prior, _start(state, agent, exact))
        text = " ".join(action.lower().split())
        if text == WAIT:
            return _with_prior(prior, _wait(state, agent))
        if text == WAIT_NEXT:
            until = _next_finish(state)
            if until is None:
                nothing = Feedback("invalid", "Nothing is running, so nothing will finish; start an action or wait.")
                return _with_prior(prior, _reject(state, agent, action, nothing))
            return _with_prior(prior, _wait(state, agent, until))
        command = parse(action)
        if command is None:
            return _with_prior(prior, _reject(state, agent, action, invalid(state, text)))
        problem, found = resolve(state, command)
        if problem is not None:
            return _with_prior(prior, _reject(state, agent, action, problem))
        assert found is not None
        problem = cannot_start(state, found)
        if problem is not None:
            return _with_prior(prior, _reject(state, agent, action, problem))
        return _with_prior(prior, _start(state, agent, found))


RULES = TasksRules()


# -- helpers -----------------------------------------------------------------------------------

_RUN_ORDER = attrgetter("end", "action")  # how ``TasksState.running`` is sorted


def _exact_actions(scenario: Compiled) -> dict[str, Action]:
    """The scenario's action texts that parse and resolve to their own action (all of them, as
    definitions are written; never the waits, which ``act`` reads first), found once per compiled
    scenario."""
    found = scenario.exact_actions
    if found is None:
        found = {}
        for candidate in scenario.actions:
            command = parse(candidate.text)
            if command is not None and command.text == candidate.text and command.text not in (WAIT, WAIT_NEXT):
                problem, resolved = resolve_command(scenario, command)
                if problem is None and resolved is candidate:
                    found[candidate.text] = candidate
        object.__setattr__(scenario, "exact_actions", found)
    return found


def _minutes(count: int) -> str:
    return "1 minute" if count == 1 else f"{count} minutes"


def _with_prior(prior: tuple[Event, ...], transition: Transition[TasksState]) -> Transition[TasksState]:
    return Transition(transition.state, (*prior, *transition.events)) if prior else transition


def _finished_event(state: TasksState) -> Event:
    return Event(
        FINISHED,
        state.time,
        f"The episode is over: {state.ended}. Progress {state.progress:.0f}%.",
        data={"reason": state.ended, "progress": state.progress},
    )


def _reject(state: TasksState, agent: int, action: str, feedback: Feedback) -> Transition[TasksState]:
    me = state.agents[agent]
    streak = me.rejected_in_row + 1
    busy_until = state.time + 1 if state.options.rejection_costs_minute else me.busy_until
    agents = list(state.agents)
    agents[agent] = Agent(
        busy_until=busy_until, doing="" if busy_until <= state.time else "a rejected action", rejected_in_row=streak
    )
    counts = list(state.counts)
    counts[agent] = counts[agent].bump(_COUNTER_FOR.get(feedback.kind, "invalid"))
    limit = state.options.max_rejected_in_row
    ended = st.TOO_MANY_REJECTED if limit and streak >= limit else ""
    new = evolve(state, agents=tuple(agents), counts=tuple(counts), ended=ended, ended_at=state.time if ended else None)
    events = [rejected(state.time, agent, action, feedback)]
    if ended:
        events.append(_finished_event(new))
    return Transition(new, tuple(events))


def _next_finish(state: TasksState) -> int | None:
    """When the next running action completes, if one runs past now."""
    return min((run.end for run in state.running if run.end > state.time), default=None)


def _wait(state: TasksState, agent: int, until: int | None = None) -> Transition[TasksState]:
    necessary = not startable(state)
    end = state.time + 1 if until is None else until
    agents = list(state.agents)
    agents[agent] = Agent(busy_until=end, doing=WAIT, rejected_in_row=0)
    counts = list(state.counts)
    counts[agent] = counts[agent].bump("wait").bump("necessary_wait" if necessary else "unnecessary_wait")
    new = evolve(state, agents=tuple(agents), counts=tuple(counts))
    message = "You wait one minute." if until is None else f"You wait until something finishes, at t={end}."
    data: dict[str, object] = {"necessary": necessary} if until is None else {"necessary": necessary, "until": end}
    event = Event(WAITED, state.time, message, agent=agent, data=data)
    return Transition(new, (event,))


def _start(state: TasksState, agent: int, action: Action) -> Transition[TasksState]:
    end = state.time + action.minutes
    busy_until = state.time + 1 if action.background else end
    agents = list(state.agents)
    agents[agent] = Agent(busy_until=busy_until, doing=action.text, rejected_in_row=0)
    counts = list(state.counts)
    counts[agent] = counts[agent].bump("valid")
    run = Run(action.index, agent, state.time, end)
    running = list(state.running)
    bisect.insort(running, run, key=_RUN_ORDER)
    if action.background:
        message = (
            f"You started {action.text}; it runs by itself for {_minutes(action.minutes)} (done at t={end}) "
            f"and you are free again at t={busy_until}."
        )
    else:
        message = f"You are doing {action.text}, it will take {_minutes(action.minutes)} (done at t={end})."
    event = Event(
        STARTED,
        state.time,
        message,
        agent=agent,
        data={
            "action": action.text,
            "task": action.task,
            "start": state.time,
            "end": end,
            "background": action.background,
        },
    )
    new = evolve(state, agents=tuple(agents), counts=tuple(counts), running=tuple(running))
    return Transition(new, (event,))
