from django.apps import AppConfig


class CatalogItineraryConfig(AppConfig):
    name = "games.catalog.itinerary"
    label = "catalog_itinerary"
    verbose_name = "Itinerary catalogue"
