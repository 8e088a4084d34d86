"""Reading, checking and exporting scenarios in the authoring formats of docs/scenarios.md.

Plain Python (no Django). Per domain (``games.studio.formats`` bundles them into each domain's
authoring ``Format``, which its descriptor names):

- ``parse_<domain>(name, text)`` -> the definition the rules play, or ``AuthoringError`` whose
  problems each name a line (when one can be found), a field and what is wrong;
- ``export_<domain>(definition, name)`` -> (file name, text) in the published authoring format;
- ``starter_<domain>()`` -> a small valid example to start from.

Formats: tasks, one TOML task file (or a ``tasks-v1`` JSON definition, e.g. a generated one);
recipes, a JSON recipe or list of recipes as in games/content/recipes/ (or a full definition);
kitchen, a level JSON (``recipes`` optional: missing dishes come from the bundled recipe book);
itinerary, one brief as in games/content/itinerary/briefs.json, over our own travel world.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from games.bundled import CONTENT_DIR
from games.engine.durations import amount_text
from games.engine.fields import closest, unknown_field
from games.studio.locate import Path, json_lines, line_of, toml_action_line, toml_key_line

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,60}$")


@dataclass(frozen=True, slots=True)
class Problem:
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        return f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"


class AuthoringError(ValueError):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


def check_name(name: str) -> None:
    if not NAME.match(name or ""):
        raise AuthoringError(
            [Problem(None, "name", "use lower-case letters, digits and '-' (e.g. make-soup), at most 61 characters")]
        )


def check_text(name: str, text: str, *, named: bool = False) -> None:
    """What every format asks first: a usable name and some text. ``named``: the name is a stored
    scenario's own (a bundled recipe pair is "Lemonade_Banana-Bread"), kept as it is when editing."""
    if not named:
        check_name(name)
    if not text.strip():
        raise AuthoringError([Problem(1, "", "the editor is empty; start from the example")])


def _json(text: str) -> Any:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise AuthoringError(
            [Problem(error.lineno, "", f"not valid JSON: {error.msg} (column {error.colno})")]
        ) from None
    except RecursionError:  # nested thousands deep (Python's own words named its decoder's recursion)
        raise AuthoringError(
            [Problem(1, "", "not a JSON we can read: its lists or objects are nested too deep")]
        ) from None
    except ValueError:  # an integer of 4,300+ digits
        raise AuthoringError([Problem(1, "", "not a JSON we can read: a number has too many digits")]) from None
    if (path := _not_finite(raw)) is not None:
        # Python's JSON reads NaN, Infinity and 1e999, which no check below expects (NaN passes every
        # comparison) and a database's JSON cannot store: refused here, for every field at once
        field = ".".join(map(str, path))
        value = json.dumps(_at(raw, path))
        line = line_of(json_lines(text), path) or 1
        raise AuthoringError([Problem(line, field, f"must be a finite number, not {value}")])
    return raw


def _not_finite(value: Any, path: Path = ()) -> Path | None:
    """The path of the first NaN or infinite number in a parsed JSON value, else None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if (found := _not_finite(item, (*path, key))) is not None:
            return found
    return None


def _at(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value


# -- tasks -----------------------------------------------------------------------------------------
_TOML_FIELDS = {"name": "do", "requires": "after"}
# The most actions a studio definition holds, all its tasks together (docs/scenarios.md): the
# generator makes at most 100 and a published TimeArena task about ten; 1,000-3,000 were accepted
# and held the check and its preview for seconds.
MOST_ACTIONS = 200


def parse_tasks(name: str, text: str) -> dict[str, Any]:
    from games.domains.tasks.content import read_task
    from games.domains.tasks.definition import DefinitionError, check_new, compile_definition, validate

    if text.lstrip().startswith("{"):
        definition = _json(text)
        lines = json_lines(text)
        try:
            validate(definition)
            check_new(definition)
            if (too_many := _too_many_actions(definition)) is not None:
                raise AuthoringError([Problem(line_of(lines, too_many[0]), too_many[1], too_many[2])])
            compile_definition(definition)
        except DefinitionError as error:
            said = [str(error), *_later_task_problems(definition, str(error))]
            raise AuthoringError(_by_line([_json_task_problem(m, definition, lines) for m in said])) from None
        return definition
    try:
        definition = read_task(name, text)
        if (too_many := _too_many_actions(definition)) is not None:
            line = toml_action_line(text, MOST_ACTIONS)  # the first action too many
            raise AuthoringError([Problem(line, "actions", too_many[2])])
        compile_definition(definition)
    except DefinitionError as error:
        message = str(error).removeprefix(f"{name}: ")
        problems = _toml_task_problems(name, text) if not message.startswith("not valid TOML") else []
        raise AuthoringError(problems or [_toml_task_problem(message, text)]) from None
    return definition


def _json_task_problem(message: str, definition: Any, lines: dict[Path, int]) -> Problem:
    """A validation message of a tasks-v1 JSON definition as a problem on its line."""
    path: Path = ()
    task = re.search(r"task '([^']+)'", message)
    if task and isinstance(definition, dict):
        names = [t.get("name") for t in definition.get("tasks", []) if isinstance(t, dict)]
        path = ("tasks", names.index(task.group(1))) if task.group(1) in names else ("tasks",)
    action = re.search(r"actions\[(\d+)\]\.?(\w+)?", message)
    if action:
        path = (*path, "actions", int(action.group(1)), *([action.group(2)] if action.group(2) else []))
    return Problem(line_of(lines, path), _field(message), _tail(message))


def _toml_task_problem(message: str, text: str) -> Problem:
    """A validation message of a task file (its name taken off) as a problem on its line."""
    syntax = re.search(r"\(at line (\d+), column \d+\)", message)
    if syntax:
        return Problem(int(syntax.group(1)), "", message)
    action = re.match(r"actions\[(\d+)\](?:\.(\w+))?", message)
    if action:
        number, key = int(action.group(1)), action.group(2)
        toml_key = _TOML_FIELDS.get(key or "", key)
        line = toml_action_line(text, number, toml_key)
        field = f"actions[{number}]" + (f".{toml_key}" if toml_key else "")
        return Problem(line, field, _tail(message))
    unknown = re.search(r"unknown keys (\w+)", message)
    circle = re.search(r"in a circle: (.+?) ->", message)
    line = None
    if unknown:
        line = toml_key_line(text, unknown.group(1))
    elif circle:
        line = _toml_do_line(text, circle.group(1))
    return Problem(line, "", message)


def _toml_task_problems(name: str, text: str) -> list[Problem]:
    """Every problem of a task file that the checks find in one pass: each action's unknown keys
    (with the closest known one), then each of its fields the definition's checks refuse; [] when
    the file is not a list of action tables (the reader's one message says what is wrong)."""
    import tomllib

    from games.domains.tasks.content import _ACTION_KEYS, _TASK_KEYS
    from games.domains.tasks.definition import FORMAT, DefinitionError, check_new, validate

    try:
        raw = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return []
    actions = raw.get("actions")
    if not isinstance(actions, list) or not actions or not all(isinstance(a, dict) for a in actions):
        return []
    problems = []
    if unknown := sorted(set(raw) - _TASK_KEYS):
        allowed = ", ".join(sorted(_TASK_KEYS))
        said = f"unknown keys {', '.join(unknown)} (allowed: {allowed})"
        problems.append(Problem(toml_key_line(text, unknown[0]), "", said))
    for number, action in enumerate(actions):
        for key in action:
            if key not in _ACTION_KEYS:
                hint = _did_you_mean(key, sorted(_ACTION_KEYS)) or f"; the keys are {', '.join(sorted(_ACTION_KEYS))}"
                said = f"unknown key {key!r}{hint}"
                problems.append(Problem(toml_action_line(text, number, key), f"actions[{number}].{key}", said))
    # the definition the reader makes (games.domains.tasks.content.read_task), the unknown keys left out
    title = raw.get("title") or name
    task = {"name": name, "title": title, "goal": raw.get("goal", ""), "appliances": raw.get("appliances", [])}
    task["actions"] = [
        {
            "name": a.get("do"),
            "minutes": a.get("minutes"),
            "background": a.get("background", False),
            "requires": a.get("after", []),
        }
        for a in actions
    ]
    definition = {"format": FORMAT, "title": title, "tasks": [task]}
    try:
        validate(definition)
        check_new(definition)
    except DefinitionError as error:
        messages = [str(error), *_later_task_problems(definition, str(error))]
        for message in messages:
            problems.append(_toml_task_problem(message.replace(f"task '{name}'.", ""), text))
    return _by_line(problems)


# At most this many problems are collected in one pass (each is one more run of the checks).
MOST_PROBLEMS = 50


def _later_task_problems(definition: Any, message: str) -> list[str]:
    """The validation messages after ``message`` (the first) that the checks find once each field
    they refused is set aside (a bad name renamed, bad minutes set to 1, an unknown prerequisite
    dropped...), until none is left or one is not an action's field (a circle, a task's own field)."""
    from games.domains.tasks.definition import DefinitionError, check_new, validate

    found: list[str] = []
    work = json.loads(json.dumps(definition))
    for _ in range(MOST_PROBLEMS):
        if not _set_aside(work, message):
            break
        try:
            validate(work)
            check_new(work)
        except DefinitionError as error:
            message = str(error)
            if message in found:
                break
            found.append(message)
            continue
        break
    return found


def _set_aside(definition: Any, message: str) -> bool:
    """Make the action field ``message`` refuses valid in ``definition`` (in place), so that the
    checks go on to the next problem; False when the message is not about an action's field."""
    where = re.match(r"task '(.*)'\.actions\[(\d+)\]\.(name|minutes|background|requires): (.*)$", message, re.S)
    if where is None or not isinstance(definition, dict):
        return False
    tasks = [t for t in definition.get("tasks", []) if isinstance(t, dict) and t.get("name") == where.group(1)]
    if not tasks:
        return False
    actions = tasks[0]["actions"]
    number, key, said = int(where.group(2)), where.group(3), where.group(4)
    action = actions[number]
    if key == "name":
        old = action.get("name")
        others = [a.get("name") for a in actions if a is not action]
        # in lower case ("Chop Onion" -> "chop onion", which "after" may already say), else two
        # words no action has
        lower = " ".join(old.lower().split()) if isinstance(old, str) else ""
        fits = len(lower.split()) in (2, 4) and lower not in others
        action["name"] = lower if fits else f"set aside{number}"
        if isinstance(old, str) and old not in others:  # what waits for it waits for the new name
            for other in actions:
                if isinstance(other.get("requires"), list):
                    other["requires"] = [action["name"] if r == old else r for r in other["requires"]]
    elif key == "minutes":
        action["minutes"] = 1
    elif key == "background":
        action["background"] = False
    else:
        requires = action.get("requires")
        named = re.match(r"'(.*)' (is not an action|is listed twice)", said)
        if named and isinstance(requires, list):
            action["requires"] = [r for r in requires if r != named.group(1)]
        else:
            action["requires"] = []
    return True


def _by_line(problems: list[Problem]) -> list[Problem]:
    """The problems in the order of their lines (those without one first), each once."""
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: p.line or 0)


def _too_many_actions(definition: Mapping[str, Any]) -> tuple[Path, str, str] | None:
    """(path, field, what is wrong) when a valid definition has more than MOST_ACTIONS actions:
    one task's, else all its tasks' together; None otherwise."""
    tasks = definition["tasks"]
    for number, task in enumerate(tasks):
        if len(task["actions"]) > MOST_ACTIONS:
            path: Path = ("tasks", number, "actions", MOST_ACTIONS)
            return path, f"task '{task['name']}'.actions", f"at most {MOST_ACTIONS} actions, not {len(task['actions'])}"
    total = sum(len(task["actions"]) for task in tasks)
    if total > MOST_ACTIONS:
        return ("tasks",), "tasks", f"at most {MOST_ACTIONS} actions in all, not {total}"
    return None


def _toml_do_line(text: str, action: str) -> int | None:
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(rf'\s*do\s*=\s*"{re.escape(action)}"', line):
            return number
    return None


def _field(message: str) -> str:
    match = re.match(r"([\w'\[\]. -]+?): ", message)
    return match.group(1) if match else ""


def _tail(message: str) -> str:
    head = _field(message)
    return message[len(head) + 2 :] if head else message


# -- recipes ---------------------------------------------------------------------------------------
# The most recipes a studio definition cooks at once and steps a recipe has (docs/scenarios.md): the
# published pairs have 2 recipes of at most 22 steps, the generator at most 3 of 30. The preview
# plans with the heuristic (stopped by recipes_heuristic.WORK_LIMIT) and then CP-SAT, whose models
# grow with the steps: 5 recipes of 50 steps preview in about 6 s, 10 of 50 took 14 s, 10 of 100
# over a minute.
MOST_RECIPES = 5
MOST_RECIPE_STEPS = 50


def _each_prerequisite_once(definition: Mapping[str, Any]) -> None:
    """Refuse a step of a (loaded) recipes definition that lists a prerequisite twice: the game reads
    each once, but the definition is stored as written (the authored format's reader refuses it too)."""
    from games.domains.recipes.kitchen import DefinitionError

    for number, recipe in enumerate(definition["recipes"]):
        for step in recipe["steps"]:
            seen: set[Any] = set()
            for prerequisite in step.get("prerequisites") or []:
                if prerequisite in seen:
                    where = f"recipes[{number}] step {step.get('index')}"
                    raise DefinitionError(f"{where}: prerequisite {prerequisite} is listed twice")
                seen.add(prerequisite)


def parse_recipes(name: str, text: str) -> dict[str, Any]:
    from games.domains.recipes.dataset import convert_authored, instance_definition
    from games.domains.recipes.kitchen import DefinitionError, load_kitchen

    raw = _json(text)
    lines = json_lines(text)
    single = isinstance(raw, dict) and "recipes" not in raw
    if (too_big := _too_big_recipes(raw, single)) is not None:  # before any step is read
        where, said = too_big
        raise AuthoringError([Problem(line_of(lines, where) or 1, ".".join(map(str, where)) or "recipes", said)])
    try:
        if isinstance(raw, dict) and "recipes" in raw:
            load_kitchen(raw)
            _each_prerequisite_once(raw)
            # the catalogue's note of the recipe versions it built from: a studio text is its own
            # (gold labels applied to a catalogue recipe must not rebuild it)
            return {key: value for key, value in raw.items() if key != "recipe_versions"}
        recipes = [raw] if single else raw
        if not isinstance(recipes, list) or not recipes:
            raise DefinitionError('give one recipe {"name", "steps"} or a list of recipes')
        converted = [convert_authored(recipe, f"recipe {number}") for number, recipe in enumerate(recipes)]
        return instance_definition(converted)
    except DefinitionError as error:
        messages = [str(error)]
        if not (isinstance(raw, dict) and "recipes" in raw):
            messages = _authored_recipe_problems(raw, single) or messages
        raise AuthoringError(_by_line([_recipes_problem(m, raw, lines, single) for m in messages])) from None


def _recipes_problem(message: str, raw: Any, lines: dict[Path, int], single: bool) -> Problem:
    """A recipes validation message as a problem on its line and field."""
    from games.domains.recipes.dataset import AUTHORED_STEP_FIELDS

    number = re.search(r"recipes?\s*\[?(\d+)\]?", message)  # "recipes[1]", "recipe 0 (Soup)"
    recipe: Path = () if single else ((int(number.group(1)),) if number else ())
    whole = isinstance(raw, dict) and "recipes" in raw  # the game's own format: {"recipes": [...]}
    listing = raw["recipes"] if whole else raw
    if not number and not single and isinstance(listing, list):
        named = re.match(r"(\S+) step", message)
        names = [r.get("name") for r in listing if isinstance(r, dict)]
        if named and named.group(1) in names:
            recipe = (names.index(named.group(1)),)
    if whole:
        recipe = ("recipes", *recipe)
    step = re.search(r"step (\d+)", message)
    path: Path = (*recipe, "steps", int(step.group(1))) if step else recipe
    missing = re.search(r"(?:missing|unknown) field '(\w+)'", message)
    # "step 2: time: ...", "step 0: interruptible must be", "step 1: field 'prerequisites': ..."
    about = re.search(r"step \d+: (?:field ')?(\w+)\b", message)
    if missing:
        path = (*path, missing.group(1))
    elif step and about and about.group(1) in AUTHORED_STEP_FIELDS:
        path = (*path, about.group(1))
    field = ".".join(str(p) for p in path) if path else ""
    return Problem(line_of(lines, path), field, message)


# What a step holds when a field of it is checked alone (``_authored_recipe_problems``).
_FILLER_STEP = {"time": "1 min"}


def _authored_recipe_problems(raw: Any, single: bool) -> list[str]:
    """Every problem of authored recipes that lies in one field, each found alone: each recipe's
    unknown fields, then each step's fields one at a time (the step checked with that field only,
    among filler steps, so that its number and the step numbers it names stay as written). The
    checks stop at a text's first problem; this lists them all, so one fix does not reveal the
    next. Empty when the text's shape is not a recipe or a list of them, or when no field is
    wrong alone (the problem is between fields or steps: a circle, an appliance): the caller
    keeps the checks' own message then."""
    from games.domains.recipes.dataset import AUTHORED_RECIPE_FIELDS, convert_authored
    from games.domains.recipes.kitchen import DefinitionError

    recipes = [raw] if single else raw
    if not isinstance(recipes, list):
        return []
    found: list[str] = []

    def said(recipe: Any, where: str) -> None:
        try:
            convert_authored(recipe, where)
        except DefinitionError as error:
            if str(error) not in found:
                found.append(str(error))

    for number, recipe in enumerate(recipes):
        where = f"recipe {number}"
        if (
            not isinstance(recipe, dict)
            or not isinstance(recipe.get("name"), str)
            or not isinstance(recipe.get("steps"), list)
        ):
            said(recipe, where)
            continue
        for key in recipe:
            if key not in AUTHORED_RECIPE_FIELDS:
                said({"name": recipe["name"], "steps": [], key: recipe[key]}, where)
        steps = recipe["steps"]
        for position, step in enumerate(steps):
            if not isinstance(step, dict):
                alone: list[Any] = [step]
            else:
                alone = [{**_FILLER_STEP, key: value} for key, value in step.items()]
                if "time" not in step:
                    alone.append({})  # "missing field 'time'"
            for variant in alone:
                filled = [variant if i == position else _FILLER_STEP for i in range(len(steps))]
                said({"name": recipe["name"], "steps": filled}, where)
            if len(found) >= MOST_PROBLEMS:
                return found
    return found


def _too_big_recipes(raw: Any, single: bool) -> tuple[Path, str] | None:
    """(path, what is wrong) when a recipes text holds more than MOST_RECIPES recipes or a recipe
    more than MOST_RECIPE_STEPS steps, else None (other shapes are the readers' to refuse)."""
    whole = isinstance(raw, dict) and "recipes" in raw
    recipes = raw["recipes"] if whole else [raw] if single else raw
    if not isinstance(recipes, list):
        return None
    if len(recipes) > MOST_RECIPES:
        return ("recipes",) if whole else (), f"at most {MOST_RECIPES} recipes at once, not {len(recipes)}"
    for number, recipe in enumerate(recipes):
        steps = recipe.get("steps") if isinstance(recipe, dict) else None
        if isinstance(steps, list) and len(steps) > MOST_RECIPE_STEPS:
            where: Path = ("recipes", number) if whole else () if single else (number,)
            return (*where, "steps"), f"at most {MOST_RECIPE_STEPS} steps a recipe, not {len(steps)}"
    return None


def _did_you_mean(word: str, known: Iterable[str]) -> str:
    """ "; did you mean 'x'?" for the closest known name, or "" when none is close."""
    near = closest(word, known)
    return f"; did you mean {near!r}?" if near else ""


def _unknown(raw: Mapping[str, Any], known: Sequence[str], what: str = "field") -> tuple[str, str] | None:
    """The first key of ``raw`` that is not one of ``known`` and what to say of it ("unknown field;
    did you mean 'beta'?", else the list of ``what``s), or None."""
    unknown = unknown_field(raw, known, what)
    return (unknown[0], f"unknown {what}; {unknown[1]}") if unknown else None


def with_reference_plans(definition: dict[str, Any]) -> dict[str, Any]:
    """The definition with the heuristic planner's plans as R-Efficiency's reference, computed
    again on every save (a plan written for other steps would be wrong), as the catalogue does."""
    from games.catalog.recipes.services import reference_plans

    saved = {k: v for k, v in definition.items() if k != "reference_plans"}
    plans = reference_plans(saved)
    if plans:
        saved["reference_plans"] = plans
    return saved


# -- kitchen ---------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _recipe_book() -> dict[str, Any]:
    return json.loads((CONTENT_DIR / "kitchen" / "recipes.json").read_text(encoding="utf-8"))


# What a kitchen level may say (docs/scenarios.md); alpha and beta are the level's own order pace
# and dish lifetimes (a game's options override them)
KITCHEN_FIELDS = (
    "name",
    "title",
    "description",
    "kitchen",
    "dishes",
    "recipes",
    "agents",
    "max_steps",
    "alpha",
    "beta",
)


# The most a studio level holds (docs/scenarios.md): the published levels have at most 12 places and
# 5 dishes of recipe trees 3 deep, the generator at most 11 places, 6 dishes and depth 3. A level of
# 2,000 tools took 13 s to check and 72 s to preview; 6,000 ran the server out of memory; a chain of
# 2,000 recipes, each made from the one before, overflowed Python's stack.
MOST_PLACES = 24
MOST_DISHES = 12
MOST_OWN_RECIPES = 100
MOST_RECIPE_DEPTH = 6


def _kitchen_size(raw: dict[str, Any]) -> tuple[str, Path, str] | None:
    """(field, path, what is wrong) when a level lists more places, dishes or own recipes than the studio
    takes, else None (their contents are the readers' to check)."""
    for key, most, what in (("kitchen", MOST_PLACES, "places"), ("dishes", MOST_DISHES, "dishes")):
        if len(raw[key]) > most:
            return key, (key, most), f"at most {most} {what}, not {len(raw[key])}"
    own = raw.get("recipes")
    if isinstance(own, dict) and len(own) > MOST_OWN_RECIPES:
        return "recipes", ("recipes",), f"at most {MOST_OWN_RECIPES} recipes of its own, not {len(own)}"
    return None


def parse_kitchen(name: str, text: str) -> dict[str, Any]:
    """A level; the problems of separate fields at once (each unknown field, each dish without a
    recipe, the number of agents, each tuning), then those that need the rest right, one by one."""
    from games.domains.kitchen.rules import OPTIONS as KITCHEN_OPTIONS
    from games.domains.kitchen.state import MAX_AGENTS, build_level
    from games.domains.kitchen.world import LevelError, parse_recipes, recipe_closure, tree_depths, unmakeable

    raw = _json(text)
    lines = json_lines(text)
    problems: list[Problem] = []

    def note(path: Path, message: str, field: str | None = None) -> None:
        where = field if field is not None else ".".join(map(str, path))
        problems.append(Problem(line_of(lines, path) or 1, where, message))

    def found() -> AuthoringError:
        return AuthoringError(_by_line(problems))

    if not isinstance(raw, dict):
        raise AuthoringError([Problem(1, "", "a level is a JSON object with kitchen, dishes and (optionally) recipes")])
    for key in raw:
        if unknown := _unknown({key: None}, KITCHEN_FIELDS):
            note((unknown[0],), unknown[1])
    shapeless = [key for key in ("kitchen", "dishes") if not isinstance(raw.get(key), list) or not raw[key]]
    for key in shapeless:
        note((key,), "must be a non-empty list")
    if shapeless:
        raise found()
    if too_large := _kitchen_size(raw):
        key, where, message = too_large
        raise AuthoringError([Problem(line_of(lines, where) or line_of(lines, (key,)), key, message)])
    agents = raw.get("agents", 2)
    if isinstance(agents, bool) or not isinstance(agents, int) or not 1 <= agents <= MAX_AGENTS:
        note(("agents",), f"must be a whole number from 1 to {MAX_AGENTS}, not {agents!r}")
    # the level's own length, order pace and dish lifetimes, within what a game's options may set
    # (a preview of 5,000,000 steps held a server thread for minutes; alpha 1e999 crashed it)
    tunings: dict[str, Any] = {}
    for tuning in ("max_steps", "alpha", "beta"):
        if tuning in raw:
            try:
                tunings[tuning] = KITCHEN_OPTIONS[tuning](tuning, raw[tuning])
            except ValueError as error:
                note((tuning,), str(error).removeprefix(f"option {tuning} "))
    own = raw.get("recipes") or {}
    try:
        if not isinstance(own, dict):
            raise LevelError("recipes: must map each product to {tool, ingredients}")
        book = parse_recipes({**_recipe_book(), **own})
        for number, dish in enumerate(raw["dishes"]):
            if dish not in book:
                note(("dishes", number), f"{dish!r} has no recipe{_did_you_mean(str(dish), book)}", f"dishes[{number}]")
        if problems:
            raise found()
        closure = recipe_closure(raw["dishes"], book)
        product, depth = max(tree_depths(closure).items(), key=lambda item: item[1])  # the deepest
        if depth > MOST_RECIPE_DEPTH:
            deep: Path = ("recipes", product) if product in own else ("dishes",)
            message = f"the recipe tree of {product} is {depth} deep; at most {MOST_RECIPE_DEPTH}"
            raise AuthoringError([Problem(line_of(lines, deep) or 1, ".".join(map(str, deep)), message)])
        lacking = unmakeable(raw["dishes"], raw["kitchen"], book)
        if lacking:
            dish, missing = next(iter(lacking.items()))
            number = raw["dishes"].index(dish)
            raise AuthoringError(
                [
                    Problem(
                        line_of(lines, ("kitchen",)),
                        "kitchen",
                        f"{dish} needs {', '.join(missing)}, which the kitchen lacks",
                    ),
                    Problem(line_of(lines, ("dishes", number)), f"dishes[{number}]", f"{dish} cannot be made"),
                ]
            )
        definition = {
            "name": name,
            "title": str(raw.get("title") or name),
            "description": str(raw.get("description") or ""),
            "kitchen": raw["kitchen"],
            "dishes": raw["dishes"],
            "recipes": {product: recipe.to_json() for product, recipe in closure.items()},
            "agents": agents,
            "max_steps": raw.get("max_steps", 60),
            **tunings,
        }
        build_level(definition, seed=0, options=None)
    except (LevelError, ValueError, TypeError) as error:
        if isinstance(error, AuthoringError):
            raise
        message = str(error)
        recipe = re.search(r"recipes? '([^']+)'", message)
        named = next((k for k in ("kitchen", "agents", "max_steps", "dishes") if k in message), None)
        path: Path = ("recipes", recipe.group(1)) if recipe else ((named,) if named else ())
        note(path, message)
        raise found() from None
    return definition


# -- itinerary -------------------------------------------------------------------------------------
_KINDS = {1: "inter-city", 2: "day-plan", 3: "combined"}


# What a brief may say (docs/scenarios.md): a misspelt field or setting is refused, not read as
# left out ("check_opening_hour": true played without opening hours)
# The longest trip a brief's window (begin_time to end_time) may span, in days: the published
# briefs span at most 19 days; an end in year 9999 was accepted, a window of eight millennia
LONGEST_TRIP_DAYS = 366
# The longest stay a brief may ask for: a city's days, a sight's minutes (a visit of 10**10 minutes
# held the check for 31 s while the simulator counted its days one by one)
MOST_WANTED = {"cities": LONGEST_TRIP_DAYS, "spots": 24 * 60}
BRIEF_FIELDS = ("name", "title", "kind", "question", "settings", "cities", "spots")
BRIEF_SETTINGS = (
    "begin_time",
    "end_time",
    "origin_city",
    "origin_place",
    "check_opening_hours",
    "check_meal",
    "one_day",
    "limit",
    "budget",
    "set_budget",
    "time_min",
    "time_max",
    "money_min",
    "money_max",
)


def parse_itinerary(name: str, text: str) -> dict[str, Any]:
    """A brief; every problem the checks find at once, where one does not depend on another (each
    field, each setting, each city and sight), in the order of their lines."""
    from games.domains.itinerary.samples import definition_from_sample
    from games.importers.itinerary_content import FOLDER, as_sample, read_world

    raw = _json(text)
    lines = json_lines(text)
    problems: list[Problem] = []

    def note(path: Path, message: str) -> None:
        problems.append(Problem(line_of(lines, path) or 1, ".".join(map(str, path)), message))

    def fail(path: Path, message: str) -> AuthoringError:
        note(path, message)
        return AuthoringError(_by_line(problems))

    if not isinstance(raw, dict):
        raise fail((), "a brief is a JSON object with kind, question, settings and cities or spots")
    for key in raw:
        if unknown := _unknown({key: None}, BRIEF_FIELDS):
            note((unknown[0],), unknown[1])
    kind = raw.get("kind")
    if isinstance(kind, bool) or not isinstance(kind, int) or kind not in _KINDS:  # [1] was a server error
        note(("kind",), "must be 1 (inter-city), 2 (day plan) or 3 (combined)")
    question = raw.get("question")
    if not isinstance(question, str) or not re.search(r"as little (money|time) as possible", question, re.I):
        note(("question",), "must say what to minimise: 'spend as little money|time as possible'")
        question = None
    tables = read_world(FOLDER / "world.json")
    cities = {city for _, city, *_ in tables.places}
    spots = {place for place, _, kind, *_ in tables.places if kind == "spot"}
    settings = raw.get("settings")
    if isinstance(settings, dict):
        _itinerary_settings_problems(settings, tables.places, cities, note)
    else:
        note(("settings",), "must be an object with begin_time, end_time and origin_city")
    origin = settings.get("origin_city") if isinstance(settings, dict) else None
    for key, unit in (("cities", "days"), ("spots", "minutes")):
        wanted = raw.get(key)
        if wanted is not None and not isinstance(wanted, dict):
            example = '{"Millbrook": 1}' if key == "cities" else '{"Old Town Walls": 45}'
            note((key,), f"must be an object of {unit} per name, like {example}")
            continue
        most = MOST_WANTED[key]
        for place, amount in (wanted or {}).items():
            if key == "cities" and place not in cities:
                note((key, place), f"unknown city {place!r}; our world has {', '.join(sorted(cities))}")
            elif key == "spots" and place not in spots:
                home = sorted(p for p, city, kind, *_ in tables.places if kind == "spot" and city == origin)
                listed = f"; the sights of {origin}: {', '.join(home)}" if home else ""
                note((key, place), f"unknown sight {place!r}{_did_you_mean(place, spots) or listed}")
            if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= most:
                message = f"must be a whole number of {unit} from 1 to {most}, not {json.dumps(amount)}"
                note((key, place), message)
    if not raw.get("cities") and not raw.get("spots"):
        note((), "ask for something: 'cities' ({city: days}) and/or 'spots' ({sight: minutes})")
    if question is not None and not problems and (said := _question_disagrees(question, raw)) is not None:
        note(*said)
    if problems:
        raise AuthoringError(_by_line(problems))
    try:
        definition = definition_from_sample(int(raw["kind"]), 0, as_sample(raw), tables)
    except (KeyError, ValueError, TypeError) as error:
        raise fail(("settings",), str(error)) from None
    definition["title"] = str(raw.get("title") or name)
    definition["source"] = {"dataset": "studio", "sample": name, "settings": settings}
    return definition


def _itinerary_settings_problems(
    settings: Mapping[str, Any],
    places: Sequence[tuple[str, str, str, int, int]],
    cities: set[str],
    note: Callable[[Path, str], None],
) -> None:
    """Each problem of a brief's settings, to ``note``: each unknown setting, each time, the
    origin city, then (when those are right) the first of the others."""
    for key in settings:
        if unknown := _unknown({key: None}, BRIEF_SETTINGS, "setting"):
            note(("settings", unknown[0]), unknown[1])
    times: dict[str, datetime] = {}
    for key in ("begin_time", "end_time"):
        given = str(settings.get(key, ""))
        try:  # "2024-05-99 07:00" had the shape and named no field once the simulator read it
            parsed = datetime.strptime(given, "%Y-%m-%d %H:%M")
        except ValueError:
            note(("settings", key), "must be a time like 2024-05-02 07:00")
            continue
        if not re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", given):
            note(("settings", key), "must be a time like 2024-05-02 07:00")
            continue
        times[key] = parsed
    if len(times) == 2:
        if settings["begin_time"] >= settings["end_time"]:
            note(("settings", "end_time"), "must be after begin_time")
        elif times["end_time"] - times["begin_time"] > timedelta(days=LONGEST_TRIP_DAYS):
            latest = times["begin_time"] + timedelta(days=LONGEST_TRIP_DAYS)  # before end_time: no overflow
            latest_text = f"{latest.year:04d}-{latest:%m-%d %H:%M}"
            message = f"must be at most {LONGEST_TRIP_DAYS} days after begin_time: {latest_text} at the latest"
            note(("settings", "end_time"), message)
    if not isinstance(settings.get("origin_city"), str) or settings["origin_city"] not in cities:
        note(("settings", "origin_city"), f"unknown city; our world has {', '.join(sorted(cities))}")
    elif (problem := _brief_settings_problem(settings, places)) is not None:
        note(("settings", problem[0]), problem[1])


def _question_disagrees(question: str, raw: Mapping[str, Any]) -> tuple[tuple[str, str], str] | None:
    """(field, what is wrong) where the question a player reads names another amount than the wish
    the trip is scored on ("Old Town Walls for 45 minutes" beside spots 120), or None."""
    for key, unit in (("spots", "minutes?"), ("cities", "days?")):
        for place, amount in (raw.get(key) or {}).items():
            found = re.search(rf"{re.escape(place)} for (\d+) {unit}\b", question, re.I)
            if found and int(found.group(1)) != amount:
                said = found.group(0)
                return (key, place), f"is {amount}, but the question says '{said}': make them agree (players read both)"
    return None


def _brief_settings_problem(
    settings: Mapping[str, Any], places: Sequence[tuple[str, str, str, int, int]]
) -> tuple[str, str] | None:
    """(setting, what is wrong) for the first setting past the times and the origin city that the
    simulator would misread (a "yes" taken as true, a "tim" limit, a negative budget), or None."""
    for key in ("check_opening_hours", "check_meal", "set_budget", "one_day"):
        value = settings.get(key)
        if key in settings and not (isinstance(value, bool) or (key == "one_day" and value in (0, 1))):
            return key, f"must be true or false, not {json.dumps(value)}"
    if "limit" in settings and settings["limit"] not in ("money", "time"):
        return (
            "limit",
            f'must be "money" or "time" (what the efficiency range measures), not {json.dumps(settings["limit"])}',
        )
    for key in ("budget", "time_min", "time_max", "money_min", "money_max"):
        value = settings.get(key)
        if key in settings and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
            unit = "seconds" if key.startswith("time") else "money"
            return key, f"must be a number of {unit}, 0 or more, not {json.dumps(value)}"
    for low, high in (("time_min", "time_max"), ("money_min", "money_max")):
        if low in settings and high in settings and settings[low] >= settings[high]:
            return high, f"must be more than {low} ({settings[low]})"
    origin, place = settings["origin_city"], settings.get("origin_place")
    if place is not None:
        home = sorted(name for name, city, *_ in places if city == origin)
        if place not in home:
            hint = _did_you_mean(str(place), home) or f"; the places of {origin}: {', '.join(home)}"
            return "origin_place", f"not a place in {origin}{hint} (or leave it out: the city's railway hotel)"
    return None


# -- exports and starters ---------------------------------------------------------------------------
def export_tasks(definition: dict[str, Any], name: str) -> tuple[str, str]:
    """One task as TOML; several (a generated or combined definition), or one played with one of each
    appliance (``"constrained": true``, which a task file cannot say), as its JSON."""
    tasks = definition.get("tasks", [])
    if len(tasks) != 1 or definition.get("constrained"):
        return f"{name}.json", json.dumps(definition, indent=2) + "\n"
    return f"{name}.toml", _task_toml(tasks[0])


def export_recipes(definition: dict[str, Any], name: str) -> tuple[str, str]:
    return f"{name}.json", json.dumps([_authored_recipe(r) for r in definition["recipes"]], indent=2) + "\n"


def export_kitchen(definition: dict[str, Any], name: str) -> tuple[str, str]:
    return f"{name}.json", json.dumps({k: definition[k] for k in KITCHEN_FIELDS if k in definition}, indent=2) + "\n"


def export_itinerary(definition: dict[str, Any], name: str) -> tuple[str, str]:
    return f"{name}.json", json.dumps(_brief(definition, name), indent=2, ensure_ascii=False) + "\n"


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _task_toml(task: dict[str, Any]) -> str:
    out = [f"title = {_toml_string(task.get('title') or task['name'])}", f"goal = {_toml_string(task.get('goal', ''))}"]
    out.append(f"appliances = [{', '.join(_toml_string(a) for a in task.get('appliances', []))}]")
    for action in task["actions"]:
        out += ["", "[[actions]]", f"do = {_toml_string(action['name'])}", f"minutes = {action['minutes']}"]
        if action.get("background"):
            out.append("background = true")
        if action.get("requires"):
            out.append(f"after = [{', '.join(_toml_string(r) for r in action['requires'])}]")
    return "\n".join(out) + "\n"


def _authored_recipe(recipe: dict[str, Any]) -> dict[str, Any]:
    steps = []
    for step in recipe["steps"]:
        out: dict[str, Any] = {"text": step["text"], "time": amount_text(int(step["duration"]))}
        for flag in ("autonomous", "interruptible"):
            if step.get(flag):
                out[flag] = True
        if step.get("prerequisites"):
            out["prerequisites"] = list(step["prerequisites"])
        if step.get("time_constraints"):
            out["time_constraints"] = {k: amount_text(int(v)) for k, v in step["time_constraints"].items()}
        physical = {
            appliance: {k: v for k, v in use.items() if v} for appliance, use in (step.get("physical") or {}).items()
        }
        if physical:
            out["physical"] = physical
        steps.append(out)
    return {"name": recipe["name"], "steps": steps}


def _brief(definition: dict[str, Any], name: str) -> dict[str, Any]:
    kind = {v: k for k, v in _KINDS.items()}.get(definition.get("kind", ""), 3)
    constraints = definition.get("constraints", {})
    brief: dict[str, Any] = {
        "name": name,
        "title": definition.get("title", name),
        "kind": kind,
        "question": definition.get("brief", ""),
        "settings": (definition.get("source") or {}).get("settings", {}),
    }
    if constraints.get("city_days"):
        brief["cities"] = {c["city"]: c["days"] for c in constraints["city_days"]}
    if constraints.get("spot_minutes"):
        brief["spots"] = {s["spot"]: s["minutes"] for s in constraints["spot_minutes"]}
    return brief


def starter_tasks() -> str:
    return (CONTENT_DIR / "tasks" / "make-tea.toml").read_text(encoding="utf-8")


def starter_recipes() -> str:
    return (CONTENT_DIR / "recipes" / "Lemonade.json").read_text(encoding="utf-8")


def starter_kitchen() -> str:
    return (CONTENT_DIR / "kitchen" / "salad-bar.json").read_text(encoding="utf-8")


def starter_itinerary() -> str:
    briefs = json.loads((CONTENT_DIR / "itinerary" / "briefs.json").read_text(encoding="utf-8"))
    return json.dumps(briefs[0], indent=2, ensure_ascii=False) + "\n"
