"""The REST API for programs (token auth): create games, read a game, read its log.

``POST /api/games/`` takes ``{"domain", "scenario" (slug or list of slugs), "seats", "clock",
"speed", "seed", "options", "disconnect_policy"}`` and returns the game's ``id`` and
``websocket_url``. Full reference with examples: docs/api.md.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import Resolver404, resolve, reverse
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

from accounts import tokens
from accounts.permissions import can_create_games, is_researcher
from arena_site.params import whole_number
from games import permissions, schema, selectors, services
from games.agents import endpoints
from games.engine import registry
from games.models import Game, Scenario
from games.services.creating import settings_problem
from games.viewer import event_message

EVENTS_PAGE = 1000


def _problem(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _token_user(request: HttpRequest) -> Any | None:
    return tokens.user_for_request_header(request.headers.get("Authorization"))


# Every address the API has, for the 404 of one it has not (docs/api.md).
ADDRESSES = "GET /api/scenarios/, POST /api/games/, GET /api/games/<id>/, GET /api/games/<id>/events/"
TOO_BIG = f"the body is longer than {schema.MAX_BODY_BYTES} bytes, the most the API reads; send a smaller JSON object"


def _takes(*methods: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Only ``methods``: any other is a JSON 405 naming them (Django's ``require_GET`` answers an
    empty body). CSRF-exempt: a program sends its token, not cookies, so there is no cross-site
    request to forge, and session requests here only read (GET); without it Django's CSRF check
    answered a token's PUT or DELETE with its HTML 403 page before the method was looked at."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = _problem(
                    405, f"{request.path} takes {' or '.join(methods)} only, not {request.method} (docs/api.md)"
                )
                response["Allow"] = ", ".join(methods)
                return response
            return view(request, *args, **kwargs)

        return csrf_exempt(checked)

    return decorate


def _unauthorized(request: HttpRequest) -> JsonResponse:
    """401 saying why: no token, an unknown one, a revoked one (and where tokens are made)."""
    return _problem(401, tokens.refusal(request.headers.get("Authorization")))


@_takes("POST")
def create_game(request: HttpRequest) -> JsonResponse:
    user = _token_user(request)
    if user is None:
        return _unauthorized(request)
    if not can_create_games(user):
        return _problem(403, "this account may not create games")
    if _longer_than(request, schema.MAX_BODY_BYTES):
        return _problem(413, TOO_BIG)
    try:
        body = schema.create_game_body(request.body)
    except schema.SchemaError as error:
        return _problem(400, str(error))
    scenario = body["scenario"]
    # only a left-out "seats" means one program seat: an empty list is a mistake to name, not a default
    seats = body["seats"] if body.get("seats") is not None else [{"kind": "program"}]
    if not 1 <= len(seats) <= services.MAX_SEATS:
        return _problem(
            400,
            f'"seats" has {len(seats)}; a game has 1 to {services.MAX_SEATS} seats, one object per agent, '
            'like [{"kind": "program"}] (leave "seats" out for one program seat)',
        )
    if (problem := settings_problem(seats)) is not None:
        return _problem(400, problem)
    if not is_researcher(user):
        for seat in seats:
            named = seat.get("user") if isinstance(seat, dict) else None
            if named not in (None, user.get_username()):
                return _problem(403, "only researchers seat other users; leave 'user' out to take the seat yourself")
            seat_settings = seat.get("settings") if isinstance(seat, dict) else None
            backfill = seat_settings.get("backfill") if isinstance(seat_settings, dict) else None
            nested = backfill.get("settings") if isinstance(backfill, dict) else None  # a human seat's backfill NPC
            if any(isinstance(s, dict) and endpoints.has_model_settings(s) for s in (seat_settings, nested)):
                return _problem(
                    403, "only researchers choose an NPC's endpoint or model settings; leave them out to use the site's"
                )
    first_slug = scenario if isinstance(scenario, str) else (scenario[0] if scenario else "")
    found = Scenario.objects.current().filter(slug=first_slug).values_list("domain", flat=True).first()
    if found and body.get("domain") and body["domain"] != found:
        return _problem(400, f"scenario {first_slug!r} is a {found} scenario, not {body['domain']}")
    try:
        game = services.create_game(
            scenario,
            seats,
            clock=str(body.get("clock", "lockstep")),
            speed=body.get("speed"),
            seed=body.get("seed", 0),
            options=body.get("options"),
            disconnect_policy=str(body.get("disconnect_policy", "pause")),
            created_by=user,
        )
    except services.GameError as error:
        message = str(error)
        if message.startswith("no scenario named"):
            message += " (GET /api/scenarios/ lists the scenarios this site has)"
        return _problem(400, message)
    return JsonResponse(game_summary(request, game), status=201)


@_takes("GET")
def game_detail(request: HttpRequest, pk: int) -> JsonResponse:
    user = _token_user(request) or (request.user if request.user.is_authenticated else None)
    if user is None:
        return _unauthorized(request)
    game = Game.objects.filter(pk=pk).select_related("scenario").prefetch_related("seats__user").first()
    if game is None or not permissions.can_watch(user, game):
        return _problem(404, f"there is no game {pk} you may see")
    return JsonResponse(game_summary(request, game, blind=permissions.is_blinded(user, game)))


@_takes("GET")
def game_events(request: HttpRequest, pk: int) -> JsonResponse:
    user = _token_user(request) or (request.user if request.user.is_authenticated else None)
    if user is None:
        return _unauthorized(request)
    game = Game.objects.filter(pk=pk).first()
    if game is None or not permissions.can_watch(user, game):
        return _problem(404, f"there is no game {pk} you may see")
    given = request.GET.get("since", "0")
    since = whole_number(given)
    if since is None:
        return _problem(
            400, f"since must be a whole number, 0 or more: the last seq you have (0 for the whole log), not {given!r}"
        )
    events = selectors.events_since(pk, since, limit=EVENTS_PAGE)
    blind = permissions.is_blinded(user, game)
    messages = [event_message(e, blind=blind) for e in events]
    return JsonResponse({"game": pk, "events": messages, "more": len(events) == EVENTS_PAGE})


@_takes("GET")
def scenario_list(request: HttpRequest) -> JsonResponse:
    """The current scenarios a game may be made of (``?domain=`` narrows them), for programs that
    need a slug. Who may make a game may list them: any token's account (as ``POST /api/games/``),
    or a researcher signed in on the site (who makes games on its form); a study participant's
    session is refused, as the site's scenario pages are."""
    token_user = _token_user(request)
    if token_user is None and not request.user.is_authenticated:
        return _unauthorized(request)
    allowed = can_create_games(token_user) if token_user is not None else is_researcher(request.user)
    if not allowed:
        return _problem(403, "this account may not create games, so it has no scenarios to list")
    domains = [d.name for d in registry.descriptors()]
    domain = request.GET.get("domain", "")
    if domain and domain not in domains:
        return _problem(400, f"no domain {domain!r}; the domains are {', '.join(domains)}")
    rows = Scenario.objects.current().filter(domain__in=[domain] if domain else domains).order_by("domain", "slug")
    scenarios = [_scenario_row(s) for s in rows]
    return JsonResponse({"count": len(scenarios), "scenarios": scenarios})


def _scenario_row(scenario: Scenario) -> dict[str, Any]:
    """One scenario for ``scenario_list``: ``seats`` is the team its definition is made for (a
    kitchen level's ``agents``), None where it does not say (one seat is the default plan);
    ``seats_at_most`` what a game of its domain may have."""
    descriptor = registry.descriptor(scenario.domain)
    team = scenario.definition.get("agents") if descriptor.team_in_definition else None
    return {
        "slug": scenario.slug,
        "domain": scenario.domain,
        "title": scenario.title,
        "version": scenario.version,
        "seats": team if isinstance(team, int) and not isinstance(team, bool) else None,
        "seats_at_most": descriptor.seats_at_most or services.MAX_SEATS,
    }


def _longer_than(request: HttpRequest, most: int) -> bool:
    """Whether the body is over ``most`` bytes, told from its Content-Length before it is read (Django
    refuses to read one over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, 2.5 MB, with its HTML 400 page)."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return length > most or len(request.body) > most


@csrf_exempt
def not_found(request: HttpRequest, rest: str = "") -> JsonResponse:
    """Any address under /api/ that is none of the API's (the site's HTML 404 page otherwise)."""
    hint = ""
    if not request.path.endswith("/"):
        try:
            resolve(request.path + "/")
        except Resolver404:
            pass
        else:
            hint = f" Did you mean {request.path}/ (with the closing slash)?"
    return _problem(404, f"no such API address: {request.path}.{hint} The API has {ADDRESSES} (docs/api.md)")


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler400``: under /api/ JSON (a body too big for Django to read is a 413 naming the limit),
    elsewhere the site's page."""
    if not _is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return _problem(413, TOO_BIG)
    return _problem(400, "the request could not be read; send a JSON object as docs/api.md shows")


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler403``: under /api/ JSON, elsewhere the site's page."""
    if not _is_api(request):
        return defaults.permission_denied(request, exception)
    return _problem(403, "this account may not do that")


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``: under /api/ JSON, elsewhere the site's page."""
    if not _is_api(request):
        return defaults.page_not_found(request, exception)
    return not_found(request)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: under /api/ JSON, elsewhere the site's page."""
    if not _is_api(request):
        return defaults.server_error(request)
    return _problem(500, "the server failed to answer this request; it is logged. Try again, or tell the site's team")


def game_summary(request: HttpRequest, game: Game, *, blind: bool = False) -> dict[str, Any]:
    """The game as JSON; ``blind`` (a study participant) keeps who or what plays the other seats out,
    and the scenarios' slugs (the researcher's names; the pages do not show them either)."""
    scheme = "wss" if request.is_secure() else "ws"
    named = (
        {}
        if blind
        else {
            "scenario": game.scenario.slug,
            "scenarios": [s.slug for s in selectors.scenario_versions(game)],
        }
    )
    return {
        "id": game.pk,
        "domain": game.domain,
        "rules": game.rule_set_id,
        **named,
        "clock": game.clock,
        "speed": game.speed,
        "status": game.status,
        "paused": game.paused,
        "outcome": game.outcome,
        "metrics": game.result,
        "seats": [_blind_seat(s) if blind else _seat(s) for s in game.seats.all()],
        "websocket_url": f"{scheme}://{request.get_host()}/ws/games/{game.pk}/",
        "url": request.build_absolute_uri(reverse("games:play", args=[game.pk])),
    }


def _seat(seat: Any) -> dict[str, Any]:
    return {
        "agent": seat.agent,
        "kind": seat.kind,
        "user": seat.user.get_username() if seat.user else None,
        "dispatcher": seat.dispatcher,
    }


def _blind_seat(seat: Any) -> dict[str, Any]:
    return {"agent": seat.agent, "kind": "human" if seat.kind == "human" else "teammate"}
