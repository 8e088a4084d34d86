"""Starting an LLM pre-annotation and watching its progress (the page polls a small fragment)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotations import preannotation, services
from annotations.models import PreannotationRun, Project
from annotations.services import AnnotationError
from annotations.views.projects import manager_required


@manager_required
@require_POST
def start(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    try:
        run = preannotation.start(project=project, user=request.user)
    except AnnotationError as exc:
        messages.error(request, f"Pre-annotation not started: {exc}.")
    else:
        messages.success(request, f"Pre-annotation with {run.model_name} started; its progress shows below.")
    return redirect("annotations:project", pk=pk)


@manager_required
def run_status(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(PreannotationRun.objects.select_related("project"), pk=pk)
    return render(request, "annotations/_run.html", {"run": run})


@manager_required
@require_POST
def toggle_suggestions(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    services.set_show_suggestions(project, request.POST.get("show") == "1")
    state = "now see the model's labels as suggestions" if project.show_suggestions else "no longer see suggestions"
    messages.success(request, f"Annotators {state}.")
    return redirect("annotations:project", pk=pk)
