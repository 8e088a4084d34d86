"""The project creation form (researchers): recipes, properties, annotators, guidelines."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Count, Q, QuerySet

from accounts.roles import GROUP_FOR_ROLE, Role
from annotations.models import Project
from annotations.schema import DEFAULT_GUIDELINES, DEFAULT_PROPERTIES, PROPERTIES, PROPERTY_TITLES
from arena_site.params import whole_number
from games.catalog.recipes.models import Recipe
from games.domains.recipes.text import recipe_title


def annotator_users() -> QuerySet[Any]:
    """Users who may label: annotators and researchers (researchers pilot projects)."""
    users = get_user_model().objects.filter(is_active=True)
    return (
        users.filter(Q(groups__name=GROUP_FOR_ROLE[Role.ANNOTATOR]) | Q(is_staff=True)).distinct().order_by("username")
    )


class IdChoices(forms.ModelMultipleChoiceField):
    """Rows chosen by their ids; an id that is no whole number (or past SQLite's integers, where
    Django's ``__in`` lookup overflowed into a server error) is refused like an unknown one."""

    def clean(self, value: Any) -> Any:
        for pk in value if isinstance(value, list | tuple) else ():
            if whole_number(str(pk)) is None:
                raise forms.ValidationError(
                    self.error_messages["invalid_pk_value"], code="invalid_pk_value", params={"pk": pk}
                )
        return super().clean(value)


class RecipeChoice(IdChoices):
    def label_from_instance(self, obj: Any) -> str:
        steps = f"{obj.n_steps} step{'' if obj.n_steps == 1 else 's'}"
        return f"{recipe_title(obj.name)} (v{obj.version}, {steps}, {obj.source})"


class UserChoice(IdChoices):
    def label_from_instance(self, obj: Any) -> str:
        return obj.get_username()


class ProjectForm(forms.Form):
    name = forms.CharField(
        max_length=200,
        help_text="Shown to annotators; used by the commands' --project.",
        error_messages={"required": "Give the project a name."},
    )
    description = forms.CharField(required=False, max_length=5_000, widget=forms.Textarea(attrs={"rows": 2}))
    recipes = RecipeChoice(
        queryset=Recipe.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Current version of each recipe.",
        error_messages={"required": "Choose at least one recipe to label."},
    )
    properties = forms.MultipleChoiceField(
        choices=[(p, PROPERTY_TITLES[p]) for p in PROPERTIES],
        initial=list(DEFAULT_PROPERTIES),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one property to label."},
    )
    annotators_per_item = forms.IntegerField(min_value=1, max_value=20, initial=3)
    annotators = UserChoice(
        queryset=get_user_model().objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose who labels: at least as many annotators as annotators per item."},
    )
    # shown beside every recipe an annotator labels: a few pages at most
    guidelines = forms.CharField(
        initial=DEFAULT_GUIDELINES,
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 14}),
        help_text="Left empty: the default guidelines.",
    )
    show_suggestions = forms.BooleanField(
        required=False, help_text="Annotators see the model's pre-annotation as suggestions (off keeps them blind)."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        recipes = Recipe.objects.filter(is_current=True).annotate(n_steps=Count("steps")).order_by("name")
        self.fields["recipes"].queryset = recipes  # type: ignore[attr-defined]
        self.fields["annotators"].queryset = annotator_users()  # type: ignore[attr-defined]

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if Project.objects.filter(name=name).exists():
            raise forms.ValidationError("A project with this name exists already; choose another name.")
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        people, per_item = data.get("annotators"), data.get("annotators_per_item")
        if people is not None and per_item and len(people) < per_item:
            self.add_error(
                "annotators",
                f"{per_item} annotators per item needs at least {per_item} annotators: "
                "choose more or lower the number.",
            )
        return data
