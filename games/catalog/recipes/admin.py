from django.contrib import admin

from games.catalog.recipes.models import Recipe, RecipeStep


class RecipeStepInline(admin.TabularInline):
    model = RecipeStep
    extra = 0


@admin.register(Recipe)
class RecipeAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "is_current", "source", "created_at")
    list_filter = ("source", "is_current")
    search_fields = ("name",)
    inlines = [RecipeStepInline]
