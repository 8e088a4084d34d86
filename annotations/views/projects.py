"""Researchers' project pages: list, create, overview, imports and streamed exports."""

from __future__ import annotations

import io
import json

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from accounts.permissions import can_manage_annotation_projects as _can_manage
from accounts.permissions import require
from annotations import selectors, services
from annotations.exports import csv_lines, gold_recipes, jsonl_lines
from annotations.forms import ProjectForm
from annotations.importing import ImportFailed, import_labels
from annotations.models import Project
from annotations.services import AnnotationError
from arena_site.streaming import stream
from games.catalog.recipes.services import RecipeProblem, catalogue_recipes_of
from games.domains.recipes.text import recipe_title
from games.models import Scenario

manager_required = require(_can_manage)


@manager_required
def project_list(request: HttpRequest) -> HttpResponse:
    projects = list(Project.objects.all())
    progress = selectors.projects_progress(projects)
    rows = [{"project": p, "progress": progress[p.pk]} for p in projects]
    return render(request, "annotations/project_list.html", {"rows": rows})


@manager_required
def project_new(request: HttpRequest) -> HttpResponse:
    # a scenario's "Label its steps" comes here with its recipes (and a name) chosen
    initial = {"recipes": request.GET.getlist("recipes"), "name": request.GET.get("name", "")}
    form = ProjectForm(request.POST or None, initial={k: v for k, v in initial.items() if v})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            project = services.create_project(
                name=data["name"],
                description=data["description"],
                recipes=list(data["recipes"]),
                properties=data["properties"],
                annotators=list(data["annotators"]),
                annotators_per_item=data["annotators_per_item"],
                guidelines=data["guidelines"],
                show_suggestions=data["show_suggestions"],
                created_by=request.user,
            )
        except AnnotationError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Project “{project.name}” created; its annotators find it in their queue.")
            return redirect("annotations:project", pk=project.pk)
    return render(request, "annotations/project_new.html", {"form": form})


@manager_required
def project_detail(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    context = {
        "project": project,
        "progress": selectors.project_progress(project),
        "annotators": selectors.per_annotator_progress(project),
        "recipes": project.recipes.select_related("recipe"),
        "runs": project.runs.select_related("annotator")[:5],
        "applications": project.applications.select_related("recipe")[:10],
        "llm_model": settings.LLM_MODEL,
        "import_limit": MAX_IMPORT_BYTES,
    }
    return render(request, "annotations/project_detail.html", context)


# The largest CSV the import page reads: every row is checked before any is written, all within the
# request (300,000 rows over 10,000 recipes, 12 MB, took 28 s on SQLite; 8 MB is about 20 s). The
# command line, import_annotations, has no such bound.
MAX_IMPORT_BYTES = 8 * 2**20


@manager_required
@require_POST
def project_import(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    upload = request.FILES.get("file")
    raw = upload.file if upload is not None else None
    if raw is None:
        messages.error(request, "Choose a CSV file (item_id,annotator,property,label) to import.")
        return redirect("annotations:project", pk=pk)
    if upload is not None and upload.size is not None and upload.size > MAX_IMPORT_BYTES:
        messages.error(
            request,
            f"The file is {filesizeformat(upload.size)}; import at most {filesizeformat(MAX_IMPORT_BYTES)} at a time "
            "(split it by rows, each part with the header: an import adds to the labels already there). "
            "Nothing was imported.",
        )
        return redirect("annotations:project", pk=pk)
    try:
        text = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
        summary = import_labels(project.name, text, created_by=request.user)
    except ImportFailed as exc:
        messages.error(request, str(exc))
    except UnicodeDecodeError:
        messages.error(
            request, "The file is not UTF-8 text: save it as UTF-8 CSV and import again. Nothing was imported."
        )
    else:
        messages.success(request, f"Imported {summary['labels']} labels by {summary['annotators']} annotators.")
    return redirect("annotations:project", pk=pk)


@manager_required
def project_export(request: HttpRequest, pk: int) -> HttpResponseBase:
    """Labels (or gold with ?gold=1) as CSV or JSONL (?format=jsonl), streamed; ?format=recipes: gold recipes."""
    project = get_object_or_404(Project, pk=pk)
    fmt = request.GET.get("format", "csv")
    gold = request.GET.get("gold") == "1"
    stem = slugify(project.name) or f"project-{project.pk}"
    if fmt == "recipes":
        response = HttpResponse(json.dumps(gold_recipes(project), indent=1), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="{stem}-gold-recipes.json"'
        return response
    if fmt not in ("csv", "jsonl"):
        return HttpResponse("format must be csv, jsonl or recipes", status=400, content_type="text/plain")
    lines = csv_lines(project, gold=gold) if fmt == "csv" else jsonl_lines(project, gold=gold)
    content_type = "text/csv" if fmt == "csv" else "application/x-ndjson"
    filename = f"{stem}-{'gold' if gold else 'labels'}.{fmt}"
    return stream(request, lines, content_type=f"{content_type}; charset=utf-8", filename=filename)


@manager_required
@require_POST
def label_scenario(request: HttpRequest, pk: int) -> HttpResponse:
    """From a recipe pair's page to a new annotation project on its recipes: recipes written in the
    studio or generated join the catalogue first (annotators label catalogue recipes)."""
    scenario = get_object_or_404(Scenario, pk=pk)
    try:
        recipes = catalogue_recipes_of(scenario)
    except RecipeProblem as error:
        messages.error(request, f"Its steps cannot be labelled yet: {error}")
        return redirect("games:scenario", pk=scenario.pk)
    names = ", ".join(recipe_title(recipe.name) for recipe in recipes)
    messages.success(request, f"Chosen for labelling: {names}. Pick the annotators and create the project.")
    query = urlencode([("name", f"Labels: {scenario.title}"[:200]), *(("recipes", r.pk) for r in recipes)])
    return redirect(f"{reverse('annotations:project_new')}?{query}")
