"""Kitchen dispatchers (SPEC sections 6 and 7): the heuristic teammate and the random baseline.

A *dispatcher kind* is a pure function ``(state, agent ids) -> {agent: command}``: one short-form
command per commanded agent (``goto storage0``), in the order they should run (dict order). Both
are deterministic for a given state (the random one draws from the level's seed and the step), and
neither keeps memory between steps, so a human teammate's moves or a restart never confuse them.

The heuristic re-plans every step:

1. **Demand.** Pending orders, most urgent first (orders that can no longer be finished in time
   go last). Each order asks for its dish on the serving table.
2. **Allocation** over the recipe tree: an item is taken, in this order of preference, from an
   agent's hands, from a tool that has cooked it, from storage (base ingredients), from a tool
   already holding part of its recipe, or from a free tool of the right kind that the allocation
   reserves. This yields *deliveries* (item, source, destination) and *activations* (tools whose
   contents are a complete recipe).
3. **Assignment.** Agents holding an allocated item carry it (goto, then put); agents holding
   something nobody needs throw it away; free agents take the most urgent open task, preferring the
   agent already standing at its location; idle agents wait at storage where most chains begin.
   Commands are ordered puts first, then gets, activations and moves, so a put and an activation
   on the same tool in one step succeed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from games.domains.kitchen.execution import legal_commands, recipe_for, recipes_in
from games.domains.kitchen.state import KitchenState, Order, ToolState
from games.domains.kitchen.world import BASE_SET, SERVING_TABLE, STORAGE, TOOL_KINDS, Recipe

Dispatcher = Callable[[KitchenState, Sequence[int]], dict[int, str]]

SERVE = "serve"


@dataclass
class Task:
    """Something one agent can do: fetch ``item`` from ``source`` to ``dest``, or activate a tool."""

    kind: str  # "deliver", "activate" or "clear"
    rank: int  # the order it serves (lower is more urgent)
    item: str | None = None
    source: str | None = None  # a location name; "storage0" for base ingredients
    dest: str | None = None  # a location name or SERVE
    ready_at: int = 0  # when the source can be taken from


@dataclass
class Plan:
    state: KitchenState
    commandable: set[int]
    serving: str
    storage: str
    held: dict[int, str] = field(default_factory=dict)  # unallocated items in commandable hands
    products: dict[str, str] = field(default_factory=dict)  # tool -> unallocated cooked item
    reserved: dict[str, Recipe] = field(default_factory=dict)  # tool -> the recipe it is making
    carrying: dict[int, tuple[str, int]] = field(default_factory=dict)  # agent -> (dest, rank)
    tasks: list[Task] = field(default_factory=list)


def _is_product(state: KitchenState, tool: ToolState) -> bool:
    """Whether a tool holds a cooked product (rather than ingredients waiting for activation)."""
    if not tool.contents or tool.kind in (STORAGE, SERVING_TABLE):
        return False
    if tool.kind == "chopboard":  # always pickable: cooked unless its contents are still a recipe
        return recipe_for(state, tool.kind, tool.contents) is None
    return tool.pickable and len(tool.contents) == 1


def _assembly_fits(tool: ToolState, recipe: Recipe) -> bool:
    return not (Counter(tool.contents) - Counter(recipe.ingredients))


def _obtain(plan: Plan, item: str, dest: str, rank: int) -> bool:
    """Allocate a way to bring ``item`` to ``dest``; False when no tool is free to make it."""
    state = plan.state
    at_dest = [a for a, held in plan.held.items() if held == item and state.agents[a].location == dest]
    holders = at_dest or sorted(a for a, held in plan.held.items() if held == item)
    if holders:
        agent = holders[0]
        del plan.held[agent]
        plan.carrying[agent] = (dest, rank)
        return True
    for tool_name, product in sorted(plan.products.items()):
        if product == item:
            del plan.products[tool_name]
            tool = state.tool(tool_name)
            assert tool is not None
            plan.tasks.append(Task("deliver", rank, item, tool_name, dest, tool.busy_until))
            return True
    if item in BASE_SET:
        plan.tasks.append(Task("deliver", rank, item, plan.storage, dest))
        return True
    recipe = state.level.recipes[item]
    candidates = [
        tool
        for tool in state.tools
        if tool.kind == recipe.tool and tool.name not in plan.reserved and not _is_product(state, tool)
    ]
    started = [tool for tool in candidates if tool.contents and _assembly_fits(tool, recipe)]
    empty = [tool for tool in candidates if not tool.contents and not tool.busy(state.step)]
    if started:
        tool = started[0]
    elif empty:
        wanted = set(recipe.ingredients)
        # Prefer the tool where someone holding an ingredient already stands: plans stay stable.
        tool = max(
            empty,
            key=lambda t: sum(
                1 for a, held in plan.held.items() if held in wanted and state.agents[a].location == t.name
            ),
        )
    else:
        # Every such tool is taken. One holding leftovers of an abandoned recipe (its order expired)
        # would stay blocked forever (only cooked tools can be emptied): finish that recipe so the
        # tool can be cleared, then this item gets its turn.
        leftovers = [tool for tool in candidates if tool.contents and not tool.busy(state.step)]
        for tool in leftovers:
            other = next((r for r in recipes_in(state, tool.kind) if _assembly_fits(tool, r)), None)
            if other is not None:
                _fill(plan, tool, other, rank)
                break
        return False
    return _fill(plan, tool, recipe, rank)


def _fill(plan: Plan, tool: ToolState, recipe: Recipe, rank: int) -> bool:
    """Reserve ``tool`` for ``recipe``: bring what is missing, or activate it when complete."""
    plan.reserved[tool.name] = recipe
    missing = Counter(recipe.ingredients) - Counter(tool.contents)
    if not missing:
        plan.tasks.append(Task("activate", rank, recipe.product, tool.name, tool.name, tool.busy_until))
        return True
    ok = True
    for ingredient in sorted(missing.elements()):
        ok = _obtain(plan, ingredient, tool.name, rank) and ok
    return ok


def _steps_needed(state: KitchenState, item: str, known: dict[str, int] | None = None) -> int:
    """A lower bound of the steps to make ``item`` from scratch with enough agents (``known``: the
    figures found so far for this item's tree: an ingredient used several times, at several depths,
    is worked out once; without it a tree 6 deep of five-ingredient recipes took 2 s a preview)."""
    if item in BASE_SET:
        return 3  # get, goto, put (agents wait at storage)
    known = {} if known is None else known
    if item not in known:
        recipe = state.level.recipes[item]
        busy = TOOL_KINDS[recipe.tool].busy_steps
        known[item] = max(_steps_needed(state, i, known) for i in recipe.ingredients) + 1 + max(busy, 1) + 2
    return known[item]


def _urgency(state: KitchenState) -> list[Order]:
    """Orders by deadline; those that cannot be finished in time any more go last."""

    def key(order: Order) -> tuple[int, int, int]:
        hopeless = order.remaining(state.step) < _steps_needed(state, order.dish) - 2
        return (int(hopeless), order.deadline, order.id)

    return sorted(state.orders, key=key)


def heuristic(state: KitchenState, agents: Sequence[int]) -> dict[int, str]:
    """The heuristic dispatcher: one command per agent in ``agents``."""
    commandable = [a for a in agents if 0 <= a < len(state.agents)]
    if state.step >= state.level.max_steps:
        return {}
    names = state.level.locations
    plan = Plan(
        state=state,
        commandable=set(commandable),
        serving=next(name for name, kind in names if kind == SERVING_TABLE),
        storage=next(name for name, kind in names if kind == STORAGE),
    )
    plan.held = {a: held for a in commandable if (held := state.agents[a].holding) is not None}
    plan.products = {tool.name: tool.contents[0] for tool in state.tools if _is_product(state, tool)}
    for rank, order in enumerate(_urgency(state)):
        _obtain(plan, order.dish, SERVE, rank)

    puts: dict[int, str] = {}
    gets: dict[int, str] = {}
    moves: dict[int, str] = {}
    busy = {a for a in commandable if state.agents[a].busy_until > state.step}
    for agent in commandable:
        if agent in busy:
            moves[agent] = "noop"
            continue
        where = state.agents[agent].location
        if agent in plan.carrying:
            dest, _ = plan.carrying[agent]
            target = plan.serving if dest == SERVE else dest
            tool = state.tool(target)
            assert tool is not None
            if where != target:
                moves[agent] = f"goto {target}"
            elif tool.busy(state.step):
                moves[agent] = "noop"
            else:
                puts[agent] = f"put {target}"
        elif agent in plan.held:  # nobody needs it: throw it away
            puts[agent] = f"put {plan.storage}" if where == plan.storage else ""
            if not puts[agent]:
                del puts[agent]
                moves[agent] = f"goto {plan.storage}"

    # Products nobody needs block their tool: take them out (then they are thrown away).
    for tool_name in sorted(plan.products):
        tool = state.tool(tool_name)
        assert tool is not None
        plan.tasks.append(Task("clear", 10_000, tool.contents[0], tool_name, plan.storage, tool.busy_until))

    free = [a for a in commandable if a not in busy and a not in puts and a not in moves]
    order_of = {"activate": 0, "deliver": 1, "clear": 2}
    tasks = sorted(plan.tasks, key=lambda t: (t.rank, order_of[t.kind]))
    for task in tasks:
        if not free:
            break
        source = task.source
        assert source is not None
        # Agents standing at the source go first; do not walk to a tool that will stay busy for long.
        at_source = [a for a in free if state.agents[a].location == source]
        if at_source:
            agent = at_source[0]
            if task.ready_at > state.step:
                moves[agent] = "noop"  # wait right here for it
            elif task.kind == "activate":
                gets[agent] = f"activate {source}"
            elif source == plan.storage:
                gets[agent] = f"get {source} {task.item}"
            else:
                gets[agent] = f"get {source}"
            free.remove(agent)
        elif task.ready_at <= state.step + 1:
            agent = free[0]
            moves[agent] = f"goto {source}"
            free.remove(agent)
    _activate_behind_puts(plan, puts, moves, gets, free)
    for agent in free:
        where = state.agents[agent].location
        moves[agent] = "noop" if where == plan.storage else f"goto {plan.storage}"

    # Execution order: puts (serving and deliveries) first, then gets and activations, then moves.
    commands: dict[int, str] = {}
    for group in (puts, gets, moves):
        for agent in sorted(group):
            commands[agent] = group[agent]
    return commands


def _activate_behind_puts(
    plan: Plan, puts: dict[int, str], moves: dict[int, str], gets: dict[int, str], free: list[int]
) -> None:
    """Use idle agents to activate a tool in the very step its last ingredient goes in (commands
    run in order, puts first), or to stand by at a tool whose last ingredient is on its way."""
    state = plan.state
    for tool_name, recipe in sorted(plan.reserved.items()):
        if not free:
            return
        tool = state.tool(tool_name)
        assert tool is not None
        need = Counter(recipe.ingredients) - Counter(tool.contents)
        arriving = Counter(str(state.agents[a].holding) for a, command in puts.items() if command == f"put {tool_name}")
        coming = Counter(str(state.agents[a].holding) for a, command in moves.items() if command == f"goto {tool_name}")
        if not need or need - arriving - coming:
            continue  # already complete (its activation is a task) or still missing something
        helpers = [a for a in free if state.agents[a].location == tool_name]
        if not need - arriving and helpers:
            gets[helpers[0]] = f"activate {tool_name}"
            free.remove(helpers[0])
        elif helpers:  # the last ingredient arrives next step: wait here for it
            moves[helpers[0]] = "noop"
            free.remove(helpers[0])
        else:
            agent = free.pop(0)
            moves[agent] = f"goto {tool_name}"


def random_dispatcher(state: KitchenState, agents: Sequence[int]) -> dict[int, str]:
    """Uniform over each agent's legal commands (the study baseline), drawn from seed and step."""
    commands: dict[int, str] = {}
    for agent in agents:
        if not 0 <= agent < len(state.agents):
            continue
        options = legal_commands(state, agent)
        if options:
            draw = _mix((state.level.seed * 7919 + state.step) * 101 + agent)
            commands[agent] = options[draw % len(options)].text()
    return commands


def _mix(value: int) -> int:
    """A well-spread 64-bit number from ``value`` (splitmix64's finaliser): one draw per agent and
    step without seeding a ``random.Random`` for each."""
    value = (value + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return value ^ (value >> 31)


DISPATCHERS: dict[str, Dispatcher] = {"heuristic": heuristic, "random": random_dispatcher}
