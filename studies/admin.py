from django.contrib import admin

from studies.models import (
    Assignment,
    Condition,
    Episode,
    ExportJob,
    OnboardingPage,
    Participant,
    PilotRun,
    QuestionnaireItem,
    Response,
    Study,
    StudyScenario,
)


class ConditionInline(admin.TabularInline):
    model = Condition
    extra = 0


class StudyScenarioInline(admin.TabularInline):
    model = StudyScenario
    extra = 0
    raw_id_fields = ["scenario"]


class OnboardingPageInline(admin.StackedInline):
    model = OnboardingPage
    extra = 0
    raw_id_fields = ["tutorial_scenario"]


class ItemInline(admin.TabularInline):
    model = QuestionnaireItem
    extra = 0


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["title", "slug", "status", "design", "created_at"]
    list_filter = ["status", "design"]
    search_fields = ["title", "slug"]
    inlines = [ConditionInline, StudyScenarioInline, OnboardingPageInline, ItemInline]


class EpisodeInline(admin.TabularInline):
    model = Episode
    extra = 0
    raw_id_fields = ["game", "scenario"]
    readonly_fields = ["metrics"]


@admin.register(Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ["__str__", "study", "status", "is_pilot", "joined_at", "last_seen_at"]
    list_filter = ["study", "status", "is_pilot"]
    search_fields = ["external_id"]
    raw_id_fields = ["user", "tutorial_game"]
    inlines = [EpisodeInline]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["participant", "sequence", "condition_order"]


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
    list_display = ["episode", "item", "value", "answered_at"]
    raw_id_fields = ["episode", "item"]


@admin.register(ExportJob)
class ExportJobAdmin(admin.ModelAdmin):
    list_display = ["study", "status", "rows", "created_at", "finished_at"]


@admin.register(PilotRun)
class PilotRunAdmin(admin.ModelAdmin):
    list_display = ["study", "participants", "status", "created_at", "finished_at"]
    list_filter = ["status"]
