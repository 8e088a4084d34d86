from django.contrib import admin

from games.catalog.tasks.models import Action, Prerequisite, Task, TaskObject


class ActionInline(admin.TabularInline):
    model = Action
    extra = 0
    fields = ("position", "name", "minutes", "background")
    readonly_fields = fields
    can_delete = False


class TaskObjectInline(admin.TabularInline):
    model = TaskObject
    extra = 0
    fields = ("name", "appliance", "count")
    readonly_fields = fields
    can_delete = False


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = ("name", "title", "source", "family", "scenario")
    list_filter = ("source", "family")
    search_fields = ("name", "title", "goal")
    inlines = [TaskObjectInline, ActionInline]


@admin.register(Action)
class ActionAdmin(admin.ModelAdmin):
    list_display = ("name", "task", "minutes", "background")
    list_filter = ("background", "task__source")
    search_fields = ("name", "verb")


@admin.register(Prerequisite)
class PrerequisiteAdmin(admin.ModelAdmin):
    list_display = ("action", "requires")
    search_fields = ("action__name", "requires__name")
