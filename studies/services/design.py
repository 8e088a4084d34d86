"""Study design changes, one function each: create, conditions, scenarios, onboarding, questionnaire,
status. Design edits are refused once participants have joined (``delete_pilot_data`` frees a design
only pilots used)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.db.models import Max, Q
from django.utils.text import slugify

from studies.errors import StudyError
from studies.measures import DEFAULT_QUESTIONNAIRE, REVERSE_SCORED_DEFAULTS, TEAMMATE_CONSTRUCTS
from studies.models import (
    ACTIVE_PILOT_RUN,
    Condition,
    Episode,
    LobbyFallback,
    NpcKind,
    OnboardingPage,
    PageKind,
    QuestionnaireItem,
    Response,
    Study,
    StudyScenario,
    StudyStatus,
)

MAX_NPCS = 4
MAX_SEATS = 5  # games.services.MAX_SEATS: participants and NPCs of one game
DEFAULT_CONSENT = (
    "You are invited to take part in a research study about playing short time-pressured games, "
    "alone or with teammates.\n\n"
    "You will play a few short games and answer a short questionnaire after each one. It takes about "
    "20 minutes. We record your game actions and your answers, without your name; you may stop at any "
    "time without giving a reason.\n\n"
    "By agreeing you confirm that you are 18 or older and have read this information."
)


# --- design ----------------------------------------------------------------------------------


def _unique_slug(title: str) -> str:
    base = slugify(title)[:60] or "study"
    slug, n = base, 2
    while Study.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


@transaction.atomic
def create_study(*, title: str, created_by: Any = None, slug: str = "", **fields: Any) -> Study:
    """A draft study with the default consent text, questionnaire and a fresh completion code."""
    title = title.strip()
    if not title:
        raise StudyError("Give the study a title.")
    if slug and Study.objects.filter(slug=slug).exists():
        raise StudyError(f"The link name {slug!r} is taken; choose another.")
    study = Study.objects.create(
        title=title,
        slug=slug or _unique_slug(title),
        consent_text=fields.pop("consent_text", DEFAULT_CONSENT),
        completion_code=fields.pop("completion_code", "") or secrets.token_hex(4).upper(),
        created_by=created_by,
        **fields,
    )
    reset_questionnaire(study)
    return study


def design_locked(study: Study) -> bool:
    return study.participants.exists()


LOCKED_BASICS = {"design", "scenario_scheme"}


def save_basics(form: Any) -> Study:
    """Save a study's settings form; once participants joined, its design and scenario scheme stay."""
    study = form.instance
    if design_locked(study) and LOCKED_BASICS & set(form.changed_data):
        raise StudyError("Participants have joined: the design and scenario scheme can no longer change.")
    return form.save()  # type: ignore[no-any-return]


def _check_unlocked(study: Study) -> None:
    if design_locked(study):
        raise StudyError(
            "Participants have already joined, so conditions, scenarios, onboarding and questionnaire are fixed. "
            "Copy the study to change its design (or delete pilot data if only pilots joined)."
        )


def _renumber(queryset: Any) -> None:
    """Keep indexes 0..n-1 after a removal (two passes to respect the unique index)."""
    rows = list(queryset.order_by("index"))
    for offset, row in enumerate(rows):
        row.index = 10_000 + offset
        row.save(update_fields=["index"])
    for position, row in enumerate(rows):
        row.index = position
        row.save(update_fields=["index"])


def _next_index(queryset: Any) -> int:
    top = queryset.aggregate(top=Max("index"))["top"]
    return 0 if top is None else top + 1


def validate_condition(npc_kind: str, npc_count: int) -> None:
    if npc_kind not in NpcKind.values:
        raise StudyError(f"Unknown NPC kind {npc_kind!r}; choose one of {', '.join(NpcKind.values)}.")
    if npc_kind == NpcKind.NONE and npc_count != 0:
        raise StudyError("A condition without NPCs has 0 NPCs; choose an NPC kind or set the count to 0.")
    if npc_kind != NpcKind.NONE and not 1 <= npc_count <= MAX_NPCS:
        raise StudyError(f"Choose 1 to {MAX_NPCS} NPCs for this condition.")


def validate_dispatcher(dispatcher: Mapping[str, Any]) -> None:
    """An LLM condition's settings as a game's NPC seat takes them: a configured endpoint and a model
    it allows, and prompt options it can use (checked when the condition is saved, so no game of
    the study is refused for them later)."""
    from games.agents.endpoints import EndpointError
    from games.agents.llm_dispatcher import PromptOptionError, check_seat_settings

    try:
        check_seat_settings(dispatcher)
    except (EndpointError, PromptOptionError) as error:
        raise StudyError(f"The condition's LLM settings: {error}.") from None


@transaction.atomic
def validate_sharing(npc_count: int, sharing: Mapping[str, Any]) -> None:
    """Participants per game, lobby timeout, fallback and backfill of a condition."""
    humans = sharing.get("human_count", 1)
    if not isinstance(humans, int) or not 1 <= humans <= MAX_SEATS - npc_count:
        raise StudyError(
            f"A game has at most {MAX_SEATS} seats: choose 1 to {MAX_SEATS - npc_count} participants per game "
            f"with {npc_count} NPCs."
        )
    timeout = sharing.get("lobby_timeout_seconds", 120)
    if not isinstance(timeout, int) or not 10 <= timeout <= 3600:
        raise StudyError("The lobby waits 10 to 3600 seconds for the other participants.")
    if sharing.get("lobby_fallback", LobbyFallback.BACKFILL) not in LobbyFallback.values:
        raise StudyError("The lobby's fallback is backfill (computer teammates) or solo (another condition).")
    if sharing.get("backfill_kind", NpcKind.RANDOM) not in (NpcKind.LLM, NpcKind.RANDOM, NpcKind.PLANNER):
        raise StudyError("A backfill teammate is an LLM, random or planner NPC.")


SHARING_FIELDS = ("human_count", "lobby_timeout_seconds", "lobby_fallback", "backfill_kind", "fallback_condition")


def add_condition(
    study: Study,
    *,
    name: str,
    npc_kind: str,
    npc_count: int,
    dispatcher: Mapping[str, Any] | None = None,
    **sharing: Any,
) -> Condition:
    """A condition; ``sharing`` sets how many participants play each game together and their
    lobby (``human_count``, ``lobby_timeout_seconds``, ``lobby_fallback``, ``backfill_kind``,
    ``fallback_condition``)."""
    from studies.services.lobby import check_fallback

    _check_unlocked(study)
    validate_condition(npc_kind, npc_count)
    validate_dispatcher(dispatcher or {})
    unknown = set(sharing) - set(SHARING_FIELDS)
    if unknown:
        raise StudyError(f"Unknown condition field(s): {', '.join(sorted(unknown))}.")
    validate_sharing(npc_count, sharing)
    name = name.strip()
    if not name:
        raise StudyError("Name the condition (e.g. 'Alone' or '2 LLM NPCs').")
    if study.conditions.filter(name=name).exists():
        raise StudyError(f"There is already a condition named {name!r}.")
    condition = Condition(
        study=study,
        index=_next_index(study.conditions),
        name=name,
        npc_kind=npc_kind,
        npc_count=npc_count,
        dispatcher=dict(dispatcher or {}),
        **sharing,
    )
    check_fallback(condition)
    condition.save()
    return condition


@transaction.atomic
def update_condition(
    condition: Condition, *, name: str, npc_kind: str, npc_count: int, dispatcher: Mapping, **sharing: Any
) -> None:
    from studies.services.lobby import check_fallback

    _check_unlocked(condition.study)
    validate_condition(npc_kind, npc_count)
    validate_dispatcher(dispatcher)
    if set(sharing) - set(SHARING_FIELDS):
        raise StudyError(f"Unknown condition field(s): {', '.join(sorted(set(sharing) - set(SHARING_FIELDS)))}.")
    validate_sharing(npc_count, {**{f: getattr(condition, f) for f in SHARING_FIELDS[:-1]}, **sharing})
    condition.name, condition.npc_kind, condition.npc_count = name.strip(), npc_kind, npc_count
    condition.dispatcher = dict(dispatcher)
    for field_name, value in sharing.items():
        setattr(condition, field_name, value)
    check_fallback(condition)
    condition.save()


@transaction.atomic
def remove_condition(condition: Condition) -> None:
    study = condition.study
    _check_unlocked(study)
    condition.delete()
    _renumber(study.conditions.all())


@transaction.atomic
def add_scenario(study: Study, scenario: Any) -> StudyScenario:
    _check_unlocked(study)
    if study.study_scenarios.filter(scenario=scenario).exists():
        raise StudyError(f"{scenario.title} is already in this study.")
    return StudyScenario.objects.create(study=study, index=_next_index(study.study_scenarios), scenario=scenario)


@transaction.atomic
def add_scenarios(study: Study, scenarios: Sequence[Any]) -> list[StudyScenario]:
    """Add every scenario not yet in the study (a generated family), in the order given."""
    _check_unlocked(study)
    if not scenarios:
        raise StudyError("That family has no scenarios left; generate it again.")
    present = set(study.study_scenarios.values_list("scenario_id", flat=True))
    return [add_scenario(study, scenario) for scenario in scenarios if scenario.pk not in present]


@transaction.atomic
def remove_scenario(study_scenario: StudyScenario) -> None:
    study = study_scenario.study
    _check_unlocked(study)
    study_scenario.delete()
    _renumber(study.study_scenarios.all())


@transaction.atomic
def add_onboarding_page(
    study: Study, *, kind: str, title: str, body: str = "", tutorial_scenario: Any = None
) -> OnboardingPage:
    _check_unlocked(study)
    if kind == PageKind.TUTORIAL and tutorial_scenario is None:
        raise StudyError("A tutorial page needs a scenario to play.")
    if not title.strip():
        raise StudyError("Give the page a title.")
    return OnboardingPage.objects.create(
        study=study,
        index=_next_index(study.onboarding_pages),
        kind=kind,
        title=title.strip(),
        body=body,
        tutorial_scenario=tutorial_scenario if kind == PageKind.TUTORIAL else None,
    )


@transaction.atomic
def remove_onboarding_page(page: OnboardingPage) -> None:
    study = page.study
    _check_unlocked(study)
    page.delete()
    _renumber(study.onboarding_pages.all())


@transaction.atomic
def save_item(
    study: Study,
    *,
    construct_label: str,
    text: str,
    reverse_scored: bool = False,
    needs_teammates: bool = False,
    attention_answer: int | None = None,
    item: QuestionnaireItem | None = None,
) -> QuestionnaireItem:
    """Add an item (``item`` None) or change one; the construct key is derived from its label.
    ``attention_answer`` (1-5) makes it an attention check: it screens, it is never scored."""
    _check_unlocked(study)
    text, construct_label = text.strip(), construct_label.strip()
    if not text or not construct_label:
        raise StudyError("An item needs a construct and a statement.")
    construct = slugify(construct_label).replace("-", "_")[:40] or "construct"
    existing = study.items.filter(construct_label__iexact=construct_label).first()
    if existing is not None:
        construct, construct_label = existing.construct, existing.construct_label
    if attention_answer is not None and not 1 <= attention_answer <= 5:
        raise StudyError("An attention check asks for one answer from 1 to 5.")
    if item is None:
        item = QuestionnaireItem(study=study, index=_next_index(study.items))
    item.attention_answer = attention_answer
    item.needs_teammates = needs_teammates
    item.construct, item.construct_label, item.text, item.reverse_scored = (
        construct,
        construct_label,
        text,
        reverse_scored,
    )
    item.save()
    return item


@transaction.atomic
def remove_item(item: QuestionnaireItem) -> None:
    study = item.study
    _check_unlocked(study)
    item.delete()
    _renumber(study.items.all())


@transaction.atomic
def reset_questionnaire(study: Study) -> None:
    """Replace the study's items with the default questionnaire."""
    _check_unlocked(study)
    study.items.all().delete()
    index = 0
    for construct, label, texts in DEFAULT_QUESTIONNAIRE:
        for text in texts:
            QuestionnaireItem.objects.create(
                study=study,
                index=index,
                construct=construct,
                construct_label=label,
                text=text,
                reverse_scored=text in REVERSE_SCORED_DEFAULTS,
                needs_teammates=construct in TEAMMATE_CONSTRUCTS,
            )
            index += 1


def readiness_problems(study: Study) -> list[str]:
    """What keeps the study from opening, each phrased as the thing to do."""
    problems = []
    if not study.conditions.exists():
        problems.append("Add at least one condition.")
    if not study.study_scenarios.exists():
        problems.append("Add at least one scenario.")
    if not study.items.exists():
        problems.append("Add at least one questionnaire item.")
    if not study.consent_text.strip():
        problems.append("Write the consent text.")
    if not study.completion_code.strip():
        problems.append("Set a completion code.")
    return problems + seat_problems(study)


def seat_problems(study: Study) -> list[str]:
    """Shared conditions whose games a scenario cannot seat (a kitchen takes at most so many
    cooks): found now, not when the first participants are waiting in a lobby."""
    from games.engine import registry
    from games.services import seats_problem

    problems = []
    rows = list(study.study_scenarios.select_related("scenario"))
    for condition in study.conditions.order_by("index"):  # a domain of one seat takes no teammate at all
        for domain in sorted({row.scenario.domain for row in rows}):
            if (problem := seats_problem(domain, condition.seats)) is not None:
                problems.append(
                    f"Condition “{condition.name}” seats {condition.seats}, but {problem}; "
                    "change the condition or leave out those scenarios."
                )
    for condition in study.conditions.filter(human_count__gt=1).order_by("index"):
        seats = condition.seats
        for row in rows:
            scenario = row.scenario
            try:
                registry.get(scenario.domain).initial_state(scenario.definition, seed=0, agents=seats)
            except (registry.UnknownDomain, ImportError, KeyError, ValueError, TypeError) as error:
                problems.append(
                    f"Condition “{condition.name}” needs {seats} seats, but “{scenario.title}” cannot seat them "
                    f"({error}); change the condition or the scenarios."
                )
    return problems


def endpoint_problems(study: Study) -> list[str]:
    """Ask every LLM condition's endpoint for a one-token answer; one line per condition whose
    endpoint is misconfigured or does not answer (so a study never opens with silent teammates)."""
    from games.agents.dispatcher import DispatcherError
    from games.agents.llm import probe, unanswered
    from games.npc.turns import llm_client

    problems: list[str] = []
    tried: dict[tuple[str, str], str] = {}
    llm_conditions = study.conditions.filter(
        Q(npc_kind=NpcKind.LLM, npc_count__gt=0) | Q(human_count__gt=1, backfill_kind=NpcKind.LLM)
    )
    for condition in llm_conditions.order_by("index"):
        settings_ = condition.dispatcher  # its LLM NPCs' and its LLM backfill's (``Condition.backfill_seat``)
        try:
            config = llm_client(settings_ or {}).config
        except DispatcherError as error:
            problems.append(f"Condition “{condition.name}”: its LLM settings are not usable ({error}).")
            continue
        key = (config.endpoint, config.model)
        if key not in tried:
            tried[key] = probe(config)
        if tried[key]:
            problems.append(f"Condition “{condition.name}”: {unanswered(config, tried[key])} for the condition.")
    return problems


def set_status(study: Study, status: str) -> None:
    """Open, close or return to draft. Opening runs the checklist, then calls every LLM
    condition's endpoint (outside the transaction: a slow endpoint must not hold a lock)."""
    if status not in StudyStatus.values:
        raise StudyError(f"Unknown status {status!r}.")
    if status == StudyStatus.OPEN and (problems := readiness_problems(study) or endpoint_problems(study)):
        raise StudyError("The study cannot open yet: " + " ".join(problems))
    _store_status(study, status)


@transaction.atomic
def _store_status(study: Study, status: str) -> None:
    study.status = status
    study.save(update_fields=["status"])


@transaction.atomic
def delete_pilot_data(study: Study) -> int:
    """Remove pilot participations, their episodes, answers and games (study and practice), so the
    design can change again. Accounts go only if they are a pilot's own login-less participation
    account; a person's account is never deleted here."""
    from games import services as games
    from games.models import Game, GameStatus
    from studies.services.participation import is_participation_account

    if study.pilot_runs.filter(status__in=ACTIVE_PILOT_RUN).exists():
        raise StudyError("Pilots are still running; delete their data once they finish.")
    pilots = list(study.participants.filter(is_pilot=True).select_related("user"))
    game_ids = {e.game_id for e in Episode.objects.filter(participant__in=pilots) if e.game_id}
    game_ids |= {p.tutorial_game_id for p in pilots if p.tutorial_game_id}
    for game_id in (
        Game.objects.filter(pk__in=game_ids).exclude(status=GameStatus.FINISHED).values_list("pk", flat=True)
    ):
        games.finish(game_id, reason="pilot data deleted")  # a pilot still connected sees the game end
    users = [p.user for p in pilots]
    Response.objects.filter(episode__participant__in=pilots).delete()
    Episode.objects.filter(participant__in=pilots).delete()
    study.lobbies.filter(is_pilot=True).delete()
    study.participants.filter(is_pilot=True).delete()
    Game.objects.filter(pk__in=game_ids).delete()
    for user in users:
        if is_participation_account(user) and not user.study_participations.exists():
            user.delete()
    return len(pilots)
