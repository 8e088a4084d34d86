"""Export pages: streamed downloads of every table (CSV, JSONL), the data dictionary, and a
background ZIP of everything for big studies."""

from __future__ import annotations

from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.permissions import researcher_required
from arena_site.streaming import stream
from studies import bonus, export_jobs, exports
from studies.models import ExportJob, Study


@researcher_required
def exports_page(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    tables = [{"table": table, "columns": table.columns(study)} for table in exports.TABLES.values()]
    context = {"study": study, "tables": tables, "jobs": study.export_jobs.all()[:5], "formats": list(exports.FORMATS)}
    return render(request, "studies/exports.html", context)


@researcher_required
def download(request: HttpRequest, pk: int, table: str, fmt: str) -> HttpResponseBase:
    study = get_object_or_404(Study, pk=pk)
    if table not in exports.TABLES or fmt not in exports.FORMATS:
        raise Http404(f"No export named {table}.{fmt}; see the exports page for the list.")
    options = exports.Options(include_excluded=request.GET.get("all") == "1")
    lines = exports.lines(study, table, fmt, options)
    # the file says which it is: both downloads had one name, and the second overwrote the first
    name = f"{study.slug}-{table}{'-with-excluded' if options.include_excluded else ''}.{fmt}"
    return stream(request, lines, content_type=exports.FORMATS[fmt], filename=name)


@researcher_required
def bonuses(request: HttpRequest, pk: int) -> HttpResponse:
    """The bulk-bonus CSV (``participant_id,amount``) of completed participants, for the recruiter."""
    study = get_object_or_404(Study, pk=pk)
    try:
        text = bonus.bonus_csv(study)
    except bonus.BonusError as error:
        return HttpResponse(f"{error}\n", status=400, content_type="text/plain; charset=utf-8")
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{study.slug}-bonuses.csv"'
    return response


@researcher_required
def dictionary(request: HttpRequest, pk: int, fmt: str) -> HttpResponseBase:
    study = get_object_or_404(Study, pk=pk)
    if fmt not in exports.FORMATS:
        raise Http404("The data dictionary comes as csv or jsonl.")
    lines = exports.dictionary_lines(study, fmt)
    return stream(request, lines, content_type=exports.FORMATS[fmt], filename=f"{study.slug}-data-dictionary.{fmt}")


@researcher_required
@require_POST
def start_job(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    job = export_jobs.request_export(study, user=request.user, include_excluded=request.POST.get("all") == "1")
    return redirect("studies:export_job", pk=study.pk, job_pk=job.pk)


@researcher_required
def job_status(request: HttpRequest, pk: int, job_pk: int) -> HttpResponse:
    job = get_object_or_404(ExportJob, pk=job_pk, study_id=pk)
    template = "studies/_export_job.html" if getattr(request, "htmx", False) else "studies/export_job.html"
    return render(request, template, {"study": job.study, "job": job})


@researcher_required
def job_download(request: HttpRequest, pk: int, job_pk: int) -> HttpResponseBase:
    job = get_object_or_404(ExportJob, pk=job_pk, study_id=pk)
    path = export_jobs.job_path(job)
    if path is None:
        raise Http404("This export is not ready (or its file was removed); start a new one.")
    return FileResponse(path.open("rb"), as_attachment=True, filename=job.file_name)
