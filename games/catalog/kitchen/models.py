"""Browsable kitchen content (SPEC section 4): ingredients, tools, recipes and levels.

What the engine plays is the level's ``games.Scenario`` (its definition carries the kitchen, the
dishes and the recipe book); these tables are for browsing, admin and cross-checking imports.
Each row names its ``source`` (``cuisineworld`` or ``bundled``) so both recipe books can coexist.
"""

from __future__ import annotations

from django.db import models


class Ingredient(models.Model):
    name = models.CharField(max_length=100, unique=True)
    is_base = models.BooleanField(default=False, help_text="Base ingredients come from storage without a recipe.")

    class Meta:
        ordering = ["-is_base", "name"]

    def __str__(self) -> str:
        return self.name


class Tool(models.Model):
    name = models.CharField(
        max_length=50, unique=True, help_text="The kind, e.g. pot (a kitchen numbers them pot0, pot1)."
    )
    busy_steps = models.PositiveIntegerField(help_text="Steps the tool stays busy after activation.")
    capacity = models.PositiveIntegerField(null=True, blank=True, help_text="Items it holds; empty means unlimited.")
    occupies_agent = models.BooleanField(default=False, help_text="The activating agent is busy too (chopboard).")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class KitchenRecipe(models.Model):
    source = models.CharField(max_length=50)
    product = models.ForeignKey(Ingredient, on_delete=models.PROTECT, related_name="made_by")
    tool = models.ForeignKey(Tool, on_delete=models.PROTECT, related_name="recipes")
    ingredients = models.ManyToManyField(Ingredient, related_name="used_in")

    class Meta:
        ordering = ["source", "product__name"]
        constraints = [
            models.UniqueConstraint(fields=["source", "product"], name="kitchen_recipe_source_product_unique")
        ]

    def __str__(self) -> str:
        return f"{self.product} ({self.tool}, {self.source})"


class Level(models.Model):
    slug = models.CharField(max_length=100, unique=True, help_text="The scenario slug, e.g. cuisineworld/level_3.")
    name = models.CharField(max_length=100)
    source = models.CharField(max_length=50)
    kitchen = models.JSONField(help_text="Location kinds in order, e.g. ['storage', 'servingtable', 'pot', 'pot'].")
    dishes = models.JSONField(help_text="Dishes that may be ordered.")
    default_agents = models.PositiveIntegerField(default=2)
    notes = models.TextField(blank=True, help_text="What the importer repaired, and why.")
    scenario = models.ForeignKey(
        "games.Scenario", null=True, blank=True, on_delete=models.SET_NULL, related_name="kitchen_levels"
    )

    class Meta:
        ordering = ["source", "slug"]

    def __str__(self) -> str:
        return self.slug
