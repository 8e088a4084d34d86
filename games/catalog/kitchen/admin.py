from django.contrib import admin

from games.catalog.kitchen.models import Ingredient, KitchenRecipe, Level, Tool


@admin.register(Ingredient)
class IngredientAdmin(admin.ModelAdmin):
    list_display = ("name", "is_base")
    list_filter = ("is_base",)
    search_fields = ("name",)


@admin.register(Tool)
class ToolAdmin(admin.ModelAdmin):
    list_display = ("name", "busy_steps", "capacity", "occupies_agent")


@admin.register(KitchenRecipe)
class KitchenRecipeAdmin(admin.ModelAdmin):
    list_display = ("product", "tool", "source")
    list_filter = ("source", "tool")
    search_fields = ("product__name",)
    filter_horizontal = ("ingredients",)


@admin.register(Level)
class LevelAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "source", "default_agents")
    list_filter = ("source",)
    search_fields = ("slug", "name")
    readonly_fields = ("scenario",)
