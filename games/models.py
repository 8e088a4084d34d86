"""Playable scenarios (and, from the real-time play issue on, games and their event logs)."""

from __future__ import annotations

from django.db import models


class Domain(models.TextChoices):
    TASKS = "tasks", "Tasks (TimeArena)"
    RECIPES = "recipes", "Recipes (Recipe2Plan)"
    KITCHEN = "kitchen", "Kitchen (CuisineWorld)"
    ITINERARY = "itinerary", "Itinerary (ItineraryBench)"


class ScenarioQuerySet(models.QuerySet["Scenario"]):
    def current(self) -> ScenarioQuerySet:
        return self.filter(is_current=True)


class Scenario(models.Model):
    """One playable unit as the engine reads it: a task, a recipe pair, a kitchen level, a brief.

    ``slug`` names it across versions (``timearena/cooking1``, ``bundled/make-tea``); a change of
    content makes a new version and games keep the version they were played on.
    """

    domain = models.CharField(max_length=20, choices=Domain.choices)
    slug = models.CharField(max_length=200, help_text="<source>/<name>, e.g. timearena/cooking1")
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    title = models.CharField(max_length=300)
    source = models.CharField(max_length=100, help_text="Dataset name, 'bundled', or who authored it.")
    description = models.TextField(blank=True)
    definition = models.JSONField(help_text="The scenario as the domain's rule set reads it.")
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
