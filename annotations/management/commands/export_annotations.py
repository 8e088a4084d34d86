"""``manage.py export_annotations --project NAME [--format csv|jsonl|recipes] [--gold]``."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotations.exports import csv_lines, gold_recipes, jsonl_lines
from annotations.models import Project


class Command(BaseCommand):
    help = "Export a project's labels (CSV or JSONL, streamed), its gold labels, or gold as Recipe2Plan recipes."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--format", choices=["csv", "jsonl", "recipes"], default="csv")
        parser.add_argument("--gold", action="store_true", help="export gold labels (annotator 'gold')")

    def handle(self, *args: Any, project: str, format: str, gold: bool, **options: Any) -> None:
        found = Project.objects.filter(name=project).first()
        if found is None:
            raise CommandError(f"no annotation project named {project!r}")
        if format == "recipes":
            self.stdout.write(json.dumps(gold_recipes(found), indent=1))
            return
        lines = csv_lines(found, gold=gold) if format == "csv" else jsonl_lines(found, gold=gold)
        for chunk in lines:
            self.stdout.write(chunk, ending="")
