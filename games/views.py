"""Pages: scenarios, game lists, creating a game, playing/watching it live, replay and results.

Entry points only: they authorise with ``games.permissions``, call ``games.services`` for changes
and render ``games.presenters`` contexts (the same ones the websocket pushes).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.permissions import can_manage_annotation_projects, is_researcher, researcher_required
from arena_site.htmx import HtmxHttpRequest
from games import permissions, presenters, replays, selectors, services
from games.engine import registry
from games.forms import GameForm
from games.models import STOPPED, Game, GameStatus, Scenario
from games.viewer import Viewer, load_update


@researcher_required
def scenario_list(request: HtmxHttpRequest) -> HttpResponse:
    domain = request.GET.get("domain", "")
    if domain not in registry.domains():
        domain = ""
    search = request.GET.get("q", "").strip()
    page = Paginator(selectors.current_scenarios(domain, search), 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "domains": registry.choices(),
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
    played = selectors.all_games(scenario=scenario.slug)
    context = {
        "scenario": scenario,
        "authored": scenario.domain in registry.having("authoring"),  # the studio edits and previews it
        # a recipe pair's steps can be labelled in an annotation project (their time structure)
        "labelled": scenario.domain == "recipes"
        and scenario.is_current
        and can_manage_annotation_projects(request.user),
        "versions": versions,
        "played": played.count(),
        "finished": played.filter(status=GameStatus.FINISHED).count(),
    }
    return render(request, "games/scenario_detail.html", context)


@researcher_required
def game_list(request: HttpRequest) -> HttpResponse:
    status = request.GET.get("status", "")
    statuses = [*GameStatus.choices, (selectors.PAUSED, "Paused")]
    status = status if status in dict(statuses) else ""
    domain = request.GET.get("domain", "")
    domain = domain if domain in registry.domains() else ""
    scenario = request.GET.get("scenario", "").strip()
    games = selectors.all_games(status=status, domain=domain, scenario=scenario).prefetch_related("seats__user")
    page = Paginator(games, 50).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "status": status,
        "domain": domain,
        "scenario": scenario,
        "domains": registry.choices(),
        "statuses": statuses,
        "filtered": bool(status or domain or scenario),
        "left_paused": selectors.left_paused().count(),
    }
    return render(request, "games/game_list.html", context)


@researcher_required
@require_POST
def stop_left_paused(request: HttpRequest) -> HttpResponse:
    """Stop every game paused for more than a day (players who left and never came back); each
    ends as the game page's Stop ends it, with the results reached before the pause."""
    stopped = 0
    since = timezone.now() - selectors.LEFT_PAUSED_AFTER
    for pk in selectors.left_paused().values_list("pk", flat=True):
        reason = f"{STOPPED} after it was left paused"
        try:
            services.finish(pk, reason=reason, by=request.user, paused_before=since)
        except services.GameError as error:  # e.g. its rules could not be loaded: say so, go on
            messages.error(request, f"Game {pk} could not be stopped: {error}")
        else:
            stopped += 1
    if stopped:
        games = "1 game" if stopped == 1 else f"{stopped} games"
        messages.success(request, f"Stopped {games} left paused for more than a day; replays show what was played.")
    else:
        messages.info(request, "No game has been left paused for more than a day.")
    return redirect(f"{reverse('games:list')}?status={selectors.PAUSED}")


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    games = selectors.games_for_user(request.user).prefetch_related("seats__user")
    page = Paginator(games, 50).get_page(request.GET.get("page"))
    games_shown = list(page.object_list)
    blinded = permissions.blinded_among(request.user, games_shown)
    for game in games_shown:
        own = [s.agent for s in permissions.seats_of(request.user, game)]
        game.blind = game.pk in blinded
        game.seat_names = presenters.names_for(game, own, blind=game.blind)
    return render(request, "games/my_games.html", {"page": page})


@researcher_required
def game_create(request: HttpRequest) -> HttpResponse:
    # "Play this" on a scenario page comes with ?scenario=<slug>
    form = GameForm(request.POST or None, user=request.user, initial={"scenario": request.GET.get("scenario", "")})
    if request.method == "POST" and form.is_valid():
        plan = form.seat_plan()
        if form.is_valid() and (why := _llm_unanswered(plan)):
            form.add_error(None, why)
        if form.is_valid():  # seat_plan and the model server's probe may add errors
            data = form.cleaned_data
            try:
                game = services.create_game(
                    form.scenarios(),
                    plan,
                    clock=data["clock"],
                    speed=1.0 / data["seconds_per_unit"] if data.get("seconds_per_unit") else None,
                    seed=data["seed"],
                    disconnect_policy=data["disconnect_policy"],
                    created_by=request.user,
                    start_when_ready=True,  # its player reads the brief before the clock runs
                )
            except services.GameError as error:
                form.add_error(None, str(error))
            else:
                # no flash message: it would stay on the game page after the game ended
                return redirect("games:play", pk=game.pk)
    return render(request, "games/game_create.html", {"form": form})


LLM_PROBE_SECONDS = 10.0


def _llm_unanswered(plan: list[dict]) -> str:
    """Why an LLM teammate of ``plan`` could not play ("" if it can): its model server is asked for
    a one-token answer first. A game made while it was down had its teammate stand idle all game,
    with one "model call failed" line to say why."""
    from games.agents.dispatcher import DispatcherError
    from games.agents.llm import probe, unanswered
    from games.npc.turns import llm_client

    seat = next((seat for seat in plan if seat.get("kind") == "npc" and seat.get("dispatcher") == "llm"), None)
    if seat is None:
        return ""
    try:
        config = llm_client(seat.get("settings") or {}).config
    except DispatcherError as error:
        return f"The LLM teammate's settings are not usable: {error}."
    why = probe(config, timeout_seconds=LLM_PROBE_SECONDS)
    if not why:
        return ""
    said = unanswered(config, why, another=False)
    return f"No game was made: {said}, or choose another teammate."


def _game_for(request: HttpRequest, pk: int) -> Game:
    game = Game.objects.filter(pk=pk).select_related("scenario", "created_by").first()
    if game is None or not permissions.can_watch(request.user, game):
        raise Http404("There is no game with that number that you may see.")
    return game


@login_required
def play(request: HttpRequest, pk: int) -> HttpResponse:
    """Play (a seated player) or watch live (researchers, the creator): the same page."""
    game = _game_for(request, pk)
    if not game.is_finished:
        services.advance(game.pk)  # apply what came due while nobody looked
    seats = permissions.seats_of(request.user, game)
    who = Viewer(
        agents=[s.agent for s in seats],
        can_control=permissions.can_control(request.user, game),
        blind=permissions.is_blinded(request.user, game),
    )
    update = load_update(game.pk, who, 0)
    context = presenters.live_context(update, who, full=True)
    context["watching"] = not who.agents
    context["blind"] = who.blind  # a study participant: no scenario slug (a researcher's name for it)
    context["ws_url"] = f"/ws/games/{game.pk}/?format=html"
    # what the LLM teammate was asked and answered, while it plays (it was linked from the replay only)
    context["llm_calls_link"] = is_researcher(request.user) and game.seats.filter(dispatcher="llm").exists()
    return render(request, "games/play.html", context)


@require_POST
@login_required
def control(request: HttpRequest, pk: int) -> HttpResponse:
    """Pause, resume or stop a game (researchers; the websocket offers pause/resume too)."""
    game = _game_for(request, pk)
    if not permissions.can_control(request.user, game):
        raise PermissionDenied("Only researchers pause, resume or stop games.")
    operation = request.POST.get("operation", "")
    try:
        if operation == "pause":
            services.pause(game.pk, reason="researcher", by=request.user)
        elif operation == "resume":
            services.resume(game.pk, by=request.user)
        elif operation == "stop":
            services.finish(game.pk, reason=STOPPED, by=request.user)
        else:
            messages.error(request, "Choose pause, resume or stop.")
    except services.GameError as error:
        messages.error(request, str(error))
    return redirect("games:play", pk=game.pk)


@login_required
def replay(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The finished (or running) game on its timeline, the board at any moment, the optimal plan."""
    game = _game_for(request, pk)
    seats = permissions.seats_of(request.user, game)
    who = Viewer(agents=[s.agent for s in seats], blind=permissions.is_blinded(request.user, game))
    context = replays.replay_context(game, at=request.GET.get("at"), who=who)
    # the model calls' page is the researchers'; a game whose seats asked no model has none to show
    context["llm_calls_link"] = is_researcher(request.user) and game.llm_calls.exists()
    template = "games/_replay_board.html" if request.htmx else "games/replay.html"
    return render(request, template, context)
