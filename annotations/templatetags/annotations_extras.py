"""Template filters of the annotation pages."""

from __future__ import annotations

from django import template

from annotations import schema
from annotations.schema import PROPERTY_TITLES
from games.domains.recipes.text import recipe_title

register = template.Library()


@register.filter
def item_title(key: str) -> str:
    """An item's key as people read it: "Garlic-Bread/4" -> "Garlic Bread, step 4"."""
    recipe, slash, step = str(key).rpartition("/")
    if not slash or not step.isdigit():
        return str(key)
    return f"{recipe_title(recipe)}, step {step}"


@register.filter
def label_text(value: str, prop: str) -> str:
    """A label as people read it: ``{{ label|label_text:prop }}`` ("1:2" -> "after step 1, within 2 min")."""
    return schema.label_text(str(prop), str(value))


@register.filter
def property_title(prop: str) -> str:
    """A property as the rest of the pages name it: "time_constraint" -> "Time constraint"."""
    return PROPERTY_TITLES.get(str(prop), str(prop))


@register.filter
def recipe_name(name: str) -> str:
    """A recipe's stored name as its title: "Garlic-Bread" -> "Garlic Bread"."""
    return recipe_title(str(name))
