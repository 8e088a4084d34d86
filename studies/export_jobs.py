"""Full study exports prepared in the background: one ZIP with every table in CSV and JSONL and the
data dictionary, written table by table through the same streamed generators as the downloads."""

from __future__ import annotations

import io
import logging
import zipfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from arena_site import background
from studies import exports
from studies.models import ExportJob, ExportStatus, Study

log = logging.getLogger(__name__)


def export_dir() -> Path:
    storages: Any = settings.STORAGES
    path = Path(storages["default"]["OPTIONS"]["location"]) / "study-exports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def request_export(study: Study, *, user: Any = None, include_excluded: bool = False) -> ExportJob:
    """Queue a full export; the ``studies.run_export`` task starts once the job row is committed."""
    job = ExportJob.objects.create(study=study, requested_by=user, include_excluded=include_excluded)
    background.submit_on_commit("studies.run_export", job.pk)
    return job


def cut_off_jobs() -> list[int]:
    """The jobs a stopped server cut off (still queued or running), to queue again when it starts:
    a job writes its ZIP anew."""
    return list(
        ExportJob.objects.filter(status__in=[ExportStatus.QUEUED, ExportStatus.RUNNING]).values_list("pk", flat=True)
    )


def _write(archive: zipfile.ZipFile, name: str, lines: object) -> int:
    count = 0
    with archive.open(name, "w") as raw, io.TextIOWrapper(raw, encoding="utf-8", newline="") as out:
        for line in lines:  # type: ignore[attr-defined]
            out.write(line)
            count += 1
    return count


def run(job_id: int) -> None:
    job = ExportJob.objects.select_related("study").get(pk=job_id)
    if job.status == ExportStatus.DONE:
        return
    ExportJob.objects.filter(pk=job.pk).update(status=ExportStatus.RUNNING, progress=0)
    study = job.study
    options = exports.Options(include_excluded=job.include_excluded)
    file_name = f"study-{study.slug}-{job.pk}.zip"
    path = export_dir() / file_name
    parts = [(table, fmt) for table in exports.TABLES for fmt in exports.FORMATS]
    rows = 0
    try:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for fmt in exports.FORMATS:
                _write(archive, f"data_dictionary.{fmt}", exports.dictionary_lines(study, fmt))
            for k, (table, fmt) in enumerate(parts, start=1):
                rows += _write(archive, f"{table}.{fmt}", exports.lines(study, table, fmt, options))
                ExportJob.objects.filter(pk=job.pk).update(progress=k / len(parts), rows=rows)
    except Exception as error:  # the researcher sees why on the exports page
        log.exception("export job %s failed", job.pk)
        path.unlink(missing_ok=True)
        ExportJob.objects.filter(pk=job.pk).update(
            status=ExportStatus.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
        )
        return
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportStatus.DONE, progress=1.0, rows=rows, file_name=file_name, finished_at=timezone.now()
    )


def job_path(job: ExportJob) -> Path | None:
    if job.status != ExportStatus.DONE or not job.file_name:
        return None
    path = export_dir() / job.file_name
    return path if path.is_file() else None
