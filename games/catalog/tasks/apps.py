from django.apps import AppConfig


class CatalogTasksConfig(AppConfig):
    name = "games.catalog.tasks"
    label = "catalog_tasks"
    verbose_name = "Tasks catalogue"
