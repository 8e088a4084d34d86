"""The annotator's pages: the queue, the labelling page of one recipe, save-as-you-go, submit.

Blind by construction: these views only ever read the signed-in annotator's own labels (and the
model's suggestions when the project allows them); gold and other people's labels never reach
them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.permissions import annotator_required
from annotations import selectors, services
from annotations.controls import IncompleteInput, build_control, duration_text, shortcuts_for, value_from_post
from annotations.models import Annotator, Assignment, Item, ProjectRecipe
from annotations.schema import NONE, label_text
from annotations.services import AnnotationError


@annotator_required
def queue(request: HttpRequest) -> HttpResponse:
    annotator = services.annotator_for_user(request.user)
    entries = selectors.queue(annotator)
    open_entries = [e for e in entries if e.assignment.submitted_at is None]
    done = len(entries) - len(open_entries)
    context = {
        "entries": entries,
        "next_entry": open_entries[0] if open_entries else None,
        "done": done,
        "total": len(entries),
        "percent": round(100 * done / len(entries)) if entries else 0,
    }
    return render(request, "annotations/queue.html", context)


def _assignment(request: HttpRequest, unit: ProjectRecipe) -> tuple[Annotator, Assignment]:
    annotator = services.annotator_for_user(request.user)
    assignment = Assignment.objects.filter(recipe=unit, annotator=annotator).first()
    if assignment is None:
        raise Http404("This recipe is not in your queue.")
    return annotator, assignment


def _progress(unit: ProjectRecipe, annotator: Annotator) -> dict[str, Any]:
    needed = unit.items.count() * len(unit.project.properties)
    missing = len(services.missing_labels(unit, annotator))
    done = needed - missing
    return {
        "done": done,
        "needed": needed,
        "missing": missing,
        "percent": round(100 * done / needed) if needed else 100,
    }


def _step_rows(unit: ProjectRecipe, annotator: Annotator) -> list[dict[str, Any]]:
    items = list(unit.items.order_by("step"))
    steps = [(item.step, item.text) for item in items]
    mine = selectors.labels_of(annotator, unit)
    suggested = selectors.suggestions_for(unit)
    rows = []
    for item in items:
        labels = mine.get(item.step, {})
        controls = [
            build_control(
                prop,
                labels.get(prop, ""),
                step=item.step,
                steps=steps,
                suggestion=suggested.get(item.step, {}).get(prop, ""),
            )
            for prop in unit.project.properties
        ]
        complete = all(c.done for c in controls)
        rows.append(
            {"item": item, "controls": controls, "complete": complete, "duration": duration_text(item.duration_seconds)}
        )
    return rows


@annotator_required
def label(request: HttpRequest, pk: int) -> HttpResponse:
    unit = get_object_or_404(ProjectRecipe.objects.select_related("project"), pk=pk)
    annotator, assignment = _assignment(request, unit)
    rows = _step_rows(unit, annotator)
    first_open = next((r["item"].step for r in rows if not r["complete"]), rows[0]["item"].step if rows else 0)
    context = {
        "unit": unit,
        "project": unit.project,
        "assignment": assignment,
        "rows": rows,
        "readonly": assignment.submitted_at is not None,
        "progress": _progress(unit, annotator),
        "shortcuts": shortcuts_for(unit.project.properties),
        "first_open": first_open,
        "suggestions": unit.project.show_suggestions,
    }
    return render(request, "annotations/label.html", context)


@annotator_required
@require_POST
def save(request: HttpRequest, pk: int) -> HttpResponse:
    """Save one property of one step (HTMX).

    Success answers with a small "saved" status (the control the user touched stays as it is, so
    quick successive changes are never undone by a late answer) plus the progress; a refused value
    re-renders the whole control from what is stored, with the reason.
    """
    item = get_object_or_404(Item.objects.select_related("recipe__project", "project"), pk=pk)
    annotator, assignment = _assignment(request, item.recipe)
    prop = request.POST.get("prop", "")
    if prop not in item.project.properties:
        return HttpResponse(
            f"This project does not label {prop!r}.", status=400, content_type="text/plain; charset=utf-8"
        )
    try:
        value = value_from_post(prop, request.POST)
        services.save_label(user=request.user, item=item, prop=prop, value=value)
    except IncompleteInput as exc:
        return _incomplete(request, item, annotator, prop, str(exc), readonly=assignment.submitted_at is not None)
    except (ValueError, AnnotationError) as exc:
        return _refused(
            request, item, annotator, prop, f"Not saved: {exc}.", readonly=assignment.submitted_at is not None
        )
    current = selectors.labels_of(annotator, item.recipe).get(item.step, {})
    context = {
        "item": item,
        "status": "Saved" if value else "Cleared",
        "kind": "ok",
        "progress": _progress(item.recipe, annotator),
        "complete": all(p in current for p in item.project.properties),
        "oob": True,
    }
    return render(request, "annotations/_saved.html", context)


def _incomplete(
    request: HttpRequest, item: Item, annotator: Annotator, prop: str, missing: str, *, readonly: bool
) -> HttpResponse:
    """A time constraint half entered: nothing is saved, and the page must not look otherwise.

    With no label saved the browser keeps the half entry (``data-half``) until the minutes come.
    With one saved, it stays and the answer says so; minutes emptied on the saved constraint's own
    step put the saved minutes back in the box (an empty box beside a saved "3:10" read as
    "removed", and submitting made 3:10 final).
    """
    saved = selectors.labels_of(annotator, item.recipe).get(item.step, {}).get(prop, "")
    if not saved:
        return render(request, "annotations/_save_status.html", {"status": missing, "kind": "warn", "half": True})
    words = label_text(prop, saved)
    posted_step = request.POST.get("k", "").strip()
    if saved != NONE and posted_step == saved.partition(":")[0]:
        notice = (
            f"Minutes empty, so nothing changed: the saved label stays ({words}). "
            "To remove it, choose “(not labelled yet)” in the list."
        )
        return _refused(request, item, annotator, prop, notice, readonly=readonly, kind="warn")
    return render(
        request,
        "annotations/_save_status.html",
        {"status": f"{missing}; until then the saved label stays ({words})", "kind": "warn"},
    )


def _refused(
    request: HttpRequest,
    item: Item,
    annotator: Annotator,
    prop: str,
    error: str,
    *,
    readonly: bool,
    kind: str = "error",
) -> HttpResponse:
    """The control re-rendered from what is stored, with ``error`` (or a warning) under it."""
    current = selectors.labels_of(annotator, item.recipe).get(item.step, {})
    steps = list(item.recipe.items.order_by("step").values_list("step", "text"))
    suggested = selectors.suggestions_for(item.recipe).get(item.step, {})
    control = build_control(
        prop, current.get(prop, ""), step=item.step, steps=steps, suggestion=suggested.get(prop, ""), error=error
    )
    control.error_kind = kind
    response = render(request, "annotations/_control.html", {"item": item, "control": control, "readonly": readonly})
    response["HX-Retarget"] = f"#control-{item.pk}-{prop}"
    response["HX-Reswap"] = "outerHTML"
    return response


@annotator_required
@require_POST
def submit(request: HttpRequest, pk: int) -> HttpResponse:
    unit = get_object_or_404(ProjectRecipe.objects.select_related("project"), pk=pk)
    annotator, assignment = _assignment(request, unit)
    if assignment.submitted_at is not None:  # a second post (another tab): not thanked again as news
        messages.info(request, f"You submitted {unit.title} already; its labels are final.")
        return redirect("annotations:label", pk=unit.pk)
    try:
        services.submit(user=request.user, unit=unit)
    except AnnotationError as exc:
        messages.error(request, f"Not submitted: {exc}.")
        return redirect("annotations:label", pk=unit.pk)
    messages.success(request, f"Submitted {unit.title}. Thank you: your labels are final.")
    # On to the next recipe of the same project: the first open one of the whole queue could be a
    # recipe of the same name in another project, whose "0 of 20 labels" read as labels lost.
    open_entries = [e for e in selectors.queue(annotator) if e.assignment.submitted_at is None]
    following = next((e for e in open_entries if e.assignment.recipe.project_id == unit.project_id), None)
    if following is not None:
        messages.info(request, f"Next in {unit.project.name}: {following.assignment.recipe.title}.")
        return redirect(reverse("annotations:label", kwargs={"pk": following.assignment.recipe_id}))
    if open_entries:
        messages.info(request, f"Nothing left to label in {unit.project.name}. Your queue has the other projects.")
    else:
        messages.info(request, "Your queue is done.")
    return redirect("annotations:queue")
