"""Creating a game: its scenarios, rules, seat plan and first snapshot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import permissions
from games.agents import endpoints
from games.agents.llm_dispatcher import PromptOptionError, check_seat_settings
from games.codec import Entry
from games.engine import registry
from games.engine.options import SEED_MAX
from games.engine.rules import RuleSet
from games.models import (
    READY,
    ClockMode,
    DisconnectPolicy,
    Game,
    GameSnapshot,
    Scenario,
    Seat,
    SeatKind,
)
from games.scenarios import current_scenario
from games.services.errors import InvalidInput
from games.services.loop import _catch_up, _Context, _save
from games.services.seats import WAITING
from games.speeds import default_speed

MAX_SEATS = 5


NPC_DISPATCHERS = ("llm", "planner", "random", "replay")


DEFAULT_SPEED = 0.5  # SPEC section 8's pace; a game without a speed gets its domain's (games/speeds.py)


@dataclass(frozen=True)
class SeatSpec:
    """One seat of a seat plan: ``kind`` human/program/npc; ``user`` for human and program seats;
    ``dispatcher`` (llm, planner, random, replay) and ``settings`` for NPC seats. A human seat's
    ``settings`` may name its ``backfill``: ``{"dispatcher": "random", "settings": {...},
    "after_seconds": 60}``, the NPC that takes the seat once its player has been away that long
    while another person still plays (``games.services.backfill_due``)."""

    kind: str
    user: Any = None
    dispatcher: str = ""
    settings: Mapping[str, Any] = field(default_factory=dict)


def _made_for_someone_else(plan: Sequence[SeatSpec], created_by: Any, disconnect_policy: str) -> bool:
    """One person's game made by another (a researcher), which pauses while its player is away."""
    people = [s.user for s in plan if s.kind == SeatKind.HUMAN]
    maker = getattr(created_by, "pk", None)
    return (
        len(people) == 1
        and maker is not None
        and getattr(people[0], "pk", None) != maker
        and disconnect_policy == DisconnectPolicy.PAUSE
    )


def seats_problem(domain: str, seats: int) -> str | None:
    """Why a game of ``domain`` cannot have ``seats`` seats (``Domain.seats_at_most``), or None."""
    descriptor = registry.descriptor(domain)
    most = descriptor.seats_at_most
    if most is None or seats <= most:
        return None
    why = descriptor.extra.get("seats_reason", "")
    return f"{descriptor.title} takes at most {most} seat{'' if most == 1 else 's'}" + (f": {why}" if why else "")


def create_game(
    scenarios: Scenario | str | Sequence[Scenario | str],
    seats: Sequence[SeatSpec | Mapping[str, Any]],
    *,
    clock: str = ClockMode.LOCKSTEP,
    speed: float | None = None,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    disconnect_policy: str = DisconnectPolicy.PAUSE,
    created_by: Any = None,
    start_when_ready: bool = False,
    now: datetime | None = None,
) -> Game:
    """Start a game (episode) on one scenario or several played at once (a list, in order).

    ``scenarios``: Scenario versions or slugs (a slug means its current version). ``seats``: one
    per agent, as ``SeatSpec`` or dicts ``{"kind": "human"|"program"|"npc", "user": <User or
    username>, "dispatcher": "random", "settings": {...}}``; a human or program seat without a user
    goes to ``created_by``. ``clock``: real_time, lockstep or fast; ``speed``: game units per
    second in real_time. ``start_when_ready``: a real-time game with one person starts paused
    (reason ``READY``) until that person presses Start or takes an action, so they can read the
    brief first (the site's form and studies ask for it). Raises ``InvalidInput`` (nothing stored)
    for a bad plan.
    """
    now = now or timezone.now()
    versions = _scenario_versions(scenarios)
    domain = versions[0].domain
    if any(v.domain != domain for v in versions):
        raise InvalidInput("all scenarios of one game must be from the same domain")
    try:
        rules = registry.get(domain)
    except (registry.UnknownDomain, ImportError) as error:
        raise InvalidInput(f"the {domain!r} rules are not available: {error}") from None
    if clock not in ClockMode.values:
        raise InvalidInput(f"unknown clock {clock!r}; use one of {', '.join(ClockMode.values)}")
    if disconnect_policy not in DisconnectPolicy.values:
        raise InvalidInput(f"unknown disconnect policy {disconnect_policy!r}; use pause or continue")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InvalidInput(f"seed must be a whole number from 0 to {SEED_MAX}")
    if speed is not None and not 0 < float(speed) <= 1000:
        raise InvalidInput("speed is game time units per second and must be between 0 and 1000")
    plan = [_seat_spec(raw, created_by) for raw in seats]
    if not 1 <= len(plan) <= MAX_SEATS:
        raise InvalidInput(f"a game needs 1 to {MAX_SEATS} seats (one human and up to four NPCs)")
    if (problem := seats_problem(domain, len(plan))) is not None:
        raise InvalidInput(problem)
    llm_settings = [dict(s.settings) for s in plan if s.kind == SeatKind.NPC and s.dispatcher == "llm"]
    if any(settings != llm_settings[0] for settings in llm_settings[1:]):
        # one dispatcher commands every llm seat with one call per turn: the first seat's settings
        # were used and the others' silently dropped
        raise InvalidInput("the llm seats share one dispatcher (one model call per turn): give them the same settings")
    # a domain's defaults for games people play (recipes: no benchmark revision limits, so a
    # double click on a stale button cannot end the game), under what the caller asked for
    options = {**registry.descriptor(domain).extra.get("game_options", {}), **dict(options or {})}
    definition = scenario_definition(rules, versions)
    try:
        state = rules.initial_state(definition, seed=seed, agents=len(plan), options=options)
    except (KeyError, ValueError, TypeError) as error:
        raise InvalidInput(f"the rules cannot start this scenario with these options: {error}") from None
    # the scenario's own pace (games/speeds.py) unless the caller chose one
    speed = float(speed) if speed is not None else default_speed(domain, definition, options)

    with transaction.atomic():
        game = Game.objects.create(
            domain=domain,
            rule_set_id=rules.id,
            scenario=versions[0],
            scenario_ids=[v.pk for v in versions],
            seed=seed,
            options=options,
            clock=clock,
            speed=speed,
            anchor_time=float(rules.now(state)),
            anchor_at=now,
            disconnect_policy=disconnect_policy,
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )
        real_time = clock == ClockMode.REAL_TIME
        # a person in a game made to start when ready presses Start after reading; the others are
        # ready from the start (a program, the API's games, a lockstep game that waits anyway)
        asked = real_time and start_when_ready
        Seat.objects.bulk_create(
            Seat(
                game=game,
                agent=i,
                kind=s.kind,
                user=s.user,
                dispatcher=s.dispatcher,
                settings=dict(s.settings),
                ready_at=None if asked and s.kind == SeatKind.HUMAN else now,
            )
            for i, s in enumerate(plan)
        )
        GameSnapshot.objects.create(game=game, seq=0, state=rules.dump_state(state))
        ctx = _Context(game=game, rules=rules, state=state, now=now, seat_kinds=[s.kind for s in plan])
        humans = sum(1 for s in plan if s.kind == SeatKind.HUMAN)
        ctx.append(
            Entry(
                "control",
                "created",
                float(rules.now(state)),
                data={
                    "message": "the game starts",
                    "scenarios": [v.slug for v in versions],
                    "seats": [{"agent": i, "kind": s.kind, "dispatcher": s.dispatcher} for i, s in enumerate(plan)],
                },
            )
        )
        waits: tuple[str, str] | None = None  # (pause reason, message) of a clock that waits
        if real_time and humans == 1 and start_when_ready:
            # A first-time player needs time to read the brief, the map or the recipe book: a
            # kitchen's first order ran out while they did. The clock waits for their Start.
            waits = (READY, "the clock starts when the player presses Start")
        elif real_time and (humans > 1 or _made_for_someone_else(plan, created_by, disconnect_policy)):
            # The clock starts once every person is connected (``seat_connected``), not while the
            # last one is still loading the page; nor, in a game a researcher made for someone who
            # opens it later, in their absence (a kitchen of 60 steps was over before its player
            # came). A player who starts their own game (a study's "Start game 1" too) is there.
            waits = (WAITING, "the clock starts when every player is here")
        if waits is not None:
            reason, message = waits
            game.paused, game.pause_reason = True, reason
            ctx.append(
                Entry(
                    "control", "paused", float(rules.now(state)), data={"reason": reason, "message": message, "by": ""}
                )
            )
        _catch_up(ctx)
        _save(ctx)
    return game


def _check_backfill(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise InvalidInput('a human seat\'s backfill is an object like {"dispatcher": "random", "after_seconds": 60}')
    dispatcher = str(raw.get("dispatcher") or "")
    if dispatcher not in NPC_DISPATCHERS or dispatcher == "replay":
        raise InvalidInput("a backfill dispatcher is one of llm, planner, random")
    after = raw.get("after_seconds", 60)
    if isinstance(after, bool) or not isinstance(after, int | float) or not 0 <= after <= 86_400:
        raise InvalidInput("backfill after_seconds is a number of seconds from 0 to 86400")
    settings = raw.get("settings") or {}
    if not isinstance(settings, Mapping):
        raise InvalidInput("backfill settings must be an object")
    _seat_spec({"kind": "npc", "dispatcher": dispatcher, "settings": settings}, None)  # the same checks
    return {"dispatcher": dispatcher, "settings": dict(settings), "after_seconds": after}


def scenario_definition(rules: RuleSet[Any], versions: Sequence[Scenario]) -> Mapping[str, Any]:
    """The definition the rules start from: one scenario's, or the domain's combination of several
    (the domain's descriptor names ``combine(definitions)`` when it can play several at once).
    The one place scenarios are combined: web games, benchmark runs and studies all come here."""
    if len(versions) == 1:
        return versions[0].definition
    combine = registry.descriptor(rules.domain).combiner()
    if combine is None:
        raise InvalidInput(f"the {rules.domain} rules play one scenario at a time; name just one")
    try:
        return combine([v.definition for v in versions])
    except (KeyError, ValueError, TypeError) as error:  # a domain's DefinitionError is a ValueError
        raise InvalidInput(f"these scenarios cannot be played together: {error}") from None


def _scenario_versions(scenarios: Scenario | str | Sequence[Scenario | str]) -> list[Scenario]:
    items = [scenarios] if isinstance(scenarios, Scenario | str) else list(scenarios)
    if not items:
        raise InvalidInput("name at least one scenario by its slug, e.g. bundled/make-tea")
    versions = []
    for item in items:
        if isinstance(item, Scenario):
            versions.append(item)
            continue
        try:
            versions.append(current_scenario(str(item).strip()))
        except Scenario.DoesNotExist as error:
            raise InvalidInput(str(error)) from None
    return versions


# The settings keys each NPC dispatcher reads (``games.agents.dispatcher``, ``games.npc.turns``).
# An llm seat's model settings sit at the top or under "llm"; base_url, api_key and api_key_env are
# listed so their own messages refuse them (a configured endpoint is named by its id).
MODEL_SETTINGS = (*endpoints.MODEL_KEYS, *endpoints.FORBIDDEN_KEYS)
NPC_SETTINGS: dict[str, tuple[str, ...]] = {
    "llm": ("llm", "prompt", "cache", *MODEL_SETTINGS),
    "planner": (),
    "random": ("seed",),
    "replay": ("source_game", "source_agent"),
}
BACKFILL_KEYS = ("dispatcher", "settings", "after_seconds")


def _unknown(keys: Any, allowed: Sequence[str], where: str) -> str | None:
    unknown = sorted(str(key) for key in keys if key not in allowed)
    if not unknown:
        return None
    takes = f"takes only {', '.join(allowed)}" if allowed else "takes no settings"
    return f"{where}: unknown setting(s) {', '.join(unknown)}; it {takes} (docs/npc.md)"


def _npc_settings_problem(dispatcher: str, settings: Mapping[str, Any], where: str) -> str | None:
    if dispatcher not in NPC_SETTINGS:
        return None  # the seat's own check names the dispatchers
    if (problem := _unknown(settings, NPC_SETTINGS[dispatcher], where)) is not None:
        return problem
    nested = settings.get("llm")
    if dispatcher == "llm" and isinstance(nested, Mapping):
        if (problem := _unknown(nested, MODEL_SETTINGS, f'{where}, under "llm"')) is not None:
            return problem
        beside = sorted(key for key in settings if key in MODEL_SETTINGS)
        if beside:  # with "llm" given, the model settings beside it are not read
            return (
                f'{where}: {", ".join(beside)} beside "llm" would not be read;'
                ' put the model settings under "llm" or at the top, not both'
            )
    return None


def settings_problem(seats: Sequence[Any]) -> str | None:
    """Why a seat plan's settings name a key no one reads, or None: an NPC seat's per its
    dispatcher (``NPC_SETTINGS``), a human seat's (only ``backfill``, and the backfill's own), a
    program seat's (none). Unknown keys were once ignored, so a misspelt setting and a setting the
    site does not have (``url``, ``headers``) both played on the defaults unnoticed; the API refuses
    them with this. ``create_game`` itself does not: a study condition's seats share its LLM
    settings whatever their dispatcher."""
    for number, seat in enumerate(seats):
        if not isinstance(seat, Mapping):
            continue  # the seat's own check answers
        settings = seat.get("settings")
        if not isinstance(settings, Mapping) or not settings:
            continue
        where = f"seat {number}"
        kind = seat.get("kind")
        if kind == SeatKind.NPC:
            problem = _npc_settings_problem(
                str(seat.get("dispatcher") or ""), settings, f"{where} ({seat.get('dispatcher')})"
            )
        elif kind == SeatKind.HUMAN:
            problem = _unknown(settings, ("backfill",), f"{where} (human)")
            backfill = settings.get("backfill")
            if problem is None and isinstance(backfill, Mapping):
                problem = _unknown(backfill, BACKFILL_KEYS, f"{where}'s backfill")
                inner = backfill.get("settings")
                if problem is None and isinstance(inner, Mapping):
                    problem = _npc_settings_problem(str(backfill.get("dispatcher") or ""), inner, f"{where}'s backfill")
        elif kind == SeatKind.PROGRAM:
            problem = _unknown(settings, (), f"{where} (program, played by you)")
        else:
            problem = None
        if problem is not None:
            return problem
    return None


def _check_replay(settings: Mapping[str, Any], created_by: Any) -> None:
    source, agent = settings.get("source_game"), settings.get("source_agent", 0)
    if isinstance(agent, bool) or not isinstance(agent, int) or not 0 <= agent < MAX_SEATS:
        raise InvalidInput(f"a replay seat's source_agent is a seat number from 0 to {MAX_SEATS - 1}")
    if permissions.replay_source(created_by, source) is None:
        raise InvalidInput(
            f"a replay seat needs settings {{'source_game': <id>, 'source_agent': <n>}} naming a game you may"
            f" see; there is no game {source!r} you may see"
        )


def _seat_spec(raw: SeatSpec | Mapping[str, Any], created_by: Any) -> SeatSpec:
    if isinstance(raw, SeatSpec):
        spec = raw
    elif isinstance(raw, Mapping):
        unknown = set(raw) - {"kind", "user", "dispatcher", "settings"}
        if unknown:
            raise InvalidInput(
                f"unknown seat field(s) {', '.join(sorted(unknown))}; use kind, user, dispatcher, settings"
            )
        settings = raw.get("settings") or {}
        if not isinstance(settings, Mapping):
            raise InvalidInput("seat settings must be an object")
        spec = SeatSpec(
            kind=str(raw.get("kind", "")),
            user=raw.get("user"),
            dispatcher=str(raw.get("dispatcher") or ""),
            settings=settings,
        )
    else:
        raise InvalidInput('each seat is an object like {"kind": "program"}')
    if spec.kind not in SeatKind.values:
        raise InvalidInput(f"unknown seat kind {spec.kind!r}; use human, program or npc")
    if spec.kind == SeatKind.NPC:
        if spec.dispatcher not in NPC_DISPATCHERS:
            raise InvalidInput(f"an npc seat needs a dispatcher: one of {', '.join(NPC_DISPATCHERS)}")
        if spec.dispatcher == "llm":
            try:
                check_seat_settings(spec.settings)
            except (endpoints.EndpointError, PromptOptionError) as error:
                raise InvalidInput(f"npc seat settings: {error}") from None
        if spec.dispatcher == "random" and "seed" in spec.settings:
            seed = spec.settings["seed"]
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
                raise InvalidInput(f"a random seat's seed is a whole number from 0 to {SEED_MAX}")
        if spec.dispatcher == "replay":
            _check_replay(spec.settings, created_by)
        return SeatSpec(kind=spec.kind, dispatcher=spec.dispatcher, settings=spec.settings)
    user = spec.user if spec.user is not None else created_by
    if isinstance(user, str):
        user = get_user_model().objects.filter(username=user).first()
        if user is None:
            raise InvalidInput(f"no user named {spec.user!r} for a {spec.kind} seat")
    if user is None or not getattr(user, "pk", None):
        raise InvalidInput(f"a {spec.kind} seat needs a user")
    if spec.kind == SeatKind.HUMAN and "backfill" in spec.settings:
        return SeatSpec(kind=spec.kind, user=user, settings={"backfill": _check_backfill(spec.settings["backfill"])})
    return SeatSpec(kind=spec.kind, user=user)
