"""What a domain is, in one place: the ``Domain`` descriptor each game's package declares.

Every list of domains in the code base (the game model's choices, the headline metric, the NPC
planners, the LLM prompts and extraction, the per-domain commands, bundled content, benchmarks,
board templates) reads it from ``games.engine.registry``; nothing else names the four games.

The descriptor is plain data. Framework-free parts (rule sets, text interface, NPC policy,
combining scenarios, headline) are named by ``"module:attribute"`` paths inside the domain's
package; Django parts (bundled content loader, importers, CLI verbs, board template) by paths into
its catalogue app and the project's ``games/cli``/``templates``. Paths are imported on first use,
and a path that does not import is an error naming it, never a quietly different behaviour.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from importlib.util import find_spec
from typing import Any


class DescriptorError(LookupError):
    """A descriptor names something that does not exist."""


def resolve(path: str) -> Any:
    """The object a ``"package.module:attribute"`` path names; a clear error when it is missing."""
    module_name, _, attr = path.partition(":")
    if not attr:
        raise DescriptorError(f"{path!r} is not a 'module:attribute' path")
    module = import_module(module_name)  # an ImportError names the missing module
    try:
        return getattr(module, attr)
    except AttributeError:
        raise DescriptorError(f"{module_name} has no {attr!r} (named by {path!r})") from None


def check_exists(path: str) -> None:
    """Fail with the path's name unless its module exists, without running it (start-up checks
    stay cheap; the attribute is checked when first used, by ``resolve``)."""
    module_name = path.partition(":")[0]
    try:
        found = find_spec(module_name)
    except ModuleNotFoundError:
        found = None
    if found is None:
        raise DescriptorError(f"{path!r} names a module that does not exist: {module_name}")


@dataclass(frozen=True)
class Domain:
    """One game. ``name`` is its id in URLs, the database and the CLI (``tasks``)."""

    name: str
    title: str  # how lists show it: "Tasks (TimeArena)"
    # rule-set id -> "module:attribute" of its RuleSet, oldest first; the last is the current one.
    # A game keeps the id it was created with and always replays on those rules.
    rule_sets: Mapping[str, str]
    # How the LLM prompt names the game ("a restaurant kitchen with orders (CuisineWorld)").
    llm_title: str
    # "module:attribute" of ``npc_policy(rules, state, agent) -> str | None`` (the planner teammate).
    npc_policy: str
    # "module:attribute" of ``combine(definitions) -> definition`` when several scenarios can be
    # played at once (tasks); None: one scenario per game.
    combine: str | None = None
    # "module:attribute" of ``headline(result) -> float | None``, the 0-100 number a progress chart
    # follows; None: the result's ``progress`` (or ``score``).
    headline: str | None = None
    headline_title: str = "Progress (% of the work done)"
    # How the domain's own texts number agents: tasks says "agent 1" for agent index 0.
    display_base: int = 0
    # Real-time pace when nobody chose one, in game time units per real second (``games.speeds``);
    # ``paced_by_length``: a scenario's own pace replaces it, from the planner's length.
    default_speed: float = 0.5
    paced_by_length: bool = False
    # "module:attribute" of ``paced_policy(reaction) -> Policy``: the planner as a person follows it,
    # reacting ``reaction`` game units late (``manage.py playtest``); None: ``npc_policy`` as it is.
    paced_policy: str | None = None
    # "module:attribute" of ``wakes_at(state) -> float | None``: in real-time play, the next moment
    # a player's options change with time alone though no rule fires (a sight opens, the rest hours
    # end); the web loop moves the rules' clock there so the new options reach the page. None: the
    # rules' ``next_deadline`` is every such moment.
    wakes_at: str | None = None
    # "module:attribute" of ``horizon(state) -> float``: the game time an episode ends by at the
    # latest (its time limit, the kitchen's last step), for "step 18 of 60" where a benchmark run's
    # page shows an episode under way. None: no fixed end.
    horizon: str | None = None
    # The scenario's definition says how many seats it has (``agents``: kitchen levels); else one.
    team_in_definition: bool = False
    # The most seats a game may have (None: the site's limit). The itinerary's one traveller is moved
    # by every seat and each move takes the trip's clock to its end, so a second seat (an NPC) played
    # the whole trip out before the person beside it could act.
    seats_at_most: int | None = None
    # A game lasts as long as its player reads, whatever the pace (the itinerary's clock jumps to
    # the end of each action), so playtest's 2-6 minute window does not apply.
    length_set_by_reader: bool = False
    # "module:attribute" of ``judge(rules, state) -> (passed, verdict)``, whether the planner's
    # playtest game counts as won; None: every action done (``completed``) and the game over.
    playtest_judge: str | None = None
    # A plan-and-solve agent may keep a plan line outside the text grammar that reads like an
    # action (the rules judge it when its turn comes); False where only the grammar's lines count.
    plan_lines_loose: bool = True
    # Benchmark items come with and without the scenario's time constraints (the run form's box).
    constraint_variants: bool = False
    # The verbs of actions that only let time pass (the one waiting rule: ``is_wait``).
    wait_verbs: tuple[str, ...] = ("wait",)
    # A benchmark's LLM dispatcher sends the rules what it wrote even where they will refuse it (they
    # count it: TimeArena uses up the minute, Recipe2Plan counts the attempt), as the papers' agents
    # do. False: a command that cannot run leaves its agent idle for the step (MindAgent's kitchen).
    benchmark_sends_refused: bool = True
    # Django side, by path: ``load(log) -> int`` of the bundled content; the module with
    # ``configure_<verb>(parser)`` / ``run_<verb>(options, log)`` for plan, describe, score, ...;
    # the play page's board template (None: the generic board); the folder of prompt templates
    # under ``games/agents/prompts`` (None: the shared ones only).
    bundled: str | None = None
    cli: str | None = None
    board_template: str | None = None
    prompts: str | None = None
    # "module:attribute" of ``items(slugs, seed, options) -> list[dict]`` building a benchmark's
    # task set; None: one item per scenario.
    benchmark_items: str | None = None
    # "module:attribute" of ``table(rows) -> {"title", "columns", "rows"}``, the paper's layout of
    # benchmark results; None: the mean of every numeric metric.
    benchmark_table: str | None = None
    # "module:attribute" of ``game_item(slugs, options, agents, seed, result) -> dict``: the task-set
    # item a played game of these scenarios would be (its paper-table group; ``result``, its figures,
    # says what it ran at where the options left it to the scenario), so people's games sit in the
    # same rows as benchmark episodes; None: one group for every game.
    game_item: str | None = None
    # "module:attribute" of the domain's LLM text interface: how commands are found in a reply.
    text: str | None = None
    # "module:attribute" of ``relevant_knowledge(state) -> str``: what an LLM teammate is told
    # besides the observation ("the recipes relevant now"); None: the observation says it all.
    knowledge: str | None = None
    # "module:attribute" of ``result_note(result) -> str``, a few words the games list adds to a
    # finished game's headline ("3 served"); None: the headline alone.
    result_note: str | None = None
    # "module:attribute" of ``headline_text(result, observation) -> str``, a few words for the play
    # page's header saying what the headline number means; None: "done".
    headline_text: str | None = None
    # The module generating new instances with their optimum (``KNOBS``, ``build``, ``evaluate``, and
    # for the generator page ``OBJECTIVE`` and ``ACTIONS``, what the optimum and ``stats.actions``
    # are; ``games.generators``); None: the domain has no generator.
    generator: str | None = None
    # "module:attribute" of the studio's authoring format (``games.studio.authoring.Format``: its
    # label, parser, exporter and starter text); None: the studio does not author this domain.
    authoring: str | None = None
    # Benchmarks (``games.npc.stats``): "module:attribute" of the list of the paper's metrics; of
    # ``success(metrics) -> bool``, when an episode counts as a success for pass^k, and what that
    # means in words. None: every scalar number of the results; their own success/completed flag.
    benchmark_metrics: str | None = None
    success: str | None = None
    success_meaning: str | None = None
    # Studies: "module:attribute" of the list of objective measures read from an episode's result
    # (``studies.measures.ObjectiveMeasure``); None: the study analyses no objective measure.
    measures: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.rule_sets:
            raise DescriptorError(f"the {self.name} domain names no rule set")
        for rule_set_id in self.rule_sets:
            if rule_set_id.split("-v", 1)[0] != self.name:
                raise DescriptorError(f"rule set {rule_set_id!r} of {self.name} must be named '{self.name}-vN'")

    @property
    def current_rule_set(self) -> str:
        return list(self.rule_sets)[-1]

    def part(self, attribute: str) -> Any:
        """The object one of the path fields names (None when the field is None)."""
        path = getattr(self, attribute)
        return None if path is None else resolve(path)

    def is_wait(self, action: str) -> bool:
        """Whether ``action`` only lets time pass ("wait", kitchen "noop(agent0)", "stay_in(...)")."""
        words = action.split("(")[0].split()
        return bool(words) and words[0].lower() in self.wait_verbs

    def combiner(self) -> Callable[[Any], Any] | None:
        return self.part("combine")  # type: ignore[no-any-return]
