"""Executing one step: the committed commands in commit order, then the clock and the orders.

``refusal`` is the single place that says whether a command may run now; ``legal_actions`` and the
step execution both use it, so what the UI offers is exactly what the rules accept.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from games.domains.kitchen.commands import Command, parse
from games.domains.kitchen.state import AgentState, KitchenState, Level, Note, Order, ToolState
from games.domains.kitchen.world import (
    ALWAYS_PICKABLE,
    MAX_PENDING_ORDERS,
    SERVING_TABLE,
    STORAGE,
    TOOL_KINDS,
    Recipe,
)
from games.engine.types import COMPLETED, FINISHED, Event, Feedback, rejected
from games.engine.values import evolver

_evolve_agent = evolver(AgentState)
_evolve_tool = evolver(ToolState)
_evolve_state = evolver(KitchenState)

ORDER_ARRIVED = "order_arrived"
ORDER_COMPLETED = "order_completed"
ORDER_EXPIRED = "order_expired"
COMMITTED = "committed"


@dataclass(slots=True)
class Work:
    """Mutable copies of the parts of a state that one step changes (rebuilt into a state after)."""

    state: KitchenState
    agents: list[AgentState]
    tools: list[ToolState]  # in the level's order (``level.positions`` says where each name is)
    orders: list[Order]
    completed: int
    thrown_away: int
    served: list[tuple[int, str, int]]
    used: dict[str, int] = field(default_factory=dict)  # tool -> the agent whose command changed it this step

    @classmethod
    def of(cls, state: KitchenState) -> Work:
        return cls(
            state=state,
            agents=list(state.agents),
            tools=list(state.tools),
            orders=list(state.orders),
            completed=state.completed,
            thrown_away=state.thrown_away,
            served=list(state.served),
        )

    def tool(self, name: str) -> ToolState:
        return self.tools[self.state.level.positions[name]]

    def replace_tool(self, tool: ToolState) -> None:
        self.tools[self.state.level.positions[tool.name]] = tool


# Largest size of a per-level memo (parsed commands, allowed commands) before it starts again.
_MEMO_LIMIT = 4096


def command_of(level: Level, text: str, agent: int) -> Command:
    """``parse(text, agent, level.kinds)``, memoised per level: a command is parsed when it is
    committed and again when its step runs, and the same few commands recur all game. Raises
    CommandError (nothing is remembered) like ``parse``."""
    memo = level.parsed
    found = memo.get((text, agent))
    if found is None:
        found = parse(text, agent, level.kinds)
        if len(memo) >= _MEMO_LIMIT:  # odd spellings from players must not grow it without end
            memo.clear()
        memo[(text, agent)] = found
    return found


def recipes_in(state: KitchenState, kind: str) -> tuple[Recipe, ...]:
    return state.level.recipes_by_tool.get(kind, ())


def can_become_recipe(state: KitchenState, kind: str, contents: tuple[str, ...]) -> bool:
    """Whether ``contents`` in a ``kind`` tool is part of (or exactly) one of the level's recipes."""
    found = state.level.partial_recipes.get(kind)
    return found is not None and tuple(sorted(contents)) in found


def recipe_for(state: KitchenState, kind: str, contents: tuple[str, ...]) -> Recipe | None:
    ingredients = tuple(sorted(contents))
    for recipe in recipes_in(state, kind):
        if recipe.ingredients == ingredients:
            return recipe
    return None


def where_it_fits(state: KitchenState, item: str) -> list[str]:
    kinds = {recipe.tool for recipe in state.level.recipes.values() if item in recipe.ingredients}
    return [name for name, kind in state.level.locations if kind in kinds]


def refusal(
    state: KitchenState,
    agents: Sequence[AgentState],
    tool: ToolState | None,
    orders: Sequence[Order],
    agent_id: int,
    command: Command,
) -> Feedback | None:
    """Why ``command`` cannot run for ``agent_id`` now, or None when it can; ``tool`` is the one at
    the command's location (None for ``noop`` and ``goto``, which name no tool to work on)."""
    step = state.step
    agent = agents[agent_id]
    who = f"agent{agent_id}"
    if step >= state.level.max_steps:
        return Feedback("over", "the episode is over; no more commands")
    if agent.busy_until > step:
        return Feedback(
            "agent_busy", f"{who} is busy (chopping) until step {agent.busy_until}; give it noop({who}) meanwhile"
        )
    if command.verb in ("noop", "goto"):
        return None
    assert tool is not None and tool.name == command.location
    if agent.location != tool.name:
        return Feedback(
            "not_there", f"{who} is at {agent.location}, not at {tool.name}; send goto({who}, {tool.name}) first"
        )
    if command.verb == "get":
        if agent.holding is not None:
            return Feedback(
                "hands_full", f"{who} already holds {agent.holding}; put it somewhere (storage0 throws it away) first"
            )
        if tool.kind == SERVING_TABLE:
            return Feedback("not_pickable", "nothing can be taken from the serving table")
        if tool.kind == STORAGE:
            return None
        if tool.busy(step):
            return Feedback("tool_busy", f"{tool.name} is busy until step {tool.busy_until}; wait for it")
        if not tool.contents:
            return Feedback("empty", f"{tool.name} is empty; nothing to take")
        if not tool.pickable:
            return Feedback(
                "not_pickable",
                f"{tool.name} holds {', '.join(tool.contents)} but has not cooked yet; "
                f"activate({who}, {tool.name}) first",
            )
        if command.item is not None and command.item not in tool.contents:
            return Feedback("empty", f"{tool.name} holds {', '.join(tool.contents)}, not {command.item}")
        return None
    if command.verb == "put":
        item = agent.holding
        if item is None:
            return Feedback("hands_empty", f"{who} holds nothing to put")
        if tool.kind == STORAGE:
            return None
        if tool.kind == SERVING_TABLE:
            if item not in state.level.dishes:
                return Feedback(
                    "not_ordered", f"{item} is not a dish of this level; only ordered dishes go on the serving table"
                )
            if not any(order.dish == item for order in orders):
                return Feedback("not_ordered", f"no pending order for {item}; keep it until one arrives")
            return None
        if tool.busy(step):
            return Feedback("tool_busy", f"{tool.name} is busy until step {tool.busy_until}; wait for it")
        capacity = TOOL_KINDS[tool.kind].capacity
        if capacity is not None and len(tool.contents) >= capacity:
            return Feedback("full", f"{tool.name} is full ({capacity}); take something out first")
        after = (*tool.contents, item)
        if not can_become_recipe(state, tool.kind, after):
            # with what the tool holds: "would make waste; it belongs in pan0, pan1" said so of
            # pan0 itself, which held a teammate's bread already
            fits = [name for name in where_it_fits(state, item) if name != tool.name or not tool.contents]
            held = f" with the {', '.join(tool.contents)} it holds" if tool.contents else ""
            if fits:
                hint = f"it belongs in {', '.join(fits)}"
            elif tool.contents:
                hint = "finish what it holds first (or take that out)"
            else:
                hint = "nothing here uses it: put it into storage0"
            return Feedback("waste", f"putting {item} into {tool.name}{held} would make waste; {hint}")
        return None
    # activate
    if agent.holding is not None:
        return Feedback("hands_full", f"{who} must have empty hands to activate {tool.name}")
    if tool.kind in (STORAGE, SERVING_TABLE):
        return Feedback("no_recipe", f"{tool.name} cannot be activated")
    if tool.busy(step):
        return Feedback("tool_busy", f"{tool.name} is busy until step {tool.busy_until}; wait for it")
    if not tool.contents:
        return Feedback("no_recipe", f"{tool.name} is empty; put ingredients in first")
    if recipe_for(state, tool.kind, tool.contents) is None:
        made = tool.contents[0] if len(tool.contents) == 1 else None
        if made is not None and any(recipe.product == made for recipe in recipes_in(state, tool.kind)):
            # a teammate started it first this step, or it was started before: nothing to start
            return Feedback("no_recipe", f"{tool.name} has already made {made}; take it with get({who}, {tool.name})")
        return Feedback("no_recipe", _missing_message(state, tool))
    return None


def _missing_message(state: KitchenState, tool: ToolState) -> str:
    have = Counter(tool.contents)
    options = []
    for recipe in recipes_in(state, tool.kind):
        need = Counter(recipe.ingredients)
        if not (have - need):
            missing = sorted((need - have).elements())
            options.append(f"{recipe.product} needs {', '.join(missing)}")
    hint = "; ".join(options) if options else "nothing can be cooked from that"
    return f"{', '.join(tool.contents)} in {tool.name} is not a recipe yet ({hint})"


def apply(work: Work, agent_id: int, command: Command, events: list[Event]) -> Feedback | None:
    """Run one command on ``work``; return the refusal when it cannot run."""
    state = work.state
    step = state.step
    tool = None if command.location is None or command.verb == "goto" else work.tool(command.location)
    problem = refusal(state, work.agents, tool, work.orders, agent_id, command)
    agent = work.agents[agent_id]
    text = command.dispatch_text(agent_id)
    if problem is not None:
        first = work.used.get(command.location or "")
        if first is not None and first != agent_id and command.verb != "goto":
            # "Mixer 1 is empty" read as if it had been empty when the player chose: a teammate's
            # command of the same step ran first
            beaten = f"{problem.message} (agent{first} used {command.location} first this step)"
            problem = Feedback(problem.kind, beaten)
        work.agents[agent_id] = _evolve_agent(agent, rejected=agent.rejected + 1)
        events.append(rejected(step, agent_id, text, problem))
        return problem
    if command.verb in ("get", "put", "activate") and command.location is not None:
        work.used[command.location] = agent_id
    detail: dict[str, object] = {"command": text, "step": step}
    message = text
    accepted = agent.accepted + 1
    if command.verb == "noop":
        agent = _evolve_agent(agent, idle=agent.idle + 1, accepted=accepted)
    elif command.verb == "goto":
        assert command.location is not None
        agent = _evolve_agent(agent, location=command.location, accepted=accepted)
        message = f"agent{agent_id} went to {command.location}"
    elif command.verb == "get":
        assert tool is not None
        if tool.kind == STORAGE:
            item = command.item
        else:
            item = command.item or tool.contents[-1]
            contents = list(tool.contents)
            contents.remove(item)
            work.replace_tool(
                _evolve_tool(tool, contents=tuple(contents), pickable=tool.kind in ALWAYS_PICKABLE and bool(contents))
            )
        agent = _evolve_agent(agent, holding=item, accepted=accepted)
        detail["item"] = item
        message = f"agent{agent_id} took {item} from {command.location}"
    elif command.verb == "put":
        assert tool is not None and agent.holding is not None
        item = agent.holding
        detail["item"] = item
        if tool.kind == STORAGE:
            work.thrown_away += 1
            message = f"agent{agent_id} threw {item} away"
        elif tool.kind == SERVING_TABLE:
            candidates = [order for order in work.orders if order.dish == item]
            order = min(candidates, key=lambda o: (o.deadline, o.id))
            work.orders.remove(order)
            work.completed += 1
            work.served.append((order.id, item, step))
            detail["order"] = order.id
            message = f"agent{agent_id} served {item}"
            events.append(
                Event(
                    ORDER_COMPLETED,
                    step,
                    f"order #{order.id} ({item}) completed by agent{agent_id}",
                    agent_id,
                    {"order": order.id, "dish": item, "remaining": order.remaining(step)},
                )
            )
        else:
            work.replace_tool(
                _evolve_tool(tool, contents=(*tool.contents, item), pickable=tool.kind in ALWAYS_PICKABLE)
            )
            message = f"agent{agent_id} put {item} into {tool.name}"
        agent = _evolve_agent(agent, holding=None, accepted=accepted)
    else:  # activate
        assert tool is not None
        recipe = recipe_for(state, tool.kind, tool.contents)
        assert recipe is not None
        kind = TOOL_KINDS[tool.kind]
        work.replace_tool(
            _evolve_tool(tool, contents=(recipe.product,), busy_until=step + kind.busy_steps, pickable=True)
        )
        if kind.occupies_agent:
            agent = _evolve_agent(agent, busy_until=step + kind.busy_steps, accepted=accepted)
        else:
            agent = _evolve_agent(agent, accepted=accepted)
        detail.update(product=recipe.product, ingredients=list(tool.contents), ready_at=step + kind.busy_steps)
        message = f"agent{agent_id} activated {tool.name}: {recipe.product} ready at step {step + kind.busy_steps}"
    work.agents[agent_id] = agent
    events.append(Event(COMPLETED, step, message, agent_id, detail))
    return None


def execute_step(state: KitchenState) -> tuple[KitchenState, list[Event]]:
    """Run the step's committed commands in commit order, then move to the next step: orders run
    out, a new order may arrive, and the episode may end."""
    work = Work.of(state)
    events: list[Event] = []
    feedback: list[Note] = []
    commanded = set()
    for agent_id, text in state.commands:
        commanded.add(agent_id)
        command = command_of(state.level, text, agent_id)  # already validated when committed
        problem = apply(work, agent_id, command, events)
        if problem is not None:
            feedback.append(Note(agent_id, problem.kind, problem.message))
    for agent_id in range(len(work.agents)):
        if agent_id not in commanded:
            agent = work.agents[agent_id]
            work.agents[agent_id] = _evolve_agent(agent, idle=agent.idle + 1)

    step = state.step + 1
    failed = state.failed
    remaining: list[Order] = []
    for order in work.orders:
        if order.deadline <= step:
            failed += 1
            events.append(
                Event(ORDER_EXPIRED, step, f"order #{order.id} ({order.dish}) expired", None, order.to_json())
            )
        else:
            remaining.append(order)
    orders_made = state.orders_made
    level = state.level
    if step < level.max_steps and step % level.task_interval == 0 and len(remaining) < MAX_PENDING_ORDERS:
        order = new_order(state, orders_made, step)
        orders_made += 1
        remaining.append(order)
        events.append(
            Event(
                ORDER_ARRIVED,
                step,
                f"new order #{order.id}: {order.dish} within {order.deadline - step} steps",
                None,
                order.to_json(),
            )
        )
    agents = tuple(work.agents)
    orders = state.orders if remaining == list(state.orders) else tuple(remaining)
    new_state = _evolve_state(
        state,
        step=step,
        agents=agents,
        tools=tuple(work.tools),
        orders=orders,
        orders_made=orders_made,
        completed=work.completed,
        failed=failed,
        thrown_away=work.thrown_away,
        commands=(),
        feedback=tuple(feedback),
        suggestions=tuple(_suggestions(level, agents, orders, feedback)),
        served=tuple(work.served) if len(work.served) != len(state.served) else state.served,
    )
    if step >= level.max_steps:
        events.append(
            Event(
                FINISHED,
                step,
                f"kitchen closed after {step} steps: {_orders(new_state.completed)} completed, {failed} failed",
                None,
                {"completed": new_state.completed, "failed": failed, "pending": len(remaining)},
            )
        )
    return new_state, events


def _orders(count: int) -> str:
    return f"{count} order" if count == 1 else f"{count} orders"


def new_order(state: KitchenState, index: int, step: int) -> Order:
    """Order number ``index``: its dish is drawn from the seed and the index alone, so the same seed
    gives the same orders whatever the agents do."""
    level = state.level
    dish = level.drawn.get(index)
    if dish is None:  # seeding a Random costs more than the rest of a step: once per order number
        dish = random.Random(level.seed * 1_000_003 + index).choice(level.dishes)
        if len(level.drawn) >= _MEMO_LIMIT:
            level.drawn.clear()
        level.drawn[index] = dish
    return Order(id=index + 1, dish=dish, arrived=step, deadline=step + level.lifetimes[dish])


def suggestions(state: KitchenState, feedback: list[Note]) -> list[Note]:
    """Hints per agent for the next step: throw away what nothing needs, serve ordered dishes."""
    return _suggestions(state.level, state.agents, state.orders, feedback)


def _suggestions(
    level: Level, agents: Sequence[AgentState], orders: Sequence[Order], feedback: list[Note]
) -> list[Note]:
    notes = []
    useful = level.ingredients
    ordered = {order.dish for order in orders}
    for agent_id, agent in enumerate(agents):
        item = agent.holding
        if item is None:
            continue
        if item in ordered:
            notes.append(_note(agent_id, "serve", item))
        elif item not in useful and item not in level.dishes:
            notes.append(_note(agent_id, "discard", item))
    for note in feedback:
        if note.kind == "waste":
            notes.append(Note(note.agent, "discard", "if nothing needs it, put it into storage0 to throw it away"))
    return notes


_NOTES: dict[tuple[int, str, str], Note] = {}


def _note(agent_id: int, kind: str, item: str) -> Note:
    """The suggestion to serve or to throw away ``item`` (a value: written once, shared)."""
    key = (agent_id, kind, item)
    found = _NOTES.get(key)
    if found is None:
        if kind == "serve":
            found = Note(agent_id, "serve", f"agent{agent_id} holds {item}: put it on servingtable0")
        else:
            found = Note(agent_id, "discard", f"nothing needs {item}: put(agent{agent_id}, storage0) throws it away")
        if len(_NOTES) >= _MEMO_LIMIT:
            _NOTES.clear()
        _NOTES[key] = found
    return found


def legal_commands(state: KitchenState, agent_id: int) -> list[Command]:
    """Every command ``agent_id`` could run now (before other agents' commands of this step)."""
    level = state.level
    if state.step >= level.max_steps:
        return []
    agent = state.agents[agent_id]
    if agent.busy_until > state.step:
        return [_NOOP]
    # What a free agent may do depends only on what ``refusal`` reads of it at its own location:
    # what it holds, the tool's contents and whether it is busy or ready, and, for a dish brought to
    # the serving table, whether it is ordered. The level remembers the answer: waiting, walking
    # (refused only when the episode is over or the agent busy, both ruled out above), then what
    # may be tried here.
    here = state.tools[level.positions[agent.location]]
    if here.name != agent.location:  # a state whose tools are not in the level's order
        here = next(tool for tool in state.tools if tool.name == agent.location)
    holding = agent.holding
    ordered = holding is not None and here.kind == SERVING_TABLE and any(o.dish == holding for o in state.orders)
    key = (here.name, holding, here.contents, here.busy(state.step), here.pickable, ordered)
    legal = level.allowed.get(key)
    if legal is None:
        allowed = (  # every command tried here is about this location
            command
            for command in level.tries[here.name, holding is not None]
            if refusal(state, state.agents, here, state.orders, agent_id, command) is None
        )
        legal = (_NOOP, *level.gotos[agent.location], *allowed)
        if len(level.allowed) >= _MEMO_LIMIT:
            level.allowed.clear()
        level.allowed[key] = legal
    return list(legal)


_NOOP = Command("noop")
