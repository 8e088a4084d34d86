"""Forms of the study designer. They parse and validate; the services decide and store."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core import validators

from games.agents import endpoints
from games.agents.llm_dispatcher import OWN_HINTS_MAX, held_to_legal_actions
from games.generators.family import family_of
from games.models import Scenario
from studies.models import Condition, LobbyFallback, NpcKind, PageKind, Study

# The longest texts a study's pages take (characters): a consent form or a page of rules is a few
# thousand; each is shown whole to every participant.
PAGE_TEXT_MAX = 20_000
DESCRIPTION_MAX = 5_000
# Whole-number settings without a range of their own in the model.
STUDY_RANGES = {
    "backfill_after_seconds": (0, 3600),
    "attention_max_failures": (0, 100),
    "inactive_after_minutes": (0, 7 * 24 * 60),
}


class NewStudyForm(forms.Form):
    title = forms.CharField(max_length=200, help_text="e.g. 'Kitchen with LLM teammates, pilot 1'")


class StudyBasicsForm(forms.ModelForm):
    class Meta:
        model = Study
        fields = [
            "title",
            "slug",
            "description",
            "design",
            "scenario_scheme",
            "disconnect_policy",
            "backfill_after_seconds",
            "inactive_after_minutes",
            "clock_mode",
            "seconds_per_time_unit",
            "completion_code",
            "consent_text",
            "id_param",
            "capture_params",
            "session_param",
            "completion_url",
            "screened_out_url",
            "screened_out_code",
            "attention_max_failures",
            "bonus_formula",
            "bonus_cap",
            "show_optimum",
        ]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 2}),
            "consent_text": forms.Textarea(attrs={"rows": 8}),
        }
        labels = {
            "slug": "Link name",
            "seconds_per_time_unit": "Seconds per game time unit",
            "id_param": "Participant id parameter",
            "capture_params": "Other link parameters to keep",
            "session_param": "Recruiter session parameter",
            "completion_url": "Completion redirect",
            "screened_out_url": "Screened-out redirect",
            "attention_max_failures": "Attention checks allowed to fail",
            "bonus_formula": "Bonus per episode",
            "show_optimum": "Show the best possible result after each game",
            "inactive_after_minutes": "Drop out after inactivity (minutes)",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, most in (("consent_text", PAGE_TEXT_MAX), ("description", DESCRIPTION_MAX)):
            field = self.fields[name]
            field.validators.append(validators.MaxLengthValidator(most))
            field.widget.attrs["maxlength"] = str(most)
        for name, (low, high) in STUDY_RANGES.items():
            field = self.fields[name]
            field.validators += [validators.MinValueValidator(low), validators.MaxValueValidator(high)]
            field.widget.attrs.update(min=str(low), max=str(high))

    def clean_bonus_formula(self) -> str:
        from studies import bonus

        formula = self.cleaned_data["bonus_formula"].strip()
        if formula:
            try:
                bonus.check_formula(formula)
            except bonus.BonusError as error:
                raise forms.ValidationError(str(error)) from None
        return formula

    def clean_capture_params(self) -> str:
        names = [n.strip() for n in self.cleaned_data["capture_params"].split(",") if n.strip()]
        bad = [n for n in names if not n.replace("_", "").replace("-", "").isalnum()]
        if bad:
            raise forms.ValidationError(f"Parameter names are letters, digits, _ and -: {', '.join(bad)}")
        return ",".join(names)

    def clean_seconds_per_time_unit(self) -> float | None:
        value = self.cleaned_data["seconds_per_time_unit"]
        if value is None:  # each scenario's own pace
            return None
        if not 0.01 <= value <= 60:  # a bundled recipe pair's own pace is 1/8-1/40 s per recipe second
            raise forms.ValidationError("Choose between 0.01 and 60 seconds per game time unit.")
        return value


class ConditionForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="e.g. 'Alone', '2 LLM NPCs'")
    npc_kind = forms.ChoiceField(choices=NpcKind.choices, label="Teammates")
    npc_count = forms.IntegerField(min_value=0, max_value=4, initial=0, label="How many NPCs")
    endpoint = forms.ChoiceField(
        choices=[], required=False, label="LLM endpoint", help_text="One of the site's configured endpoints."
    )
    model = forms.CharField(
        max_length=200, required=False, help_text="A model the endpoint allows (blank: its default)."
    )
    temperature = forms.FloatField(required=False, min_value=0, max_value=2)
    hints = forms.CharField(
        required=False,
        max_length=OWN_HINTS_MAX,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text=f"Your own inference knowledge, added to the prompt's hints after the game's "
        f"(at most {OWN_HINTS_MAX:,} characters).",
    )
    constrained = forms.BooleanField(
        required=False,
        # ticked, as the new-game form has it: unticked, the bundled SmolLM2 teammate of a playtested
        # study's condition carried out 0-3 commands in 60 steps (its free answers seldom name an action)
        initial=True,
        label="Hold LLM replies to legal actions",
        help_text="The endpoint may only write one legal action per teammate (JSON-constrained decoding; "
        "llama.cpp, vLLM and OpenAI support it). Small models then always act; untick for free answers, as the "
        "papers' agents give.",
    )
    human_count = forms.IntegerField(
        min_value=1,
        max_value=5,
        initial=1,
        required=False,
        label="Participants per game",
        help_text="2 or more: participants wait in a lobby until everyone is there (or the timeout).",
    )
    lobby_timeout_seconds = forms.IntegerField(
        min_value=10, max_value=3600, initial=120, required=False, label="Lobby timeout (seconds)"
    )
    lobby_fallback = forms.ChoiceField(
        choices=LobbyFallback.choices, initial=LobbyFallback.BACKFILL, required=False, label="At the timeout"
    )
    backfill_kind = forms.ChoiceField(
        choices=[c for c in NpcKind.choices if c[0] != NpcKind.NONE],
        initial=NpcKind.RANDOM,
        required=False,
        label="Backfill teammate",
        help_text="Takes an empty seat at the timeout, or the seat of a participant who left mid-game.",
    )
    fallback_condition = forms.ModelChoiceField(
        queryset=Condition.objects.none(),
        required=False,
        label="Solo fallback condition",
        help_text="With 'send to the solo condition': the condition played alone instead.",
    )

    def __init__(self, *args: Any, study: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["endpoint"].choices = endpoints.choices()  # type: ignore[attr-defined]
        if study is not None:
            self.fields["fallback_condition"].queryset = study.conditions.filter(human_count=1)  # type: ignore[attr-defined]

    def sharing(self) -> dict[str, Any]:
        """The lobby settings, as ``services.add_condition`` takes them."""
        data = self.cleaned_data
        return {
            "human_count": data.get("human_count") or 1,
            "lobby_timeout_seconds": data.get("lobby_timeout_seconds") or 120,
            "lobby_fallback": data.get("lobby_fallback") or LobbyFallback.BACKFILL,
            "backfill_kind": data.get("backfill_kind") or NpcKind.RANDOM,
            "fallback_condition": data.get("fallback_condition"),
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        try:
            endpoints.check({"endpoint": data.get("endpoint"), "model": data.get("model")})
        except endpoints.EndpointError as error:
            self.add_error("model", str(error))
        kind, count = data.get("npc_kind"), data.get("npc_count")
        if kind == NpcKind.NONE and count:
            self.add_error("npc_count", "A condition without NPCs has 0 NPCs.")
        if kind and kind != NpcKind.NONE and not count:
            self.add_error("npc_count", "Choose 1 to 4 NPCs.")
        return data

    def dispatcher_settings(self) -> dict[str, Any]:
        """Only what the researcher set, so blank fields fall back to the site settings."""
        data = self.cleaned_data
        settings: dict[str, Any] = {"model": data["model"]} if data.get("model") else {}
        if data.get("endpoint") and data["endpoint"] != endpoints.DEFAULT_ID:
            settings["endpoint"] = data["endpoint"]
        if data.get("temperature") is not None:
            settings["temperature"] = data["temperature"]
        prompt: dict[str, Any] = dict(held_to_legal_actions()["prompt"]) if data.get("constrained") else {}
        if data.get("hints", "").strip():
            prompt["own_hints"] = data["hints"].strip()
        if prompt:
            settings["prompt"] = prompt
        return settings


FAMILY = "family:"  # the value prefix of a choice that adds a whole generated family


def _scenario_choices() -> list[tuple[str, list[tuple[Any, str]]]]:
    """The current scenarios grouped by domain (one option group each)."""
    groups: dict[str, list[tuple[Any, str]]] = {}
    for s in Scenario.objects.current().order_by("domain", "title"):
        groups.setdefault(s.get_domain_display(), []).append((s.pk, f"{s.title} ({s.slug})"))
    return list(groups.items())


def _family_choices() -> list[tuple[str, str]]:
    """One option per generated family (games.generators): adds every instance at once."""
    counts: dict[tuple[str, str], int] = {}
    for slug, domain in Scenario.objects.current().filter(source="generated").values_list("slug", "domain"):
        family = family_of(slug)
        if family:
            counts[(family, domain)] = counts.get((family, domain), 0) + 1
    return [
        (f"{FAMILY}{family}", f"all {count} instances of generated/{family}-* ({domain})")
        for (family, domain), count in sorted(counts.items())
    ]


class ScenarioForm(forms.Form):
    scenario = forms.ChoiceField(choices=[])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        families = _family_choices()
        grouped = _scenario_choices()
        self.fields["scenario"].choices = ([("Generated families", families)] if families else []) + grouped  # type: ignore[attr-defined]

    def chosen(self) -> list[Scenario]:
        """The scenario chosen, or every current instance of the family chosen, in slug order."""
        value = self.cleaned_data["scenario"]
        if value.startswith(FAMILY):
            family = value.removeprefix(FAMILY)
            found = Scenario.objects.current().filter(source="generated", slug__startswith=f"generated/{family}-")
            return [s for s in found.order_by("slug") if family_of(s.slug) == family]
        return list(Scenario.objects.filter(pk=int(value)))


class OnboardingPageForm(forms.Form):
    kind = forms.ChoiceField(choices=PageKind.choices)
    title = forms.CharField(max_length=200)
    body = forms.CharField(required=False, max_length=PAGE_TEXT_MAX, widget=forms.Textarea(attrs={"rows": 4}))
    tutorial_scenario = forms.TypedChoiceField(coerce=int, choices=[], required=False, empty_value=None)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tutorial_scenario"].choices = [("", "(none)"), *_scenario_choices()]  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") == PageKind.TUTORIAL and not data.get("tutorial_scenario"):
            self.add_error("tutorial_scenario", "Choose the scenario the tutorial plays.")
        return data

    def tutorial(self) -> Scenario | None:
        pk = self.cleaned_data.get("tutorial_scenario")
        return Scenario.objects.get(pk=pk) if pk else None


class ItemForm(forms.Form):
    construct_label = forms.CharField(max_length=80, label="Construct", help_text="e.g. Trust")
    text = forms.CharField(max_length=300, label="Statement")
    reverse_scored = forms.BooleanField(required=False, label="Reverse-scored")
    needs_teammates = forms.BooleanField(
        required=False, label="About teammates", help_text="Not asked after a game played alone."
    )
    attention_answer = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=5,
        label="Attention check: required answer (1-5)",
        help_text="e.g. for “Please choose Agree for this statement” enter 4. Blank: a normal item.",
    )
