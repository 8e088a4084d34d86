"""Our engine beside the original research code, on the same work, interleaved (issue 18).

``bench.engine_speed`` divides our figures by issue 18's quoted figures for the original code, which
were measured on another day: a machine twice as fast (or half as loaded) doubles the ratio. This
module runs the original code itself, from clones of the public repositories, in the same process,
alternating with ours round by round, and prints both speeds and their ratio (above 1: ours is
faster). CPU time of this process (``time.process_time``).

The original code is not part of this repository and never copied into it: clone the repositories
into one folder and name it in ``BENCH_ORIGINALS`` (default ``var/originals``)::

    git clone https://github.com/ykzhang721/TimeArena      var/originals/TimeArena
    git clone https://github.com/WilliamZR/Recipe2Plan     var/originals/Recipe2Plan
    git clone https://github.com/mindagent/mindagent      var/originals/mindagent
    git clone https://github.com/yxwang8775/TDAG          var/originals/TDAG

A domain whose clone is absent is skipped. What each side plays (docs/engine-speed.md says why):

- tasks: TimeArena cooking1+cooking2+cooking4 with one pot, fryer and oven (the original's
  ``--constraint``; our compose shares appliances the same way), one agent, the script of
  ``engine_speed`` (start the first startable action when nothing runs, else wait) played by both
  to the same end: the original one call of ``step`` per minute (an occupying action repeated each
  minute, as its ``LLM_test.py`` does), ours the decisions and the time passing between them.
  Not cooking1+2+3, issue 18's work: there the original refuses to add the mushrooms to cooking2's
  dish (``constraint_only_for_task`` lists only the renamed noodle as what may go in it), so its
  game never ends.
- recipes: the 130 plans of ``engine_speed`` (heuristic plans of the 65 published pairs, with and
  without time constraints), one Step per turn; the original's ``Environment.execute_step``.
- kitchen: CuisineWorld level_3, 4 agents, 10 episodes of 60 steps, each side choosing every agent's
  action uniformly among its own legal actions (the same policy, not the same choices); the
  original's ``World.available_actions`` and ``step``. Needs ``networkx`` importable (the original
  computes recipe dependencies with it); its plotting and gym imports are stood in for.
- itinerary: our planner's plans of the 357 published samples it plans, scored by each side (ours
  ``check_plan``; the original's ``TravelSimulator``: ``action`` per line, ``over``, ``get_score``,
  its prints sent to /dev/null). The original asks a database server over HTTP for every ticket and
  place; here that query goes straight to the published ``travel.db`` with ``sqlite3``, which only
  makes the original faster.

``python -m bench side_by_side``; ``BENCH_SIDE_DOMAINS=tasks,recipes`` for some domains,
``BENCH_SIDE_ROUNDS`` (default 7) rounds of both sides.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sqlite3
import statistics
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.engine_speed import (
    cpu_per_call,
    itinerary_plans,
    kitchen_episode,
    kitchen_level,
    next_deadline,
    recipes_games,
    recipes_play,
    tasks_definition,
    tasks_episode,
    tasks_script,
)

Report = Callable[..., None]

ORIGINALS = Path(os.environ.get("BENCH_ORIGINALS") or Path(__file__).resolve().parents[1] / "var" / "originals")
ROUNDS = int(os.environ.get("BENCH_SIDE_ROUNDS", "7"))
REPOSITORIES = {
    "tasks": ("TimeArena", "ykzhang721/TimeArena"),
    "recipes": ("Recipe2Plan", "WilliamZR/Recipe2Plan"),
    "kitchen": ("mindagent", "mindagent/mindagent"),
    "itinerary": ("TDAG", "yxwang8775/TDAG"),
}


@contextlib.contextmanager
def _imported_from(folder: Path, stand_ins: dict[str, types.ModuleType] | None = None) -> Iterator[None]:
    """Import the original code from ``folder`` (first on ``sys.path``), with ``stand_ins`` for the
    modules it imports but the measured code does not use; afterwards every module it added is
    dropped from ``sys.modules`` again (its generic names, ``utils``, ``environment``, ``agents``,
    would shadow one another's)."""
    before = set(sys.modules)
    sys.path.insert(0, str(folder))
    sys.modules.update(stand_ins or {})
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in set(sys.modules) - before:
            del sys.modules[name]


def _module(name: str, **attributes: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


def _side_by_side(
    report: Report, label: str, unit: str, work: int, ours: Callable[[], Any], theirs: Callable[[], Any]
) -> None:
    """``ROUNDS`` rounds, each half a second of ours then half a second of theirs; ``work`` units
    (decisions, steps, plans) per call. Prints each side's median speed and the ratio of each
    round's pair (lowest, median, highest): a shared machine's load moves both sides of a pair alike."""
    our_speeds, their_speeds, ratios = [], [], []
    ours()  # warm: scenarios compiled, caches filled, as in the middle of a run
    theirs()
    for _ in range(ROUNDS):
        our_seconds, _ = cpu_per_call(ours)
        their_seconds, _ = cpu_per_call(theirs)
        our_speeds.append(work / our_seconds)
        their_speeds.append(work / their_seconds)
        ratios.append(their_seconds / our_seconds)
    report(f"{label}: ours (median of {ROUNDS} rounds)", statistics.median(our_speeds), unit)
    report(f"{label}: original (median of {ROUNDS} rounds)", statistics.median(their_speeds), unit)
    low, middle, high = min(ratios), statistics.median(ratios), max(ratios)
    report(f"{label}: ours / original", middle, f"x (rounds {low:.2f}-{high:.2f})")


# --- tasks (TimeArena) --------------------------------------------------------------------------

TASKS = ["cooking1", "cooking2", "cooking4"]


def _tasks(report: Report, datasets: Path, folder: Path) -> None:
    from games.domains.tasks.rules import RULES

    definition = tasks_definition(datasets, TASKS)
    if definition is None:
        print(f"  tasks skipped: {datasets / 'timearena'} is absent")
        return
    options = {"time_limit": 120}
    log = tasks_script(definition, options)

    def ours() -> Any:
        state = tasks_episode(definition, options, log)
        while not state.ended:  # the last action's minutes: both sides play to the game's end
            state = RULES.advance(state, next_deadline(RULES, state)).state
        return state

    # The original package imports its LLM clients (openai, langchain) at the top; not used here.
    with _imported_from(folder, {"TimeArena.calling": _module("TimeArena.calling")}):
        from TimeArena.environment import TimeArena

    def theirs(check: bool = False) -> tuple[int, bool]:
        game = TimeArena()
        game.load(types.SimpleNamespace(taskName=TASKS, constraint=True))
        minute, done = 0, False
        for action, at in log:
            if check and minute != at:
                raise RuntimeError(f"the original's clock is at {minute} where ours decides {action!r} at {at}")
            observation, _, done, occupied, refused = game.step(action)
            minute += 1
            if check and refused:
                raise RuntimeError(f"the original refuses {action!r} at minute {at}: {observation.strip()}")
            while occupied:  # the agent repeats its occupying action every minute until it is done
                _, _, done, occupied, _ = game.step(action)
                minute += 1
        return minute, done

    end = ours()
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            their_end, their_done = theirs(check=True)
        except RuntimeError as error:
            print(f"  tasks skipped: the two codes do not play the same game ({error})")
            return
    if (their_end, their_done) != (end.time, True):
        print(f"  tasks skipped: ours ends at minute {end.time}, the original at {their_end} (completed: {their_done})")
        return
    waits = sum(action == "wait" for action, _ in log)
    print(
        f"  tasks: {'+'.join(TASKS)}, one pot, fryer and oven, {len(log)} decisions ({waits} waits); "
        f"both complete every task at minute {end.time} (the original in {their_end} calls of step)"
    )
    _side_by_side(report, "tasks, episodes", "episodes/s", 1, ours, theirs)


# --- recipes (Recipe2Plan) ----------------------------------------------------------------------


def _recipes(report: Report, datasets: Path, folder: Path) -> None:
    games = recipes_games(datasets)
    if not games:
        print(f"  recipes skipped: {datasets / 'recipe2plan'} is absent")
        return
    published = json.loads((datasets / "recipe2plan" / "cooking.json").read_text(encoding="utf-8"))
    raw_by_names = {tuple(recipe["recipe"] for recipe in instance): instance for instance in published}
    with _imported_from(folder / "evaluation"):
        from environment import Environment  # type: ignore[import-not-found]

    # Their Step is (step, recipe, seconds, start in seconds): our plan items, in our turn order.
    plays = [
        (
            raw_by_names[tuple(recipe["name"] for recipe in definition["recipes"])],
            not options["time_constraints"],
            items,
        )
        for definition, options, _, items in games
    ]

    def theirs() -> None:
        for goals, ignore_time_constraints, items in plays:
            environment = Environment(goals, ignore_time_constraints=ignore_time_constraints)
            for step, recipe, seconds, start in items:
                environment.execute_step((step, recipe, seconds, start))

    theirs()  # raises (ExecutionError) if the original refuses a step of our plans
    steps = sum(len(items) for _, _, items in plays)
    print(f"  recipes: {len(games)} plans of the published pairs, {steps} Step actions; the original accepts every one")
    _side_by_side(report, "recipes, Step actions", "steps/s", steps, lambda: recipes_play(games), theirs)


# --- kitchen (CuisineWorld) ---------------------------------------------------------------------


def _kitchen(report: Report, datasets: Path, folder: Path) -> None:
    import random

    try:
        import networkx  # type: ignore[import-untyped]  # noqa: F401
    except ModuleNotFoundError:
        print("  kitchen skipped: the original needs networkx (`.venv/bin/pip install networkx`)")
        return
    definition = kitchen_level(datasets)
    if definition is None:
        print(f"  kitchen skipped: {datasets / 'cuisineworld'} is absent or its level_3 does not load")
        return
    agents, seeds, steps = 4, range(10), 60

    # gym's registration, gymnasium's observation space and matplotlib's plots are not measured.
    box = type("Box", (), {"__init__": lambda self, *args, **kwargs: None})
    gymnasium = _module("gymnasium", spaces=_module("gymnasium.spaces", Box=box))
    stand_ins = {
        "gym": _module("gym", envs=_module("gym.envs", register=lambda **kwargs: None)),
        "gymnasium": gymnasium,
        "gymnasium.spaces": gymnasium.spaces,
        "matplotlib": _module("matplotlib", use=lambda *args, **kwargs: None),
        "matplotlib.pyplot": _module("matplotlib.pyplot"),
    }
    here = Path.cwd()
    os.chdir(folder)  # its levels module reads assets/recipe.json from the working folder
    try:
        with _imported_from(folder, stand_ins):  # and imports its own modules as it runs
            from overcooked.game import World  # type: ignore[import-not-found]

            def their_episode(seed: int) -> None:
                world = World(
                    num_agents=agents,
                    max_steps=steps,
                    recipe_filename=str(folder / "assets" / "recipe.json"),
                    task_filename=str(folder / "assets" / "tasks_level_final.json"),
                    level="level_3",
                    seed=seed,
                    play_mode="random_agent",
                )
                world.reset()
                rng = random.Random(seed)
                for _ in range(steps):
                    commands = []
                    for agent, actions in enumerate(world.available_actions()):
                        verb, *rest = rng.choice(actions).split(" ")
                        commands.append("_".join([verb, f"agent{agent}", *rest]))
                    world.step(commands)

            def theirs() -> None:
                with contextlib.redirect_stdout(io.StringIO()):
                    for seed in seeds:
                        their_episode(seed)

            print(
                f"  kitchen: level_3, {agents} agents, {len(seeds)} episodes of {steps} steps, "
                "uniform random legal actions"
            )
            _side_by_side(
                report,
                "kitchen, steps",
                "steps/s",
                len(seeds) * steps,
                lambda: [kitchen_episode(definition, s, agents) for s in seeds],
                theirs,
            )
    finally:
        os.chdir(here)


# --- itinerary (TDAG's ItineraryBench) ----------------------------------------------------------

_CALL = re.compile(r"^\s*(\w+)\((.*)\)\s*$")


def _their_line(line: str) -> str:
    """Our action line ``go_to_city(A, B, t1, t2, K1)`` as the Python call TDAG evaluates."""
    found = _CALL.match(line)
    if found is None:
        raise ValueError(f"not an action call: {line!r}")
    name, arguments = found.groups()
    return f"{name}({', '.join(repr(argument.strip()) for argument in arguments.split(','))})"


def _itinerary(report: Report, datasets: Path, folder: Path) -> None:
    from games.domains.itinerary.tools import check_plan

    plans = itinerary_plans(datasets)
    if not plans:
        print(f"  itinerary skipped: {datasets / 'itinerarybench'} is absent")
        return
    database = sqlite3.connect(datasets / "itinerarybench" / "travel.db", check_same_thread=False)

    def query_database(query: str) -> list[tuple[Any, ...]]:  # their HTTP database tool, in process
        return database.execute(query).fetchall()

    config = _module(
        "utils.config_manager",
        ConfigManager=type(
            "ConfigManager", (), {"clear_proxies": lambda self: None, "apply_proxies": lambda self: None}
        ),
    )
    stand_ins = {
        "requests": _module("requests"),
        "utils": _module("utils", config_manager=config),
        "utils.config_manager": config,
    }
    with _imported_from(folder, stand_ins):
        from task.travel import simulator  # type: ignore[import-not-found]
    simulator.query_database = query_database
    scored = [(sample["demands"], [_their_line(line) for line in lines]) for _, lines, sample in plans]
    sink = open(os.devnull, "w")  # noqa: SIM115 - open for the whole measurement

    def theirs() -> list[float]:
        scores = []
        with contextlib.redirect_stdout(sink):
            for demands, lines in scored:
                travel = simulator.TravelSimulator(**demands["TravelSimulator"])
                travel.create_constraints(demands["Constraints"])
                for line in lines:
                    travel.action(line)
                travel.over()
                scores.append(travel.get_score())
        return scores

    def ours() -> list[Any]:
        return [check_plan(definition, lines) for definition, lines, _ in plans]

    their_scores, our_scores = theirs(), [result["total"] for result in ours()]
    actions = sum(len(lines) for _, lines in scored)
    # Efficiency points differ by design (the original's grow with the time spent: SPEC section 5),
    # so the check is that both pass every check of the same plans (80 points or more).
    print(
        f"  itinerary: {len(plans)} published samples with a plan, {actions} actions; every check passed "
        f"(80 points or more): ours {sum(score >= 80 for score in our_scores)}, "
        f"the original {sum(score >= 80 for score in their_scores)}"
    )
    _side_by_side(report, "itinerary, plans scored", "plans/s", len(plans), ours, theirs)
    sink.close()
    database.close()


DOMAINS = {"tasks": _tasks, "recipes": _recipes, "kitchen": _kitchen, "itinerary": _itinerary}


def run(report: Report) -> None:
    from django.conf import settings

    datasets = Path(settings.DATASETS_DIR)
    chosen = [name for name in os.environ.get("BENCH_SIDE_DOMAINS", "").split(",") if name in DOMAINS]
    for name in chosen or list(DOMAINS):
        clone, repository = REPOSITORIES[name]
        folder = ORIGINALS / clone
        if not folder.is_dir():
            print(
                f"  {name} skipped: no clone of the original code at {folder} (git clone https://github.com/{repository})"
            )
            continue
        DOMAINS[name](report, datasets, folder)
