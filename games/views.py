"""Pages for browsing scenarios (games, replays and benchmarks join with their issues)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.permissions import researcher_required
from games import selectors
from games.models import Domain, Scenario


@researcher_required
def scenario_list(request: HttpRequest) -> HttpResponse:
    domain = request.GET.get("domain", "")
    if domain not in Domain.values:
        domain = ""
    search = request.GET.get("q", "").strip()
    page = Paginator(selectors.current_scenarios(domain, search), 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "domains": Domain.choices,
        "domain": domain,
        "q": search,
        "counts": selectors.scenario_counts(),
    }
    template = "games/_scenario_rows.html" if request.htmx else "games/scenario_list.html"
    return render(request, template, context)


@researcher_required
def scenario_detail(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=pk)
    versions = Scenario.objects.filter(slug=scenario.slug).order_by("-version")
    return render(request, "games/scenario_detail.html", {"scenario": scenario, "versions": versions})
