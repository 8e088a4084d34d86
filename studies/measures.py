"""What is measured per episode: the domain's objective score and the questionnaire's constructs.

Pure. An objective measure reads one number from a game's result (``RuleSet.result``, stored on
the episode as ``metrics``); SPEC section 10 names them: CoS for kitchen, CR and CT for tasks,
success and S×E for recipes, the itinerary score. Each measure lists the result keys it accepts so
the reading survives small naming differences between rule-set versions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from games.engine import registry

LIKERT_POINTS = 5
LIKERT_LABELS = ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"]


def _number(metrics: Mapping[str, Any], keys: Sequence[str]) -> float | None:
    for key in keys:
        value = metrics.get(key)
        if isinstance(value, bool):
            return 100.0 if value else 0.0
        if isinstance(value, int | float):
            return float(value)
    return None


def _percent_flag(keys: Sequence[str]) -> Callable[[Mapping[str, Any]], float | None]:
    """A yes/no outcome as 0 or 100, so its mean over episodes is a rate in percent."""

    def read(metrics: Mapping[str, Any]) -> float | None:
        for key in keys:
            if key in metrics and metrics[key] is not None:
                return 100.0 if bool(metrics[key]) else 0.0
        return None

    return read


def _tasks_completed(metrics: Mapping[str, Any]) -> float | None:
    flag = _percent_flag(["completed", "complete", "success"])(metrics)
    if flag is not None:
        return flag
    progress = _number(metrics, ["max_progress", "progress", "progress_score"])
    return None if progress is None else (100.0 if progress >= 100 else 0.0)


def _tasks_completion_time(metrics: Mapping[str, Any]) -> float | None:
    """CT counts completed episodes only (SPEC section 2)."""
    if not _tasks_completed(metrics):
        return None
    return _number(metrics, ["completion_time", "time_to_complete", "minutes_to_complete", "ct"])


@dataclass(frozen=True)
class ObjectiveMeasure:
    key: str
    label: str
    unit: str
    read: Callable[[Mapping[str, Any]], float | None]
    higher_is_better: bool = True


def _reader(*keys: str) -> Callable[[Mapping[str, Any]], float | None]:
    return lambda metrics: _number(metrics, keys)


# SPEC section 10's measures per domain; each domain's descriptor names its list (``measures``).
KITCHEN = [
    # One game runs at one α, so its CoS is that α's completed / (completed + failed) orders;
    # the study's CoS per condition is the mean over its games (MindAgent averages over α).
    ObjectiveMeasure("cos", "CoS (collaboration score)", "", _reader("cos", "CoS", "success_rate")),
    ObjectiveMeasure("orders", "Orders completed", "", _reader("completed")),
]
TASKS = [
    ObjectiveMeasure("cr", "CR (completion rate)", "%", _tasks_completed),
    ObjectiveMeasure("ct", "CT (completion time)", "min", _tasks_completion_time, higher_is_better=False),
    ObjectiveMeasure("progress", "Progress score (AS)", "%", _reader("max_progress", "progress", "progress_score")),
]
RECIPES = [
    ObjectiveMeasure("success", "Success rate", "%", _percent_flag(["success", "successful"])),
    ObjectiveMeasure("sxe", "S×E", "%", _reader("se", "sxe", "s_x_e", "SxE")),
]
ITINERARY = [
    ObjectiveMeasure("score", "Itinerary score", "points", _reader("score", "total", "total_score")),
]


def objective_measures(domain: str) -> list[ObjectiveMeasure]:
    """The domain's measures (its descriptor's ``measures``); an unknown domain is an error."""
    own = registry.descriptor(domain).part("measures")
    return [] if own is None else list(own)


@dataclass(frozen=True)
class ItemAnswer:
    construct: str
    value: int
    reverse_scored: bool = False


def item_score(value: int, reverse_scored: bool) -> int:
    """A 1-5 answer as it counts toward its construct (reverse-scored items count 6 - answer)."""
    if not 1 <= value <= LIKERT_POINTS:
        raise ValueError(f"a Likert answer must be 1 to {LIKERT_POINTS}, got {value}")
    return LIKERT_POINTS + 1 - value if reverse_scored else value


def construct_scores(answers: Iterable[ItemAnswer]) -> dict[str, float]:
    """One episode's questionnaire: the mean (scored) answer per construct."""
    by_construct: dict[str, list[int]] = {}
    for answer in answers:
        by_construct.setdefault(answer.construct, []).append(item_score(answer.value, answer.reverse_scored))
    return {construct: fmean(values) for construct, values in by_construct.items()}


# The default questionnaire (SPEC section 10): construct key, label, items. Adapted from the
# constructs MindAgent's human study asked about; researchers edit them per study.
# constructs of the default questionnaire that ask about teammates (not asked after a solo game)
TEAMMATE_CONSTRUCTS = {"collaboration_fun", "assistance", "dependability", "predictability", "productivity", "trust"}
DEFAULT_QUESTIONNAIRE: list[tuple[str, str, list[str]]] = [
    (
        "enjoyment",
        "Perceived enjoyment",
        ["I enjoyed playing this game.", "Playing this game was boring."],
    ),
    (
        "collaboration_fun",
        "Fun due to collaboration",
        ["Playing together with my teammates made the game more fun."],
    ),
    (
        "assistance",
        "Perceived assistance",
        ["My teammates helped me reach the goals of the game."],
    ),
    (
        "dependability",
        "Dependability",
        ["I could rely on my teammates to do their part."],
    ),
    (
        "predictability",
        "Predictability",
        ["I could predict what my teammates would do next."],
    ),
    (
        "productivity",
        "Productivity",
        ["Together we got a lot done in the time we had."],
    ),
    (
        "trust",
        "Trust",
        ["I trusted my teammates' decisions."],
    ),
]
REVERSE_SCORED_DEFAULTS = {"Playing this game was boring."}
