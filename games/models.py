"""Playable scenarios (and, from the real-time play issue on, games and their event logs)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.engine import registry
from games.seatnames import SeatInfo


def domain_choices() -> list[tuple[str, str]]:
    """Every registered domain (``games.engine.registry``), read when a form or check needs them."""
    return registry.choices()


class ScenarioQuerySet(models.QuerySet["Scenario"]):
    def current(self) -> ScenarioQuerySet:
        return self.filter(is_current=True)


class Scenario(models.Model):
    """One playable unit as the engine reads it: a task, a recipe pair, a kitchen level, a brief.

    ``slug`` names it across versions (``timearena/cooking1``, ``bundled/make-tea``); a change of
    content makes a new version and games keep the version they were played on.
    """

    domain = models.CharField(max_length=20, choices=domain_choices)
    slug = models.CharField(max_length=200, help_text="<source>/<name>, e.g. timearena/cooking1")
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    title = models.CharField(max_length=300)
    source = models.CharField(max_length=100, help_text="Dataset name, 'bundled', or who authored it.")
    description = models.TextField(blank=True)
    definition = models.JSONField(help_text="The scenario as the domain's rule set reads it.")
    certificate = models.JSONField(
        null=True,
        blank=True,
        help_text="A generated instance's known optimum (games.generators.family.certificate): "
        "optimal_makespan, optimal, lower_bound, greedy_makespan and what they were computed for.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ScenarioQuerySet.as_manager()

    class Meta:
        ordering = ["domain", "slug", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["slug", "version"], name="scenario_slug_version_unique"),
            models.UniqueConstraint(
                fields=["slug"], condition=models.Q(is_current=True), name="scenario_one_current_version"
            ),
        ]
        indexes = [models.Index(fields=["domain", "is_current"])]

    def __str__(self) -> str:
        return f"{self.slug} v{self.version}"


class ClockMode(models.TextChoices):
    """SPEC section 8. ``real_time``: game time runs at ``speed`` from the stored anchor;
    ``lockstep``: time jumps to the next deadline once no seat is free to decide; ``fast``: the same
    jumps for headless programs (never paused by a disconnect)."""

    REAL_TIME = "real_time", "Real time"
    LOCKSTEP = "lockstep", "Lockstep"
    FAST = "fast", "Fast (headless)"


# How the outcome of a game a researcher stopped begins (games/views.py writes it).
STOPPED = "stopped by a researcher"
# The pause reason of a real-time game whose clock starts when its player presses Start or acts
# (``services.create_game(start_when_ready=True)``): they read the brief first.
READY = "ready"
# The pause reason of a game whose people are not all connected yet (``games.services.seats``).
WAITING = "waiting"


class GameStatus(models.TextChoices):
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"


class DisconnectPolicy(models.TextChoices):
    PAUSE = "pause", "Pause until the human returns"
    CONTINUE = "continue", "Keep running"


class Game(models.Model):
    """One episode of a domain's rules on one or more scenario versions.

    The authoritative record is the event log (``GameEvent``); ``GameSnapshot`` caches the state
    after the last event. Game time is *computed*: ``anchor_time`` was the game time at wall-clock
    ``anchor_at``; while running in real time it advances by ``speed`` game units per second.
    """

    # Not stored: the seats' names as one viewer reads them, and whether that viewer is blinded (a
    # study participant), set by pages listing games for a viewer.
    seat_names: list[str]
    blind: bool
    domain = models.CharField(max_length=20)
    rule_set_id = models.CharField(max_length=40, help_text="Versioned rule-set id, e.g. tasks-v1.")
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="games")
    scenario_ids = models.JSONField(
        default=list, help_text="Every scenario version played together, in order (the first is `scenario`)."
    )
    seed = models.IntegerField(default=0)
    options = models.JSONField(default=dict, blank=True)
    clock = models.CharField(max_length=12, choices=ClockMode.choices, default=ClockMode.LOCKSTEP)
    speed = models.FloatField(default=0.5, help_text="Game time units per wall-clock second (real_time only).")
    anchor_time = models.FloatField(default=0.0, help_text="Game time at anchor_at.")
    anchor_at = models.DateTimeField()
    paused = models.BooleanField(default=False)
    pause_reason = models.CharField(max_length=20, blank=True)
    next_deadline_at = models.DateTimeField(null=True, blank=True, help_text="When the scheduler must advance it.")
    status = models.CharField(max_length=10, choices=GameStatus.choices, default=GameStatus.RUNNING)
    # a recipes spoil reads ~230 characters ("... only when step 2 can follow it in time."): at 200
    # the result panel ended mid-sentence
    outcome = models.CharField(max_length=500, blank=True, help_text="Why it ended.")
    result = models.JSONField(null=True, blank=True, help_text="The domain's metrics, stored when it ends.")
    disconnect_policy = models.CharField(
        max_length=10, choices=DisconnectPolicy.choices, default=DisconnectPolicy.PAUSE
    )
    last_seq = models.PositiveIntegerField(default=0)
    passed_agents = models.JSONField(
        default=list, blank=True, help_text="Lockstep: agents that let time pass at the current time."
    )
    progress_points = models.JSONField(
        default=list, blank=True, help_text="[game time, headline score] each time the score changed (charts)."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="created_games"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "paused", "next_deadline_at"], name="game_due"),
            models.Index(fields=["domain", "status"]),
        ]

    def __str__(self) -> str:
        return f"game {self.pk} ({self.scenario.slug}, {self.clock})"

    @property
    def stopped(self) -> bool:
        """Ended by a researcher's Stop (its metrics are those reached so far), not by its rules."""
        return self.status == GameStatus.FINISHED and self.outcome.startswith(STOPPED)

    @property
    def failed(self) -> bool:
        """Ended, and its rules' result says it failed (recipes: a spoiled recipe, ``success``
        false); a failed game read "finished" in the success colour."""
        return self.is_finished and isinstance(self.result, dict) and self.result.get("success") is False

    @property
    def waits_for_start(self) -> bool:
        """Paused until its player presses Start (or acts): see ``READY``."""
        return self.paused and self.pause_reason == READY and self.status == GameStatus.RUNNING

    @property
    def is_finished(self) -> bool:
        return self.status == GameStatus.FINISHED


class SeatKind(models.TextChoices):
    HUMAN = "human", "Human (browser)"
    PROGRAM = "program", "Program (API client)"
    NPC = "npc", "NPC"


class Seat(models.Model):
    """Who plays agent ``agent`` of a game. NPC seats name their dispatcher kind (llm, planner,
    random, replay) and its settings; human and program seats name their user."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    agent = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=SeatKind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="seats"
    )
    dispatcher = models.CharField(max_length=20, blank=True, help_text="NPC seats: llm, planner, random or replay.")
    settings = models.JSONField(default=dict, blank=True)
    ready_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When this seat's person pressed Start (or was not asked to): the clock of a game "
        "made to start when ready runs once every person's seat is ready.",
    )

    class Meta:
        ordering = ["game", "agent"]
        constraints = [models.UniqueConstraint(fields=["game", "agent"], name="seat_agent_unique")]

    def __str__(self) -> str:
        who = self.user or self.dispatcher or self.kind
        return f"agent {self.agent} of game {self.game_id}: {who}"

    @property
    def info(self) -> SeatInfo:
        """The seat as the pages name it (``info.detail``: "LLM NPC", "rita"; games.seatnames)."""
        username = self.user.get_username() if self.user else ""
        return SeatInfo(agent=self.agent, kind=self.kind, dispatcher=self.dispatcher, username=username)


class ServerProcess(models.Model):
    """An ASGI process holding websocket connections. It says it is alive every few seconds
    (``games.presence``); one silent for long has died, and its connections with it."""

    id = models.CharField(max_length=32, primary_key=True)
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"server {self.id[:8]} (seen {self.seen_at:%H:%M:%S})"


class SeatConnection(models.Model):
    """One open websocket of a seat's player, held by a server process (the disconnect policy asks
    whether a human seat has any)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="connections")
    agent = models.PositiveSmallIntegerField()
    server = models.ForeignKey(ServerProcess, on_delete=models.CASCADE, related_name="connections")
    opened_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["game", "agent"])]

    def __str__(self) -> str:
        return f"agent {self.agent} of game {self.game_id} on {self.server_id[:8]}"


class EventCategory(models.TextChoices):
    """``action`` and ``clock`` entries are the inputs a replay re-applies; ``engine`` entries are
    what the rules answered; ``chat`` and ``control`` are everything else people did."""

    ACTION = "action", "Action"
    CLOCK = "clock", "Clock advance"
    ENGINE = "engine", "Engine event"
    CHAT = "chat", "Chat"
    CONTROL = "control", "Control"


class GameEvent(models.Model):
    """The append-only log of a game: stored (committed) before anything is broadcast."""

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    category = models.CharField(max_length=10, choices=EventCategory.choices)
    kind = models.CharField(max_length=40)
    agent = models.PositiveSmallIntegerField(null=True, blank=True)
    time = models.FloatField(help_text="Game time.")
    created_at = models.DateTimeField(help_text="Wall-clock time it was stored.")
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="game_event_seq_unique")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.category}/{self.kind}"


class GameSnapshot(models.Model):
    """The state after event ``seq`` (written in the same transaction), so loading a game does not
    replay its whole log."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="snapshot")
    seq = models.PositiveIntegerField()
    state = models.JSONField()

    def __str__(self) -> str:
        return f"snapshot of game {self.game_id} at #{self.seq}"


class GeneratorRunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Finished"
    STOPPED = "stopped", "Stopped"
    FAILED = "failed", "Failed"


# a run that has not ended: its page keeps polling, and a restarted server runs it again
ACTIVE_GENERATOR_RUN = (GeneratorRunStatus.QUEUED, GeneratorRunStatus.RUNNING)


class GeneratorRun(models.Model):
    """A run of the scenario generator started from the studio's page (``games.studio.runs``): the
    instances are solved in the background, one by one, and each is kept here as it is finished,
    so the page shows them as they come and a restart loses nothing (a run cut off starts again;
    the same seed and knobs give the same instances)."""

    domain = models.CharField(max_length=20, choices=domain_choices)
    count = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    knobs = models.JSONField(default=dict, blank=True, help_text="The knobs as given (unset ones take their default).")
    max_seconds = models.FloatField(help_text="The solver's budget per instance, as work (games.planners.budget).")
    save_family = models.BooleanField(default=False, help_text="Save the instances as a scenario family when done.")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    status = models.CharField(max_length=10, choices=GeneratorRunStatus.choices, default=GeneratorRunStatus.QUEUED)
    # one object per finished instance, as ``manage.py generate --json`` prints it
    instances = models.JSONField(default=list, blank=True)
    saved = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"generator run {self.pk} ({self.domain}, seed {self.seed}, {self.status})"

    @property
    def active(self) -> bool:
        return self.status in ACTIVE_GENERATOR_RUN

    @property
    def done(self) -> int:
        return len(self.instances)
