"""Adjudication: a researcher turns the annotators' labels into gold, item by item; applies gold."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotations import gold as gold_service
from annotations import selectors
from annotations.agreement import disputed_items
from annotations.models import Item, Project
from annotations.schema import DEPENDENCY, NONE, PROPERTY_TITLES, TIME_CONSTRAINT, label_json_schema, label_text
from annotations.services import AnnotationError
from annotations.templatetags.annotations_extras import item_title
from annotations.views.projects import manager_required
from games.domains.recipes.text import recipe_title

FILTERS = {"open": "without gold", "disputed": "disputed", "all": "all items"}
# What a typed label looks like, as the box's placeholder and a refusal say it.
TYPED_FORMS = {TIME_CONSTRAINT: "step:minutes, e.g. 2:5 (after step 2, within 5 min)", DEPENDENCY: "steps, e.g. 1+4"}


def _refusal(prop: str, typed: str, reason: str) -> str:
    """A refused gold label in the page's words: a typed value not in the typed form is told that
    form as the box shows it (the schema's reason says "k:N", the import format's words)."""
    if typed and prop in TYPED_FORMS and typed != NONE and label_text(prop, typed) == typed:  # not read as a label
        return f"{PROPERTY_TITLES[prop].lower()} “{typed}” is not a label: type {TYPED_FORMS[prop]}, or none"
    return reason


def _queue(project: Project, ratings: dict[str, dict[str, dict[str, str]]], which: str) -> list[str]:
    keys = list(Item.objects.filter(project=project).values_list("key", flat=True))
    if which == "disputed":
        disputed = {row["item"] for r in ratings.values() for row in disputed_items(r, limit=len(r))}
        return [k for k in keys if k in disputed]
    if which == "open":
        gold = selectors.gold_of(project)
        return [k for k in keys if any(k not in gold.get(p, {}) for p in project.properties)]
    return keys


def _options(prop: str, votes: dict[str, str], value: str) -> list[str]:
    """Voted labels first (most votes first), then the schema's standard values."""
    counts: dict[str, int] = {}
    for label in votes.values():
        counts[label] = counts.get(label, 0) + 1
    ordered = sorted(counts, key=lambda label: (-counts[label], label))
    return list(dict.fromkeys([*ordered, *([value] if value else []), *_standard(prop)]))


def _standard(prop: str) -> list[str]:
    """Every value a closed property takes (resources: none and each combination of appliances,
    "oven+stove" too, so no gold label needs typing); an open one offers none."""
    return list(label_json_schema(prop).get("enum", [NONE]))


@manager_required
def adjudicate(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    # "end": the list's last item was just saved; the list (disputed, all) may still hold every item
    end = bool(request.GET.get("end")) and not request.GET.get("item")
    return _page(request, project, request.GET.get("filter", "open"), key=request.GET.get("item", ""), end=end)


def _page(
    request: HttpRequest,
    project: Project,
    which: str,
    *,
    key: str = "",
    end: bool = False,
    posted: dict[str, tuple[str, str]] | None = None,
    errors: dict[str, str] | None = None,
) -> HttpResponse:
    """The adjudication page at one item; ``posted`` (prop -> (chosen, typed)) puts back what a
    refused save sent, so a mistyped label can be mended rather than typed again."""
    if which not in FILTERS:
        which = "open"
    ratings = selectors.ratings(project)
    keys = _queue(project, ratings, which)
    key = key or (keys[0] if keys and not end else "")
    item = Item.objects.filter(project=project, key=key).select_related("recipe").first()
    context: dict[str, Any] = {
        "project": project,
        "filter": which,
        "filters": FILTERS,
        "remaining": len(keys),
        "progress": selectors.project_progress(project),
        "item": item,
        "end": end,
        "refused": bool(errors),
    }
    if item is not None:
        gold = selectors.gold_of(project)
        models = {a.name: selectors.model_labels(project, a) for a in selectors.model_annotators(project)}
        fields = []
        for prop in project.properties:
            votes = ratings.get(prop, {}).get(item.key, {})
            decided = gold.get(prop, {}).get(item.key)
            value, typed = (posted or {}).get(prop, (gold_service.prefill(votes, decided), ""))
            counts: dict[str, int] = {}
            for label in votes.values():
                counts[label] = counts.get(label, 0) + 1
            fields.append(
                {
                    "prop": prop,
                    "title": PROPERTY_TITLES[prop],
                    "votes": sorted(votes.items()),
                    "counts": sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])),
                    "tie": not decided
                    and len(counts) > 1
                    and sorted(counts.values())[-1] == sorted(counts.values())[-2],
                    "value": value,
                    "typed_value": typed,
                    "error": (errors or {}).get(prop, ""),
                    "gold": decided,
                    "options": _options(prop, votes, value),
                    "typed": "enum" not in label_json_schema(prop),  # step numbers: too many to list
                    "typed_form": TYPED_FORMS.get(prop, ""),
                    "models": [(name, labels.get(prop, {}).get(item.key)) for name, labels in models.items()],
                }
            )
        position = keys.index(item.key) if item.key in keys else -1
        context |= {
            "fields": fields,
            "ties": [f["title"] for f in fields if f["tie"]],
            "steps": item.recipe.items.order_by("step"),
            "next_key": keys[position + 1]
            if 0 <= position < len(keys) - 1
            else (keys[0] if position < 0 and keys else ""),
            "previous_key": keys[position - 1] if position > 0 else "",
        }
    return render(request, "annotations/adjudicate.html", context)


@manager_required
@require_POST
def save_gold(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    item = get_object_or_404(Item, project=project, key=request.POST.get("item", ""))
    which = request.POST.get("filter", "open")
    labels = {}
    posted = {}
    for prop in project.properties:
        chosen = request.POST.get(prop, "")
        typed = request.POST.get(f"{prop}-other", "").strip()
        labels[prop] = typed or chosen
        posted[prop] = (chosen, typed)
    try:
        saved = gold_service.set_gold_labels(user=request.user, item=item, labels=labels)
    except AnnotationError as exc:
        # the page again, with what was sent (a redirect emptied the typed box: "abc" could not be
        # mended); the message names the item as the page does ("Garlic Bread, step 2", not
        # "Garlic-Bread/2"), and the label's reason names its property in words already
        prop = getattr(exc, "prop", "")
        reason = _refusal(prop, posted.get(prop, ("", ""))[1], str(exc))
        messages.error(request, f"Gold for {item_title(item.key)} not saved: {reason}.")
        errors = {prop: reason}
        return _page(request, project, which, key=item.key, posted=posted, errors=errors)
    undecided = [PROPERTY_TITLES[p].lower() for p in project.properties if not labels[p].strip()]
    left = f"; left undecided: {', '.join(undecided)}" if undecided else ""
    messages.success(request, f"Saved {saved} gold label{pluralize(saved)} for {item_title(item.key)}{left}.")
    following = request.POST.get("next", "")
    target = f"{reverse('annotations:adjudicate', args=[pk])}?filter={which}"
    if following and following != item.key:
        return redirect(f"{target}&item={following}")
    # the list's last item: say so ("without gold" empties as gold is saved; the others keep their
    # items, and went back to the first as if nothing had happened)
    return redirect(target if which == "open" else f"{target}&end=1")


@manager_required
@require_POST
def accept_unanimous(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    count = gold_service.accept_unanimous(user=request.user, project=project)
    messages.success(request, f"{count} unanimous labels became gold; the disputed ones are left for you.")
    return redirect(f"{reverse('annotations:adjudicate', args=[pk])}?filter=open")


@manager_required
@require_POST
def apply_gold(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    try:
        applications = gold_service.apply_gold(user=request.user, project=project)
    except AnnotationError as exc:
        messages.error(request, f"Gold not applied: {exc}.")
    else:
        changed = [a.recipe for a in applications if a.changed]
        if changed:
            names = ", ".join(f"{recipe_title(r.name)} v{r.version}" for r in changed)
            messages.success(request, f"New recipe versions: {names}. New games use them; played games keep theirs.")
        else:
            messages.info(request, "The recipes already say what the gold labels say; nothing changed.")
    return redirect("annotations:project", pk=pk)
