from django.apps import AppConfig


class CatalogKitchenConfig(AppConfig):
    name = "games.catalog.kitchen"
    label = "catalog_kitchen"
    verbose_name = "Kitchen catalogue"
