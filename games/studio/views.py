"""The scenario studio (researchers): author a task, a recipe pair, a kitchen level or a brief in its
text format with checks as you type and the planners' preview; save it as a new scenario version,
play it at once, export it; and generate families of instances with their certified optimum.

Entry points only: parsing and previews are games.studio.authoring / .preview, generation is
games.generators, storing is games.scenarios.save_scenario, starting a game is games.services.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from accounts.permissions import researcher_required
from arena_site.htmx import HtmxHttpRequest
from arena_site.params import whole_number
from games import services
from games.engine import registry
from games.engine.durations import describe_amount
from games.generators import family
from games.generators.family import module as generator_module
from games.generators.knobs import KnobError
from games.models import GeneratorRun, Scenario
from games.scenarios import prepared, save_scenario
from games.studio import formats, runs
from games.studio.authoring import AuthoringError, Problem, check_name
from games.studio.formats import export, parse, starter

SOURCE = "studio"
MAX_TEXT = 200_000
PAGE_COUNT = 10  # instances per generator run on the page (the command has no such cap)
PAGE_SECONDS = 3.0
PREVIEW_CACHE_SECONDS = 24 * 3600

log = logging.getLogger(__name__)


def _domain(domain: str) -> str:
    if domain not in formats.domains():
        raise Http404("unknown domain")
    return domain


def _agents(raw: Any, domain: str) -> int:
    """The preview's number of agents, 1-4; a kitchen level may ask for 0, its own number (the
    default: a level says how many robots it has)."""
    least = 0 if formats.format_of(domain).agents == "level" else 1
    try:
        return min(4, max(least, int(raw)))
    except (TypeError, ValueError):
        return least


def _played_agents(domain: str, definition: dict[str, Any], agents: int) -> int:
    """How many agents "play now" seats, as the preview plays them (a level's own number for 0):
    you, and the planner for the others."""
    chosen = formats.format_of(domain).agents
    if chosen == "one":
        return 1
    if chosen == "level" and agents < 1:
        agents = int(definition.get("agents") or 1)
    return max(1, min(agents, services.MAX_SEATS))


@researcher_required
def index(request: HttpRequest) -> HttpResponse:
    authored = Scenario.objects.current().filter(source=SOURCE).order_by("domain", "slug")
    generated = Scenario.objects.current().filter(source="generated").order_by("slug")[:50]
    shown = [(d, formats.format_of(d)) for d in formats.domains()]
    context = {"domains": [(d, f.label, f.description) for d, f in shown], "authored": authored, "generated": generated}
    return render(request, "studio/index.html", context)


def _editor(request: HttpRequest, domain: str, **context: Any) -> HttpResponse:
    context.setdefault("agents", _agents(None, domain))
    # The first check is rendered with the page (no round trip); later ones come as the text changes.
    problems = context.get("problems") or []
    found = None
    if not problems:
        try:
            named = context.get("scenario") is not None  # a stored scenario's own name, as it is
            definition = parse(domain, context.get("name") or "untitled", context["text"], named=named)
        except AuthoringError as error:
            problems = error.problems
        else:
            found = formats.preview_of(domain, definition, agents=context["agents"])
    context["check"] = {"problems": problems, "preview": found, "domain": domain}
    form = formats.format_of(domain)
    context.update(
        domain=domain,
        label=form.label,
        format=form.description,
        agents_menu=form.agents,
        domain_title=registry.descriptor(domain).title,
    )
    return render(request, "studio/editor.html", context, status=context.pop("status", 200))


@require_GET
@researcher_required
def new(request: HttpRequest, domain: str) -> HttpResponse:
    """The editor on the domain's example: nothing is saved until the researcher saves."""
    domain = _domain(domain)
    return _editor(request, domain, name="", text=starter(domain), scenario=None)


@researcher_required
def edit(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=pk)
    if scenario.domain not in formats.domains():
        raise Http404("this domain has no editor")
    _, text = _export(scenario)
    # a generated instance's optimum is for its agents: previewed with one, 19 minutes read 29
    agents = ((_certified(scenario).certificate or {}).get("basis") or {}).get("agents")
    return _editor(
        request,
        scenario.domain,
        name=_own_name(scenario),
        text=text,
        scenario=scenario,
        agents=_agents(agents, scenario.domain),
    )


def _certified(scenario: Scenario) -> Scenario:
    """The version whose certificate says what ``scenario`` was made for: its own, or, edited since
    (a version without one), the latest earlier version that has one (a two-agent instance, once
    edited, opened previewed for one)."""
    if scenario.certificate:
        return scenario
    earlier = Scenario.objects.filter(slug=scenario.slug, version__lt=scenario.version).order_by("-version")
    return next((version for version in earlier if version.certificate), scenario)


def _own_name(scenario: Scenario) -> str:
    return scenario.slug.split("/", 1)[-1]


def _export(scenario: Scenario) -> tuple[str, str]:
    definition = scenario.definition
    if scenario.domain == "itinerary" and "title" not in definition:
        # a bundled brief keeps its title on the scenario: the export wrote the slug as the title,
        # and a saved version or a re-import was called "harbourton-morning"
        definition = {**definition, "title": scenario.title}
    return export(scenario.domain, definition, _own_name(scenario))


class NoSuchScenario(Exception):
    """The editor names a scenario to save a version of that is not there (or of another domain)."""

    def __init__(self, domain: str, given: str) -> None:
        shown = given if len(given) <= 20 else given[:20] + "…"
        super().__init__(f"there is no {domain} scenario {shown} to save a version of")
        self.problem = Problem(None, "scenario", str(self))


def _edited(request: HttpRequest, domain: str) -> Scenario | None:
    """The stored scenario the editor's text is a new version of, if it is one; raises
    NoSuchScenario when the form names one that is not there (a nonexistent, negative or other
    domain's id was saved as a new scenario, silently)."""
    given = request.POST.get("scenario", "").strip()
    if not given:
        return None
    pk = whole_number(given)
    found = Scenario.objects.filter(pk=pk, domain=domain).first() if pk is not None else None
    if found is None:
        raise NoSuchScenario(domain, given)
    return found


def _read(
    request: HttpRequest, domain: str, *, name: str | None = None, scenario: Scenario | None = None
) -> tuple[str, str, dict[str, Any] | None, list[Problem]]:
    """``scenario``: the text is a new version of it, under its own name whatever that looks like."""
    name = request.POST.get("name", "").strip() if name is None else name
    if scenario is not None:
        name = _own_name(scenario)
    text = request.POST.get("text", "")
    if len(text) > MAX_TEXT:
        said = f"the text is over {MAX_TEXT:,} characters (this one has {len(text):,})"
        return name, text, None, [Problem(None, "", said)]
    try:
        return name, text, parse(domain, name, text, named=scenario is not None), []
    except AuthoringError as error:
        return name, text, None, error.problems


def _taken(slug: str) -> Problem | None:
    """The problem with naming a new scenario ``slug``: one of that name exists (to change it, open it)."""
    existing = Scenario.objects.current().filter(slug=slug).first()
    if existing is None:
        return None
    kind = registry.descriptor(existing.domain).title if existing.domain in registry.domains() else existing.domain
    return Problem(
        None,
        "name",
        f"{slug} is taken (a {kind} scenario, version {existing.version}): pick another name, or open "
        "that scenario in the studio to save a new version of it",
    )


@require_POST
@researcher_required
def check(request: HttpRequest, domain: str) -> HttpResponse:
    """HTMX: the problems of the text being typed, or, when it is valid, the planners' preview."""
    domain = _domain(domain)
    # The text is checked whatever the name says (a researcher edits the example before naming it,
    # as the page's first check does); a name typed wrong is one more problem, beside the preview.
    name = request.POST.get("name", "").strip()
    try:
        scenario = _edited(request, domain)
    except NoSuchScenario as missing:
        return render(request, "studio/_check.html", {"problems": [missing.problem], "preview": None, "domain": domain})
    try:
        if scenario is None:
            check_name(name)
        taken = _taken(f"{SOURCE}/{name}") if scenario is None and name else None
        misnamed: list[Problem] = [taken] if taken is not None else []
    except AuthoringError as error:
        misnamed = error.problems if name else []
    _, _, definition, problems = _read(
        request, domain, name="untitled" if misnamed or not name else name, scenario=scenario
    )
    agents = _agents(request.POST.get("agents"), domain)
    found = formats.preview_of(domain, definition, agents=agents) if definition is not None else None
    context = {"problems": misnamed + problems, "preview": found, "domain": domain}
    return render(request, "studio/_check.html", context)


@researcher_required
def scenario_preview(request: HttpRequest, pk: int) -> HttpResponse:
    """HTMX (the scenario's page loads it): the planners' preview of a stored scenario version, as
    the editor shows it. A version never changes, so its preview is kept (PREVIEW_CACHE_SECONDS)."""
    scenario = get_object_or_404(Scenario, pk=pk)
    domain = _domain(scenario.domain)
    key = f"studio-preview:{scenario.pk}"
    found = cache.get(key)
    if found is None:
        try:
            found = formats.preview_of(domain, scenario.definition, agents=_agents(None, domain))
        except Exception:  # a definition the planners cannot read (an imported oddity): say so
            log.exception("scenario %s: no preview", scenario.pk)
            return render(request, "studio/_no_preview.html", {"scenario": scenario})
        cache.set(key, found, PREVIEW_CACHE_SECONDS)
    return render(request, "studio/_check.html", {"problems": [], "preview": found, "domain": domain})


@require_POST
@researcher_required
def save(request: HttpRequest, domain: str) -> HttpResponse:
    """Store the text as a new version of its scenario (old games keep theirs); ``play`` also starts a game."""
    domain = _domain(domain)
    agents = _agents(request.POST.get("agents"), domain)
    try:
        scenario = _edited(request, domain)
    except NoSuchScenario as missing:  # nothing is saved, not even as a new scenario
        name, text = request.POST.get("name", "").strip(), request.POST.get("text", "")
        return _editor(
            request, domain, name=name, text=text, scenario=None, problems=[missing.problem], agents=agents, status=400
        )
    name, text, definition, problems = _read(request, domain, scenario=scenario)
    if definition is None:
        return _editor(
            request, domain, name=name, text=text, scenario=scenario, problems=problems, agents=agents, status=400
        )
    slug = scenario.slug if scenario is not None else f"{SOURCE}/{name}"
    if scenario is None and (taken := _taken(slug)) is not None:
        # a new scenario never becomes a version of another one (it silently replaced a task of
        # that name, even by a recipe)
        return _editor(
            request, domain, name=name, text=text, scenario=None, problems=[taken], agents=agents, status=400
        )
    definition = prepared(domain, definition)
    title = str(definition.get("title") or (scenario.title if scenario else name))
    description = scenario.description if scenario is not None else f"Authored in the studio by {request.user}."
    stored, changed = save_scenario(
        domain=domain,
        slug=slug,
        title=title,
        source=scenario.source if scenario is not None else SOURCE,
        definition=definition,
        description=description,
    )
    if changed and scenario is not None and scenario.certificate:
        # the new version has other content than the one its certificate was computed for: it keeps no
        # certificate (save_scenario gives it none), and its page must not claim the old optimum
        stored.description = uncertified_description(scenario, request.user)
        stored.save(update_fields=["description"])
    if request.POST.get("action") == "play":
        play_options = formats.format_of(domain).play_options
        options = dict(play_options) if play_options is not None else None
        seats: list[dict[str, Any]] = [{"kind": "human", "user": request.user}]
        seats += [{"kind": "npc", "dispatcher": "planner"}] * (_played_agents(domain, definition, agents) - 1)
        try:
            game = services.create_game(stored, seats, created_by=request.user, options=options)
        except services.GameError as error:
            messages.error(request, f"Saved as {stored.slug} v{stored.version}, but the game did not start: {error}")
            return redirect("studio:edit", pk=stored.pk)
        return redirect("games:play", pk=game.pk)
    note = (
        f"Saved {stored.slug} as version {stored.version}."
        if changed
        else f"No change: {stored.slug} v{stored.version}."
    )
    messages.success(request, note)
    return redirect("studio:edit", pk=stored.pk)


def uncertified_description(certified: Scenario, user: Any) -> str:
    """The description of a version edited from ``certified`` (a generated instance with its
    certificate): how it was made, and that the certificate was ``certified``'s, not its own
    (written so it stays true when later versions copy it)."""
    old = certified.description
    origin = old.split(" Optimum ", 1)[0] if old.startswith("Generated") else ""
    kept = certified.certificate or {}
    proof = "proven optimal" if kept.get("optimal") else f"best found, lower bound {kept.get('lower_bound')}"
    agents = (kept.get("basis") or {}).get("agents")
    team = f" for {agents} agent{'' if agents == 1 else 's'}" if isinstance(agents, int) else ""
    claim = f"optimum {kept.get('optimal_makespan')}{team}, {proof}"
    return (
        f"{origin + ' ' if origin else ''}Edited in the studio by {user} since v{certified.version}, whose "
        f"certificate ({claim}) was computed for v{certified.version}'s content: later versions have no "
        "certified optimum (benchmarks and studies do not compare them with one); the preview below "
        "plans this version."
    )


@researcher_required
def download(request: HttpRequest, pk: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=pk)
    if scenario.domain not in formats.domains():
        raise Http404("this domain has no export")
    filename, text = _export(scenario)
    # the version in the name: v1's and v2's exports were both "my-tea.toml"
    stem, dot, extension = filename.rpartition(".")
    filename = f"{stem}-v{scenario.version}{dot}{extension}" if dot else f"{filename}-v{scenario.version}"
    kind = "application/toml" if filename.endswith(".toml") else "application/json"
    response = HttpResponse(text, content_type=f"{kind}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _integer(text: str) -> int | None:
    """A form's whole number ("12", " 12", "-3"), else None (a 300-digit one too)."""
    text = text.strip()
    return int(text) if text.isascii() and text.removeprefix("-").isdigit() and len(text) <= 20 else None


def _generator_context(
    request: HttpRequest,
    domain: str,
    values: dict[str, Any],
    count: str,
    seed: str,
    *,
    run: GeneratorRun | None = None,
) -> dict[str, Any]:
    """The generator's form (filled in with ``values`` as sent, or as ``run``, the run on the
    page, was sent) and the researcher's other recent runs."""
    knobs = generator_module(domain).KNOBS
    recent = runs.visible_to(request.user).defer("instances", "knobs")
    if run is not None:
        recent = recent.exclude(pk=run.pk)
    return {
        "domains": [(d, registry.descriptor(d).title) for d in family.domains()],
        "domain": domain,
        "knobs": [(k, values.get(k.name, ""), None) for k in knobs],  # (knob, value, what is wrong)
        "filled": bool(values) or run is not None,
        "count": count,
        "seed": seed,
        "max_count": PAGE_COUNT,
        "page_seconds": f"{PAGE_SECONDS:g}",
        "objective": generator_module(domain).OBJECTIVE,
        "shown": _writes_values(domain),
        "recent": recent[:5],
    }


@researcher_required
def generator(request: HttpRequest) -> HttpResponse:
    """The generator's form; a valid one starts a background run (``games.studio.runs``) and
    opens its page, which shows the instances as they are solved."""
    offered = family.domains()
    asked = request.POST.get("domain") or request.GET.get("domain") or offered[0]
    domain = asked if asked in offered else offered[0]
    knobs = generator_module(domain).KNOBS
    values = {k.name: request.POST.get(k.name, "") for k in knobs} if request.method == "POST" else {}
    context = _generator_context(request, domain, values, request.POST.get("count", "3"), request.POST.get("seed", "0"))
    if request.method == "POST":
        if asked != domain:  # "domain=nope" generated tasks instances
            context["error"] = f"no generator for {asked[:40]!r}; choose one of {', '.join(offered)}"
            return render(request, "studio/generate.html", context, status=400)
        # every field's problem at once, each beside its field (it said only the first bad knob)
        wrong: dict[str, str] = {}
        count, seed = _integer(context["count"]), _integer(context["seed"])
        if count is None or not 1 <= count <= PAGE_COUNT:
            wrong["count"] = (
                f"count: a whole number from 1 to {PAGE_COUNT} on this page (manage.py generate has no cap)"
            )
        if seed is None or not 0 <= seed <= family.SEED_MAX:
            wrong["seed"] = f"seed: a whole number from 0 to {family.SEED_MAX}"
        given: dict[str, Any] = {}
        for knob in knobs:
            raw = request.POST.get(knob.name, "")
            if knob.kind is bool:
                given[knob.name] = bool(raw)
            elif raw.strip():
                given[knob.name] = raw
                try:
                    knob.parse(raw)
                except KnobError as error:
                    wrong[knob.name] = str(error)
        if wrong or count is None or seed is None:
            context["error"] = "; ".join(wrong.values())
            context["wrong"] = wrong
            context["knobs"] = [(k, value, wrong.get(k.name)) for k, value, _ in context["knobs"]]
            return render(request, "studio/generate.html", context, status=400)
        try:
            run = runs.start(
                domain,
                count=count,
                seed=seed,
                knobs=given,
                max_seconds=PAGE_SECONDS,
                save=request.POST.get("action") == "save",
                user=request.user,
            )
        except KnobError as error:
            context["error"] = str(error)
            return render(request, "studio/generate.html", context, status=400)
        except runs.Busy as busy:
            context["error"] = f"{busy}."
            context["busy"] = busy.run
            return render(request, "studio/generate.html", context, status=409)
        return redirect("studio:generate_run", pk=run.pk)
    return render(request, "studio/generate.html", context)


def _run_context(run: GeneratorRun, *, since: int = 0) -> dict[str, Any]:
    """A run's page; ``since``: the rows from that one on (a poll adds the ones it has not shown;
    a saved run's rows all come again, as they now open the saved scenarios)."""
    saved: dict[str, tuple[int, int | None]] = {}
    if run.saved:
        since = 0
        slugs = [instance["slug"] for instance in run.instances]
        saved = _saved_versions(slugs)
    instances = run.instances
    rows = [
        _row(run, index, instance, *saved.get(instance["slug"], (None, None)))
        for index, instance in enumerate(instances)
        if index >= since
    ]
    family_name = instances[0]["family"] if instances else ""
    return {
        "run": run,
        "instances": instances,
        "rows": rows,
        "family": family_name,
        "percent": round(100 * len(instances) / run.count),
        "solving": min(len(instances) + 1, run.count),
        "command": _command(run.domain, run.count, run.seed, run.knobs, run.max_seconds),
        "saved_list": reverse("games:scenarios") + f"?domain={run.domain}&q={family_name}" if run.saved else "",
        "benchmark_url": reverse("games:benchmarks")
        + "?"
        + urlencode({"domain": run.domain, "scenarios": f"{family.SOURCE}/{family_name}-*"}),
        "objective": generator_module(run.domain).OBJECTIVE,
        "actions": generator_module(run.domain).ACTIONS,
        "shown": _writes_values(run.domain),
    }


@researcher_required
def generator_run(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A generator run: its progress and instances as they are solved (HTMX polls the part below
    the form while the run is under way), with the form filled in as it was sent."""
    run = get_object_or_404(runs.visible_to(request.user), pk=pk)
    if request.htmx:
        # the part that polls, the rows solved since it last asked and, once the run has ended, its buttons
        context = _run_context(run, since=whole_number(request.GET.get("shown")) or 0)
        return render(request, "studio/_generator_poll.html", context)
    values = {name: ("1" if value is True else "" if value is False else value) for name, value in run.knobs.items()}
    context = _generator_context(request, run.domain, values, str(run.count), str(run.seed), run=run)
    context.update(_run_context(run))
    return render(request, "studio/generate.html", context)


@require_POST
@researcher_required
def generator_run_stop(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(runs.visible_to(request.user), pk=pk)
    if runs.stop(run):
        messages.info(request, f"Stopped: the {len(run.instances)} instances solved so far are kept below.")
    return redirect("studio:generate_run", pk=run.pk)


@require_POST
@researcher_required
def generator_run_save(request: HttpRequest, pk: int) -> HttpResponse:
    """Save a run's finished instances as a scenario family (what a run started with "Generate and
    save" does by itself when it ends)."""
    run = get_object_or_404(runs.visible_to(request.user), pk=pk)
    if run.active:
        messages.error(request, "The run is still under way: save it once it has finished, or stop it first.")
    elif not run.instances:
        messages.error(request, "This run has no finished instances to save.")
    else:
        runs.save_family(run)
    return redirect("studio:generate_run", pk=run.pk)


@researcher_required
def generator_run_open(request: HttpRequest, pk: int, index: int) -> HttpResponse:
    """An unsaved instance in the editor, checked and previewed from its text; nothing is saved
    until the researcher saves it there."""
    run = get_object_or_404(runs.visible_to(request.user), pk=pk)
    if not 0 <= index < len(run.instances):
        raise Http404("no such instance in this run")
    instance = run.instances[index]
    name = instance["slug"].split("/", 1)[-1]
    _, text = export(run.domain, instance["definition"], name)
    domain = _domain(run.domain)
    # previewed for the agents the optimum beside it was solved for (it opened with one)
    agents = _agents(run.knobs.get("agents"), domain)
    return _editor(request, domain, name=name, text=text, scenario=None, agents=agents)


def _writes_values(domain: str) -> bool:
    """Whether the generator writes its values as the game page does (``show``, or ``show_in`` where
    the unit depends on the instance) rather than as bare numbers."""
    return any(hasattr(generator_module(domain), part) for part in ("show", "show_in"))


def _saved_versions(slugs: list[str]) -> dict[str, tuple[int, int | None]]:
    """{slug: (current version's pk, the version number of the certified version it was edited
    from, or None when the current version is the certified one)} of a saved family: an instance
    edited in the studio since keeps no certificate (docs/scenarios.md), so the run's figures are an
    older version's."""
    found: dict[str, tuple[int, int | None]] = {}
    current = Scenario.objects.current().filter(slug__in=slugs).values_list("slug", "pk", "certificate")
    edited = [slug for slug, _, certificate in current if not certificate]
    certified = dict(
        Scenario.objects.filter(slug__in=edited, certificate__isnull=False)
        .values("slug")
        .annotate(latest=Max("version"))
        .values_list("slug", "latest")
    )
    for slug, pk, certificate in current:
        found[slug] = (pk, None if certificate else certified.get(slug))
    return found


def _row(
    run: GeneratorRun, index: int, instance: dict[str, Any], saved_pk: int | None, certified: int | None = None
) -> dict[str, Any]:
    """One instance of the generator's table: a saved one opens in the studio by its scenario, an
    unsaved one from the run (the studio checks its text without saving it). ``certified``: the
    saved instance was edited since, and these figures are that version's."""
    name = instance["slug"].split("/", 1)[-1]
    show = getattr(generator_module(run.domain), "show", None)
    show_in = getattr(generator_module(run.domain), "show_in", None)  # the unit depends on the instance
    row: dict[str, Any] = {"instance": instance, "name": name, "stats": stats_text(instance.get("stats", {}))}
    for key in ("optimal_makespan", "lower_bound", "greedy_makespan"):  # as the game page writes them
        value = instance.get(key)
        if value is None:
            row[key] = "—"
        elif show_in is not None:
            row[key] = show_in(instance["definition"], value)
        else:
            row[key] = show(value) if show else value
    row["certified_version"] = certified
    if saved_pk is not None:
        row["open_url"] = reverse("studio:edit", args=[saved_pk])
    else:
        row["open_url"] = reverse("studio:generate_open", args=[run.pk, index])
    # a kitchen level where the reference dispatcher serves no order read "Optimum 0.0" like any other
    row["unserved"] = run.domain == "kitchen" and instance.get("optimal_makespan") == 0
    return row


def stats_text(stats: dict[str, Any]) -> str:
    """An instance's other stats in words ("3 tasks · background 30 % · total 1 h 51 min"), not as
    ``--json`` keys ("background_share 0.3 · total_seconds 6660"); the table has actions and
    parallelism in columns of their own."""
    parts = []
    for key, value in stats.items():
        if key in ("actions", "parallelism"):
            continue
        label = key.replace("_", " ")
        if isinstance(value, bool) or not isinstance(value, int | float):
            parts.append(f"{label} {value}")
        elif key.endswith("_share") or key == "object_sharing":
            parts.append(f"{label.removesuffix(' share')} {round(100 * value)} %")
        elif key.endswith(("_seconds", "_minutes")):
            seconds = value * (60 if key.endswith("_minutes") else 1)
            parts.append(f"{label.rsplit(' ', 1)[0]} {describe_amount(round(seconds))}")
        else:
            parts.append(f"{label} {value:.3g}")
    return " · ".join(parts)


def _command(domain: str, count: int, seed: int, knobs: dict[str, Any], max_seconds: float) -> str:
    """The same run on the command line, with this page's solver budget, so it prints the same
    instances, optimum and proof included (the budget is deterministic work, not seconds)."""
    parts = [
        "python manage.py generate",
        domain,
        f"--count {count}",
        f"--seed {seed}",
        f"--max-seconds {max_seconds:g}",
    ]
    for name, value in knobs.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            parts.append(flag)
        elif value is not False:
            parts.append(f"{flag} {value}")
    return " ".join([*parts, "--json"])
