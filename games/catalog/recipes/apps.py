from django.apps import AppConfig


class CatalogRecipesConfig(AppConfig):
    name = "games.catalog.recipes"
    label = "catalog_recipes"
    verbose_name = "Recipes catalogue"
