"""Generated tasks instances (TimeArena format, ``tasks-v1``) and their certified optimum.

An instance is several small tasks played at once (at most ``per_task`` actions each, so the
default time limit of 40 minutes per task leaves room), built layer by layer:

- ``depth`` layers per task (capped at its actions); every action past the first layer needs one
  action of the layer before (so the longest chain is exactly ``depth`` actions) and, with
  ``branching`` above 1, up to ``branching - 1`` more from any earlier layer;
- a share ``background`` of the actions are type 2 (the agent is free after their first minute);
  with ``appliances`` > 0 they run in one of that many appliance kinds (pot, oven, fryer, kettle),
  one of each in the whole game when ``constrained``;
- with probability ``sharing`` an action works on an object another action of its task already
  uses (the two can then never overlap); otherwise on an object of its own;
- the optimum is for ``agents`` identical agents.

The reference heuristic is the planner NPC (critical-path list scheduling) played through the
rules, so its plan is always feasible; it also bounds CP-SAT's horizon and is its solution hint.
"""

from __future__ import annotations

import math
import random
from typing import Any

from games.domains.tasks.definition import FORMAT, compile_definition
from games.domains.tasks.rules import RULES
from games.engine.episode import play
from games.generators.knobs import Knob
from games.planners import budget, tasks_optimal
from games.planners.tasks_npc import npc_policy

# What ``optimal_makespan`` measures, for the generator page.
OBJECTIVE = "the makespan in minutes (the CP-SAT optimum for the agents knob)"
# What an instance's stats.actions counts (the generator page's Actions column).
ACTIONS = "the actions of all its tasks"

KNOBS = (
    Knob("actions", 20, 5, 100, "number of actions in the instance"),
    Knob("background", 0.3, 0.0, 1.0, "share of type 2 (background) actions"),
    Knob("depth", 4, 1, 10, "actions in the longest prerequisite chain of a task"),
    Knob("branching", 2, 1, 4, "most prerequisites an action has"),
    Knob("sharing", 0.2, 0.0, 1.0, "chance an action works on an object its task already uses"),
    Knob("appliances", 2, 0, 4, "appliance kinds the background actions run in (0: none)"),
    Knob("constrained", False, help="one of each appliance in the whole game"),
    Knob("agents", 1, 1, 4, "agents the optimum is computed for"),
    Knob("per_task", 8, 3, 12, "most actions per task (the game allows 40 minutes per task)"),
)

NOUNS = [
    "apple",
    "bean",
    "beet",
    "bread",
    "butter",
    "cabbage",
    "carrot",
    "celery",
    "cheese",
    "chicken",
    "corn",
    "cucumber",
    "egg",
    "fennel",
    "fish",
    "garlic",
    "ginger",
    "grape",
    "ham",
    "herb",
    "kale",
    "leek",
    "lemon",
    "lentil",
    "melon",
    "mint",
    "noodle",
    "oat",
    "olive",
    "onion",
    "orange",
    "pea",
    "pear",
    "pepper",
    "potato",
    "pumpkin",
    "radish",
    "rice",
    "salmon",
    "spinach",
    "squash",
    "tofu",
    "tomato",
    "turnip",
    "walnut",
    "yam",
    "zucchini",
]
FOREGROUND_VERBS = ("chop", "wash", "peel", "slice", "weigh", "rinse", "trim", "measure", "crush", "mix", "sort", "dry")
PLAIN_BACKGROUND_VERBS = ("thaw", "cool", "proof", "steep", "incubate")
APPLIANCES = (("pot", ("boil", "cook")), ("oven", ("bake", "toast")), ("fryer", ("fry",)), ("kettle", ("heat",)))


def build(rng: random.Random, knobs: dict[str, Any], index: int) -> dict[str, Any]:
    total = knobs["actions"]
    count = math.ceil(total / knobs["per_task"])
    sizes = [total // count + (1 if part < total % count else 0) for part in range(count)]
    background = set(rng.sample(range(total), round(total * knobs["background"])))
    kinds = APPLIANCES[: knobs["appliances"]]
    tasks, first = [], 0
    for part, size in enumerate(sizes):
        flags = [first + i in background for i in range(size)]
        tasks.append(_task(rng, knobs, part, flags, kinds))
        first += size
    definition: dict[str, Any] = {
        "format": FORMAT,
        "title": f"Generated: {total} actions in {count} task{'s' if count > 1 else ''} (#{index + 1})",
        "tasks": tasks,
    }
    if knobs["constrained"]:  # the game is played so, as its optimum and heuristic were computed
        definition["constrained"] = True
    return definition


def _task(
    rng: random.Random,
    knobs: dict[str, Any],
    part: int,
    flags: list[bool],
    kinds: tuple[tuple[str, tuple[str, ...]], ...],
) -> dict[str, Any]:
    size = len(flags)
    depth = min(knobs["depth"], size)
    # Layer sizes: one action each, the rest dealt at random, so the chain is exactly ``depth`` long.
    layer_of = list(range(depth)) + [rng.randrange(depth) for _ in range(size - depth)]
    layer_of.sort()
    nouns = rng.sample(NOUNS, len(NOUNS))
    used: list[str] = []  # objects of this task, in order of first use
    texts: list[str] = []
    actions: list[dict[str, Any]] = []
    appliance_names: set[str] = set()
    for position in range(size):
        is_background = flags[position]
        noun = rng.choice(used) if used and rng.random() < knobs["sharing"] else nouns[len(used) % len(nouns)]
        if is_background and kinds:
            appliance, verbs = rng.choice(kinds)
            candidates = [f"{verb} {noun} in {appliance}" for verb in verbs]
        elif is_background:
            candidates = [f"{verb} {noun}" for verb in PLAIN_BACKGROUND_VERBS]
            appliance = None
        else:
            candidates = [f"{verb} {noun}" for verb in FOREGROUND_VERBS]
            appliance = None
        free = [text for text in candidates if text not in texts]
        if not free:  # every verb already used on that object: take a fresh object instead
            noun = nouns[len(used) % len(nouns)]
            free = [text.replace(text.split()[1], noun, 1) for text in candidates]
        text = rng.choice(free)
        if noun not in used:
            used.append(noun)
        if appliance:
            appliance_names.add(appliance)
        texts.append(text)
        layer = layer_of[position]
        requires: list[str] = []
        if layer:
            previous = [i for i in range(position) if layer_of[i] == layer - 1]
            earlier = [i for i in range(position) if layer_of[i] < layer - 1]
            requires.append(texts[rng.choice(previous)])
            extra = min(len(earlier), rng.randrange(knobs["branching"]))
            requires.extend(texts[i] for i in sorted(rng.sample(earlier, extra)))
        minutes = rng.randint(3, 12) if is_background else rng.randint(1, 5)
        action: dict[str, Any] = {"name": text, "minutes": minutes, "background": is_background, "requires": requires}
        actions.append(action)
    return {
        "name": f"part{part + 1}",
        "title": f"Part {part + 1}",
        "goal": f"Finish all {size} actions of part {part + 1}.",
        "appliances": sorted(appliance_names),
        "actions": actions,
    }


def heuristic(definition: dict[str, Any], knobs: dict[str, Any]) -> tuple[int | None, dict[int, int]]:
    """The planner NPC's makespan under the full rules and its start minutes (action index -> minute)."""
    options = {"constrained": knobs["constrained"], "max_rejected_in_row": 0}
    episode = play(RULES, definition, dict.fromkeys(range(knobs["agents"]), npc_policy), options=options)
    state = episode.state
    if not RULES.outcome(state).terminated:
        return None, {}
    starts: dict[int, int] = {}
    for logged in episode.actions:
        action = state.scenario.by_text.get(logged.action)
        if action is not None:
            starts.setdefault(action.index, int(logged.time))
    return max(run.end for run in state.finished), starts


def basis(knobs: dict[str, Any]) -> dict[str, Any]:
    """What the optimum holds for (``family.certificate``): the number of agents it was computed for."""
    return {"agents": knobs["agents"]}


def show(value: float) -> str:
    """A value in the optimum's terms as the game page writes it."""
    return f"{value:g} minutes"


def achieved(item: dict[str, Any], metrics: dict[str, Any], basis: dict[str, Any]) -> float | None:
    """An episode's makespan in the optimum's terms (minutes to finish everything), or None when it
    is not comparable: not finished, or played by another number of agents."""
    if not metrics.get("completed") or item.get("agents", 1) != basis.get("agents", 1):
        return None
    value = metrics.get("completion_time")
    return float(value) if isinstance(value, int | float) else None


def evaluate(definition: dict[str, Any], knobs: dict[str, Any], max_seconds: float) -> dict[str, Any]:
    scenario = compile_definition(definition, constrained=knobs["constrained"])
    greedy, starts = heuristic(definition, knobs)
    # Stopped by deterministic work, so the optimum, bound and proof are the same on every machine.
    best = tasks_optimal.plan(
        scenario,
        agents=knobs["agents"],
        max_seconds=budget.GUARD * max_seconds,
        work_limit=budget.work_for(max_seconds),
        hint=starts or None,
        upper_bound=greedy,
    )
    actions = scenario.actions
    total = sum(a.minutes for a in actions)
    users: dict[str, int] = {}
    for action in actions:
        for name in action.objects:
            if not scenario.object_index[name].appliance:
                users[name] = users.get(name, 0) + 1
    depth = [0] * len(actions)
    for action in actions:  # definition order lists prerequisites first
        depth[action.index] = 1 + max((depth[p] for p in action.requires), default=0)
    stats = {
        "actions": len(actions),
        "tasks": len(scenario.tasks),
        "agents": knobs["agents"],
        "total_minutes": total,
        "parallelism": round(total / best.makespan, 4) if best.makespan else None,
        "background_share": round(sum(a.background for a in actions) / len(actions), 4),
        "depth": max(depth),
        "prerequisites_per_action": round(sum(len(a.requires) for a in actions) / len(actions), 4),
        "object_sharing": round(
            sum(1 for a in actions if any(users.get(o, 0) > 1 for o in a.objects)) / len(actions), 4
        ),
        "appliance_uses": sum(1 for a in actions if any(scenario.object_index[o].appliance for o in a.objects)),
        "appliance_units": sum(o.capacity for o in scenario.objects if o.appliance),
    }
    return {
        "optimal_makespan": best.makespan,
        "optimal": best.optimal,
        "lower_bound": best.lower_bound,
        "greedy_makespan": greedy,
        "solve_seconds": round(best.solve_seconds, 3),
        "status": best.status,
        "stats": stats,
        "plan": [
            {"agent": e.agent, "action": actions[e.action].text, "start": e.start, "end": e.end} for e in best.entries
        ],
    }
