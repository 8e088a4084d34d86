"""``manage.py import_annotations --project NAME FILE.csv``: labels made elsewhere, all or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotations.importing import ImportFailed, import_labels


class Command(BaseCommand):
    help = "Import labels in the long CSV format item_id,annotator,property,label (nothing on any bad row)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True, help="the project's name (created if missing)")
        parser.add_argument("file", help="the CSV file")

    def handle(self, *args: Any, project: str, file: str, **options: Any) -> None:
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"no file at {path}; give the path of a CSV file")
        try:
            with path.open(newline="", encoding="utf-8-sig") as handle:
                summary = import_labels(project, handle)
        except ImportFailed as error:
            raise CommandError(str(error)) from None
        except UnicodeDecodeError:
            raise CommandError(f"{path} is not UTF-8 text; save it as UTF-8 CSV and import again") from None
        made = "created" if summary["created_project"] else "updated"
        self.stdout.write(
            f"Imported {summary['labels']} labels by {summary['annotators']} annotators on {summary['items']} items "
            f"into project {summary['project']} ({made}; {summary['new_items']} new items)."
        )
