"""The agreement report page: per property numbers, charts, confusion matrices, disputed items."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotations.models import Project
from annotations.reports import agreement_report, model_report
from annotations.schema import PROPERTY_TITLES
from annotations.views.projects import manager_required
from arena_site.charts import row_bars

# The benchmark's published agreement levels (SPEC section 9), drawn for orientation.
PUBLISHED = {"concurrency": 0.78, "interruptibility": 0.50, "time_constraint": 0.66, "resource": 0.86}


def _heat(confusion: dict[str, Any]) -> dict[str, Any]:
    """Rows of cells with a shade proportional to the count, for the pooled confusion matrix."""
    biggest = max([c for row in confusion["matrix"] for c in row] or [0]) or 1
    rows = []
    for label, counts in zip(confusion["labels"], confusion["matrix"], strict=True):
        cells = [{"count": c, "alpha": round(0.08 + 0.72 * c / biggest, 2) if c else 0} for c in counts]
        rows.append({"label": label, "cells": cells})
    return {"labels": confusion["labels"], "rows": rows}


CHART_PAIRS = 40


@manager_required
def report(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(Project, pk=pk)
    data = agreement_report(project)
    properties = data["properties"]
    overview = row_bars(
        [
            (
                PROPERTY_TITLES[prop],
                [("Fleiss' kappa", row["fleiss_kappa"]), ("Krippendorff's alpha", row["krippendorff_alpha"])],
                PUBLISHED.get(prop),
            )
            for prop, row in properties.items()
        ]
        + [
            (
                "Overall",
                [
                    ("Fleiss' kappa", data["overall"]["fleiss_kappa"]),
                    ("Krippendorff's alpha", data["overall"]["krippendorff_alpha"]),
                ],
                None,
            )
        ],
        title="Chance-corrected agreement per property",
    )
    percent = row_bars(
        [(PROPERTY_TITLES[prop], [("agreement", row["percent_agreement"])], None) for prop, row in properties.items()],
        high=100.0,
        percent=True,
        title="Raw percent agreement per property",
    )
    sections = []
    for prop, row in properties.items():
        kappas = row["cohen_kappa"]
        if len(kappas) > CHART_PAIRS:  # thousands of bars help nobody: the pairs sharing the most items
            kappas = {pair: kappas[pair] for pair in row["confusion"]}
        pairs = row_bars(
            [(pair.replace("|", " · "), [("Cohen's kappa", kappa)], None) for pair, kappa in kappas.items()],
            title=f"Cohen's kappa per annotator pair, {PROPERTY_TITLES[prop]}",
            plot_width=200,  # half a card wide
        )
        sections.append(
            {
                "prop": prop,
                "title": PROPERTY_TITLES[prop],
                "row": row,
                "pairs": pairs,
                "heat": _heat(row["pooled_confusion"]),
                "published": PUBLISHED.get(prop),
                "tables": [
                    {
                        "rows_name": m["rows"],
                        "columns_name": m["columns"],
                        "labels": m["labels"],
                        "rows": list(zip(m["labels"], m["matrix"], strict=True)),
                    }
                    for m in row["confusion"].values()
                ],
            }
        )
    context = {
        "project": project,
        "report": data,
        "overview": overview,
        "percent": percent,
        "sections": sections,
        "models": model_report(project),
        "has_labels": any(row["labels"] for row in properties.values()),
        # agreement compares two people's labels of one item: with one annotator (or none sharing an
        # item) every figure was "n/a" and the page said "No disagreements"
        "compared": any(row["cohen_kappa"] for row in properties.values()),
        "annotators": sorted({name for row in properties.values() for name in row["annotators"]}),
    }
    return render(request, "annotations/report.html", context)
