"""Browsable catalogue of the tasks domain: tasks, their actions, objects and prerequisites.

One catalogue ``Task`` per stored scenario version of a single task (``timearena/cooking1``,
``bundled/make-tea``). What the engine plays is the scenario's definition JSON; these rows mirror
it so researchers can browse, filter and query tasks in the admin. They are written by
``games.catalog.tasks.records.record_task`` together with the scenario version, never edited alone.
"""

from __future__ import annotations

from django.db import models


class Task(models.Model):
    scenario = models.OneToOneField("games.Scenario", on_delete=models.CASCADE, related_name="task_record")
    name = models.CharField(max_length=100, help_text="Short name within its source, e.g. cooking1 or make-tea.")
    title = models.CharField(max_length=300)
    goal = models.TextField(blank=True)
    source = models.CharField(max_length=100, help_text="timearena or bundled.")
    family = models.CharField(max_length=50, blank=True, help_text="cooking, household, lab (published tasks).")

    class Meta:
        ordering = ["source", "family", "name"]

    def __str__(self) -> str:
        return f"{self.scenario.slug} v{self.scenario.version}"


class TaskObject(models.Model):
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="task_objects")
    name = models.CharField(max_length=100)
    appliance = models.BooleanField(default=False, help_text="Shared between combined tasks (pot, fryer, oven...).")
    count = models.PositiveIntegerField(
        default=1, help_text="How many the task brings (appliances: one per type 2 use)."
    )

    class Meta:
        ordering = ["task", "name"]
        constraints = [models.UniqueConstraint(fields=["task", "name"], name="task_object_name_unique")]

    def __str__(self) -> str:
        return self.name


class Action(models.Model):
    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="actions")
    position = models.PositiveIntegerField()
    name = models.CharField(max_length=200, help_text="The action text, e.g. 'cook rice in pot'.")
    verb = models.CharField(max_length=50)
    minutes = models.PositiveIntegerField()
    background = models.BooleanField(default=False, help_text="Type 2: runs by itself after its first minute.")
    uses = models.ManyToManyField(TaskObject, related_name="actions", blank=True, help_text="Objects it names.")

    class Meta:
        ordering = ["task", "position"]
        constraints = [
            models.UniqueConstraint(fields=["task", "position"], name="task_action_position_unique"),
            models.UniqueConstraint(fields=["task", "name"], name="task_action_name_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class Prerequisite(models.Model):
    action = models.ForeignKey(Action, on_delete=models.CASCADE, related_name="prerequisites")
    requires = models.ForeignKey(Action, on_delete=models.CASCADE, related_name="enables")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["action", "requires"], name="task_prerequisite_unique")]

    def __str__(self) -> str:
        return f"{self.requires} before {self.action}"
