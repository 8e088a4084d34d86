"""Every state change of a study, one function each (views, commands and tasks call these).

Design edits (conditions, scenarios, onboarding, questionnaire) are refused once participants have
joined, so what participants were assigned never changes under them; ``delete_pilot_data`` frees
a design that only pilots have used. Participant steps: join -> consent -> onboarding ->
episodes (play, then questionnaire) -> complete; or decline / drop out.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone
from django.utils.text import slugify

from accounts.roles import Role, grant
from studies import assignment, flow
from studies.errors import StudyError
from studies.measures import DEFAULT_QUESTIONNAIRE, LIKERT_POINTS, REVERSE_SCORED_DEFAULTS
from studies.models import (
    Assignment,
    Condition,
    Design,
    Episode,
    EpisodeStatus,
    NpcKind,
    OnboardingPage,
    PageKind,
    Participant,
    ParticipantStatus,
    QuestionnaireItem,
    Response,
    ScenarioScheme,
    Study,
    StudyScenario,
    StudyStatus,
)

MAX_NPCS = 4
EXTERNAL_ID = re.compile(r"^[A-Za-z0-9_.@:-]{1,128}$")
DEFAULT_CONSENT = (
    "You are invited to take part in a research study about playing time-pressured games together "
    "with computer-controlled teammates.\n\n"
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


@transaction.atomic
def add_condition(
    study: Study, *, name: str, npc_kind: str, npc_count: int, dispatcher: Mapping[str, Any] | None = None
) -> Condition:
    _check_unlocked(study)
    validate_condition(npc_kind, npc_count)
    name = name.strip()
    if not name:
        raise StudyError("Name the condition (e.g. 'Alone' or '2 LLM NPCs').")
    if study.conditions.filter(name=name).exists():
        raise StudyError(f"There is already a condition named {name!r}.")
    return Condition.objects.create(
        study=study,
        index=_next_index(study.conditions),
        name=name,
        npc_kind=npc_kind,
        npc_count=npc_count,
        dispatcher=dict(dispatcher or {}),
    )


@transaction.atomic
def update_condition(condition: Condition, *, name: str, npc_kind: str, npc_count: int, dispatcher: Mapping) -> None:
    _check_unlocked(condition.study)
    validate_condition(npc_kind, npc_count)
    condition.name, condition.npc_kind, condition.npc_count = name.strip(), npc_kind, npc_count
    condition.dispatcher = dict(dispatcher)
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
    item: QuestionnaireItem | None = None,
) -> QuestionnaireItem:
    """Add an item (``item`` None) or change one; the construct key is derived from its label."""
    _check_unlocked(study)
    text, construct_label = text.strip(), construct_label.strip()
    if not text or not construct_label:
        raise StudyError("An item needs a construct and a statement.")
    construct = slugify(construct_label).replace("-", "_")[:40] or "construct"
    existing = study.items.filter(construct_label__iexact=construct_label).first()
    if existing is not None:
        construct, construct_label = existing.construct, existing.construct_label
    if item is None:
        item = QuestionnaireItem(study=study, index=_next_index(study.items))
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
    return problems


@transaction.atomic
def set_status(study: Study, status: str) -> None:
    if status not in StudyStatus.values:
        raise StudyError(f"Unknown status {status!r}.")
    if status == StudyStatus.OPEN and (problems := readiness_problems(study)):
        raise StudyError("The study cannot open yet: " + " ".join(problems))
    study.status = status
    study.save(update_fields=["status"])


@transaction.atomic
def delete_pilot_data(study: Study) -> int:
    """Remove pilot participants (and their episodes and answers) so the design can change again."""
    pilots = list(study.participants.filter(is_pilot=True).select_related("user"))
    users = [p.user for p in pilots]
    Response.objects.filter(episode__participant__in=pilots).delete()
    Episode.objects.filter(participant__in=pilots).delete()
    study.participants.filter(is_pilot=True).delete()
    for user in users:
        if not user.study_participations.exists() and not user.is_staff:
            user.delete()
    return len(pilots)


# --- participants --------------------------------------------------------------------------


def clean_external_id(raw: str) -> str:
    value = (raw or "").strip()
    if value and not EXTERNAL_ID.match(value):
        raise StudyError(
            "The participant id in the link is not valid (letters, digits and _ . @ : - only, up to 128 characters). "
            "Check the link you were given."
        )
    return value


def _participant_account() -> Any:
    """A login-less account that owns the participant's game seats (no password, no personal data)."""
    user = get_user_model().objects.create_user(f"p-{secrets.token_hex(8)}")
    user.set_unusable_password()
    user.save(update_fields=["password"])
    grant(user, Role.PARTICIPANT)
    return user


@transaction.atomic
def join(study: Study, *, external_id: str = "", user: Any = None, is_pilot: bool = False) -> Participant:
    """The participant for this link: an existing one (same external id or same account) or a new one."""
    external_id = clean_external_id(external_id)
    if study.status == StudyStatus.CLOSED:
        raise StudyError("This study is closed and no longer takes participants. Thank you for your interest.")
    if study.status == StudyStatus.DRAFT and not is_pilot:
        raise StudyError("This study has not opened yet. Please try the link again later.")
    if external_id:
        found = study.participants.filter(external_id=external_id).first()
        if found is not None:
            return found
    if user is not None and getattr(user, "is_authenticated", False):
        found = study.participants.filter(user=user).first()
        if found is not None:
            return found
    if user is None or not getattr(user, "is_authenticated", False) or user.is_staff:
        user = _participant_account()
    return Participant.objects.create(study=study, user=user, external_id=external_id, is_pilot=is_pilot)


def _sequence_counts(study: Study, is_pilot: bool, n_sequences: int) -> list[int]:
    counts = [0] * n_sequences
    rows = (
        Assignment.objects.filter(
            participant__study=study,
            participant__is_pilot=is_pilot,
            participant__status__in=[ParticipantStatus.ACTIVE, ParticipantStatus.COMPLETED],
        )
        .values("sequence")
        .annotate(n=Count("id"))
    )
    for row in rows:
        if row["sequence"] < n_sequences:
            counts[row["sequence"]] = row["n"]
    return counts


@transaction.atomic
def give_consent(participant: Participant) -> Participant:
    """Record consent and assign the condition order (the least used Latin-square row) and episodes."""
    study = Study.objects.select_for_update().get(pk=participant.study_id)  # one assignment at a time
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    if participant.status in (ParticipantStatus.ACTIVE, ParticipantStatus.COMPLETED):
        return participant  # a second click, or another tab
    if participant.status == ParticipantStatus.DROPPED:
        raise StudyError("Your participation has ended. Please contact the researcher if this is a mistake.")
    conditions = list(study.conditions.order_by("index"))
    scenarios = list(study.study_scenarios.order_by("index").select_related("scenario"))
    if not conditions or not scenarios:
        raise StudyError("This study is not set up yet (no conditions or scenarios). Please try again later.")
    within = study.design == Design.WITHIN
    n_sequences = assignment.sequence_count(len(conditions), within)
    sequence = assignment.next_sequence(_sequence_counts(study, participant.is_pilot, n_sequences))
    order = assignment.condition_order(sequence, len(conditions), within)
    Assignment.objects.create(participant=participant, sequence=sequence, condition_order=order)
    plan = assignment.episode_plan(order, len(scenarios), study.scenario_scheme == ScenarioScheme.EVERY)
    Episode.objects.bulk_create(
        Episode(participant=participant, index=k, condition=conditions[c], scenario=scenarios[s].scenario)
        for k, (c, s) in enumerate(plan)
    )
    participant.status = ParticipantStatus.ACTIVE
    participant.consented_at = timezone.now()
    participant.save(update_fields=["status", "consented_at"])
    return participant


@transaction.atomic
def decline_consent(participant: Participant) -> None:
    if participant.status == ParticipantStatus.JOINED:
        participant.status = ParticipantStatus.DECLINED
        participant.save(update_fields=["status"])


def _require_active(participant: Participant) -> None:
    if participant.status != ParticipantStatus.ACTIVE:
        raise StudyError("This step is not open to you now; follow the study link to continue where you are.")


@transaction.atomic
def advance_onboarding(participant: Participant, page_index: int) -> None:
    """Mark onboarding page ``page_index`` done; a repeated submit of a done page changes nothing."""
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    _require_active(participant)
    if page_index < participant.onboarding_done:
        return
    if page_index != participant.onboarding_done:
        raise StudyError("Please read the pages in order.")
    participant.onboarding_done += 1
    participant.save(update_fields=["onboarding_done"])


def current_episode(participant: Participant) -> Episode | None:
    return participant.episodes.exclude(status=EpisodeStatus.DONE).order_by("index").first()


@transaction.atomic
def start_episode(participant: Participant, episode: Episode) -> Episode:
    """Create the episode's game (idempotent: an episode already playing keeps its game)."""
    episode = (
        Episode.objects.select_for_update()
        .select_related("participant__study", "condition", "scenario")
        .get(pk=episode.pk)
    )
    _require_active(episode.participant)
    if episode.participant_id != participant.pk:
        raise StudyError("This episode belongs to another participant.")
    if participant.onboarding_done < participant.study.onboarding_pages.count():
        raise StudyError("Please finish the introduction first.")
    current = current_episode(participant)
    if current is None or current.pk != episode.pk:
        raise StudyError("Please play the episodes in order; follow the study link to continue.")
    if episode.status != EpisodeStatus.PENDING:
        return episode
    flow.start_game(episode)
    episode.status = EpisodeStatus.PLAYING
    episode.started_at = timezone.now()
    episode.save()
    return episode


@transaction.atomic
def finish_episode(episode: Episode, metrics: Mapping[str, Any]) -> Episode:
    """The episode's game is over: keep its metrics and open the questionnaire."""
    episode = Episode.objects.select_for_update().get(pk=episode.pk)
    if episode.status != EpisodeStatus.PLAYING:
        return episode
    episode.metrics = dict(metrics)
    episode.status = EpisodeStatus.SURVEY
    episode.played_at = timezone.now()
    episode.save(update_fields=["metrics", "status", "played_at"])
    return episode


def sync_episode(episode: Episode) -> Episode:
    """Move a playing episode on if its game has ended (the game is the authority)."""
    if episode.status == EpisodeStatus.PLAYING:
        result = flow.game_result(episode)
        if result is not None:
            return finish_episode(episode, result)
    return episode


def parse_answers(study: Study, raw: Mapping[str, Any]) -> dict[int, int]:
    """{item id: 1..5} from form fields ``item-<id>``; every item must be answered."""
    answers: dict[int, int] = {}
    missing = 0
    for item in study.items.all():
        value = raw.get(f"item-{item.pk}")
        if value in (None, ""):
            missing += 1
            continue
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = 0
        if not 1 <= number <= LIKERT_POINTS:
            raise StudyError(f"Answers are 1 to {LIKERT_POINTS}; please choose one of the options for every statement.")
        answers[item.pk] = number
    if missing:
        raise StudyError(f"Please answer every statement ({missing} left).")
    return answers


@transaction.atomic
def submit_questionnaire(participant: Participant, episode_index: int, raw_answers: Mapping[str, Any]) -> Episode:
    """Store the answers to the questionnaire after episode ``episode_index``; completes the study
    after the last one. The answers are validated as a whole: nothing is stored unless all are fine."""
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    _require_active(participant)
    episode = participant.episodes.select_for_update().filter(index=episode_index).first()
    if episode is None:
        raise StudyError("There is no such episode in your study.")
    if episode.status == EpisodeStatus.DONE:
        return episode  # submitted already (a second tab or a double click): keep the first answers
    if episode.status != EpisodeStatus.SURVEY:
        raise StudyError("Please finish the game first; the questionnaire opens when it ends.")
    answers = parse_answers(participant.study, raw_answers)
    Response.objects.bulk_create(Response(episode=episode, item_id=item, value=v) for item, v in answers.items())
    episode.status = EpisodeStatus.DONE
    episode.surveyed_at = timezone.now()
    episode.save(update_fields=["status", "surveyed_at"])
    if not participant.episodes.exclude(status=EpisodeStatus.DONE).exists():
        complete(participant)
    return episode


@transaction.atomic
def complete(participant: Participant) -> None:
    if participant.episodes.exclude(status=EpisodeStatus.DONE).exists():
        raise StudyError("Some episodes are not done yet.")
    participant.status = ParticipantStatus.COMPLETED
    participant.completed_at = timezone.now()
    participant.save(update_fields=["status", "completed_at"])


@transaction.atomic
def drop_out(participant: Participant, reason: str = "") -> None:
    """Mark a participant as dropped out (they withdrew, or the researcher decided); their games stop."""
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    if participant.status in (ParticipantStatus.COMPLETED, ParticipantStatus.DROPPED):
        raise StudyError(f"{participant.code} is already {participant.get_status_display().lower()}.")
    participant.status = ParticipantStatus.DROPPED
    participant.dropped_at = timezone.now()
    participant.drop_reason = reason.strip()[:200]
    participant.save(update_fields=["status", "dropped_at", "drop_reason"])
    for episode in participant.episodes.filter(status=EpisodeStatus.PLAYING):
        flow.stop_game(episode)


def touch(participant: Participant) -> None:
    """Remember when we last heard from the participant (for the monitor)."""
    Participant.objects.filter(pk=participant.pk).update(last_seen_at=timezone.now())


@transaction.atomic
def start_tutorial(participant: Participant, page_index: int) -> Any:
    """The practice game of onboarding page ``page_index`` (one per participant; a reload reuses it)."""
    participant = Participant.objects.select_for_update().select_related("study").get(pk=participant.pk)
    _require_active(participant)
    page = participant.study.onboarding_pages.filter(index=page_index, kind=PageKind.TUTORIAL).first()
    if page is None or page_index != participant.onboarding_done:
        raise StudyError("There is no tutorial on this page; follow the study link to continue.")
    if participant.tutorial_game is not None and not participant.tutorial_game.is_finished:
        return participant.tutorial_game
    game = flow.start_tutorial(participant, page.tutorial_scenario)
    participant.tutorial_game = game
    participant.save(update_fields=["tutorial_game"])
    return game
