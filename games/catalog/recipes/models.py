"""Recipes and their steps, as imported from Recipe2Plan or authored (SPEC section 3).

A recipe is versioned: applying gold annotation labels makes the next version, and scenarios and
games built on an older version keep it.
"""

from __future__ import annotations

from django.db import models


class Recipe(models.Model):
    name = models.CharField(max_length=200, help_text="The recipe's name, e.g. Cobbler.")
    version = models.PositiveIntegerField(default=1)
    is_current = models.BooleanField(default=True)
    source = models.CharField(max_length=100, help_text="recipe2plan, bundled, or gold:<annotation project>.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["name", "version"], name="recipe_name_version_unique"),
            models.UniqueConstraint(fields=["name"], condition=models.Q(is_current=True), name="recipe_one_current"),
        ]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class RecipeStep(models.Model):
    recipe = models.ForeignKey(Recipe, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField(help_text="The step number within its recipe (Recipe2Plan's 'step').")
    text = models.TextField()
    duration_seconds = models.PositiveIntegerField()
    prerequisites = models.JSONField(default=list, blank=True, help_text="Step indices that must finish first.")
    time_constraints = models.JSONField(
        default=dict, blank=True, help_text='{"k": minutes}: start at most N minutes after step k finished.'
    )
    interruptible = models.BooleanField(default=False)
    autonomous = models.BooleanField(default=False, help_text="Runs by itself (Recipe2Plan 'parallel' = 1).")
    physical = models.JSONField(default=dict, blank=True, help_text="Appliance requirements and updates.")

    class Meta:
        ordering = ["recipe", "index"]
        constraints = [models.UniqueConstraint(fields=["recipe", "index"], name="recipe_step_index_unique")]

    def __str__(self) -> str:
        return f"{self.recipe.name}/{self.index}"
