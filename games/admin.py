from django.contrib import admin

from games.models import Game, GameEvent, Scenario, Seat, SeatConnection, ServerProcess


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("slug", "version", "is_current", "domain", "title", "source", "created_at")
    list_filter = ("domain", "source", "is_current")
    search_fields = ("slug", "title")
    readonly_fields = ("created_at",)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("agent", "kind", "user", "dispatcher", "settings", "connections")
    readonly_fields = ("connections",)

    @admin.display(description="open connections")
    def connections(self, seat: Seat) -> int:
        return SeatConnection.objects.filter(game_id=seat.game_id, agent=seat.agent).count()


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    """Read-mostly: games change only through games.services (the event log is append-only)."""

    list_display = ("id", "scenario", "domain", "clock", "status", "paused", "last_seq", "created_by", "created_at")
    list_filter = ("domain", "clock", "status", "paused")
    search_fields = ("scenario__slug", "created_by__username")
    inlines = [SeatInline]
    readonly_fields = [f.name for f in Game._meta.fields]


@admin.register(GameEvent)
class GameEventAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "category", "kind", "agent", "time", "created_at")
    list_filter = ("category", "kind")
    readonly_fields = [f.name for f in GameEvent._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ServerProcess)
class ServerProcessAdmin(admin.ModelAdmin):
    """The ASGI processes holding websockets (games.presence); read-only."""

    list_display = ("id", "started_at", "seen_at")
    readonly_fields = ("id", "started_at", "seen_at")

    def has_add_permission(self, request):
        return False
