"""The label schema of SPEC section 9: property names, canonical label values, and their checks.

Pure Python (no Django), shared by the labelling UI, the CSV/JSONL importer, the LLM reply parser
and the gold-to-recipe export, so a label means the same thing on every path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

CONCURRENCY = "concurrency"
INTERRUPTIBILITY = "interruptibility"
RESOURCE = "resource"
TIME_CONSTRAINT = "time_constraint"
DEPENDENCY = "dependency"

PROPERTIES: tuple[str, ...] = (CONCURRENCY, INTERRUPTIBILITY, RESOURCE, TIME_CONSTRAINT, DEPENDENCY)
DEFAULT_PROPERTIES: tuple[str, ...] = (CONCURRENCY, INTERRUPTIBILITY, RESOURCE, TIME_CONSTRAINT)
PROPERTY_TITLES = {
    CONCURRENCY: "Concurrency",
    INTERRUPTIBILITY: "Interruptibility",
    RESOURCE: "Resources",
    TIME_CONSTRAINT: "Time constraint",
    DEPENDENCY: "Dependencies",
}
APPLIANCES: tuple[str, ...] = ("microwave", "oven", "stove")
NONE = "none"

# as the exported JSON schema (``json_schema``) writes them: steps and minutes of 1-3 ASCII digits
_STEP_LIST = re.compile(r"^[0-9]{1,3}(\+[0-9]{1,3})*$")
_CONSTRAINTS = re.compile(r"^[0-9]{1,3}:[0-9]{1,3}(\+[0-9]{1,3}:[0-9]{1,3})*$")
_ITEM_ID = re.compile(r"^(?P<recipe>[^/]+)/(?P<step>\d+)$")

DEFAULT_GUIDELINES = """\
Label every step of the recipe; read the whole recipe first, because context matters.

Concurrency: "autonomous" if the step runs by itself once started and the cook can do other things
meanwhile (preheat the oven, bake, boil, let the dough rest); "continuous" if it needs the cook's
hands the whole time (chop, stir, pour, mix).

Interruptibility: "interruptible" if the step can be paused and resumed later without spoiling
anything (chopping vegetables, washing dishes); "not interruptible" otherwise. Heating steps and
short steps are not interruptible.

Resources: the appliances the step uses for its whole duration: oven, microwave, stove (several
allowed), or none.

Time constraint: a step has one when a heated or changing object must be used quickly: "this step
must start within N minutes after step k finished" (melted butter must be poured within 2 minutes).
Pick the step k and the minutes N; otherwise none.

Dependencies (when asked): the steps that must be finished before this one can start, or none.

Label on your own: you will not see other annotators' labels. Every change is saved at once;
submit the recipe when every step is labelled.
"""


class LabelError(ValueError):
    """A label value that is not canonical; the message says what to write instead."""


@dataclass(frozen=True)
class ItemRef:
    recipe: str
    step: int

    @property
    def key(self) -> str:
        return f"{self.recipe}/{self.step}"


def parse_item_id(item_id: str) -> ItemRef:
    match = _ITEM_ID.match(item_id.strip())
    if not match:
        raise LabelError(f"item id {item_id!r} is not recipe/step (e.g. Cobbler/3)")
    return ItemRef(match["recipe"], int(match["step"]))


def choices_for(prop: str) -> tuple[str, ...] | None:
    """The closed set of values of a property, or None when values are built from steps/appliances."""
    if prop == CONCURRENCY:
        return ("autonomous", "continuous")
    if prop == INTERRUPTIBILITY:
        return ("interruptible", "not_interruptible")
    return None


def label_json_schema(prop: str) -> dict[str, Any]:
    """The JSON Schema of a property's canonical values (what ``check_label`` accepts, except the
    checks that need the recipe: ascending order, steps that exist). LLM pre-annotation asks the
    model for replies of this shape; step numbers are bounded at three digits so that a small model
    held to the schema cannot write digits for ever."""
    closed = choices_for(prop)
    if closed is not None:
        return {"type": "string", "enum": list(closed)}
    if prop == RESOURCE:
        combos = [
            "+".join(chosen) for size in range(1, len(APPLIANCES) + 1) for chosen in combinations(APPLIANCES, size)
        ]
        return {"type": "string", "enum": [NONE, *combos]}
    if prop == DEPENDENCY:
        return {"type": "string", "pattern": r"^(none|[0-9]{1,3}(\+[0-9]{1,3})*)$"}
    if prop == TIME_CONSTRAINT:
        return {"type": "string", "pattern": r"^(none|[0-9]{1,3}:[0-9]{1,3}(\+[0-9]{1,3}:[0-9]{1,3})*)$"}
    raise LabelError(f"unknown property {prop!r}; use one of {', '.join(PROPERTIES)}")


def _shown(value: str, most: int = 40) -> str:
    """``value`` quoted for a message, cut to ``most`` characters (a 100 KB value was echoed whole)."""
    return repr(value) if len(value) <= most else repr(value[:most]) + "…"


def check_label(
    prop: str, value: str, step: int | None = None, steps: Iterable[int] | None = None, *, earlier_only: bool = False
) -> str:
    """Return ``value`` if it is a canonical label of ``prop``; raise LabelError saying what to write.

    ``step`` and ``steps`` (the item's own index and its recipe's step indices), when known, also
    check that referenced steps exist and are not the step itself. ``earlier_only`` (what a person or
    a model labels: the page offers the steps before this one) refuses a later step too: a recipe
    lists its steps in cooking order, so a dependency or time constraint on a later step could never
    hold. An import keeps what its file says.
    """
    if prop not in PROPERTIES:
        raise LabelError(f"unknown property {_shown(prop)}; use one of {', '.join(PROPERTIES)}")
    value = value.strip()
    closed = choices_for(prop)
    if closed is not None:
        if value not in closed:
            raise LabelError(f"{prop} label {_shown(value)} is not one of {', '.join(closed)}")
        return value
    if value == NONE:
        return value
    if prop == RESOURCE:
        parts = value.split("+")
        unknown = [p for p in parts if p not in APPLIANCES]
        if NONE in unknown:  # "none+oven" read "resource 'none' is unknown"
            raise LabelError(f"resource none stands alone; write {_shown('+'.join(p for p in parts if p != NONE))}")
        if unknown:
            raise LabelError(
                f"resource {_shown(unknown[0])} is unknown; use none or {', '.join(APPLIANCES)} joined with +"
            )
        canonical = "+".join(sorted(set(parts)))
        if canonical != value:
            raise LabelError(f"write resources once each in sorted order: {_shown(canonical)}, not {_shown(value)}")
        return value
    if prop == DEPENDENCY:
        if not _STEP_LIST.match(value):
            raise LabelError(f"dependency {_shown(value)} is not none or step numbers joined with + (e.g. 1+4)")
        refs = [int(p) for p in value.split("+")]
        canonical = "+".join(str(r) for r in sorted(set(refs)))
        if canonical != value:
            raise LabelError(
                f"write dependencies once each in ascending order: {_shown(canonical)}, not {_shown(value)}"
            )
        _check_refs(refs, step, steps, prop, earlier_only=earlier_only)
        return value
    # TIME_CONSTRAINT
    if not _CONSTRAINTS.match(value):
        raise LabelError(
            f"time constraint {_shown(value)} is not none or k:N (start within N minutes after step k; N at most 999)"
        )
    pairs = [tuple(int(x) for x in part.split(":")) for part in value.split("+")]
    ks = [k for k, _ in pairs]
    if len(set(ks)) != len(ks) or ks != sorted(ks):
        raise LabelError(f"time constraint {_shown(value)}: name each step k once, in ascending order")
    if any(n <= 0 for _, n in pairs):
        raise LabelError(f"time constraint {_shown(value)}: N must be a positive number of minutes")
    _check_refs(ks, step, steps, prop, earlier_only=earlier_only)
    return value


def _check_refs(
    refs: list[int], step: int | None, steps: Iterable[int] | None, prop: str, *, earlier_only: bool = False
) -> None:
    prop = prop.replace("_", " ")  # "time constraint", as the other messages write it
    if step is not None and step in refs:
        raise LabelError(f"{prop} of step {step} cannot refer to step {step} itself")
    if steps is not None:
        known = set(steps)
        missing = [r for r in refs if r not in known]
        if missing:
            raise LabelError(f"{prop} refers to step {missing[0]}, which this recipe does not have")
    if earlier_only and step is not None and (later := [r for r in refs if r > step]):
        raise LabelError(
            f"{prop} of step {step} can only name an earlier step, not step {later[0]}: the steps are listed in "
            "cooking order, so a later one cannot come first"
        )


def join_resources(appliances: Iterable[str]) -> str:
    chosen = sorted(set(appliances))
    return "+".join(chosen) if chosen else NONE


def join_steps(steps: Iterable[int]) -> str:
    chosen = sorted(set(steps))
    return "+".join(str(s) for s in chosen) if chosen else NONE


def join_constraints(constraints: Mapping[int, int]) -> str:
    if not constraints:
        return NONE
    return "+".join(f"{k}:{n}" for k, n in sorted(constraints.items()))


def split_constraints(value: str) -> dict[int, int]:
    if value == NONE:
        return {}
    return {int(k): int(n) for k, n in (part.split(":") for part in value.split("+"))}


def split_steps(value: str) -> list[int]:
    return [] if value == NONE else [int(s) for s in value.split("+")]


def split_resources(value: str) -> list[str]:
    return [] if value == NONE else value.split("+")


def label_text(prop: str, value: str) -> str:
    """A label as people read it on the report and adjudication pages (stored and exported labels
    keep their codes): "not_interruptible" -> "not interruptible", resource "oven+stove" -> "oven +
    stove", time constraint "1:2" -> "after step 1, within 2 min", dependency "1+4" -> "after steps
    1, 4". A value that is not a well-formed label is shown as it is."""
    value = str(value)
    if value == NONE or prop in (CONCURRENCY, INTERRUPTIBILITY):
        return value.replace("_", " ")
    if prop == RESOURCE:
        return " + ".join(split_resources(value))
    if prop == TIME_CONSTRAINT and _CONSTRAINTS.match(value):
        return "; ".join(f"after step {k}, within {n} min" for k, n in split_constraints(value).items())
    if prop == DEPENDENCY and _STEP_LIST.match(value):
        steps = split_steps(value)
        return f"after step{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))}"
    return value


def minutes_of(text: str) -> int:
    """Recipe2Plan writes constraint windows as "N min"; return N (other units converted, rounded up)."""
    amount, _, unit = str(text).strip().partition(" ")
    number = float(amount)
    seconds = number * {"sec": 1, "min": 60, "hour": 3600}.get(unit.strip() or "min", 60)
    return max(1, -(-int(seconds) // 60))


def labels_of_step(step: Mapping[str, Any]) -> dict[str, str]:
    """The canonical labels a Recipe2Plan-format step carries (what its recipe currently says)."""
    constraints = {int(k): minutes_of(v) for k, v in (step.get("time_constraint") or {}).items()}
    return {
        CONCURRENCY: "autonomous" if step.get("parallel") else "continuous",
        INTERRUPTIBILITY: "interruptible" if step.get("interrupt") else "not_interruptible",
        RESOURCE: join_resources((step.get("physical") or {}).keys()),
        TIME_CONSTRAINT: join_constraints(constraints),
        DEPENDENCY: join_steps(int(p) for p in step.get("prequisites") or []),
    }


def apply_labels_to_step(step: Mapping[str, Any], labels: Mapping[str, str]) -> dict[str, Any]:
    """A Recipe2Plan-format step with ``labels`` (gold) written over the properties they name.

    Appliances the gold keeps retain their require/update data; a newly named appliance gets an
    empty use (no temperature requirement), which a researcher can refine in the recipe editor.
    """
    out = dict(step)
    if CONCURRENCY in labels:
        out["parallel"] = 1 if labels[CONCURRENCY] == "autonomous" else 0
    if INTERRUPTIBILITY in labels:
        out["interrupt"] = 1 if labels[INTERRUPTIBILITY] == "interruptible" else 0
    if RESOURCE in labels:
        old = step.get("physical") or {}
        out["physical"] = {a: old.get(a, {"require": {}, "update": {}}) for a in split_resources(labels[RESOURCE])}
    if TIME_CONSTRAINT in labels:
        out["time_constraint"] = {str(k): f"{n} min" for k, n in split_constraints(labels[TIME_CONSTRAINT]).items()}
    if DEPENDENCY in labels:
        out["prequisites"] = split_steps(labels[DEPENDENCY])
    return out
