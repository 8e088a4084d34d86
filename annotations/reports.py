"""The agreement report of a project (people's submitted labels) and the model-vs-gold scores.

Shared by the report page and ``manage.py agreement_report``; the statistics are in agreement.py.
"""

from __future__ import annotations

from typing import Any

from annotations import agreement, selectors
from annotations.models import Project


def agreement_report(project: Project, disputed_limit: int = 10) -> dict[str, Any]:
    result = agreement.report(selectors.ratings(project), disputed_limit)
    return {"project": project.name, **result}


def model_report(project: Project) -> list[dict[str, Any]]:
    """Per model annotator, precision/recall/F1 per property against the project's gold labels."""
    gold = selectors.gold_of(project)
    out = []
    for annotator in selectors.model_annotators(project):
        predicted = selectors.model_labels(project, annotator)
        scores = {
            prop: agreement.model_scores(gold.get(prop, {}), predicted.get(prop, {}))
            | {"labelled": len(predicted.get(prop, {}))}
            for prop in project.properties
        }
        out.append({"annotator": annotator.name, "properties": scores, "gold": sum(len(v) for v in gold.values())})
    return out
