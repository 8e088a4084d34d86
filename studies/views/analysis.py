"""The analysis page: per condition, objective scores and questionnaire constructs (mean, SD, n),
the design's ANOVA and Tukey HSD, and bar charts with error bars."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.permissions import researcher_required
from arena_site import charts
from studies import selectors, services
from studies.analysis import MeasureAnalysis
from studies.measures import LIKERT_POINTS
from studies.models import Study


def _bars(measure: MeasureAnalysis) -> list[charts.MeanBar]:
    return [charts.MeanBar(g.condition, g.mean, g.se, g.n) for g in measure.groups]


@researcher_required
def analysis(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    services.inactivity.drop_inactive(study)  # those gone past the study's limit are drop-outs here too
    include_dropped = request.GET.get("dropped") == "1"
    include_pilots = request.GET.get("pilots") == "1"
    include_backfilled = request.GET.get("backfilled") == "1"
    result = selectors.study_analysis(
        study,
        include_dropped=include_dropped,
        include_pilots=include_pilots,
        include_backfilled=include_backfilled,
        exclude_failing_npcs=request.GET.get("failing_npcs") == "0",
    )
    # a construct nobody has answered is named once, not drawn as an empty bar and table (a study
    # played alone never asks the constructs about teammates)
    answered = [m for m in result.constructs if m.n]
    about_teammates = _about_teammates(study)
    unanswered = [m.label for m in result.constructs if not m.n and m.key not in about_teammates]
    unanswered_teammates = [m.label for m in result.constructs if not m.n and m.key in about_teammates]
    construct_chart = (
        charts.mean_bars(
            [charts.MeanGroup(m.label, _bars(m)) for m in answered],
            result.conditions,
            title="Questionnaire constructs per condition (mean ± SE, 1-5)",
            y_min=1,
            y_max=LIKERT_POINTS,
            width=max(720, 110 * len(answered)) if len(answered) > 1 else 360,
        )
        if answered
        else None
    )
    objective_charts = [
        charts.mean_bars(
            [charts.MeanGroup(m.label, _bars(m))],
            result.conditions,
            title=f"{m.label} per condition (mean ± SE)",
            width=360,
            height=280,
        )
        for m in result.objective
    ]
    return render(
        request,
        "studies/analysis.html",
        {
            "study": study,
            "result": result,
            "construct_chart": construct_chart,
            "answered": answered,
            "unanswered": unanswered,
            "unanswered_teammates": unanswered_teammates,
            "objective": list(zip(result.objective, objective_charts, strict=True)),
            "include_dropped": include_dropped,
            "include_pilots": include_pilots,
        },
    )


def _about_teammates(study: Study) -> set[str]:
    """The constructs whose every item is about teammates (not asked after a game played alone)."""
    needs: dict[str, bool] = {}
    for construct, teammates in study.items.values_list("construct", "needs_teammates"):
        needs[construct] = needs.get(construct, True) and teammates
    return {construct for construct, only in needs.items() if only}
