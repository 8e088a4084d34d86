from django.contrib import admin

from games.catalog.itinerary.models import Brief, City, Place, Train, Transfer


@admin.register(City)
class CityAdmin(admin.ModelAdmin):
    list_display = ("name", "source")
    list_filter = ("source",)
    search_fields = ("name",)


@admin.register(Place)
class PlaceAdmin(admin.ModelAdmin):
    list_display = ("name", "city", "kind", "opens", "closes")
    list_filter = ("kind", "city__source", "city")
    search_fields = ("name",)


@admin.register(Transfer)
class TransferAdmin(admin.ModelAdmin):
    list_display = ("origin", "destination", "minutes")
    list_filter = ("origin__city",)
    search_fields = ("origin__name", "destination__name")
    list_select_related = ("origin", "destination")


@admin.register(Train)
class TrainAdmin(admin.ModelAdmin):
    list_display = ("number", "origin", "destination", "departure", "arrival", "minutes", "price")
    list_filter = ("source", "origin", "destination")
    search_fields = ("number",)
    date_hierarchy = "departure"
    list_select_related = ("origin", "destination")


@admin.register(Brief)
class BriefAdmin(admin.ModelAdmin):
    list_display = ("slug", "kind", "objective", "source")
    list_filter = ("source", "kind", "objective")
    search_fields = ("slug", "question")
