"""Annotation projects over recipe steps: who labels what, the labels, gold labels, model runs.

A project's unit of work is one recipe (``ProjectRecipe``): an annotator is assigned whole
recipes, sees every step, and submits per recipe. Items are the recipe's steps (``recipe/step``).
Labels are one row per (item, annotator, property), so two annotators, or two tabs of one
annotator editing different properties, never write the same row.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotations.schema import DEFAULT_GUIDELINES, DEFAULT_PROPERTIES, PROPERTIES, PROPERTY_TITLES
from games.domains.recipes.text import recipe_title

PROPERTY_CHOICES = [(p, PROPERTY_TITLES[p]) for p in PROPERTIES]


def default_properties() -> list[str]:
    return list(DEFAULT_PROPERTIES)


class Annotator(models.Model):
    """Whoever gives labels: a user of the site, a name from another tool's export, or a model."""

    name = models.CharField(max_length=150, unique=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="annotator"
    )
    is_model = models.BooleanField(default=False, help_text="An LLM pre-annotator (kept out of agreement).")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Project(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(default=DEFAULT_GUIDELINES)
    properties = models.JSONField(default=default_properties, help_text="Property names to label (SPEC 9).")
    annotators_per_item = models.PositiveSmallIntegerField(default=3)
    show_suggestions = models.BooleanField(
        default=False, help_text="Show the model's pre-annotation to annotators as suggestions."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def property_titles(self) -> list[str]:
        """The labelled properties as the forms name them ("Time constraint", not "time_constraint")."""
        return [PROPERTY_TITLES.get(name, name) for name in self.properties]


class ProjectRecipe(models.Model):
    """One recipe of a project: the unit an annotator is assigned and submits."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="recipes")
    name = models.CharField(max_length=200, help_text="The recipe's name (the part before / in item ids).")
    recipe = models.ForeignKey(
        "catalog_recipes.Recipe",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The recipe version labelled; empty for labels imported from another tool.",
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["project", "position", "name"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="annotation_recipe_unique")]

    def __str__(self) -> str:
        return f"{self.project.name}: {self.name}"

    @property
    def title(self) -> str:
        """The name as people read it ("Tomato Soup" for "Tomato-Soup")."""
        return recipe_title(self.name)


class Item(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="items")
    recipe = models.ForeignKey(ProjectRecipe, on_delete=models.CASCADE, related_name="items")
    step = models.PositiveIntegerField()
    key = models.CharField(max_length=220, help_text="recipe/step, e.g. Cobbler/3.")
    text = models.TextField(blank=True)
    duration_seconds = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["recipe__position", "recipe__name", "step"]
        constraints = [models.UniqueConstraint(fields=["project", "key"], name="annotation_item_unique")]

    def __str__(self) -> str:
        return self.key


class Assignment(models.Model):
    """An annotator's task to label one recipe of a project; labels count once it is submitted."""

    recipe = models.ForeignKey(ProjectRecipe, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="assignments")
    created_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["recipe__project", "recipe__position", "annotator__name"]
        constraints = [models.UniqueConstraint(fields=["recipe", "annotator"], name="annotation_assignment_unique")]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.recipe}"


class Label(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="labels")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="labels")
    property = models.CharField(max_length=32, choices=PROPERTY_CHOICES)
    value = models.CharField(max_length=200)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator", "property"], name="annotation_label_unique")
        ]
        indexes = [models.Index(fields=["annotator", "item"])]

    def __str__(self) -> str:
        return f"{self.item} {self.property}={self.value} ({self.annotator})"


class GoldLabel(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="gold")
    property = models.CharField(max_length=32, choices=PROPERTY_CHOICES)
    value = models.CharField(max_length=200)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    decided_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "property"], name="annotation_gold_unique")]

    def __str__(self) -> str:
        return f"{self.item} {self.property}={self.value} (gold)"


class PreannotationRun(models.Model):
    """An LLM pre-annotation job: progress for the page, errors for the researcher to read."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="runs")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="runs")
    model_name = models.CharField(max_length=200)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="[{item, message, reply}] per failed recipe.")
    message = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.model_name} on {self.project} ({self.status})"

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 0


class GoldApplication(models.Model):
    """A recipe version made from a project's gold labels (games already played keep their version)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="applications")
    recipe = models.ForeignKey("catalog_recipes.Recipe", on_delete=models.CASCADE, related_name="+")
    changed = models.BooleanField(default=True, help_text="False when the gold labels matched the recipe already.")
    applied_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    applied_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-applied_at"]

    def __str__(self) -> str:
        return f"{self.project} -> {self.recipe}"
