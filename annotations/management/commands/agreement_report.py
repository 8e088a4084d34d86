"""``manage.py agreement_report --project NAME [--json]``: inter-annotator agreement per property."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotations.models import Project
from annotations.reports import agreement_report, model_report


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = "Agreement of a project's submitted labels: Cohen's and Fleiss' kappa, Krippendorff's alpha, percent."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True, help="the project's name")
        parser.add_argument("--json", action="store_true", help="print the whole report as one JSON value")
        parser.add_argument("--disputed", type=int, default=10, help="how many disputed items to list (default 10)")

    def handle(self, *args: Any, project: str, json: bool = False, disputed: int = 10, **options: Any) -> None:
        found = Project.objects.filter(name=project).first()
        if found is None:
            names = ", ".join(Project.objects.order_by("name").values_list("name", flat=True)[:10]) or "none yet"
            raise CommandError(f"no annotation project named {project!r} (projects: {names})")
        report = agreement_report(found, disputed)
        report["models"] = model_report(found)
        if json:
            self.stdout.write(_dumps(report))
            return
        self.stdout.write(f"Agreement for {found.name} (submitted labels of people)")
        self.stdout.write(f"{'property':<18}{'items':>6}{'fleiss':>9}{'alpha':>9}{'agree %':>9}")
        for prop, row in [*report["properties"].items(), ("overall", report["overall"])]:
            self.stdout.write(
                f"{prop:<18}{row['items']:>6}{_number(row['fleiss_kappa']):>9}"
                f"{_number(row['krippendorff_alpha']):>9}{_number(row['percent_agreement']):>9}"
            )
            for pair, kappa in row["cohen_kappa"].items():
                self.stdout.write(f"    cohen {pair}: {_number(kappa)}")
        if report["disputed"]:
            self.stdout.write("Most disputed items:")
            for row in report["disputed"]:
                self.stdout.write(f"  {row['item']}: {', '.join(sorted(row['properties']))}")


def _dumps(value: Any) -> str:
    return json.dumps(value)
