"""The study designer: list, create, and edit a study's basics, conditions, scenarios, onboarding and
questionnaire. Every POST goes through one service and comes back to the designer (PRG)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.permissions import researcher_required
from studies import assignment, pilot_runs, selectors, services
from studies.errors import StudyError
from studies.forms import ConditionForm, ItemForm, NewStudyForm, OnboardingPageForm, ScenarioForm, StudyBasicsForm
from studies.models import Condition, Design, OnboardingPage, PilotRun, QuestionnaireItem, Study, StudyScenario
from studies.pilot_tokens import pilot_token


@researcher_required
def study_list(request: HttpRequest) -> HttpResponse:
    form = NewStudyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = services.create_study(title=form.cleaned_data["title"], created_by=request.user)
        except StudyError as error:
            form.add_error("title", str(error))
        else:
            messages.success(request, f"Created “{study.title}”. Add conditions and scenarios, then open it.")
            return redirect("studies:design", pk=study.pk)
    return render(request, "studies/list.html", {"studies": selectors.studies_overview(), "form": form})


def _design_context(request: HttpRequest, study: Study, **forms: Any) -> dict[str, Any]:
    items = list(study.items.order_by("index"))
    constructs: dict[str, list[QuestionnaireItem]] = {}
    for item in items:
        constructs.setdefault(item.construct_label, []).append(item)
    link = request.build_absolute_uri(reverse("studies:entry", args=[study.slug]))
    names = [c.name for c in study.conditions.order_by("index")]
    within = study.design == Design.WITHIN
    orders = (
        [
            [names[i] for i in assignment.condition_order(k, len(names), within)]
            for k in range(assignment.sequence_count(len(names), within))
        ]
        if names
        else []
    )
    return {
        "study": study,
        "problems": services.readiness_problems(study),
        "basics_form": forms.get("basics_form") or StudyBasicsForm(instance=study),
        "condition_form": forms.get("condition_form") or ConditionForm(prefix="condition", study=study),
        "scenario_form": forms.get("scenario_form") or ScenarioForm(prefix="scenario"),
        "page_form": forms.get("page_form") or OnboardingPageForm(prefix="page"),
        "item_form": forms.get("item_form") or ItemForm(prefix="item"),
        "conditions": study.conditions.order_by("index"),
        "study_scenarios": study.study_scenarios.select_related("scenario").order_by("index"),
        "pages": study.onboarding_pages.select_related("tutorial_scenario").order_by("index"),
        "constructs": constructs,
        "link": link,
        "link_query": _link_query(study),
        "pilot_link": f"{link}?pilot={pilot_token(study)}",
        "orders": orders,
        # within-subject, a shared condition's participants meet only at the same place of their
        # orders (each place has its scenario): a playtest's two waited side by side, never paired
        "shared_within": [c.name for c in study.conditions.order_by("index") if c.human_count > 1]
        if within and len(names) > 1
        else [],
        **_status_context(study),
        **_pilots_context(study.pilot_runs.first()),
    }


def _status_context(study: Study) -> dict[str, Any]:
    """The status block's counts and whether participants (pilots too) have fixed the design."""
    return {
        "locked": services.design_locked(study),
        "counts": selectors.status_counts(study),
        "n_pilots": study.participants.filter(is_pilot=True).count(),
        # not a blocker (a pilot may well keep it), but its "about 20 minutes" is rarely the study's
        "default_consent": study.consent_text.strip() == services.DEFAULT_CONSENT.strip(),
    }


def _pilots_context(run: PilotRun | None) -> dict[str, Any]:
    """The pilots panel: the latest run, how far its pilots are, and the form's limit."""
    progress, rows = pilot_runs.in_flight(run) if run is not None else (0.0, [])
    return {"pilot_run": run, "pilot_progress": progress, "pilots_in_flight": rows, "max_pilots": pilot_runs.MAX_PILOTS}


def _link_query(study: Study) -> str:
    """The recruiter's placeholders for the study URL (Prolific's {{%NAME%}} syntax)."""
    names = [study.id_param or "pid", *study.captured_param_names()]
    return "?" + "&".join(f"{name}={{{{%{name}%}}}}" for name in dict.fromkeys(names))


@researcher_required
def design(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    return render(request, "studies/design.html", _design_context(request, study))


def _back(study: Study, anchor: str) -> HttpResponse:
    return redirect(reverse("studies:design", args=[study.pk]) + f"#{anchor}")


def _attempt(request: HttpRequest, action: Callable[[], Any], success: str) -> bool:
    try:
        action()
    except StudyError as error:
        messages.error(request, str(error))
        return False
    messages.success(request, success)
    return True


def _invalid(request: HttpRequest, study: Study, **forms: Any) -> HttpResponse:
    messages.error(request, "Some fields need attention (see below).")
    return render(request, "studies/design.html", _design_context(request, study, **forms), status=400)


@researcher_required
@require_POST
def save_basics(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    form = StudyBasicsForm(request.POST, instance=study)
    if not form.is_valid():
        return _invalid(request, Study.objects.get(pk=pk), basics_form=form)
    try:
        services.save_basics(form)
    except services.StudyError as error:
        messages.error(request, str(error))
        return _back(study, "basics")
    messages.success(request, "Saved the study settings.")
    return _back(study, "basics")


@researcher_required
@require_POST
def set_status(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    status = request.POST.get("status", "")
    _attempt(request, lambda: services.set_status(study, status), f"The study is now {status}.")
    return _back(study, "top")


@researcher_required
@require_POST
def add_condition(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    form = ConditionForm(request.POST, prefix="condition", study=study)
    if not form.is_valid():
        return _invalid(request, study, condition_form=form)
    data = form.cleaned_data
    _attempt(
        request,
        lambda: services.add_condition(
            study,
            name=data["name"],
            npc_kind=data["npc_kind"],
            npc_count=data["npc_count"],
            dispatcher=form.dispatcher_settings(),
            **form.sharing(),
        ),
        f"Added the condition “{data['name']}”.",
    )
    return _back(study, "conditions")


@researcher_required
@require_POST
def remove_condition(request: HttpRequest, pk: int, condition_pk: int) -> HttpResponse:
    condition = get_object_or_404(Condition, pk=condition_pk, study_id=pk)
    _attempt(request, lambda: services.remove_condition(condition), f"Removed “{condition.name}”.")
    return _back(condition.study, "conditions")


@researcher_required
@require_POST
def add_scenario(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    form = ScenarioForm(request.POST, prefix="scenario")
    if not form.is_valid():
        return _invalid(request, study, scenario_form=form)
    chosen = form.chosen()
    if not chosen:  # removed from the catalogue since the page was drawn
        messages.error(request, "That choice is no longer in the catalogue; choose again.")
    elif len(chosen) == 1:
        _attempt(request, lambda: services.add_scenario(study, chosen[0]), f"Added {chosen[0].title}.")
    else:
        try:
            added = services.add_scenarios(study, chosen)
        except StudyError as error:
            messages.error(request, str(error))
        else:
            kept = len(chosen) - len(added)
            messages.success(
                request,
                f"Added {len(added)} scenario{'s' if len(added) != 1 else ''} of the family"
                + (f"; {kept} {'was' if kept == 1 else 'were'} already in the study." if kept else "."),
            )
    return _back(study, "scenarios")


@researcher_required
@require_POST
def remove_scenario(request: HttpRequest, pk: int, row_pk: int) -> HttpResponse:
    row = get_object_or_404(StudyScenario, pk=row_pk, study_id=pk)
    _attempt(request, lambda: services.remove_scenario(row), f"Removed {row.scenario.title}.")
    return _back(row.study, "scenarios")


@researcher_required
@require_POST
def add_page(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    form = OnboardingPageForm(request.POST, prefix="page")
    if not form.is_valid():
        return _invalid(request, study, page_form=form)
    data = form.cleaned_data
    _attempt(
        request,
        lambda: services.add_onboarding_page(
            study, kind=data["kind"], title=data["title"], body=data["body"], tutorial_scenario=form.tutorial()
        ),
        f"Added the page “{data['title']}”.",
    )
    return _back(study, "onboarding")


@researcher_required
@require_POST
def remove_page(request: HttpRequest, pk: int, page_pk: int) -> HttpResponse:
    page = get_object_or_404(OnboardingPage, pk=page_pk, study_id=pk)
    _attempt(request, lambda: services.remove_onboarding_page(page), f"Removed the page “{page.title}”.")
    return _back(page.study, "onboarding")


@researcher_required
@require_POST
def save_item(request: HttpRequest, pk: int, item_pk: int | None = None) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    item = get_object_or_404(QuestionnaireItem, pk=item_pk, study=study) if item_pk else None
    form = ItemForm(request.POST, prefix="item" if item_pk is None else None)
    if not form.is_valid():
        return _invalid(request, study, item_form=form)
    data = form.cleaned_data
    _attempt(
        request,
        lambda: services.save_item(
            study,
            construct_label=data["construct_label"],
            text=data["text"],
            reverse_scored=data["reverse_scored"],
            attention_answer=data.get("attention_answer"),
            needs_teammates=data["needs_teammates"],
            item=item,
        ),
        "Saved the item." if item else "Added the item.",
    )
    return _back(study, "questionnaire")


@researcher_required
@require_POST
def remove_item(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    item = get_object_or_404(QuestionnaireItem, pk=item_pk, study_id=pk)
    _attempt(request, lambda: services.remove_item(item), "Removed the item.")
    return _back(item.study, "questionnaire")


@researcher_required
@require_POST
def reset_items(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    _attempt(request, lambda: services.reset_questionnaire(study), "Restored the default questionnaire.")
    return _back(study, "questionnaire")


@researcher_required
@require_POST
def delete_pilots(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=pk)
    try:
        n = services.delete_pilot_data(study)
    except StudyError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Deleted {n} pilot participant{'s' if n != 1 else ''} and their data.")
    return _back(study, "top")


@researcher_required
@require_POST
def run_pilots(request: HttpRequest, pk: int) -> HttpResponse:
    """Start scripted pilots through the study on this site (the URL the researcher is using)."""
    study = get_object_or_404(Study, pk=pk)
    try:
        count = int(request.POST.get("participants", ""))
    except ValueError:
        messages.error(request, f"Say how many pilots to run: a number from 1 to {pilot_runs.MAX_PILOTS}.")
        return _back(study, "pilots")
    base_url = request.build_absolute_uri("/")
    _attempt(
        request,
        lambda: pilot_runs.request_pilots(study, participants=count, base_url=base_url, user=request.user),
        f"Started {count} pilot{'s' if count != 1 else ''}: they go through the study as participants would "
        "(consent to completion code). Watch them below or on the monitor.",
    )
    return _back(study, "pilots")


@researcher_required
def pilot_run(request: HttpRequest, pk: int, run_pk: int) -> HttpResponse:
    """The pilot run's progress (htmx polls it while the pilots play)."""
    study = get_object_or_404(Study, pk=pk)
    run = get_object_or_404(study.pilot_runs, pk=run_pk)  # its study is known: no query per figure
    context = {
        "study": study,
        "problems": services.readiness_problems(study),
        **_pilots_context(run),
        **_status_context(study),
        "oob": True,  # pilots joining change the status block and lock the design: redraw both
    }
    return render(request, "studies/_pilots.html", context)
