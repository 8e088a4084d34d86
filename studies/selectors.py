"""Read-only queries of the studies app: where a participant is, the monitor, analysis inputs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from games.models import GameEvent
from studies import teammate_calls
from studies.analysis import MeasureAnalysis, Observation, analyse
from studies.measures import ItemAnswer, construct_scores, objective_measures
from studies.models import (
    Design,
    Episode,
    EpisodeStatus,
    OnboardingPage,
    Participant,
    ParticipantStatus,
    Response,
    Study,
    participant_code,
)
from studies.services.lobby import PRESENT_SECONDS
from studies.teammate_calls import FailingTeammates

IDLE_AFTER = timedelta(minutes=5)
# The measure of episodes on generated instances with a certified optimum (studies/analysis page).
OPTIMUM_RATIO = "optimum_ratio"


def studies_overview() -> QuerySet[Study]:
    return Study.objects.annotate(
        n_participants=Count("participants", filter=Q(participants__is_pilot=False), distinct=True),
        n_completed=Count(
            "participants",
            filter=Q(participants__is_pilot=False, participants__status=ParticipantStatus.COMPLETED),
            distinct=True,
        ),
        n_conditions=Count("conditions", distinct=True),
    ).order_by("-created_at")


@dataclass(frozen=True)
class Step:
    """Where a participant is. ``kind``: consent, onboarding, lobby (waiting for the others of a
    shared condition), episode, questionnaire, complete, declined or dropped."""

    kind: str
    position: int = 0  # 1-based number of the episode or page
    total: int = 0
    page: OnboardingPage | None = None
    episode: Episode | None = None

    @property
    def label(self) -> str:
        if self.kind == "onboarding":
            return f"Introduction {self.position}/{self.total}"
        if self.kind == "episode":
            return f"Game {self.position}/{self.total}"
        if self.kind == "lobby":
            return f"Game {self.position}/{self.total} (waiting for the others)"
        if self.kind == "questionnaire":
            return f"Questions {self.position}/{self.total}"
        return self.kind.capitalize()


def participant_step(
    participant: Participant, *, pages: Sequence[Any] | None = None, episodes: Sequence[Episode] | None = None
) -> Step:
    """Where the participant is. ``pages`` (the study's onboarding pages in order) and ``episodes``
    (theirs, any order) may come from the caller's own queries: the monitor reads them once for a
    whole page of participants instead of twice per participant."""
    if participant.status == ParticipantStatus.JOINED:
        return Step("consent")
    if participant.status == ParticipantStatus.DECLINED:
        return Step("declined")
    if participant.status == ParticipantStatus.DROPPED:
        return Step("dropped")
    if participant.status == ParticipantStatus.SCREENED:
        return Step("screened")
    if participant.status == ParticipantStatus.COMPLETED:
        return Step("complete")
    if pages is None:
        pages = list(participant.study.onboarding_pages.order_by("index"))
    if participant.onboarding_done < len(pages):
        return Step("onboarding", participant.onboarding_done + 1, len(pages), page=pages[participant.onboarding_done])
    if episodes is None:
        episodes = list(participant.episodes.select_related("condition", "scenario"))
    total = len(episodes)
    episode = min((e for e in episodes if e.status != EpisodeStatus.DONE), key=lambda e: e.index, default=None)
    if episode is None:
        return Step("complete")
    kinds: dict[str, str] = {EpisodeStatus.SURVEY: "questionnaire", EpisodeStatus.LOBBY: "lobby"}
    kind = kinds.get(episode.status, "episode")
    return Step(kind, episode.index + 1, total, episode=episode)


def participants_for_monitor(study: Study, participants: Iterable[Participant] | None = None) -> list[dict[str, Any]]:
    """One row per participant with their step, for the live monitor (newest first): every one of
    the study's, or ``participants`` (a page of ``monitor_participants``)."""
    rows = []
    now = timezone.now()
    errors = npc_error_counts(study)
    in_game = on_a_game_page(study)
    pages = list(study.onboarding_pages.order_by("index"))
    if participants is None:
        participants = monitor_participants(study)
    for participant in participants:
        episodes = list(participant.episodes.all())
        step = participant_step(participant, pages=pages, episodes=episodes)
        idle = (
            participant.status == ParticipantStatus.ACTIVE
            and participant.pk not in in_game
            and participant.last_seen_at is not None
            and now - participant.last_seen_at > IDLE_AFTER
        )
        done = sum(1 for e in episodes if e.status == EpisodeStatus.DONE)
        rows.append(
            {
                "participant": participant,
                "step": step,
                "idle": idle,
                "done": done,
                "total": len(episodes),
                "order": participant_order_names(participant),
                "npc_errors": errors.get(participant.pk, 0),
                "in_game": participant.pk in in_game,
                "seat_note": seat_note(episodes, now),
            }
        )
    return rows


def on_a_game_page(study: Study) -> set[int]:
    """The participants with a game of theirs open now (a websocket of their seat): "last seen 12
    minutes ago" and "idle" were read off the study's own pages while they played or read their
    result."""
    from games.models import Seat, SeatConnection, SeatKind

    open_seats = set(
        SeatConnection.objects.filter(game__study_episode__participant__study=study).values_list("game_id", "agent")
    )
    if not open_seats:
        return set()
    users = {
        (game, agent): user
        for game, agent, user in Seat.objects.filter(
            game_id__in={game for game, _ in open_seats}, kind=SeatKind.HUMAN
        ).values_list("game_id", "agent", "user_id")
    }
    present = {users[seat] for seat in open_seats if users.get(seat) is not None}
    return set(study.participants.filter(user_id__in=present).values_list("pk", flat=True))


def seat_note(episodes: Any, now: datetime) -> str:
    """Shared conditions, for the monitor: "in lobby (waiting N s)" while the participant waits for
    the others, "seat taken over by backfill" (game k) once a computer teammate has their seat."""
    for episode in episodes:
        if episode.status == EpisodeStatus.LOBBY and episode.lobby_entered_at is not None:
            waiting = f"in lobby (waiting {max(int((now - episode.lobby_entered_at).total_seconds()), 0)} s)"
            seen = episode.lobby_seen_at
            if seen is not None and (now - seen).total_seconds() > PRESENT_SECONDS:
                # "waiting 277 s" past a 120 s timeout read as a lobby that never gave up: its page
                # was closed, and the timeout is kept by the waiting participants' own pages
                away = int((now - seen).total_seconds())
                return f"{waiting}, lobby page closed {away} s ago: nothing happens until they return"
            return waiting
    taken = [episode for episode in episodes if episode.left_at is not None]
    if taken:
        return f"seat taken over by backfill (game {taken[-1].index + 1})"
    return ""


def participant_order_names(participant: Participant) -> list[str]:
    seen: list[str] = []
    for episode in participant.episodes.all():
        if episode.condition.name not in seen:
            seen.append(episode.condition.name)
    return seen


def running_episodes(study: Study) -> QuerySet[Episode]:
    return (
        Episode.objects.filter(participant__study=study, status=EpisodeStatus.PLAYING)
        .select_related("participant", "condition", "scenario", "game")
        .order_by("started_at")
    )


MONITOR_STATUSES = {
    "active": (ParticipantStatus.JOINED, ParticipantStatus.ACTIVE),
    "completed": (ParticipantStatus.COMPLETED,),
    "dropped": (ParticipantStatus.DROPPED,),
    "declined": (ParticipantStatus.DECLINED,),
    "screened": (ParticipantStatus.SCREENED,),
}


def monitor_participants(study: Study, status: str = "") -> QuerySet:
    """The monitor's participants, newest first, with what their rows read; ``status``: one of
    ``MONITOR_STATUSES`` (anything else: everyone)."""
    participants = study.participants.select_related("assignment").prefetch_related(
        "episodes__condition", "episodes__game"
    )
    if status in MONITOR_STATUSES:
        participants = participants.filter(status__in=MONITOR_STATUSES[status])
    return participants.order_by("-joined_at", "-pk")


def status_counts(study: Study) -> dict[str, int]:
    counts = dict.fromkeys(ParticipantStatus.values, 0)
    for row in study.participants.filter(is_pilot=False).values("status").annotate(n=Count("id")):
        counts[row["status"]] = row["n"]
    return counts


def counted_participants(study: Study, include_dropped: bool = False, include_pilots: bool = False) -> QuerySet:
    """Participants analysed by default: completed or still active, not pilots (drop-outs excluded)."""
    statuses = [ParticipantStatus.ACTIVE, ParticipantStatus.COMPLETED]
    if include_dropped:
        statuses.append(ParticipantStatus.DROPPED)
    queryset = study.participants.filter(status__in=statuses)
    if not include_pilots:
        queryset = queryset.filter(is_pilot=False)
    return queryset


@dataclass(frozen=True)
class StudyAnalysis:
    conditions: list[str]
    objective: list[MeasureAnalysis]
    constructs: list[MeasureAnalysis]
    n_participants: int
    n_episodes: int
    within: bool
    n_games: int = 0
    n_shared_games: int = 0  # games two or more participants played together
    # shared games in which a computer teammate had a person's seat (nobody came in time, or
    # someone left), and whether they are counted with their condition
    n_backfilled: int = 0
    backfilled_included: bool = False
    # per condition, episodes whose computer teammates' model calls failed (the teammate could not
    # act), and whether they are left out (``exclude_failing_npcs``)
    failing_npcs: tuple[FailingTeammates, ...] = ()
    failing_npcs_excluded: bool = False


def backfilled_episodes(episodes: QuerySet) -> QuerySet:
    """Of ``episodes``, those of shared games in which a computer teammate had a person's seat: the
    lobby's timeout filled an empty one, or a participant's seat was handed over mid-game."""
    taken_over = GameEvent.objects.filter(game_id__in=episodes.values("game_id"), kind="seat_replaced").values(
        "game_id"
    )
    return episodes.filter(Q(lobby__backfilled__gt=0) | Q(game_id__in=taken_over))


def study_analysis(
    study: Study,
    include_dropped: bool = False,
    include_pilots: bool = False,
    include_backfilled: bool = False,
    exclude_failing_npcs: bool = False,
) -> StudyAnalysis:
    """Every measure of the study, analysed across conditions (SPEC section 10). A shared game in
    which a computer teammate had a person's seat is not what its condition names ("two people"):
    it is left out unless ``include_backfilled``. Episodes in which NPC model calls failed are
    counted in ``failing_npcs`` per condition, and left out with ``exclude_failing_npcs``."""
    conditions = list(study.conditions.order_by("index").values_list("name", flat=True))
    within = study.design == Design.WITHIN
    participants = counted_participants(study, include_dropped, include_pilots)
    finished = Episode.objects.filter(
        participant__in=participants, status__in=[EpisodeStatus.SURVEY, EpisodeStatus.DONE]
    )
    backfilled = backfilled_episodes(finished)
    n_backfilled = backfilled.values("game_id").distinct().count()  # games, not their players' episodes
    if not include_backfilled and n_backfilled:
        finished = finished.exclude(pk__in=backfilled.values("pk"))
    failing_npcs = tuple(teammate_calls.failing_by_condition(finished))
    if exclude_failing_npcs and failing_npcs:
        finished = finished.exclude(game_id__in=teammate_calls.failing_games(finished))
    played = finished.select_related("condition", "scenario")
    certified = has_certified_scenarios(study)
    if certified:
        played = with_seat_counts(played)
    objective_obs: dict[tuple[str, str], list[Observation]] = defaultdict(list)
    n_episodes = 0
    subjects: set[int] = set()
    games: set[int] = set()
    shared: set[int] = set()
    for episode in played.iterator(chunk_size=2000):
        n_episodes += 1
        subjects.add(episode.participant_id)
        game_id = episode.game_id
        if game_id is not None and game_id in games:
            shared.add(game_id)
            if not within:
                # a game played together has one score, its team's: counted once (per player, n
                # counted the game twice and its SD was 0). Within subjects each participant keeps
                # their own row, as the repeated measures need.
                continue
        if game_id is not None:
            games.add(game_id)
        for measure in objective_measures(episode.scenario.domain):
            value = measure.read(episode.metrics or {})
            if value is not None:
                objective_obs[(episode.scenario.domain, measure.key)].append(
                    Observation(str(episode.participant_id), episode.condition.name, value)
                )
        found = against_optimum(episode) if certified else None
        ratio = None if found is None else found["ratio"]
        if ratio is not None:
            objective_obs[(episode.scenario.domain, OPTIMUM_RATIO)].append(
                Observation(str(episode.participant_id), episode.condition.name, ratio)
            )
    domains_seen = sorted({domain for domain, _ in objective_obs})
    objective = []
    for domain in domains_seen:
        prefix = f"{domain}: " if len(domains_seen) > 1 else ""
        for measure in objective_measures(domain):
            if (domain, measure.key) in objective_obs:
                label = prefix + measure.label + (f" ({measure.unit})" if measure.unit else "")
                obs = objective_obs[(domain, measure.key)]
                objective.append(analyse(f"{domain}.{measure.key}", label, obs, conditions, within))
        if (domain, OPTIMUM_RATIO) in objective_obs:
            label = prefix + "Makespan over the certified optimum (1 = optimal; lower is better)"
            obs = objective_obs[(domain, OPTIMUM_RATIO)]
            objective.append(analyse(f"{domain}.{OPTIMUM_RATIO}", label, obs, conditions, within))

    construct_labels = dict(study.items.values_list("construct", "construct_label"))
    per_episode: dict[int, list[ItemAnswer]] = defaultdict(list)
    episode_info: dict[int, tuple[str, str]] = {}
    reverse_items = set(study.items.filter(reverse_scored=True).values_list("pk", flat=True))
    responses = Response.objects.filter(
        episode__in=finished.filter(status=EpisodeStatus.DONE),
        item__attention_answer__isnull=True,  # attention checks screen people, they score nothing
    ).values_list(
        "episode_id", "episode__participant_id", "episode__condition__name", "item_id", "item__construct", "value"
    )
    for episode_id, participant_id, condition, item_id, construct, value in responses.iterator(chunk_size=5000):
        per_episode[episode_id].append(ItemAnswer(construct, value, item_id in reverse_items))
        episode_info[episode_id] = (str(participant_id), condition)
    construct_obs: dict[str, list[Observation]] = defaultdict(list)
    for episode_id, answers in per_episode.items():
        subject, condition = episode_info[episode_id]
        for construct, score in construct_scores(answers).items():
            construct_obs[construct].append(Observation(subject, condition, score))
    constructs = [
        analyse(construct, label, construct_obs.get(construct, []), conditions, within)
        for construct, label in _ordered_constructs(study, construct_labels)
    ]
    return StudyAnalysis(
        conditions=conditions,
        objective=objective,
        constructs=constructs,
        n_participants=len(subjects),
        n_episodes=n_episodes,
        n_games=len(games),
        n_shared_games=len(shared),
        within=within,
        n_backfilled=n_backfilled,
        backfilled_included=include_backfilled,
        failing_npcs=failing_npcs,
        failing_npcs_excluded=exclude_failing_npcs and bool(failing_npcs),
    )


def has_certified_scenarios(study: Study) -> bool:
    """Whether any of the study's scenarios is a generated instance with a certified optimum."""
    return study.study_scenarios.filter(scenario__certificate__isnull=False).exists()


def with_seat_counts(episodes: QuerySet) -> QuerySet:
    """Episodes with ``seats_in_game`` (a tasks optimum holds for a number of agents), as
    ``against_optimum`` reads them."""
    return episodes.annotate(seats_in_game=Count("game__seats", distinct=True))


def against_optimum(episode: Episode) -> dict[str, Any] | None:
    """An episode (from ``with_seat_counts``) against the certified optimum of the scenario version
    it played: ``games.npc.optimality.measured`` (None without a certificate)."""
    from games.npc.optimality import measured

    scenario = episode.scenario
    seats = episode.seats_in_game  # type: ignore[attr-defined]
    return measured(scenario.domain, scenario.slug, scenario.certificate, episode.metrics or {}, seats)


def _ordered_constructs(study: Study, labels: dict[str, str]) -> list[tuple[str, str]]:
    seen: list[str] = []
    scored = study.items.filter(attention_answer__isnull=True).order_by("index")
    for construct in scored.values_list("construct", flat=True):
        if construct not in seen:
            seen.append(construct)
    return [(construct, labels[construct]) for construct in seen]


def participant_for(study: Study, user: Any) -> Participant | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return study.participants.filter(user=user).first()


def _failed_calls() -> Any:
    """NPC model calls that moved no teammate: failed (``error``), or answered with nothing the
    rules could take (no command, and a problem fed back). A 135M model's every reply in a kitchen
    was "no command found", its teammate only waited, and the monitor said "No NPC errors"."""
    from django.db.models import Q

    from games.npc.models import LlmCall

    return LlmCall.objects.filter(~Q(error="") | (Q(parsed=[]) & ~Q(problems=[])))


def npc_error_counts(study: Study) -> dict[int, int]:
    """{participant id: NPC model calls in their games that failed or gave no usable command}, for
    the monitor's participant rows."""
    from django.apps import apps

    if not apps.is_installed("games.npc"):
        return {}
    rows = (
        _failed_calls()
        .filter(game__study_episode__participant__study=study)
        .values("game__study_episode__participant")
        .annotate(n=Count("id"))
    )
    return {row["game__study_episode__participant"]: row["n"] for row in rows}


def npc_errors(study: Study, limit: int = 20) -> list[dict[str, Any]]:
    """The latest NPC model calls in this study's games that failed or gave no usable command
    (none when the npc app is absent)."""
    from django.apps import apps

    if not apps.is_installed("games.npc"):
        return []
    episodes = {
        game_id: (participant_code(number), index + 1, condition)
        for game_id, number, index, condition in Episode.objects.filter(
            participant__study=study, game__isnull=False
        ).values_list("game_id", "participant__number", "index", "condition__name")
    }
    calls = (
        _failed_calls()
        .filter(game_id__in=list(episodes))
        .order_by("-id")
        .values("game_id", "created_at", "error", "problems", "model", "agent")[:limit]
    )
    rows = []
    for call in calls:
        participant, position, condition = episodes[call["game_id"]]
        problems = call["problems"] or [""]
        said = call["error"] or f"no usable command in the reply ({problems[0]})"
        rows.append(
            {
                "at": call["created_at"],
                "participant": participant,
                "game": f"game {position} ({condition})",
                "message": f"{call['agent']} · {call['model']}: {said}",
            }
        )
    return rows
