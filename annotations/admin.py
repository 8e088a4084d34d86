from django.contrib import admin

from annotations.models import (
    Annotator,
    Assignment,
    GoldApplication,
    GoldLabel,
    Item,
    Label,
    PreannotationRun,
    Project,
    ProjectRecipe,
)


class ProjectRecipeInline(admin.TabularInline):
    model = ProjectRecipe
    extra = 0
    raw_id_fields = ("recipe",)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ("name", "annotators_per_item", "show_suggestions", "created_by", "created_at")
    search_fields = ("name",)
    inlines = [ProjectRecipeInline]


@admin.register(Annotator)
class AnnotatorAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "is_model")
    list_filter = ("is_model",)
    search_fields = ("name",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("recipe", "annotator", "created_at", "submitted_at")
    list_filter = ("recipe__project",)
    list_select_related = ("recipe__project", "annotator")


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ("key", "project", "text")
    list_filter = ("project",)
    search_fields = ("key", "text")


@admin.register(Label)
class LabelAdmin(admin.ModelAdmin):
    list_display = ("item", "annotator", "property", "value", "updated_at")
    list_filter = ("property", "item__project")
    list_select_related = ("item", "annotator")
    raw_id_fields = ("item",)


@admin.register(GoldLabel)
class GoldLabelAdmin(admin.ModelAdmin):
    list_display = ("item", "property", "value", "decided_by", "decided_at")
    list_filter = ("property", "item__project")
    raw_id_fields = ("item",)


@admin.register(PreannotationRun)
class PreannotationRunAdmin(admin.ModelAdmin):
    list_display = ("project", "model_name", "status", "done", "total", "created_at")


@admin.register(GoldApplication)
class GoldApplicationAdmin(admin.ModelAdmin):
    list_display = ("project", "recipe", "changed", "applied_by", "applied_at")
