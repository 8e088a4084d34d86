from django.contrib import admin

from games.npc.models import BenchmarkResult, BenchmarkRun, LlmCall, LlmResponse, NpcMemory


@admin.register(LlmCall)
class LlmCallAdmin(admin.ModelAdmin):
    list_display = ["id", "game", "result", "agent", "game_time", "latency_seconds", "completion_tokens", "error"]
    list_filter = ["agent"]
    search_fields = ["reply", "error"]
    raw_id_fields = ["game", "result"]
    readonly_fields = ["created_at"]


@admin.register(NpcMemory)
class NpcMemoryAdmin(admin.ModelAdmin):
    list_display = ["game", "turns", "last_seq", "running", "updated_at"]
    raw_id_fields = ["game"]


class ResultInline(admin.TabularInline):
    model = BenchmarkResult
    fields = ("key", "outcome", "metrics", "llm_calls", "wall_seconds", "error")
    readonly_fields = ("key", "outcome", "metrics", "llm_calls", "wall_seconds", "error")
    extra = 0
    can_delete = False


@admin.register(BenchmarkRun)
class BenchmarkRunAdmin(admin.ModelAdmin):
    list_display = ["id", "domain", "agent", "label", "status", "created_at", "finished_at"]
    list_filter = ["domain", "agent", "status"]
    inlines = [ResultInline]


@admin.register(LlmResponse)
class LlmResponseAdmin(admin.ModelAdmin):
    """Stored replies: deleting one makes the next run ask the model again."""

    list_display = ["id", "endpoint", "model", "prompt_tokens", "completion_tokens", "hits", "created_at"]
    list_filter = ["endpoint", "model"]
    search_fields = ["text", "key"]
    readonly_fields = ["key", "endpoint", "model", "request", "text", "prompt_tokens", "completion_tokens",
                       "latency_seconds", "hits", "created_at"]  # fmt: skip
