"""A participant's path, one function per step: join -> consent -> onboarding -> episodes (play, then
questionnaire) -> complete; or decline, or drop out."""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Mapping
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import IntegrityError, models, transaction
from django.db.models import Count
from django.utils import timezone

from accounts.roles import Role, grant, roles_of
from studies import assignment, flow
from studies.errors import StudyError
from studies.measures import LIKERT_POINTS
from studies.models import (
    Assignment,
    Design,
    Episode,
    EpisodeStatus,
    PageKind,
    Participant,
    ParticipantStatus,
    Response,
    ScenarioScheme,
    Study,
    StudyStatus,
)

# a letter or digit first: "-2-3" and "@A1" were valid ids, which a spreadsheet opening the exports
# reads as a formula (arena_site.spreadsheet); panels' ids (Prolific, MTurk, SONA) start so anyway
EXTERNAL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,127}$")
ACCOUNT_PREFIX = "p-"
# the name ``_participant_account`` gives (16 hex digits after the prefix): exports write it as the code
ACCOUNT_NAME = re.compile(rf"{re.escape(ACCOUNT_PREFIX)}[0-9a-f]{{16}}")
RESUME_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
MAX_RESUME_TRIES = 10


# --- participants --------------------------------------------------------------------------


def clean_external_id(raw: str) -> str:
    value = (raw or "").strip()
    if value and not EXTERNAL_ID.match(value):
        raise StudyError(
            "The participant id in the link is not valid (a letter or digit, then letters, digits and _ . @ : - only, "
            "up to 128 characters). "
            "Check the link you were given."
        )
    return value


def _participant_account() -> Any:
    """A login-less account that owns one participation's game seats (no password, no personal data)."""
    user = get_user_model().objects.create_user(f"{ACCOUNT_PREFIX}{secrets.token_hex(8)}")
    user.set_unusable_password()
    user.save(update_fields=["password"])
    grant(user, Role.PARTICIPANT)
    return user


def is_participation_account(user: Any) -> bool:
    """True for the login-less accounts ``join`` creates (never a person's own account)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return (
        user.get_username().startswith(ACCOUNT_PREFIX)
        and not user.has_usable_password()
        and not user.is_staff
        and not user.is_superuser
        and roles_of(user) <= {Role.PARTICIPANT}
    )


def new_resume_code() -> str:
    """What a participant types to continue on another device, e.g. ``K7QF-2M9X`` (40 bits)."""
    raw = "".join(secrets.choice(RESUME_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def _normalise_code(raw: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", (raw or "").upper())


@transaction.atomic
def clean_entry_params(study: Study, raw: Mapping[str, Any]) -> dict[str, str]:
    """The study's configured link parameters present in ``raw`` (each checked like an id)."""
    params = {}
    for name in study.captured_param_names():
        value = str(raw.get(name) or "").strip()
        if value:
            if not EXTERNAL_ID.match(value):
                raise StudyError(f"The link parameter {name} is not valid. Check the link you were given.")
            params[name] = value
    return params


def join(
    study: Study, *, external_id: str = "", is_pilot: bool = False, entry_params: Mapping[str, str] | None = None
) -> Participant:
    """A new participation with its own login-less account. It never reuses a signed-in account:
    a participation is its own identity. A known external id is refused here (that person resumes
    with ``resume``), so knowing someone's panel id is not enough to act as them."""
    external_id = clean_external_id(external_id)
    if study.status == StudyStatus.CLOSED:
        raise StudyError("This study is closed and no longer takes participants. Thank you for your interest.")
    if study.status == StudyStatus.DRAFT and not is_pilot:
        raise StudyError("This study has not opened yet. Please try the link again later.")
    if external_id and study.participants.filter(external_id=external_id).exists():
        raise StudyError(
            "Someone with this participant id has already started. To continue, enter the resume code "
            "shown on your study pages."
        )
    for attempt in range(NUMBER_TRIES):
        try:
            with transaction.atomic():
                # one number at a time per study (Postgres); on SQLite writes are one at a time anyway
                Study.objects.select_for_update().filter(pk=study.pk).first()
                return Participant.objects.create(
                    study=study,
                    number=next_number(study),
                    user=_participant_account(),
                    external_id=external_id,
                    is_pilot=is_pilot,
                    resume_code=new_resume_code(),
                    entry_params=dict(entry_params or {}),
                )
        except IntegrityError:
            # two joined at once and took the same number (or the same external id: refused below)
            if external_id and study.participants.filter(external_id=external_id).exists():
                raise StudyError(
                    "Someone with this participant id has already started. To continue, enter the resume code "
                    "shown on your study pages."
                ) from None
            if attempt == NUMBER_TRIES - 1:
                raise
    raise AssertionError("unreachable")


NUMBER_TRIES = 5


def next_number(study: Study) -> int:
    """The number of the study's next participant (its code P0001, P0002 ...): one past its highest."""
    highest = study.participants.aggregate(highest=models.Max("number"))["highest"]
    return (highest or 0) + 1


def resume_by_session(study: Study, *, external_id: str, entry_params: Mapping[str, str]) -> Participant | None:
    """The participation with this external id if the link carries its recruiter session id (e.g.
    Prolific's SESSION_ID, which only that participant's own link has); else None."""
    name = study.session_param.strip()
    given = entry_params.get(name, "") if name else ""
    if not given or not external_id:
        return None
    participant = study.participants.filter(external_id=external_id).first()
    stored = str((participant.entry_params or {}).get(name, "")) if participant else ""
    if stored and secrets.compare_digest(stored, given):
        return participant
    return None


def resume(study: Study, *, external_id: str, code: str, client: str = "") -> Participant:
    """The participation with this external id, if ``code`` is its resume code (another device).
    Wrong codes are counted; after ``MAX_RESUME_TRIES`` in an hour the id is locked for that hour.

    Without an external id (a link that carried none) the code alone finds the participation
    among those that joined without one: signing out, clearing cookies or another device lost
    such a participation for good. Those tries are counted per ``client`` (the visitor's address)
    instead; a code is 40 bits, so guessing one at ten tries an hour is hopeless."""
    external_id = clean_external_id(external_id)
    given = _normalise_code(code)
    if external_id:
        participant = study.participants.filter(external_id=external_id).first()
        if participant is None:
            raise StudyError("There is no participation with this participant id in this study.")
        tries_key = f"studies:resume-tries:{participant.pk}"
    else:
        formatted = f"{given[:4]}-{given[4:]}" if len(given) == 8 else ""
        participant = study.participants.filter(external_id="", resume_code=formatted).first() if formatted else None
        tries_key = f"studies:resume-tries:{study.pk}:no-id:{client}"
    tries = cache.get(tries_key, 0)
    if tries >= MAX_RESUME_TRIES:
        raise StudyError("Too many wrong resume codes; please wait an hour or contact the researcher.")
    if participant is None or not given or not secrets.compare_digest(given, _normalise_code(participant.resume_code)):
        cache.set(tries_key, tries + 1, 3600)
        # the code alone finds only a participation that joined without an id: one that came with
        # an id (a panel's link) is resumed from that link (a playtester's right code read as wrong)
        elsewhere = (
            ""
            if external_id
            else " If you joined from a link with your participant id (a panel's link), open that link again"
            " and enter the code there."
        )
        raise StudyError(f"That resume code does not match. It is shown at the bottom of every study page.{elsewhere}")
    cache.delete(tries_key)
    return participant


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
    practice = participant.tutorial_game
    if practice is not None and not practice.is_finished:
        flow.stop_tutorial(practice)  # they moved on before the practice ended: stop its clock


def current_episode(participant: Participant) -> Episode | None:
    return participant.episodes.exclude(status=EpisodeStatus.DONE).order_by("index").first()


@transaction.atomic
def start_episode(participant: Participant, episode: Episode) -> Episode:
    """Create the episode's game (idempotent: an episode already playing keeps its game). In a
    shared condition the episode waits in a lobby instead (``services.lobby``)."""
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
    if episode.condition.is_shared:
        from studies.services import lobby

        return lobby.enter(episode)  # the game starts when the others are here (or at the timeout)
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


def items_for(episode: Episode) -> Any:
    """The questionnaire after ``episode``: items about teammates only when it had teammates."""
    items = episode.participant.study.items.order_by("index")
    condition = episode.condition
    if not condition.npcs and not condition.is_shared:
        items = items.filter(needs_teammates=False)
    return items


def parse_answers(study: Study, raw: Mapping[str, Any], items: Any = None) -> dict[int, int]:
    """{item id: 1..5} from form fields ``item-<id>``; every item asked must be answered."""
    answers: dict[int, int] = {}
    missing = 0
    for item in items if items is not None else study.items.all():
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
    answers = parse_answers(participant.study, raw_answers, items_for(episode))
    Response.objects.bulk_create(Response(episode=episode, item_id=item, value=v) for item, v in answers.items())
    episode.status = EpisodeStatus.DONE
    episode.surveyed_at = timezone.now()
    episode.save(update_fields=["status", "surveyed_at"])
    failed = attention_failures(participant)
    if failed > participant.study.attention_max_failures:
        screen_out(participant, f"failed {failed} attention check{'s' if failed != 1 else ''}")
    elif not participant.episodes.exclude(status=EpisodeStatus.DONE).exists():
        complete(participant)
    return episode


def attention_failures(participant: Participant) -> int:
    """How many attention-check answers of this participant were not the one asked for."""
    return (
        Response.objects.filter(episode__participant=participant, item__attention_answer__isnull=False)
        .exclude(value=models.F("item__attention_answer"))
        .count()
    )


@transaction.atomic
def screen_out(participant: Participant, reason: str) -> None:
    """End a participation that failed the study's attention rule (excluded from analysis; sent to
    the screened-out redirect)."""
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    if participant.status not in (ParticipantStatus.ACTIVE, ParticipantStatus.JOINED):
        return
    participant.status = ParticipantStatus.SCREENED
    participant.dropped_at = timezone.now()
    participant.drop_reason = reason[:200]
    participant.save(update_fields=["status", "dropped_at", "drop_reason"])
    for episode in participant.episodes.filter(status=EpisodeStatus.PLAYING):
        flow.stop_game(episode)
    _leave_lobby(participant)


def _leave_lobby(participant: Participant) -> None:
    from studies.services import lobby

    for episode in participant.episodes.filter(status=EpisodeStatus.LOBBY):
        lobby.leave(episode)


@transaction.atomic
def complete(participant: Participant) -> None:
    if participant.episodes.exclude(status=EpisodeStatus.DONE).exists():
        raise StudyError("Some episodes are not done yet.")
    participant.status = ParticipantStatus.COMPLETED
    participant.completed_at = timezone.now()
    participant.save(update_fields=["status", "completed_at"])


@transaction.atomic
def drop_out(participant: Participant, reason: str = "") -> None:
    """Mark a participant as dropped out (they withdrew, the researcher decided, or they were gone
    past the study's inactivity limit); their games stop, a practice game too."""
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    if participant.status in (ParticipantStatus.COMPLETED, ParticipantStatus.DROPPED):
        raise StudyError(f"{participant.code} is already {participant.get_status_display().lower()}.")
    participant.status = ParticipantStatus.DROPPED
    participant.dropped_at = timezone.now()
    participant.drop_reason = reason.strip()[:200]
    participant.save(update_fields=["status", "dropped_at", "drop_reason"])
    for episode in participant.episodes.filter(status=EpisodeStatus.PLAYING):
        flow.stop_game(episode)
    practice = participant.tutorial_game
    if practice is not None and not practice.is_finished:
        # a paused practice game stayed "paused (disconnect)" for good
        flow.stop_tutorial(practice, reason="participant dropped out")
    _leave_lobby(participant)


@transaction.atomic
def release_external_id(participant: Participant) -> str:
    """Free a participant id for a fresh start: someone else took it first (a shared or leaked
    link), or its owner lost their resume code. The participation that held it stays, with all it
    did: one still taking part is dropped out (its games stop; excluded from analysis), one that
    declined, was screened out or dropped keeps that status; the id is kept in its drop reason
    and its resume code stops working. Returns the released id. A completed participation
    keeps its id, so one id never completes a study twice."""
    participant = Participant.objects.select_for_update().get(pk=participant.pk)
    released = participant.external_id
    if not released:
        raise StudyError(f"{participant.code} has no participant id to release.")
    if participant.status == ParticipantStatus.COMPLETED:
        raise StudyError(f"{participant.code} completed the study; its id stays so it cannot take part twice.")
    if participant.status in (ParticipantStatus.JOINED, ParticipantStatus.ACTIVE):
        drop_out(participant, reason="")
        participant.refresh_from_db()
    participant.drop_reason = f"id {released} released by the researcher" + (
        f"; {participant.drop_reason}" if participant.drop_reason else ""
    )
    participant.drop_reason = participant.drop_reason[:200]
    participant.external_id = ""
    participant.resume_code = ""
    participant.save(update_fields=["drop_reason", "external_id", "resume_code"])
    return released


MAX_MESSAGE = 500


def message_participant(participant: Participant, text: str) -> None:
    """The researcher's message: shown on the participant's study pages and, while they play, in
    their game's chat (so it reaches them wherever they are; not in a game shared with other
    participants, who would read it too)."""
    from games import services as game_services

    text = (text or "").strip()
    if not text:
        raise StudyError("Write a message first.")
    if len(text) > MAX_MESSAGE:
        raise StudyError(f"A message is at most {MAX_MESSAGE} characters.")
    Participant.objects.filter(pk=participant.pk).update(researcher_message=text, researcher_message_at=timezone.now())
    # A game shared with other participants would show it to them too: there, the study pages only.
    playing = [
        e.game_id
        for e in participant.episodes.filter(status=EpisodeStatus.PLAYING)
        if e.game_id and not Episode.objects.filter(game_id=e.game_id).exclude(pk=e.pk).exists()
    ]
    tutorial = participant.tutorial_game
    if tutorial is not None and not tutorial.is_finished:
        playing.append(tutorial.pk)
    for game_id in playing:
        # a game that ended meanwhile refuses: the study page shows the message anyway
        with contextlib.suppress(game_services.GameError):
            game_services.post_chat(game_id, text=f"Message from the researcher: {text}")


def touch(participant: Participant) -> None:
    """Remember when we last heard from the participant (for the monitor)."""
    Participant.objects.filter(pk=participant.pk).update(last_seen_at=timezone.now())


@transaction.atomic
def start_tutorial(participant: Participant, page_index: int, *, replacing: int | None = None) -> Any:
    """The practice game of onboarding page ``page_index`` (one per participant; a reload reuses it).
    ``replacing`` (the "Start a new practice game" button sends the running game's id) stops that game
    and starts another; a second send of the same form finds the new one running and reuses it."""
    participant = Participant.objects.select_for_update().select_related("study").get(pk=participant.pk)
    _require_active(participant)
    page = participant.study.onboarding_pages.filter(index=page_index, kind=PageKind.TUTORIAL).first()
    if page is None or page_index != participant.onboarding_done:
        raise StudyError("There is no tutorial on this page; follow the study link to continue.")
    running = participant.tutorial_game
    if running is not None and not running.is_finished:
        if replacing != running.pk:
            return running
        flow.stop_tutorial(running)
    game = flow.start_tutorial(participant, page.tutorial_scenario)
    participant.tutorial_game = game
    participant.save(update_fields=["tutorial_game"])
    return game
