"""The kitchen board for people: readable place and item names, the floor plan, the recipe book,
the commands grouped by place, and one log line per step.

It reads only ``observe(state, agent).data`` of the kitchen rules (shape in
``games/domains/kitchen/rules.py``) and the seat names, so the live page and the replay show the
same board.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from games.timeline import first_word

KIND_WORDS = {"servingtable": "Serving table", "chopboard": "Chopping board"}
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_AGENT = re.compile(r"\bagent(\d+)\b")
_ACTIVATED = re.compile(r"\bactivated\b")
_MADE = re.compile(r"has already made (\w+); take it with get\(agent\d+, (\w+)\)")
_ORDER = re.compile(r"order #\d+")
_FULL = re.compile(r"\bis full \((\d+)\)")
_DISPATCH = re.compile(r"\b(goto|get|put|activate|noop)\(agent(\d+)(?:, (\w+))?(?:, (\w+))?\)")


def item_name(item: str | None) -> str:
    """``eggOnToast`` -> ``egg on toast``."""
    if not item:
        return ""
    return _CAMEL.sub(" ", item).lower()


_PLACE = re.compile(r"\b([a-z]+)(\d+)\b")
SINGLE = ("storage", "servingtable")  # a kitchen has one of each


def place_name(raw: str) -> str:
    """``pan0`` -> "Pan 1", ``storage0`` -> "Storage" (a pure function of the name, so a message
    can be read without the level)."""
    match = _PLACE.fullmatch(raw)
    if match is None:
        return raw
    kind, index = match.group(1), int(match.group(2))
    word = KIND_WORDS.get(kind, kind.capitalize())
    return word if kind in SINGLE and index == 0 else f"{word} {index + 1}"


def place_names(locations: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    return {loc["name"]: place_name(loc["name"]) for loc in locations}


def viewer_names(viewer: int | None, agents: int = 8) -> list[str]:
    """Seat names as ``seat_names`` gives them to a player of one seat, without the details."""
    names, mates = [], 0
    for agent in range(agents):
        if agent == viewer:
            names.append("You")
        else:
            mates += 1
            names.append(f"Teammate {mates}" if viewer is not None else f"Player {agent + 1}")
    return names


def humanize_for(message: str, viewer: int | None) -> str:
    """A rules message as the player of seat ``viewer`` reads it."""
    from games.domains.kitchen.world import TOOL_KINDS

    places = {m.group(0): place_name(m.group(0)) for m in _PLACE.finditer(message) if m.group(1) in TOOL_KINDS}
    return humanize(message, viewer_names(viewer), places)


def command_label(
    command: str,
    places: Mapping[str, str],
    holding: str | None = None,
    contents: Mapping[str, Sequence[str]] | None = None,
) -> tuple[str, str | None]:
    """A short command (``get storage0 tomato``) as words, and the place it acts on. ``holding``:
    what the agent holds, to name it (for a teammate, where "what you hold" would be wrong);
    ``contents``: what each place holds, to name what a ``get`` from a tool takes (its last item,
    the cooked product once it has run)."""
    parts = command.split()
    verb = parts[0] if parts else ""
    place = parts[1] if len(parts) > 1 else None
    where = places.get(place or "", place or "")
    if verb == "noop":
        return "Wait this step", None
    if verb == "goto":
        return f"Walk to {where}", place
    if verb == "get":
        if len(parts) > 2:
            return f"Take {item_name(parts[2])}", place
        inside = (contents or {}).get(place or "")
        return (f"Take the {item_name(inside[-1])} from {where}" if inside else f"Take from {where}"), place
    if verb == "put":
        held = item_name(holding)
        if place and place.startswith("storage"):
            return (f"Throw away the {held}" if held else "Throw away what you hold"), place
        if place and place.startswith("servingtable"):
            return (f"Serve the {held}" if held else "Serve what you hold"), place
        return (f"Put the {held} into {where}" if held else f"Put it into {where}"), place
    if verb == "activate":
        return f"Start {where}", place
    return command, place


def wanted_items(data: Mapping[str, Any]) -> list[str]:
    """Every item the open orders need, dish first, down to base ingredients (for ordering the
    storage's 27 ingredients: the useful ones first)."""
    recipes = data.get("recipes", {})
    wanted: list[str] = []

    def walk(item: str) -> None:
        if item in wanted:
            return
        wanted.append(item)
        for part in recipes.get(item, {}).get("ingredients", []):
            walk(part)

    for order in data.get("orders", []):
        walk(order["dish"])
    return wanted


FOLD_AT = 2  # fewer other places than this stay in the list


def places_in_use(data: Mapping[str, Any], wanted: Sequence[str]) -> set[str]:
    """The places worth walking to now: storage and the serving table, every tool with something
    in it or at work, and for each kind of tool the open orders need, the first empty one."""
    needed = {data.get("recipes", {}).get(item, {}).get("tool") for item in wanted} - {None}
    near: set[str] = set()
    kinds_offered: set[str] = set()
    locations = data.get("locations", [])
    for loc in locations:
        if loc["kind"] in SINGLE or loc.get("contents") or loc.get("busy"):
            near.add(loc["name"])
        elif loc["kind"] in needed and loc["kind"] not in kinds_offered:
            near.add(loc["name"])
            kinds_offered.add(loc["kind"])
    return near


def contents_of(data: Mapping[str, Any]) -> dict[str, Sequence[str]]:
    """What each place holds, by its name."""
    return {loc["name"]: loc.get("contents") or () for loc in data.get("locations", [])}


def _holding(data: Mapping[str, Any]) -> str | None:
    """What the viewer's agent holds (the buttons name it: "Put the tomato into Chopping board 2")."""
    you = data.get("you")
    for agent in data.get("agents", []):
        if agent.get("id") == you:
            held = agent.get("holding")
            return held if isinstance(held, str) else None
    return None


def action_groups(
    actions: Sequence[str], data: Mapping[str, Any], places: Mapping[str, str], you_at: str | None
) -> list[dict[str, Any]]:
    """The viewer's legal commands grouped: what can be done here, where to walk, waiting."""
    wanted = wanted_items(data)
    here: list[dict[str, Any]] = []
    walk: list[dict[str, Any]] = []
    wait: list[dict[str, Any]] = []
    holding = _holding(data)
    contents = contents_of(data)
    for action in actions:
        label, place = command_label(action, places, holding, contents)
        button: dict[str, Any] = {"action": action, "label": label, "place": place or ""}
        verb = action.split()[0] if action else ""
        if verb == "noop":
            wait.append(button)
        elif verb == "goto":
            walk.append(button)
        else:
            parts = action.split()
            item = parts[2] if verb == "get" and len(parts) > 2 else None
            button["useful"] = item is None or item in wanted
            here.append(button)
    # ingredients the orders need first; the rest folded away (still a click or Enter away)
    useful = [b for b in here if b.get("useful", True)]
    others = [b for b in here if not b.get("useful", True)]
    groups: list[dict[str, Any]] = []
    here_title = f"Here at {places.get(you_at or '', you_at or '')}"
    # Throwing away what an open order still needs is never the next thing to do: at the Storage
    # it was key 1, so a player pressing 1 to take an ingredient and 1 again threw it away; it goes
    # after the walks (what nothing needs is still first: throwing it away is what to do with it).
    spoiling = holding is not None and holding in wanted
    last = [b for b in useful if spoiling and _throws_away(b["action"])]
    useful = [b for b in useful if b not in last]
    # a tool that holds a whole recipe is started next, not emptied: after "1 Put the tomato into
    # Chopping board 1", key 1 was "Take the tomato from Chopping board 1", which undid the put
    # (the rules offer "activate" only for a whole recipe and empty hands)
    useful.sort(key=lambda b: not b["action"].startswith("activate "))
    if useful or others:
        groups.append({"title": here_title, "buttons": useful})
    if others:
        groups.append(
            {
                "title": f"Other ingredients ({len(others)}, no open order needs them)",
                "buttons": others,
                "collapsed": True,
            }
        )
    # the places the open orders need now first; the others folded, a summary away (Enter opens it)
    near = places_in_use(data, wanted)
    handy = [b for b in walk if b["place"] in near]
    rest = [b for b in walk if b["place"] not in near]
    if len(rest) <= FOLD_AT:
        handy, rest = walk, []
    # with something in hand, the walks to where it goes come first (the serving table for an
    # ordered dish, a tool whose recipe takes it for anything else)
    targets = _destinations(data, holding) if holding else set()
    handy.sort(key=lambda b: b["place"] not in targets)
    # holding what nothing can take now (every tool for it in use), no walk is the next thing to
    # do: the first walk went Storage -> Serving table -> Storage for a player pressing 1; waiting
    # for a tool to free up comes first
    if holding and not targets and wait:
        groups.append({"title": "", "buttons": wait})
        wait = []
    if handy:
        groups.append({"title": "Walk to", "buttons": handy})
    if rest:
        groups.append({"title": f"Walk to another place ({len(rest)})", "buttons": rest, "collapsed": True})
    if last:
        groups.append({"title": here_title, "buttons": last})
    if wait:
        groups.append({"title": "", "buttons": wait})
    return groups


def _ordered(data: Mapping[str, Any], item: str) -> bool:
    return any(order["dish"] == item for order in data.get("orders", []))


def _uses(data: Mapping[str, Any], item: str) -> list[tuple[str, str]]:
    """What ``item`` goes into: (product, tool kind) for every recipe that takes it."""
    return [
        (product, recipe["tool"])
        for product, recipe in data.get("recipes", {}).items()
        if item in recipe.get("ingredients", [])
    ]


def _takes(data: Mapping[str, Any], loc: Mapping[str, Any], item: str) -> bool:
    """Whether the tool at ``loc`` can take ``item`` now: not at work, and what it holds with the
    item is part of one of its kind's recipes (a tool holding a whole recipe, or its product, is
    started or emptied first)."""
    if loc.get("busy"):
        return False
    with_item = Counter([*(loc.get("contents") or []), item])
    return any(
        recipe.get("tool") == loc["kind"] and not (with_item - Counter(recipe.get("ingredients", [])))
        for recipe in data.get("recipes", {}).values()
    )


def _destinations(data: Mapping[str, Any], item: str) -> set[str]:
    """The places ``item`` goes next (as ``held_hint`` says): the serving table when it is ordered,
    else every tool whose recipe takes it and that can take it now (with both steamers in use, the
    first walk offered went from one to the other and back: a newcomer pressing 1 paced between
    them for 35 steps)."""
    if _ordered(data, item):
        return {loc["name"] for loc in data.get("locations", []) if loc["kind"] == "servingtable"}
    kinds = {tool for _, tool in _uses(data, item)}
    return {loc["name"] for loc in data.get("locations", []) if loc["kind"] in kinds and _takes(data, loc, item)}


def _throws_away(action: str) -> bool:
    parts = action.split()
    return len(parts) > 1 and parts[0] == "put" and parts[1].startswith("storage")


def held_hint(data: Mapping[str, Any], places: Mapping[str, str]) -> str:
    """What the viewer can do with what they hold, from the recipe book and the open orders."""
    you = data.get("you", 0)
    me = next((a for a in data.get("agents", []) if a["id"] == you), None)
    item = me.get("holding") if me else None
    if not item or data.get("over"):  # the kitchen has closed: nothing more to do with it
        return ""
    if _ordered(data, item):
        return f"You hold {item_name(item)}, which is ordered: serve it at the Serving table."
    uses = _uses(data, item)
    wanted = set(wanted_items(data))
    uses.sort(key=lambda use: use[0] not in wanted)
    if not uses and item in data.get("dishes", []):  # a dish whose order ran out: no Serve button
        return (
            f"You hold {item_name(item)}, which no open order wants now: keep it in case it is ordered "
            "again, or throw it away at the Storage."
        )
    if not uses:
        return f"You hold {item_name(item)}; nothing here needs it: throw it away at the Storage."
    product, tool = uses[0]
    kind = [loc for loc in data.get("locations", []) if loc["kind"] == tool]
    free = [places.get(loc["name"], loc["name"]) for loc in kind if _takes(data, loc, item)]
    if kind and not free:
        taken = " and ".join(places.get(loc["name"], loc["name"]) for loc in kind)
        both = "both " if len(kind) == 2 else "all " if len(kind) > 2 else ""
        return (
            f"You hold {item_name(item)} for {item_name(product)}, but {taken} {'is' if len(kind) == 1 else 'are'} "
            f"{both}in use: wait until one is emptied, or throw the {item_name(item)} away at the Storage to free "
            "your hands (starting a tool needs them)."
        )
    where = " or ".join(free) or KIND_WORDS.get(tool, tool)
    return f"You hold {item_name(item)}: it goes into the {where} to make {item_name(product)}."


def recipe_book(data: Mapping[str, Any], places: Mapping[str, str]) -> list[dict[str, Any]]:
    """For every dish that can be ordered, its tree: what goes into which tool to make what."""
    recipes = data.get("recipes", {})
    tools_of_kind: dict[str, list[str]] = {}
    for loc in data.get("locations", []):
        tools_of_kind.setdefault(loc["kind"], []).append(places.get(loc["name"], loc["name"]))

    def node(item: str, depth: int = 0) -> dict[str, Any]:
        recipe = recipes.get(item)
        if recipe is None or depth > 8:
            return {"item": item_name(item), "base": True, "parts": []}
        tool = recipe["tool"]
        where = tools_of_kind.get(tool, [KIND_WORDS.get(tool, tool)])
        return {
            "item": item_name(item),
            "base": False,
            "tool": KIND_WORDS.get(tool, tool.capitalize()),
            "where": " or ".join(where),
            "parts": [node(part, depth + 1) for part in recipe.get("ingredients", [])],
        }

    ordered = {order["dish"] for order in data.get("orders", [])}
    return [dict(node(dish), ordered=dish in ordered) for dish in data.get("dishes", [])]


def floor_plan(data: Mapping[str, Any], places: Mapping[str, str], names: Sequence[str]) -> list[dict[str, Any]]:
    """One tile per place: its contents, busy countdown, and the agents standing there."""
    step = int(data.get("step", 0))
    short = [n.split(" (")[0] for n in names]
    tiles = []
    for loc in data.get("locations", []):
        busy_steps = int(loc.get("busy_steps") or 0)
        left = max(0, int(loc.get("busy_until", 0)) - step) if loc.get("busy") else 0
        agents = [
            {
                "id": a["id"],
                "name": short[a["id"]] if a["id"] < len(short) else f"Agent {a['id'] + 1}",
                "holding": item_name(a.get("holding")),
                "busy_left": max(0, int(a.get("busy_until", 0)) - step) if a.get("busy") else 0,
                "pending": a.get("pending"),
            }
            for a in data.get("agents", [])
            if a.get("location") == loc["name"]
        ]
        contents = [item_name(c) for c in loc.get("contents", [])]
        tiles.append(
            {
                "name": loc["name"],
                "label": places.get(loc["name"], loc["name"]),
                "kind": loc["kind"],
                "contents": contents,
                "busy_left": left,
                "busy_pct": round(100 * (busy_steps - left) / busy_steps) if left and busy_steps else 100,
                "ready": bool(contents) and loc.get("pickable") and loc["kind"] not in ("storage", "chopboard"),
                "agents": agents,
            }
        )
    return tiles


def humanize(message: str, names: Sequence[str], places: Mapping[str, str]) -> str:
    """A rules message with people's and places' names instead of ``agent1`` and ``pan0``."""

    def agent(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return names[index].split(" (")[0] if index < len(names) else f"Agent {index + 1}"

    # "Mixer 1 has already made salsa; take it with get(agent0, mixer0)": the quoted command reads
    # as the button does, "Take the salsa from Mixer 1"
    made = {tool: [item] for item, tool in _MADE.findall(message)}

    def command(match: re.Match[str]) -> str:
        verb, who, place, item = match.groups()
        short = " ".join(part for part in (verb, place, item) if part)
        label = command_label(short, places, contents=made)[0]
        return f"{agent(who_match(who))} waited" if verb == "noop" else f"“{label}”"

    def who_match(who: str) -> re.Match[str]:
        match = _AGENT.match(f"agent{who}")
        assert match is not None
        return match

    text = _DISPATCH.sub(command, message)
    text = _AGENT.sub(agent, text)
    # the rules speak of agents in the third person
    for third, second in (("You is", "You are"), ("You holds", "You hold"), ("You already holds", "You already hold")):
        text = text.replace(third, second)
    # and in their own words: the buttons say "Start Mixer 1", a tool's capacity is a count
    text = _ACTIVATED.sub("started", text)
    text = _FULL.sub(lambda m: f"is full (it holds {m.group(1)} item{'' if m.group(1) == '1' else 's'})", text)
    for raw, nice in sorted(places.items(), key=lambda kv: -len(kv[0])):
        text = re.sub(rf"\b{re.escape(raw)}\b", nice, text)
    return re.sub(r"\b[a-z]+(?:[A-Z][a-z]*)+\b", lambda m: item_name(m.group(0)), text)


def log_lines(entries: Sequence[dict[str, Any]], names: Sequence[str], places: Mapping[str, str]) -> list[dict]:
    """One line per step: the step's commands and order news joined; commitments (a command
    waiting for its step) are shown on the board, not logged."""
    lines: list[dict[str, Any]] = []
    served = ""  # the order a serve completed, said on the serve's own line
    for entry in entries:
        if entry["category"] == "engine" and entry["kind"] == "committed":
            continue
        if entry["category"] == "engine" and entry["kind"] == "order_completed":
            # "order #1 (salsa) completed by agent1" comes just before "agent1 served salsa"
            found = _ORDER.search(entry["message"])
            if found is not None:
                served = found.group(0)
                continue
        text = humanize(entry["message"], names, places)
        if served and entry["kind"] == "completed" and " served " in text:
            text, served = f"{text} ({served} done)", ""
        if entry["kind"] == "rejected":
            who = entry.get("agent")
            name = names[who].split(" (")[0] if who is not None and who < len(names) else "Someone"
            text = f"{name} could not: {text}"
        last = lines[-1] if lines else None
        step = _step_of(entry)
        if step is not None:  # a tool that works at once (the mixer) is not "ready at step 18" at step 18
            text = text.replace(f"ready at step {step}", "ready now")
        if step is not None and entry["kind"] in ("order_arrived", "order_expired") and step != int(entry["time"]):
            # the line of step 4 read "new order #2" beside a header that had said "next order at
            # step 5": it says the step the order's news is for
            text = f"{text} ({'from' if entry['kind'] == 'order_arrived' else 'at'} step {int(entry['time'])})"
        part = (text, _tone(entry["kind"], text))
        if last is not None and entry["category"] == "engine" and last.get("step") == step:
            last["message"] = f"{last['message']} · {text}"
            last["parts"].append(part)
            last["seq"] = entry["seq"]
            continue
        line = dict(entry, message=text, step=step if entry["category"] == "engine" else None)
        if step is not None and entry["category"] == "engine":
            line["time"] = step
            line["parts"] = [part]  # the page colours each part of a step's line by itself
        lines.append(line)
    return lines


def _tone(kind: str, text: str) -> str:
    """How a part of a step's line reads at a glance: ``ok`` (a dish served), ``bad`` (a refusal,
    an order missed) or plain; a whole line in one colour (every accepted command is "completed")
    would hide the one that matters."""
    if kind in ("rejected", "order_expired"):
        return "bad"
    return "ok" if kind == "completed" and " served " in text else ""


def _step_of(entry: dict[str, Any]) -> int | None:
    """The step whose execution wrote ``entry``: orders that arrive or run out, and the closing,
    are stamped with the next step's number."""
    if entry["category"] != "engine":
        return None
    time = int(entry["time"])
    return time - 1 if entry["kind"] in ("order_arrived", "order_expired", "finished") and time > 0 else time


class KitchenPresenter:
    """The kitchen's board presenter, named by its descriptor (``extra["presenter"]``)."""

    # a bar is one step's command; a striped one, a tool the agent started cooking by itself
    legend = (("occupying", "a command (one step)"), ("background", "a tool cooking by itself"), ("wait", "wait"))
    # a step an agent let pass without a command (a player who did not click in time, an LLM
    # teammate whose reply came late) is drawn as a wait, not left blank
    gaps_are_waits = True

    def board(self, data: Mapping[str, Any], names: Sequence[str], actions: Sequence[str]) -> dict[str, Any]:
        if not data.get("locations"):
            return {}
        places = place_names(data["locations"])
        you = data.get("you", 0)
        me: Mapping[str, Any] = next((a for a in data.get("agents", []) if a["id"] == you), {})
        contents = contents_of(data)
        return {
            "places": places,
            "names": list(names),
            "floor": floor_plan(data, places, names),
            "book": recipe_book(data, places),
            "groups": action_groups(actions, data, places, me.get("location")),
            "held": held_hint(data, places),
            # steps left to act in: an order that would outlast them reads so (its own count misled)
            "closes_in": max(0, int(data.get("max_steps", 0)) - int(data.get("step", 0))),
            "pending": command_label(me["pending"], places, me.get("holding"), contents)[0]
            if me.get("pending")
            else "",
            # each agent's committed command, its held item named (the board lists teammates too)
            "next": {
                a["id"]: command_label(a["pending"], places, a.get("holding"), contents)[0]
                for a in data.get("agents", [])
                if a.get("pending")
            },
        }

    def describe(self, data: Mapping[str, Any]) -> Callable[[dict[str, Any]], str]:
        places = place_names(data.get("locations", []))

        def label(details: dict[str, Any]) -> str:
            match = _DISPATCH.match(str(details.get("command", "")))
            if not match:
                return str(details.get("action") or details.get("command") or "action")
            verb, _, place, item = match.groups()
            if verb == "get" and not item:
                item = details.get("item")
            held = details.get("item") if verb == "put" else None  # what was put, served or thrown away
            command = " ".join(part for part in (verb, place, item) if part)
            return command_label(command, places, held if isinstance(held, str) else None)[0]

        return label

    def abbreviate(self, data: Mapping[str, Any]) -> Callable[[str], str]:
        """A one-step bar is too narrow for "Walk to Storage": it reads "Walk"."""
        return first_word

    def log_lines(self, entries: Sequence[dict[str, Any]], names: Sequence[str], board: Mapping[str, Any]) -> list:
        if "places" not in board:
            return list(entries)
        # the lines name their agents themselves ("You went to Pan 1")
        # (a chat line keeps its sender's name: its text is the sender's own words)
        lines = log_lines(entries, names, board["places"])
        return [e if e["category"] == "chat" else dict(e, agent=None, agent_label="") for e in lines]

    def feedback(self, message: str, viewer: int | None, data: Mapping[str, Any] | None = None) -> str:
        return humanize_for(message, viewer)

    def result_table(
        self, key: str, result: Mapping[str, Any], names: Sequence[str]
    ) -> tuple[tuple[str, ...], tuple[tuple[str | int, ...], ...]] | None:
        """The commands by cook as a table whose numbers add up to the steps played: each cook
        has one command or none per step. The rules count a "Wait this step" (noop) both as
        accepted (a command carried out) and as idle (a step doing nothing): "accepted 60, idle 3"
        in 60 steps. Here accepted is the steps with a command carried out other than a wait, so
        accepted = steps - refused - idle (a result stored before has the same counts)."""
        cooks = result.get(key)
        steps = result.get("steps")
        if key != "agents" or not isinstance(cooks, list) or len(cooks) != len(names) or not isinstance(steps, int):
            return None
        rows = []
        for name, cook in zip(names, cooks, strict=True):
            refused, idle = int(cook.get("rejected", 0)), int(cook.get("idle", 0))
            rows.append((name, max(steps - refused - idle, 0), refused, idle))
        return ("cook", "accepted", "refused", "idle"), tuple(rows)


PRESENTER = KitchenPresenter()
