"""The researchers' form for a new benchmark run (the same choices as ``manage.py benchmark``)."""

from __future__ import annotations

from typing import Any, cast

from django import forms

from games.agents import endpoints
from games.agents.dispatcher import BENCHMARK_AGENTS
from games.agents.factory import prompt_parts
from games.agents.tdag import DOMAIN as TDAG_DOMAIN
from games.domains.kitchen.rules import OPTIONS as KITCHEN_OPTIONS
from games.engine import registry
from games.npc import tasksets
from games.npc.tasksets import DEFAULT_ALPHAS

# The form's fields that only one kind of task set reads (its domain's ``benchmark_items``): the
# page comes with them shown only for the domain it is filled in for (``BenchmarkForm.shown``), and
# static/js/benchmark-form.js follows a change of domain.
KNOB_FIELDS: dict[Any, tuple[str, ...]] = {
    tasksets.tasks_items: ("tasks",),
    tasksets.recipes_items: ("constraints",),
    tasksets.kitchen_items: ("alphas", "team"),
}


def field_domains() -> dict[str, list[str]]:
    """Form field -> the domains whose task sets read it."""
    found: dict[str, list[str]] = {}
    for domain in registry.domains():
        builder = registry.descriptor(domain).part("benchmark_items")
        for name in KNOB_FIELDS.get(builder, ()):
            found.setdefault(name, []).append(domain)
    return found


# The most values one knob of the form lists (each multiplies the run's episodes).
MOST_VALUES = 20


def _numbers(text: str, kind: type, field: str, allowed: set[Any] | None = None) -> list[Any]:
    """The distinct values written, in the order written (a repeat would play every episode again)."""
    try:
        values = list(dict.fromkeys(kind(part) for part in text.replace(" ", "").split(",") if part))
    except ValueError:
        raise forms.ValidationError(f"{field}: write numbers separated by commas, like 1,2,3") from None
    if not values:
        raise forms.ValidationError(f"{field}: give at least one value")
    if len(values) > MOST_VALUES:
        raise forms.ValidationError(f"{field}: give at most {MOST_VALUES} different values")
    if allowed is not None and not set(values) <= allowed:
        raise forms.ValidationError(f"{field}: allowed values are {', '.join(map(str, sorted(allowed)))}")
    return values


AGENT_LABELS = {
    "react": "react (LLM: ReAct)",
    "plan-and-solve": "plan-and-solve (LLM)",
    "dispatcher": "dispatcher (LLM: MindAgent's central dispatcher)",
    "tdag": "tdag (LLM: TDAG's agent)",
    "planner": "planner (no LLM: the domain's planner)",
    "random": "random (no LLM: a random legal action)",
}


class BenchmarkForm(forms.Form):
    domain = forms.ChoiceField()
    agent = forms.ChoiceField(
        # "dispatcher" read as the studio's heuristic dispatcher, and a run meant to need no model
        # started 15 episodes on the local LLM: each choice says whether it calls a model
        choices=[(a, AGENT_LABELS.get(a, a)) for a in BENCHMARK_AGENTS],
        help_text="The LLM agents call the model set below; planner and random need none.",
    )
    scenarios = forms.CharField(
        required=False,
        max_length=2000,
        help_text="Slugs or patterns separated by spaces, e.g. bundled/* or timearena/cooking*",
    )
    tasks = forms.CharField(
        initial="1",
        required=False,
        help_text="tasks: how many of the chosen scenarios one episode plays at once (TimeArena's #Task: 1, 2 or 3; "
        "a generated instance counts as one, whatever tasks it holds), e.g. 1,2,3",
    )
    constraints = forms.MultipleChoiceField(
        choices=[("with", "with time constraints"), ("without", "without")],
        initial=["with", "without"],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="recipes only",
    )
    alphas = forms.CharField(
        initial=",".join(f"{a:g}" for a in DEFAULT_ALPHAS), required=False, help_text="kitchen: α values"
    )
    team = forms.CharField(initial="2", required=False, help_text="kitchen: team sizes, e.g. 1,2,3,4")
    limit = forms.IntegerField(
        min_value=1,
        max_value=5000,
        required=False,
        help_text="Play at most this many items of the task set, each as many times as Repeats (an item is one "
        "scenario in one setting: a recipe pair with and without time constraints is two items)",
    )
    max_turns = forms.IntegerField(min_value=1, max_value=5000, initial=400)
    endpoint = forms.ChoiceField(choices=[], required=False, label="LLM endpoint")
    model = forms.CharField(required=False, help_text="A model the endpoint allows (blank: its default)")
    hints = forms.BooleanField(
        required=False, initial=True, help_text="The game's hints in the prompt (react, plan-and-solve, dispatcher)"
    )
    demo = forms.BooleanField(
        required=False,
        initial=True,
        label="One-shot demonstration",
        help_text="An example turn in the prompt (the dispatcher's; the papers' other agents have none)",
    )
    log_calls = forms.BooleanField(required=False, label="Store every prompt and reply")
    repeats = forms.IntegerField(
        min_value=1,
        max_value=20,
        initial=1,
        required=False,
        help_text="Play every episode this many times (confidence intervals, pass^k)",
    )
    cache = forms.BooleanField(
        required=False,
        initial=True,
        label="Reuse stored replies",
        help_text="A request made before (same model, prompt, settings, seed, attempt) is answered from the database",
    )
    label = forms.CharField(required=False, max_length=200)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["domain"]).choices = [(d, d) for d in registry.domains()]
        cast(forms.ChoiceField, self.fields["endpoint"]).choices = endpoints.choices()
        domain, agent = self._chosen("domain"), self._chosen("agent")
        for name, domains in field_domains().items():
            self.fields[name].domains = " ".join(domains)  # type: ignore[attr-defined]
            # "Tasks:" (tasks only) stood in the form of every domain until a script hid it
            self.fields[name].shown = domain in domains  # type: ignore[attr-defined]
        self.fields["agent"].widget.attrs["data-option-domains"] = f'{{"tdag": "{TDAG_DOMAIN}"}}'
        for part in ("hints", "demo"):  # shown for the agents whose prompts have that part
            agents = [a for a in BENCHMARK_AGENTS if part in prompt_parts(a)]
            self.fields[part].agents = " ".join(agents)  # type: ignore[attr-defined]
            self.fields[part].shown = agent in agents  # type: ignore[attr-defined]

    def _chosen(self, name: str) -> str:
        """The domain or agent the page is filled in for: as sent, as linked, else the first choice."""
        listed = cast(list[tuple[Any, Any]], cast(forms.ChoiceField, self.fields[name]).choices)
        choices = [str(value) for value, _label in listed]
        value = str(self.data.get(name) if self.is_bound else self.initial.get(name) or "")
        return value if value in choices else (choices[0] if choices else "")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if self.errors:
            return data
        try:
            endpoints.check({"endpoint": data.get("endpoint"), "model": data.get("model")})
        except endpoints.EndpointError as error:
            self.add_error("model", str(error))
        data["task_counts"] = _numbers(data.get("tasks") or "1", int, "#Task", {1, 2, 3})
        data["alpha_values"] = _numbers(data.get("alphas") or "1", float, "α")
        for alpha in data["alpha_values"]:
            try:
                KITCHEN_OPTIONS["alpha"]("alpha", alpha)  # the rules' own check, before any episode runs
            except ValueError as error:
                raise forms.ValidationError(f"α: {error}") from None
        data["team_sizes"] = _numbers(data.get("team") or "2", int, "team sizes", {1, 2, 3, 4})
        if data["agent"] == "tdag" and data["domain"] != TDAG_DOMAIN:
            self.add_error("agent", f"TDAG plans itineraries: choose the {TDAG_DOMAIN} domain or another agent")
        if registry.descriptor(data["domain"]).constraint_variants and not data.get("constraints"):
            self.add_error("constraints", "tick at least one: with or without time constraints")
        return data
