"""The NPC side of the Arena: every LLM call, each game's dispatcher memory, benchmark runs."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class LlmCall(models.Model):
    """One model call: in a live game (``game``) or a benchmark episode (``result``).

    ``after_seq`` is the game's last event when the dispatcher read the state, and ``action_seqs``
    the log entries of the actions it caused, so a replay shows the call next to them.
    """

    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.CASCADE, related_name="llm_calls")
    result = models.ForeignKey(
        "npc.BenchmarkResult", null=True, blank=True, on_delete=models.CASCADE, related_name="calls"
    )
    agent = models.CharField(max_length=40, help_text="Who asked: dispatcher, react, tdag/main, tdag/sub-1 ...")
    seats = models.JSONField(default=list, blank=True, help_text="The agent numbers it commanded.")
    game_time = models.FloatField(null=True, blank=True)
    after_seq = models.PositiveIntegerField(null=True, blank=True)
    action_seqs = models.JSONField(default=list, blank=True)
    model = models.CharField(max_length=200, blank=True)
    base_url = models.CharField(max_length=300, blank=True)
    messages = models.JSONField(default=list, help_text="The prompt as sent: [{role, content}, ...].")
    reply = models.TextField(blank=True)
    parsed = models.JSONField(default=list, blank=True, help_text="Commands taken from the reply.")
    problems = models.JSONField(default=list, blank=True, help_text="What was refused, fed back next turn.")
    latency_seconds = models.FloatField(default=0.0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    cached = models.BooleanField(default=False, help_text="Answered from the response cache, not the model.")
    cost_usd = models.FloatField(default=0.0, help_text="Its tokens at the model's price (LLM_PRICES).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["game", "after_seq"])]

    def __str__(self) -> str:
        return f"LLM call {self.pk} ({self.agent})"

    @property
    def prompt(self) -> str:
        return "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in self.messages)


class NpcMemory(models.Model):
    """A game's dispatcher memory (history window, pending feedback, plans) and its turn claim.

    ``running`` is held by the one process deciding for the game right now; ``dirty`` asks it to
    look again when it is done (something changed meanwhile). ``last_seq`` is the last log entry
    the dispatcher has seen, so each turn gets exactly the events since the previous one.
    """

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, primary_key=True, related_name="npc_memory")
    data = models.JSONField(default=dict, blank=True)
    last_seq = models.PositiveIntegerField(default=0)
    decided_seq = models.PositiveIntegerField(default=0, help_text="The seq of the last state decided on.")
    running = models.BooleanField(default=False)
    dirty = models.BooleanField(default=False)
    claimed_at = models.DateTimeField(null=True, blank=True)
    turns = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"NPC memory of game {self.game_id}"


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    STOPPED = "stopped", "Stopped"


class ItemCount(models.Func):
    """The length of a JSON array column, counted by the database (a run's task set holds up to
    10,000 items: the runs page counted them by reading every run's set)."""

    function = "json_array_length"  # SQLite
    output_field = models.IntegerField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, function="jsonb_array_length", **extra)


class BenchmarkRun(models.Model):
    """A headless benchmark over a task set, resumable: finished items are kept and skipped."""

    domain = models.CharField(max_length=20)
    agent = models.CharField(max_length=20, help_text="react, plan-and-solve, dispatcher, tdag, planner or random")
    label = models.CharField(max_length=200, blank=True)
    config = models.JSONField(default=dict, blank=True, help_text="LLM endpoint (no key), prompt options, limits.")
    items = models.JSONField(default=list, help_text="The task set: one dict per episode.")
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    claims = models.PositiveIntegerField(
        default=0, help_text="How many times a process took the run up; an episode of an earlier take halts."
    )
    taken_by = models.CharField(
        max_length=20,
        blank=True,
        help_text="What plays it: server (the embedded server's threads, resumed when it restarts), "
        "worker (Celery) or command (manage.py benchmark, left to its terminal).",
    )
    process = models.CharField(
        max_length=300,
        blank=True,
        help_text="host:pid of the process that took it up last (a killed manage.py benchmark is told apart by it).",
    )

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.domain} / {self.agent} #{self.pk}"

    @property
    def total(self) -> int:
        return len(self.items)


class BenchmarkResult(models.Model):
    """One episode of a run: the domain's metrics plus the agent's cost."""

    run = models.ForeignKey(BenchmarkRun, on_delete=models.CASCADE, related_name="results")
    key = models.CharField(max_length=300, help_text="Identifies the item within the run (resume skips it).")
    item = models.JSONField(default=dict)
    metrics = models.JSONField(default=dict, blank=True)
    outcome = models.CharField(max_length=200, blank=True)
    turns = models.PositiveIntegerField(default=0)
    actions = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    llm_errors = models.PositiveIntegerField(default=0)
    llm_seconds = models.FloatField(default=0.0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cached_calls = models.PositiveIntegerField(default=0, help_text="Calls answered from the response cache.")
    cost_usd = models.FloatField(default=0.0, help_text="Spent: the calls that reached the model, at LLM_PRICES.")
    saved_usd = models.FloatField(default=0.0, help_text="What the cached calls would have cost.")
    curve = models.JSONField(
        default=list, blank=True, help_text="[game time, decisions so far, headline score] each time the score changed."
    )
    log = models.JSONField(
        default=list,
        blank=True,
        help_text="The episode's actions in order, [agent, action, game time]: replayed through the rules, its "
        "timeline (games.npc.episode_replay).",
    )
    wall_seconds = models.FloatField(default=0.0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="benchmark_result_key_unique")]

    def __str__(self) -> str:
        return f"{self.run} {self.key}"


class EpisodeProgress(models.Model):
    """An episode of a run under way, as far as it has got (written every few seconds by the
    process playing it, deleted when its result is saved): what the run's page shows while a slow
    model plays an episode of many minutes."""

    run = models.ForeignKey(BenchmarkRun, on_delete=models.CASCADE, related_name="playing")
    key = models.CharField(max_length=300)
    turns = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    llm_errors = models.PositiveIntegerField(default=0, help_text="Calls that got no answer.")
    last_error = models.CharField(max_length=300, blank=True, help_text="Why the latest of them got none.")
    game_time = models.FloatField(default=0.0)
    game_end = models.FloatField(null=True, blank=True, help_text="The game time it ends by at the latest.")
    score = models.FloatField(null=True, blank=True, help_text="The headline score so far, 0-100.")
    started_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["run", "started_at", "id"]
        constraints = [models.UniqueConstraint(fields=["run", "key"], name="episode_progress_key_unique")]

    def __str__(self) -> str:
        return f"{self.run} {self.key} (under way)"


class LlmResponse(models.Model):
    """A stored model answer, found again by a hash of the request (``games.npc.llm_cache``)."""

    key = models.CharField(max_length=64, unique=True, help_text="sha256 of the request and its occurrence.")
    endpoint = models.CharField(max_length=300, help_text="The endpoint id (or URL) it came from.")
    model = models.CharField(max_length=200)
    request = models.JSONField(help_text="Messages, sampling settings, seed, attempt, occurrence.")
    text = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_seconds = models.FloatField(default=0.0, help_text="How long the model took the first time.")
    hits = models.PositiveIntegerField(default=0, help_text="Times it answered instead of the model.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"cached {self.model} reply {self.key[:10]}"
