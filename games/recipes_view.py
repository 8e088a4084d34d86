"""The recipes board for a first-time player, drawn from ``observe(state, agent).data`` alone
(shape in games/domains/recipes/observation.py): each step's state and what blocks it, the
countdowns of time windows, the appliances in words, what the cook is doing, the next event, and
the legal actions as readable buttons ("Start Omelette step 0: Crack three eggs...").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from games import timeline
from games.domains.recipes.text import recipe_title, short_titles
from games.engine.durations import short_clock
from games.presenters import in_readers_words

_STEP = re.compile(r"^\s*(step|pause)\s*\(\s*(\d+)\s*,\s*([^,()]+?)\s*\)\s*$", re.I)
TEXT_LENGTH = 60
_BAR_STEP = re.compile(r"^(.+) step (\d+)$")  # a timeline bar's label ("Banana Bread step 1")


def clock(seconds: float | int | None) -> str:
    """Game seconds as m:ss, or h:mm:ss from an hour; nothing for no time."""
    return "" if seconds is None else short_clock(seconds)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT_LENGTH else text[: TEXT_LENGTH - 1].rstrip() + "…"


def _value(value: Any) -> str:
    if value is None:
        return "not set"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def appliance_state(props: Mapping[str, Any]) -> str:
    """'350 degrees', 'not heated', or '' for an appliance without properties."""
    parts = []
    for key, value in props.items():
        if key == "temperature":
            parts.append("not heated" if value is None else f"{_value(value)} degrees")
        else:
            parts.append(f"{key.replace('_', ' ')} {_value(value)}")
    return ", ".join(parts)


def _blocked_by(step: Mapping[str, Any], recipe: Mapping[str, Any], data: Mapping[str, Any], agent: int) -> str:
    """Why a step that is not done or running cannot start now, in a few words."""
    steps = recipe["steps"]
    waiting = [index for index in step["prerequisites"] if steps[index]["status"] != "done"]
    if waiting:
        index, before = waiting[0], steps[waiting[0]]
        if len(waiting) > 1:  # Omelette step 3 read "waits for step 0" when it waited for 0 and 2
            return f"waits for steps {', '.join(map(str, waiting[:-1]))} and {waiting[-1]}"
        if before["status"] == "running" and before["running_until"] is not None:
            return f"waits for step {index} (ends at {clock(before['running_until'])})"
        return f"waits for step {index} ({_short(before['text']).rstrip('.')})"
    appliance = _appliance_block(step, data)
    cook = next((c for c in data["cooks"] if c["agent"] == agent), None)
    if cook and cook["busy"]:
        doing = _step_doing(cook, data)
        has_window = any(c["deadline"] is not None for c in step["time_constraints"])
        if doing is not None and doing["interruptible"] and has_window and not appliance:
            # a player who stayed busy with a step they could have paused lost a closing window;
            # said where a window runs and pausing would let the step start, not on every step
            name = f"{recipe_title(cook['doing']['recipe'])} step {cook['doing']['step']}"
            return f"you are busy with {name} until {clock(cook['busy_until'])}: pause it to start this now"
        # both hold it: each is said (it read "you are busy until 19:08" of a step whose stove was
        # in use until 35:55)
        return f"you are busy until {clock(cook['busy_until'])}" + (f", and {appliance}" if appliance else "")
    return appliance or "cannot start yet"


def _appliance_block(step: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """Why the step's appliances keep it from starting now ("" if they do not)."""
    appliances = {a["name"]: a for a in data["appliances"]}
    for use in step["appliances"]:
        here = appliances.get(use["name"])
        if here is None:
            continue
        if here["in_use"]:
            user = here["users"][0]
            return f"the {use['name']} is in use until {clock(user['until'])}"
        for key, wanted in use["require"].items():
            if here["state"].get(key) != wanted:
                need = appliance_state({key: wanted})
                return f"needs the {use['name']} at {need} (now {appliance_state({key: here['state'].get(key)})})"
    return ""


def _step_doing(cook: Mapping[str, Any], data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The step a busy cook is doing (from the observation's ``doing``), or None."""
    doing = cook.get("doing")
    if not doing:
        return None
    for recipe in data["recipes"]:
        if recipe["name"] == doing.get("recipe"):
            steps = recipe["steps"]
            index = doing.get("step")
            return steps[index] if isinstance(index, int) and 0 <= index < len(steps) else None
    return None


def _over(data: Mapping[str, Any]) -> bool:
    """Whether the observed game is over (success or failure)."""
    return data.get("status", "playing") != "playing"


def recipe_cards(data: Mapping[str, Any], agent: int) -> list[dict[str, Any]]:
    cards = []
    over = _over(data)
    for recipe in data["recipes"]:
        steps = []
        for step in recipe["steps"]:
            status = step["status"]
            state = status
            why = ""
            if over and status != "done":  # no countdown or "ready" once the game is over
                state, why = "blocked", "not done when the game ended"
            elif status in ("todo", "paused"):
                if step["can_start_at"] == data["time"]:
                    state = "ready" if status == "todo" else "paused"
                else:
                    state = "blocked" if status == "todo" else "paused"
                    why = _blocked_by(step, recipe, data, agent)
            deadline = next(
                (c["deadline"] for c in step["time_constraints"] if c["deadline"] is not None and status != "done"),
                None,
            )
            running = step["chunks"][-1] if state == "running" and step["chunks"] else None
            steps.append(
                {
                    "index": step["index"],
                    "text": step["text"],
                    "state": state,
                    "why": why,
                    "duration": clock(step["duration"]),
                    "remaining": clock(step["remaining"]),
                    "autonomous": step["autonomous"],
                    "interruptible": step["interruptible"],
                    "appliances": [a["name"] for a in step["appliances"]],
                    "run_start": running["start"] if running else None,
                    "run_end": running["end"] if running else None,
                    "deadline": deadline if state not in ("running", "done") and not over else None,
                    "deadline_left": _left(deadline, data) if deadline is not None else "",  # was "start by 600 s"
                    "windows": [
                        f"must start within {clock(c['within'])} of step {c['after']} ending"
                        for c in step["time_constraints"]
                    ],
                }
            )
        shown = {k: recipe[k] for k in ("name", "complete", "done", "total")}
        cards.append({**shown, "title": recipe_title(recipe["name"]), "steps": steps})
    return cards


def appliance_rows(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for appliance in data["appliances"]:
        users = [f"{recipe_title(u['recipe'])} step {u['step']} until {clock(u['until'])}" for u in appliance["users"]]
        rows.append(
            {
                "name": appliance["name"].capitalize(),
                "state": appliance_state(appliance["state"]),
                "use": "in use by " + ", ".join(users) if users else "free",
                "in_use": appliance["in_use"],
            }
        )
    return rows


def cook_line(data: Mapping[str, Any], agent: int, actions: Sequence[str]) -> str:
    """What the cook is doing, in a few words; ``actions``: the cook's legal actions (none: free,
    but nothing can start now)."""
    cook = next((c for c in data["cooks"] if c["agent"] == agent), None)
    if cook is None:
        return ""
    if _over(data):
        return "done: the game is over"
    if cook["busy"] and cook["doing"]:
        return _busy_with(cook)
    if not actions:
        end = _next_end(data)
        return f"free: nothing can start before {clock(end['end'])}" if end else "free: nothing can start now"
    return "free: start a step"


def _busy_with(cook: Mapping[str, Any]) -> str:
    doing = cook["doing"]
    return f"busy with {recipe_title(doing['recipe'])} step {doing['step']} until {clock(cook['busy_until'])}"


def _left(moment: float, data: Mapping[str, Any]) -> str:
    """The time from the state's own to ``moment``, as the clock writes it (what a replay's board,
    which does not tick, says is left; the live page's script counts it down)."""
    return clock(max(0, int(moment - data["time"])))


def cook_lines(data: Mapping[str, Any], names: Sequence[str]) -> list[tuple[str, str]]:
    """Each cook's name and what they are doing, for a reader without a seat (a watcher, a
    replay): the "You" card would speak of a seat that is not theirs."""
    lines = []
    for cook in data["cooks"]:
        agent = int(cook["agent"])
        name = names[agent] if 0 <= agent < len(names) else f"Cook {agent + 1}"
        if _over(data):
            line = "done"
        elif cook["busy"] and cook["doing"]:
            line = _busy_with(cook)
        else:
            line = "free"
        lines.append((name, line))
    return lines


def _next_end(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The running step that ends first (what can unblock the kitchen), or None."""
    running = [r for r in data["running"] if r["end"] > data["time"]]
    return min(running, key=lambda r: (r["end"], r["recipe"], r["step"])) if running else None


def idle_hint(data: Mapping[str, Any], agent: int, actions: Sequence[str]) -> str:
    """Why a free cook has no buttons, and when that changes ("" unless free with no action)."""
    cook = next((c for c in data["cooks"] if c["agent"] == agent), None)
    if actions or cook is None or cook["busy"] or _over(data):
        return ""
    end = _next_end(data)
    when = (
        f"when {recipe_title(end['recipe'])} step {end['step']} ends at {clock(end['end'])}"
        if end
        else "when that changes"
    )
    return (
        "You are free, but no step can start now (each step on the board says what it waits for). "
        f"Your next actions appear {when}."
    )


def next_event(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The next thing that happens by itself: a running step ending, or a window closing; nothing
    once the game is over."""
    if _over(data):
        return None
    options = [(r["end"], f"{recipe_title(r['recipe'])} step {r['step']} ends") for r in data["running"]]
    options += [
        (d["deadline"], f"{recipe_title(d['recipe'])} step {d['step']} must have started") for d in data["deadlines"]
    ]
    options = [o for o in options if o[0] >= data["time"]]
    if not options:
        return None
    at, what = min(options)
    return {"at": at, "clock": clock(at), "what": what, "in": _left(at, data)}  # "in" read "in 507"


def action_groups(actions: Sequence[str], data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The legal actions as readable buttons: steps to start now, then pauses."""
    texts = {(r["name"].casefold(), s["index"]): (r["name"], s) for r in data["recipes"] for s in r["steps"]}
    start: list[dict[str, Any]] = []
    pause: list[dict[str, Any]] = []
    other: list[dict[str, Any]] = []
    for action in actions:
        match = _STEP.match(action)
        found = texts.get((match.group(3).strip().casefold(), int(match.group(2)))) if match else None
        if match is None or found is None:
            other.append({"action": action, "label": action})
            continue
        name, step = recipe_title(found[0]), found[1]
        if match.group(1).lower() == "pause":
            ends = f" (it ends at {clock(step['running_until'])})" if step["running_until"] is not None else ""
            pause.append({"action": action, "label": f"Pause {name} step {step['index']}{ends}"})
            continue
        kind = "runs by itself" if step["autonomous"] else "keeps you busy"
        verb = "Resume" if step.get("status") == "paused" else "Start"  # a paused step goes on where it stopped
        left = f"{clock(step['remaining'])} left" if verb == "Resume" else clock(step["remaining"])
        label = f"{verb} {name} step {step['index']}: {_short(step['text'])} ({left}, {kind})"
        button: dict[str, Any] = {"action": action, "label": label}
        if missed := _window_missed(data, found[0], step):
            # one missed window ends the game: a player started a five-minute chop with a window
            # closing in 1:30 and only learned of it from the result
            button.update({"label": f"{label}; {missed}", "risky": True})
        start.append(button)
    groups: list[dict[str, Any]] = []
    if start:
        groups.append({"title": "Start now", "buttons": start})
    if pause:
        # no number key: pressing 1 to start something, a player busy with a pausable step paused it
        groups.append({"title": "Pause", "buttons": pause, "unkeyed": True})
    if other:
        groups.append({"title": "", "buttons": other})
    upcoming = next_event(data)
    if upcoming is not None:
        # the websocket's wait: time moves to the next event (a running clock moves by itself, so
        # real-time games leave this button out: ``lockstep_only``)
        wait = {
            "action": "wait",
            "label": f"Wait until the next event ({upcoming['clock']}: {upcoming['what']})",
            "vals": json.dumps({"type": "wait"}),
            "wait": True,
            "lockstep_only": True,
        }
        groups.append({"title": "Wait", "buttons": [wait]})
    return groups


def _window_missed(data: Mapping[str, Any], recipe: str, step: Mapping[str, Any]) -> str:
    """What starting ``step`` would cost: the first open time window, of a step not started yet,
    that closes before it ends while it keeps the cook busy, or while it holds an appliance that
    step needs (a "runs by itself" melt on the stove lost a porridge's stir; "" if none)."""
    ends = data["time"] + step["remaining"]
    uses = {use["name"] for use in step["appliances"]}
    todo = {(r["name"], s["index"]): s for r in data["recipes"] for s in r["steps"] if s["status"] == "todo"}
    for window in data.get("deadlines", []):  # soonest first
        other = (window["recipe"], window["step"])
        if other == (recipe, step["index"]) or other not in todo or window["deadline"] < data["time"]:
            continue
        if ends <= window["deadline"]:
            continue
        name = f"{recipe_title(window['recipe'])} step {window['step']}"
        if not step["autonomous"]:
            return f"you would be busy past {clock(window['deadline'])}, when {name} must have started"
        shared = sorted(uses & {use["name"] for use in todo[other]["appliances"]})
        if shared:
            return f"the {shared[0]} would be in use past {clock(window['deadline'])}, when {name} must have started"
    return ""


def board(data: Mapping[str, Any], actions: Sequence[str], names: Sequence[str] = ()) -> dict[str, Any]:
    agent = int(data.get("agent", 0))
    cooks = cook_lines(data, names)
    return {
        "cooks": cooks,
        # beside "You": what each teammate is doing (a player saw a step running and not who ran it)
        "teammates": [line for line, cook in zip(cooks, data["cooks"], strict=True) if int(cook["agent"]) != agent],
        "cards": recipe_cards(data, agent),
        "appliances": appliance_rows(data),
        "cook": cook_line(data, agent, actions),
        "idle_hint": idle_hint(data, agent, actions),
        "next_event": next_event(data),
        "now": clock(data["time"]),
        "groups": action_groups(actions, data),
    }


_HHMMSS = re.compile(r"\b(\d{2}):([0-5]\d):([0-5]\d)\b")


def people_clock(message: str) -> str:
    """The rules' ``HH:MM:SS`` (Recipe2Plan's, kept for programs and prompts) as the page writes
    game time: "it ends at 00:10:28" -> "it ends at 10:28", beside a log line stamped 10:28."""
    return _HHMMSS.sub(lambda m: short_clock(int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])), message)


# The rules tell a program what to send to carry on a paused step ("continue it later with
# Step(2, Tomato-Soup)."); a person has the step's Start button for that.
_CARRY_ON = re.compile(r"; continue it (?:later )?with (?:another )?Step\([^)]*\)\.")
# Recipe2Plan's word for a step that runs by itself, which the rules say for programs beside its
# meaning; the board's legend and the buttons say "runs by itself"
_AUTONOMOUS = "(autonomous, runs by itself)"
# The result's durations in seconds, written as the game's clock writes them ("21:30")
_CLOCKED_RESULTS = {"makespan_seconds", "executed_seconds", "autonomous_seconds"}
_DURATIONS = {*_CLOCKED_RESULTS, "reference_makespan_seconds"}


def recipe_titles(data: Mapping[str, Any]) -> dict[str, str]:
    """Each recipe of the observation ``data`` whose title is not its name: "Tomato-Soup" -> "Tomato Soup"."""
    names = [str(recipe["name"]) for recipe in data.get("recipes", ())]
    return {name: recipe_title(name) for name in names if recipe_title(name) != name}


def people_words(message: str, titles: Mapping[str, str]) -> str:
    """A rules' message as the board writes it: game time as m:ss, recipes by their titles ("Step 1
    of Tomato-Soup is complete." -> "Step 1 of Tomato Soup is complete.") and a paused step's way
    on as the button it is, not the command a program sends."""
    message = _CARRY_ON.sub("; start it again to carry on.", message).replace(_AUTONOMOUS, "(runs by itself)")
    for name, title in titles.items():
        message = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", title, message)
    return people_clock(message)


class RecipesPresenter:
    """The recipes descriptor's board presenter (``games.presenters.presenter``)."""

    legend = (("occupying", "keeps the cook busy"), ("background", "runs by itself"), ("wait", "wait"))

    def board(self, data: Mapping[str, Any], names: Sequence[str], actions: Sequence[str]) -> dict[str, Any]:
        return board(data, actions, names) if data.get("recipes") else {}

    def tick_text(self, data: Mapping[str, Any]) -> Callable[[float], str]:
        """The timeline's axis in game time as the clock writes it ("10:00", not "600")."""
        return clock

    def describe(self, data: Mapping[str, Any]) -> Callable[[dict[str, Any]], str]:
        """A timeline bar's words: the step by its recipe's title, as on the board."""

        def label(details: dict[str, Any]) -> str:
            if "recipe" in details:
                details = {**details, "recipe": recipe_title(str(details["recipe"]))}
            return timeline.default_label(details)

        return label

    def abbreviate(self, data: Mapping[str, Any]) -> timeline.Abbreviate:
        """A narrow bar's label: the recipe's initials and the step ("BB 1" for "Banana Bread step
        1"); the recipe's first word where two recipes share initials ("Tomato 2", "Tray 2")."""
        short = short_titles([recipe_title(str(r["name"])) for r in data.get("recipes", ())])

        def abbreviated(label: str) -> str:
            match = _BAR_STEP.match(label)
            if match is None:
                return ""
            title, step = match.groups()
            return f"{short.get(title) or short_titles([title])[title]} {step}"

        return abbreviated

    def log_lines(self, entries: Sequence[dict[str, Any]], names: Sequence[str], board: Mapping[str, Any]) -> list:
        titles = {card["name"]: card["title"] for card in board.get("cards", ()) if card["name"] != card["title"]}
        # a refusal after the seat's name says what it is ("Teammate 1 could not: Step 4 of Lemonade
        # is already complete ..."), as the tasks and kitchen logs say it; one in the reader's own
        # words ("You are ...") has no name before it and needs none
        return [
            dict(
                e,
                message=(
                    "could not: "
                    if e.get("kind") == "rejected" and e.get("category") == "engine" and not in_readers_words(e)
                    else ""
                )
                + people_words(str(e.get("message", "")), titles),
            )
            for e in entries
        ]

    def feedback(self, message: str, viewer: int | None, data: Mapping[str, Any] | None = None) -> str:
        """A refusal or the outcome as the board writes it: recipes by their titles, as the log
        names them (the toast said "Step 0 of Tomato-Soup" beside a log of "Tomato Soup")."""
        return people_words(message, recipe_titles(data or {}))

    def result_hidden(self, result: Mapping[str, Any]) -> set[str]:
        """A failed game's timings count the planned end of the steps under way (a game over at
        15:31 read "makespan 16:21") and its efficiencies score them (a failed game read
        "R-efficiency 113", better than the plan): the page leaves them out; exports keep them."""
        hidden = {"reference_makespan_seconds"} if result.get("reference_makespan_seconds") is None else set()
        return hidden if result.get("success", True) else {*hidden, *_CLOCKED_RESULTS, "efficiency", "r_efficiency"}

    def result_text(self, key: str, value: Any) -> str | None:
        """A duration of the result as the clock writes it ("21:30", not 1290 seconds)."""
        if key in _DURATIONS and isinstance(value, int | float) and not isinstance(value, bool):
            return short_clock(value)
        return None


PRESENTER = RecipesPresenter()
