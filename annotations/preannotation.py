"""LLM pre-annotation: ask a model to label each recipe's steps, parse its reply strictly, store
its labels as a separate (model) annotator.

One chat call per recipe (the model sees every step, as people do). The reply must be JSON: an
object whose "steps" list holds one object per step (or that list alone); the request carries its
JSON Schema (``reply_schema``), which endpoints that constrain decoding (llama.cpp, vLLM, OpenAI's
structured outputs) hold the model to, so even a small local model answers in shape. Anything else
becomes an error entry of the run, and a step or value that is not canonical is dropped with an
error entry. Nothing in a reply is ever executed.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotations import services
from annotations.models import Item, PreannotationRun, Project, ProjectRecipe
from annotations.schema import PROPERTIES, LabelError, check_label, choices_for, label_json_schema
from annotations.services import AnnotationError
from arena_site import background

log = logging.getLogger(__name__)

STALE_AFTER = timedelta(minutes=30)
MAX_REPLY_IN_ERROR = 300
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)

FORMATS = {
    "concurrency": '"autonomous" or "continuous"',
    "interruptibility": '"interruptible" or "not_interruptible"',
    "resource": '"none" or appliances from oven, microwave, stove joined with + in sorted order (e.g. "oven+stove")',
    "time_constraint": '"none" or "k:N": this step must start within N minutes after step k finished',
    "dependency": '"none" or the step numbers that must finish first, joined with + in ascending order (e.g. "1+4")',
}


class ReplyError(ValueError):
    """The reply as a whole is unusable (not the JSON of step objects we asked for)."""


def asked_properties(project: Project) -> list[str]:
    return [p for p in PROPERTIES if p in project.properties]


def reply_schema(properties: Sequence[str], steps: Sequence[int]) -> dict[str, Any]:
    """The JSON Schema of the reply asked for: ``{"steps": [{"step": k, <property>: <label>...}]}``,
    one entry per step (an object at the root, as JSON modes require)."""
    entry = {
        "type": "object",
        "properties": {"step": {"type": "integer", "enum": list(steps)}}
        | {prop: label_json_schema(prop) for prop in properties},
        "required": ["step", *properties],
        "additionalProperties": False,
    }
    listed = {"type": "array", "items": entry, "minItems": len(steps), "maxItems": len(steps)}
    return {"type": "object", "properties": {"steps": listed}, "required": ["steps"], "additionalProperties": False}


def build_messages(project: Project, items: Sequence[Item]) -> list[dict[str, str]]:
    props = asked_properties(project)
    fields = "\n".join(f'- "{p}": {FORMATS[p]}' for p in props)
    example = json.dumps({"steps": [{"step": items[0].step if items else 0, **dict.fromkeys(props, "...")}]})
    system = (
        "You label the steps of cooking recipes for a time-aware planning game.\n\n"
        f"Guidelines:\n{project.guidelines.strip()}\n\n"
        'Answer with JSON only: an object whose "steps" list has one object per step, with the key "step" '
        "(the step number) and:\n"
        f"{fields}\n"
        f"Example shape: {example}\nNo prose, no explanations."
    )
    lines = "\n".join(f"Step {item.step}: {item.text}" for item in items)
    user = f"Recipe: {items[0].recipe.name if items else ''}\n{lines}\n\nLabel every step."
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_reply(
    text: str, steps: Sequence[int], properties: Sequence[str]
) -> tuple[list[tuple[int, str, str]], list[str]]:
    """Strictly read a reply: (step, property, label) triples and one message per rejected part.

    Raises ReplyError when the reply is not JSON of step objects at all.
    """
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ReplyError(f"the reply is not JSON ({exc.msg} at character {exc.pos})") from None
    if isinstance(data, dict) and isinstance(data.get("steps"), list):
        data = data["steps"]
    if not isinstance(data, list) or not all(isinstance(entry, dict) for entry in data):
        raise ReplyError("the reply is JSON but not a list of step objects")
    known = set(steps)
    labels: list[tuple[int, str, str]] = []
    problems: list[str] = []
    seen: set[int] = set()
    for position, entry in enumerate(data):
        step = entry.get("step")
        if not isinstance(step, int) or isinstance(step, bool) or step not in known:
            problems.append(f"entry {position}: 'step' {step!r} is not a step of this recipe")
            continue
        if step in seen:
            problems.append(f"step {step}: labelled twice; the first answer is kept")
            continue
        seen.add(step)
        for prop in properties:
            value = entry.get(prop)
            if not isinstance(value, str):
                problems.append(f"step {step}: no {prop} label")
                continue
            try:
                labels.append((step, prop, check_label(prop, value, step=step, steps=steps, earlier_only=True)))
            except LabelError as exc:
                closed = choices_for(prop)
                problems.append(f"step {step}: {exc}" + (f" (expected {', '.join(closed)})" if closed else ""))
    missing = sorted(known - seen)
    if missing:
        problems.append(f"no answer for step{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}")
    return labels, problems


def _excerpt(text: str) -> str:
    return text if len(text) <= MAX_REPLY_IN_ERROR else text[:MAX_REPLY_IN_ERROR] + "…"


@transaction.atomic
def start(*, project: Project, user: Any, model_name: str | None = None) -> PreannotationRun:
    """Create a run (refusing a second one while one is under way) and hand it to a worker after commit."""
    model = model_name or settings.LLM_MODEL
    busy = (
        project.runs.select_for_update()
        .filter(status__in=[PreannotationRun.Status.QUEUED, PreannotationRun.Status.RUNNING])
        .filter(created_at__gt=timezone.now() - STALE_AFTER)
        .first()
    )
    if busy is not None:
        raise AnnotationError(f"a pre-annotation with {busy.model_name} is under way; wait for it to finish")
    units = project.recipes.exclude(items=None).count()
    if units == 0:
        raise AnnotationError("the project has no recipe steps to pre-annotate")
    run = PreannotationRun.objects.create(
        project=project, annotator=services.model_annotator(model), model_name=model, total=units, created_by=user
    )
    # A worker runs it; in the embedded default a thread does, so the request that started it
    # returns at once and the page shows the progress bar.
    background.submit_on_commit("annotations.preannotate", run.pk)
    return run


def cut_off_runs() -> list[int]:
    """The runs a stopped server cut off (still queued or running), to queue again when it starts:
    a run labels every recipe again, replacing the model's labels it had written."""
    return list(
        PreannotationRun.objects.filter(
            status__in=[PreannotationRun.Status.QUEUED, PreannotationRun.Status.RUNNING]
        ).values_list("pk", flat=True)
    )


ClientFactory = Callable[[str], Any]


def _default_client(model: str) -> Any:
    from games.agents.llm import LlmClient

    return LlmClient.from_settings({"model": model, "max_tokens": 1024})


def run(run_id: int, client_factory: ClientFactory = _default_client) -> PreannotationRun:
    """Label every recipe of the run's project; progress and errors are saved after each recipe."""
    job = PreannotationRun.objects.select_related("project", "annotator").get(pk=run_id)
    if job.status not in (PreannotationRun.Status.QUEUED, PreannotationRun.Status.RUNNING):
        return job
    PreannotationRun.objects.filter(pk=job.pk).update(status=PreannotationRun.Status.RUNNING)
    project = job.project
    errors: list[dict[str, str]] = []
    done = 0
    try:
        client = client_factory(job.model_name)
        units = list(project.recipes.exclude(items=None).order_by("position"))
        for unit in units:
            errors += _label_recipe(client, job, project, unit)
            done += 1
            PreannotationRun.objects.filter(pk=job.pk).update(done=done, errors=errors)
    except Exception as exc:  # a broken endpoint or a bug: the run says so instead of hanging "running"
        log.exception("pre-annotation run %s failed", run_id)
        PreannotationRun.objects.filter(pk=job.pk).update(
            status=PreannotationRun.Status.FAILED,
            errors=errors,
            message=f"stopped after {done} recipes: {type(exc).__name__}: {exc}",
            finished_at=timezone.now(),
        )
        return PreannotationRun.objects.get(pk=job.pk)
    failed = len({e["recipe"] for e in errors if e.get("fatal")})
    message = f"{done - failed} of {done} recipes labelled" + (
        f"; {len(errors)} problems (see below)" if errors else ""
    )
    status = PreannotationRun.Status.DONE
    if done and failed == done:  # a green "Done" over "0 of 1 recipes labelled" hid an endpoint that was down
        first = next(e["message"] for e in errors if e.get("fatal"))
        status, message = PreannotationRun.Status.FAILED, f"no recipe labelled: {first}"
    PreannotationRun.objects.filter(pk=job.pk).update(status=status, message=message, finished_at=timezone.now())
    return PreannotationRun.objects.get(pk=job.pk)


def _label_recipe(client: Any, job: PreannotationRun, project: Project, unit: ProjectRecipe) -> list[dict[str, Any]]:
    items = list(unit.items.order_by("step"))
    steps = [item.step for item in items]
    reply = client.chat(build_messages(project, items), json_schema=reply_schema(asked_properties(project), steps))
    if not reply.ok:
        return [{"recipe": unit.name, "fatal": True, "message": f"no answer: {reply.error}", "reply": ""}]
    try:
        labels, problems = parse_reply(reply.text, steps, project.properties)
    except ReplyError as exc:
        return [{"recipe": unit.name, "fatal": True, "message": str(exc), "reply": _excerpt(reply.text)}]
    by_step = {item.step: item for item in items}
    services.store_model_labels(job.annotator, [(by_step[step], prop, value) for step, prop, value in labels])
    return [{"recipe": unit.name, "fatal": False, "message": p, "reply": ""} for p in problems]
