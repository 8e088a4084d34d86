from django.contrib import admin

from games.models import Scenario


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("slug", "version", "is_current", "domain", "title", "source", "created_at")
    list_filter = ("domain", "source", "is_current")
    search_fields = ("slug", "title")
    readonly_fields = ("created_at",)
