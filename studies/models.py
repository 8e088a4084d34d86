"""User studies (SPEC section 10): the design a researcher builds and what participants did in it.

Design: Study -> Condition (seat plan + dispatcher settings), StudyScenario, OnboardingPage,
QuestionnaireItem (5-point Likert, grouped by construct). Data: Participant -> Assignment (the
order of conditions) -> Episode (one game each) -> Response (one Likert answer per item).
State changes go through ``studies.services``; nothing here does more than store.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class Design(models.TextChoices):
    WITHIN = "within", "Within-subject (every participant plays every condition)"
    BETWEEN = "between", "Between-subject (every participant plays one condition)"


class ScenarioScheme(models.TextChoices):
    BY_POSITION = "by_position", "One scenario per episode, by position (scenario k in episode k)"
    EVERY = "every", "Every condition on every scenario"


class LobbyFallback(models.TextChoices):
    BACKFILL = "backfill", "Fill the empty seats with computer teammates (the condition's backfill NPC)"
    SOLO = "solo", "Send the waiting participants to the solo fallback condition"


class DisconnectPolicy(models.TextChoices):
    PAUSE = "pause", "Pause the game until the participant returns"
    CONTINUE = "continue", "Keep the game running"


class ClockMode(models.TextChoices):
    REAL_TIME = "real_time", "Real time"
    LOCKSTEP = "lockstep", "Lockstep (time advances when everyone has acted)"


class StudyStatus(models.TextChoices):
    DRAFT = "draft", "Draft (only pilots may join)"
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


class Study(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True, help_text="Used in the participant link.")
    description = models.TextField(blank=True, help_text="For researchers; participants do not see it.")
    status = models.CharField(max_length=10, choices=StudyStatus.choices, default=StudyStatus.DRAFT)
    design = models.CharField(max_length=10, choices=Design.choices, default=Design.WITHIN)
    scenario_scheme = models.CharField(
        max_length=12, choices=ScenarioScheme.choices, default=ScenarioScheme.BY_POSITION
    )
    consent_text = models.TextField(help_text="Shown before anything else; participants must agree to continue.")
    completion_code = models.CharField(
        max_length=64, help_text="Shown on the last page (e.g. the Prolific completion code)."
    )
    disconnect_policy = models.CharField(
        max_length=10, choices=DisconnectPolicy.choices, default=DisconnectPolicy.PAUSE
    )
    clock_mode = models.CharField(max_length=10, choices=ClockMode.choices, default=ClockMode.REAL_TIME)
    seconds_per_time_unit = models.FloatField(
        null=True,
        blank=True,
        default=None,
        help_text="Real time only: wall-clock seconds per game minute (tasks, trips), recipe second or kitchen "
        "step, for every scenario of the study. Blank: each scenario's own pace, set so a bundled one lasts "
        "2-6 real minutes (a kitchen step every 2 s, a recipe second every 1/8-1/40 s, a trip minute every second).",
    )
    # recruitment platforms (Prolific defaults); README has a worked example
    id_param = models.CharField(
        max_length=40,
        default="PROLIFIC_PID",
        help_text="The link parameter holding the participant's id (?pid= works as well).",
    )
    capture_params = models.CharField(
        max_length=300,
        default="STUDY_ID,SESSION_ID",
        blank=True,
        help_text="Other link parameters stored with the participant (comma-separated), e.g. STUDY_ID,SESSION_ID.",
    )
    session_param = models.CharField(
        max_length=40,
        default="SESSION_ID",
        blank=True,
        help_text="The recruiter's session id (kept with the other parameters): the same link then resumes "
        "on another device without the resume code.",
    )
    completion_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="Where finished participants are sent; {code} becomes the completion code "
        "(Prolific: https://app.prolific.com/submissions/complete?cc={code}). Blank: the code is shown.",
    )
    screened_out_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="Where participants are sent who decline consent or fail the attention checks; {code} becomes "
        "the screened-out code.",
    )
    screened_out_code = models.CharField(max_length=64, blank=True, help_text="e.g. Prolific's 'screened out' code.")
    attention_max_failures = models.PositiveSmallIntegerField(
        default=0, help_text="Participants failing more attention-check items than this are screened out."
    )
    bonus_formula = models.CharField(
        max_length=300,
        blank=True,
        help_text="Bonus per episode in your currency, e.g. 0.05 * score / 100 (score: the headline 0-100; "
        "also the domain's metrics by name; min, max, round). Summed over the episodes.",
    )
    bonus_cap = models.DecimalField(
        max_digits=8, decimal_places=2, null=True, blank=True, help_text="The most one participant can get."
    )
    backfill_after_seconds = models.PositiveIntegerField(
        default=60,
        help_text="Games with several participants: a participant away this long leaves their seat to a computer "
        "teammate, so the others can go on.",
    )
    inactive_after_minutes = models.PositiveIntegerField(
        default=60,
        help_text="A participant who has not finished and shows no sign of activity this long (no study page, no "
        "game page open, no move) is marked dropped out, reason 'no activity for N minutes': their game ends and "
        "they are excluded from analysis. 0: never.",
    )
    show_optimum = models.BooleanField(
        default=False,
        help_text="After a game on a generated instance, show the participant the best possible result (the "
        "certified optimum) and how close they came. Off: they see their own result only.",
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.title

    def captured_param_names(self) -> list[str]:
        """The link parameters kept with a participant: those listed, and the recruiter's session
        parameter (resuming by it needs it kept; left out of the list, it silently did nothing)."""
        names = [name.strip() for name in self.capture_params.split(",") if name.strip()]
        session = self.session_param.strip()
        return [*names, session] if session and session not in names else names


class NpcKind(models.TextChoices):
    NONE = "none", "Alone (no NPCs)"
    LLM = "llm", "LLM-dispatched NPCs"
    RANDOM = "random", "Random NPCs"
    PLANNER = "planner", "Planner NPCs"


class Condition(models.Model):
    """One experimental condition: who plays beside the human, and how the dispatcher is set up."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="conditions")
    index = models.PositiveIntegerField()
    name = models.CharField(max_length=100)
    npc_kind = models.CharField(max_length=10, choices=NpcKind.choices, default=NpcKind.NONE)
    npc_count = models.PositiveSmallIntegerField(default=0)
    dispatcher = models.JSONField(
        default=dict,
        blank=True,
        help_text="The LLM settings of its LLM NPCs and LLM backfill: endpoint, model, temperature, max_tokens, "
        'and prompt options under "prompt" (e.g. own_hints); docs/npc.md.',
    )
    # several participants in one game (issue 16): they meet in a lobby first
    human_count = models.PositiveSmallIntegerField(
        default=1, help_text="Participants playing together in one game (2 or more: they wait in a lobby first)."
    )
    lobby_timeout_seconds = models.PositiveIntegerField(
        default=120, help_text="How long the lobby waits for the other participants before the fallback."
    )
    lobby_fallback = models.CharField(max_length=10, choices=LobbyFallback.choices, default=LobbyFallback.BACKFILL)
    backfill_kind = models.CharField(
        max_length=10,
        choices=[c for c in NpcKind.choices if c[0] != NpcKind.NONE],
        default=NpcKind.RANDOM,
        help_text="Who takes a participant's seat left empty at the lobby timeout, or by a participant who left.",
    )
    fallback_condition = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="With the solo fallback: the condition the waiting participants play instead.",
    )

    class Meta:
        ordering = ["study", "index"]
        constraints = [models.UniqueConstraint(fields=["study", "index"], name="condition_study_index_unique")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_shared(self) -> bool:
        """Several participants play each game of this condition together."""
        return self.human_count > 1

    def llm_settings_summary(self) -> list[str]:
        """The condition's LLM settings in words, one short part each (the design page's
        "Dispatcher" column); empty: the site's defaults."""
        settings_ = self.dispatcher or {}
        nested = settings_.get("llm")
        model = nested if isinstance(nested, dict) else settings_
        chosen = ("endpoint", "model", "temperature")
        parts = [f"{key} {model[key]}" for key in chosen if model.get(key) not in (None, "")]
        found = settings_.get("prompt")
        prompt: dict[str, Any] = found if isinstance(found, dict) else {}
        # in a fixed order: Postgres' jsonb keeps keys in its own order (shortest first)
        first = [key for key in ("constrained", "own_hints") if key in prompt]
        for key in [*first, *sorted(set(prompt) - set(first))]:
            value = prompt[key]
            if key == "constrained":
                parts.append("replies held to legal actions" if value else "free replies")
            elif key == "own_hints":
                text = " ".join(str(value).split())
                parts.append(f"hints “{text[:60]}…”" if len(text) > 60 else f"hints “{text}”")
            else:
                parts.append(f"{key.replace('_', ' ')} {value}")
        return parts

    def backfill_seat(self) -> dict[str, Any]:
        """The NPC seat that takes an empty or abandoned participant seat."""
        # the condition's LLM settings are for its LLM seats, a backfilling one too (with random or
        # planner NPCs, an LLM backfill ran on the site's defaults while the page showed these)
        settings_ = dict(self.dispatcher) if self.backfill_kind in (NpcKind.LLM, self.npc_kind) else {}
        return {"kind": "npc", "dispatcher": self.backfill_kind, "settings": settings_}

    @property
    def npcs(self) -> int:
        """How many computer teammates its games seat (none when its kind is "alone")."""
        return self.npc_count if self.npc_kind != NpcKind.NONE else 0

    @property
    def seats(self) -> int:
        """How many seats its games have: the participants and the condition's NPCs."""
        return self.human_count + self.npcs

    def seat_plan(self, human: Any = None, *, humans: list[Any] | None = None, empty: int = 0) -> list[dict[str, Any]]:
        """Seats as ``games.services.create_game`` takes them: the participants first (``human``, or
        ``humans`` for a shared game), then ``empty`` backfill NPCs for seats nobody took, then
        ``npc_count`` NPCs of ``npc_kind`` sharing this condition's dispatcher settings."""
        people = humans if humans is not None else [human]
        seats: list[dict[str, Any]] = [{"kind": "human", "user": user} for user in people]
        seats += [self.backfill_seat() for _ in range(empty)]
        seats += [
            {"kind": "npc", "dispatcher": self.npc_kind, "settings": dict(self.dispatcher)} for _ in range(self.npcs)
        ]
        return seats


class StudyScenario(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="study_scenarios")
    index = models.PositiveIntegerField()
    scenario = models.ForeignKey("games.Scenario", on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["study", "index"]
        constraints = [models.UniqueConstraint(fields=["study", "index"], name="studyscenario_study_index_unique")]

    def __str__(self) -> str:
        return f"{self.study}: {self.scenario}"


class PageKind(models.TextChoices):
    TEXT = "text", "Text (rules, instructions)"
    TUTORIAL = "tutorial", "Tutorial game (played alone, not analysed)"


class OnboardingPage(models.Model):
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="onboarding_pages")
    index = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=PageKind.choices, default=PageKind.TEXT)
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)
    tutorial_scenario = models.ForeignKey(
        "games.Scenario", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["study", "index"]
        constraints = [models.UniqueConstraint(fields=["study", "index"], name="onboarding_study_index_unique")]

    def __str__(self) -> str:
        return self.title


class QuestionnaireItem(models.Model):
    """One 5-point Likert statement; items sharing ``construct`` are averaged into its score."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items")
    index = models.PositiveIntegerField()
    construct = models.SlugField(max_length=40, help_text="e.g. enjoyment, trust")
    construct_label = models.CharField(max_length=80)
    text = models.CharField(max_length=300)
    reverse_scored = models.BooleanField(default=False, help_text="Score as 6 - answer.")
    needs_teammates = models.BooleanField(
        default=False, help_text="About teammates: not asked after a game played alone."
    )
    attention_answer = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Attention check: the answer (1-5) the statement asks for; not part of any score.",
    )

    class Meta:
        ordering = ["study", "index"]
        constraints = [models.UniqueConstraint(fields=["study", "index"], name="item_study_index_unique")]

    def __str__(self) -> str:
        return f"{self.construct}: {self.text}"


def participant_code(number: int) -> str:
    """How researchers and exports name a participant without their external id: ``Participant.number``
    (P0001, P0002 ... in each study)."""
    return f"P{number:04d}"


class ParticipantStatus(models.TextChoices):
    JOINED = "joined", "Joined (consent pending)"
    ACTIVE = "active", "Active"
    COMPLETED = "completed", "Completed"
    DROPPED = "dropped", "Dropped out"
    DECLINED = "declined", "Declined consent"
    SCREENED = "screened", "Screened out (attention checks)"


class Participant(models.Model):
    """An anonymous participant. ``user`` is a login-less account created for this participation
    alone (it owns their game seats); it is never a person's own account."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="participants")
    number = models.PositiveIntegerField(
        editable=False,
        help_text="Counts the study's participants in the order they joined (its code: P0001, P0002 ...). "
        "Participants who joined before codes were counted per study keep the number they had.",
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="study_participations")
    external_id = models.CharField(max_length=128, blank=True, help_text="e.g. the Prolific id, from ?pid=")
    entry_params = models.JSONField(
        default=dict, blank=True, help_text="The link parameters captured on entry (e.g. STUDY_ID, SESSION_ID)."
    )
    resume_code = models.CharField(
        max_length=16, blank=True, help_text="Shown to the participant; needed to continue on another device."
    )
    status = models.CharField(max_length=10, choices=ParticipantStatus.choices, default=ParticipantStatus.JOINED)
    is_pilot = models.BooleanField(default=False, help_text="Scripted pilot participant; excluded from analysis.")
    onboarding_done = models.PositiveIntegerField(default=0, help_text="Onboarding pages completed.")
    joined_at = models.DateTimeField(auto_now_add=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    dropped_at = models.DateTimeField(null=True, blank=True)
    drop_reason = models.CharField(max_length=200, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    researcher_message = models.CharField(
        max_length=500, blank=True, help_text="The researcher's latest message, shown on the participant's pages."
    )
    researcher_message_at = models.DateTimeField(null=True, blank=True)
    tutorial_game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="study_tutorials"
    )

    class Meta:
        ordering = ["study", "joined_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "external_id"],
                condition=~models.Q(external_id=""),
                name="participant_external_id_unique",
            ),
            models.UniqueConstraint(fields=["study", "user"], name="participant_study_user_unique"),
            models.UniqueConstraint(fields=["study", "number"], name="participant_study_number_unique"),
        ]
        indexes = [models.Index(fields=["study", "status"])]

    def __str__(self) -> str:
        return self.code + (f" ({self.external_id})" if self.external_id else "")

    @property
    def code(self) -> str:
        return participant_code(self.number)


class Assignment(models.Model):
    """The condition order a participant got: row ``sequence`` of the study's Latin square (within)
    or one condition (between)."""

    participant = models.OneToOneField(Participant, on_delete=models.CASCADE, related_name="assignment")
    sequence = models.PositiveIntegerField(help_text="Row of the balanced Latin square, or the group (between).")
    condition_order = models.JSONField(help_text="Condition indexes in the order played.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.participant}: {self.condition_order}"


class EpisodeStatus(models.TextChoices):
    PENDING = "pending", "Not started"
    LOBBY = "lobby", "Waiting for the other participants"
    PLAYING = "playing", "Playing"
    SURVEY = "survey", "Questionnaire"
    DONE = "done", "Done"


class Episode(models.Model):
    """One game a participant plays in the study, and the questionnaire after it."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="episodes")
    index = models.PositiveIntegerField(help_text="Position in the participant's order, from 0.")
    condition = models.ForeignKey(Condition, on_delete=models.PROTECT, related_name="episodes")
    scenario = models.ForeignKey("games.Scenario", on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=10, choices=EpisodeStatus.choices, default=EpisodeStatus.PENDING)
    # several episodes share one game when participants play together (``Condition.human_count``)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="study_episode"
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True, help_text="The participant's agent in the game.")
    lobby = models.ForeignKey("Lobby", null=True, blank=True, on_delete=models.SET_NULL, related_name="episodes")
    lobby_entered_at = models.DateTimeField(null=True, blank=True)
    lobby_seen_at = models.DateTimeField(null=True, blank=True)
    routed_from = models.ForeignKey(
        Condition,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The shared condition this episode was meant for, when the lobby timed out to the solo one.",
    )
    left_at = models.DateTimeField(
        null=True, blank=True, help_text="When the participant's seat went to a computer teammate mid-game."
    )
    metrics = models.JSONField(default=dict, blank=True, help_text="The game's result (the domain's metrics).")
    started_at = models.DateTimeField(null=True, blank=True)
    played_at = models.DateTimeField(null=True, blank=True, help_text="When the game ended.")
    surveyed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["participant", "index"]
        constraints = [
            models.UniqueConstraint(fields=["participant", "index"], name="episode_participant_index_unique")
        ]

    def __str__(self) -> str:
        return f"{self.participant} #{self.index + 1}: {self.condition}"


class LobbyStatus(models.TextChoices):
    WAITING = "waiting", "Waiting"
    STARTED = "started", "Game started"
    ROUTED = "routed", "Timed out; sent to the solo condition"
    EMPTY = "empty", "Everyone left"


class Lobby(models.Model):
    """Participants of a shared condition waiting for each other before one game starts."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="lobbies")
    condition = models.ForeignKey(Condition, on_delete=models.CASCADE, related_name="lobbies")
    scenario = models.ForeignKey("games.Scenario", on_delete=models.PROTECT, related_name="+")
    is_pilot = models.BooleanField(default=False, help_text="Pilots never share a game with real participants.")
    status = models.CharField(max_length=10, choices=LobbyStatus.choices, default=LobbyStatus.WAITING)
    opened_at = models.DateTimeField()
    deadline_at = models.DateTimeField(help_text="When the fallback applies if seats are still empty.")
    closed_at = models.DateTimeField(null=True, blank=True)
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    humans = models.PositiveSmallIntegerField(default=0, help_text="Participants in the game when it started.")
    backfilled = models.PositiveSmallIntegerField(
        default=0, help_text="Participant seats given to computer teammates at the timeout."
    )

    class Meta:
        ordering = ["study", "opened_at"]
        indexes = [models.Index(fields=["condition", "status"])]
        verbose_name_plural = "lobbies"

    def __str__(self) -> str:
        return f"lobby {self.pk} of {self.condition} ({self.status})"


class Response(models.Model):
    episode = models.ForeignKey(Episode, on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey(QuestionnaireItem, on_delete=models.PROTECT, related_name="responses")
    value = models.PositiveSmallIntegerField(help_text="1 (strongly disagree) to 5 (strongly agree), as answered.")
    answered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["episode", "item__index"]
        constraints = [
            models.UniqueConstraint(fields=["episode", "item"], name="response_episode_item_unique"),
            models.CheckConstraint(condition=models.Q(value__gte=1, value__lte=5), name="response_value_1_to_5"),
        ]

    def __str__(self) -> str:
        return f"{self.episode}: {self.item.construct}={self.value}"


class ExportStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Ready"
    FAILED = "failed", "Failed"


class ExportJob(models.Model):
    """A full export of a study prepared in the background (a ZIP of every table in CSV and JSONL)."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="export_jobs")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    status = models.CharField(max_length=10, choices=ExportStatus.choices, default=ExportStatus.QUEUED)
    include_excluded = models.BooleanField(default=False)
    progress = models.FloatField(default=0.0)
    rows = models.PositiveBigIntegerField(default=0)
    file_name = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"export {self.pk} of {self.study} ({self.status})"


class PilotRunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Finished"
    FAILED = "failed", "Stopped"


# a run that has not ended: one at a time per study, and its pilots' data is not deleted under them
ACTIVE_PILOT_RUN = (PilotRunStatus.QUEUED, PilotRunStatus.RUNNING)


class PilotRun(models.Model):
    """Scripted pilot participants started from the design page: they go through the study over
    this site's own HTTP and websocket (``studies.pilot``), and each one's outcome is kept here."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="pilot_runs")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    participants = models.PositiveSmallIntegerField()
    base_url = models.URLField(help_text="The site as the researcher reached it; the pilots enter there.")
    status = models.CharField(max_length=10, choices=PilotRunStatus.choices, default=PilotRunStatus.QUEUED)
    # one object per finished pilot: participant, completed, completion_code, episodes, actions, seconds, error
    results = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"pilot run {self.pk} of {self.study} ({self.status})"

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_PILOT_RUN

    @property
    def completed(self) -> int:
        """Pilots that reached the completion page showing the study's own code."""
        code = self.study.completion_code
        return sum(1 for r in self.results if r.get("completed") and r.get("completion_code") == code)
