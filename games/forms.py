"""The researcher's "new game" form: a scenario (or several tasks at once), a seat plan, a clock."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX

from games import selectors, speeds
from games.agents.llm_dispatcher import held_to_legal_actions
from games.engine import registry
from games.engine.options import SEED_MAX
from games.models import ClockMode, DisconnectPolicy, Seat

SEAT_CHOICES = [
    ("", "— empty —"),
    ("human", "Human (a signed-in player)"),
    ("npc:llm", "NPC: LLM dispatcher"),
    ("npc:planner", "NPC: planner"),
    ("npc:random", "NPC: random (baseline)"),
    ("npc:replay", "NPC: replay of a stored game"),
]
EXTRA_SEATS = 4
MAX_PACE_FACTOR = 10  # a chosen pace may run at most this many times faster than the scenario's own


class GameForm(forms.Form):
    scenario = forms.ChoiceField(help_text="What to play.")
    also = forms.MultipleChoiceField(
        required=False,
        label="Play together with",
        help_text="More tasks played at once (tasks only).",  # the template adds how a keyboard picks several
    )
    player = forms.ChoiceField(label="Player 1 (human)", help_text="Who plays the first seat.")
    clock = forms.ChoiceField(choices=ClockMode.choices, initial=ClockMode.REAL_TIME)
    seconds_per_unit = forms.FloatField(
        label="Seconds per game minute (or second, or step)",
        required=False,
        min_value=0.001,
        max_value=600,
        help_text=(
            "Real time only; leave blank for the scenario's own pace, set so a bundled scenario lasts "
            "2-6 real minutes (tasks and recipes: from the scenario's length, e.g. a minute every 5-15 s "
            "or 8-40 recipe seconds per second; kitchen: a step every 2 s; trips: a minute per second)."
        ),
    )
    disconnect_policy = forms.ChoiceField(choices=DisconnectPolicy.choices, initial=DisconnectPolicy.PAUSE)
    seed = forms.IntegerField(initial=0, min_value=0, max_value=SEED_MAX)
    llm_constrained = forms.BooleanField(
        required=False,
        initial=True,
        label="Hold LLM teammates' replies to legal actions",
        help_text="The endpoint may only write one legal action per teammate (JSON-constrained decoding, as a "
        "study condition can ask): a small model such as the bundled SmolLM2 then always acts, where its free "
        "answers seldom name an action. Untick for free answers, as the papers' agents give.",
    )

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        current = list(selectors.current_scenarios())
        self.domains = {s.slug: s.domain for s in current}
        self.definitions = {s.slug: s.definition for s in current}
        # a kitchen written for several cooks: the form says so (a newcomer played its warm-up alone)
        self.crews = {
            slug: crew
            for slug, definition in self.definitions.items()
            if self.domains[slug] == "kitchen" and isinstance(crew := definition.get("agents"), int) and crew > 1
        }
        scenarios = [(s.slug, f"{s.domain} · {s.title} ({s.slug})") for s in current]
        self._choices("scenario").choices = scenarios
        # only a domain that combines scenarios plays several at once ("play together with": tasks)
        self.combinable = registry.having("combine")
        self._choices("also").choices = [c for c in scenarios if self.domains[c[0]] in self.combinable]
        # finished games to copy a seat from (the service checks the creator may watch the one picked)
        self.replay_sources = [
            (g.pk, f"#{g.pk} · {g.scenario.slug} · {g.created_at:%Y-%m-%d %H:%M}")
            for g in selectors.all_games(status="finished")[:200]
        ]
        # People who can sign in to take their seat: a study's login-less participation accounts
        # (one per participation, thousands in a running study) are left out.
        users = (
            get_user_model()
            .objects.filter(is_active=True)
            .exclude(password__startswith=UNUSABLE_PASSWORD_PREFIX)
            .order_by("username")
        )
        players = [(u.get_username(), u.get_username()) for u in users]
        self._choices("player").choices = players
        if user is not None:
            self.fields["player"].initial = user.get_username()
        # seats are numbered from 1 here, as the game pages name them ("Player 2"); the form's
        # field names keep the seat index (seat1 is the second seat, agent 1)
        for i in range(1, EXTRA_SEATS + 1):
            name = f"Player {i + 1}"
            self.fields[f"seat{i}"] = forms.ChoiceField(choices=SEAT_CHOICES, required=False, label=name)
            self.fields[f"seat{i}_user"] = forms.ChoiceField(
                choices=[("", "—"), *players], required=False, label=f"{name}: who plays"
            )
            self.fields[f"seat{i}_game"] = forms.TypedChoiceField(
                choices=[("", "—"), *self.replay_sources], coerce=int, required=False, label=f"{name} replays game"
            )
            self.fields[f"seat{i}_agent"] = forms.IntegerField(
                required=False,
                min_value=1,
                max_value=EXTRA_SEATS + 1,
                initial=1,
                label=f"{name} replays that game's player",
            )

    def _choices(self, name: str) -> forms.ChoiceField:
        return cast(forms.ChoiceField, self.fields[name])

    def seat_fields(self) -> list[tuple[Any, Any, Any, Any]]:
        return [
            (self[f"seat{i}"], self[f"seat{i}_user"], self[f"seat{i}_game"], self[f"seat{i}_agent"])
            for i in range(1, EXTRA_SEATS + 1)
        ]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        scenario = data.get("scenario")
        if data.get("also") and scenario and self.domains.get(scenario) not in self.combinable:
            together = ", ".join(self.combinable)
            self.add_error("also", f"Only {together} scenarios are played several at once; clear this list.")
        if scenario in self.domains and data.get("seconds_per_unit") and data.get("clock") == ClockMode.REAL_TIME:
            self._check_pace(scenario, data["seconds_per_unit"])
        return data

    def _check_pace(self, scenario: str, seconds: float) -> None:
        """A pace far faster than the scenario's own is over before anyone can act (a tasks game at
        0.001 s per minute ended in a tenth of a second): at most ``MAX_PACE_FACTOR`` times it."""
        domain = self.domains[scenario]
        options = registry.descriptor(domain).extra.get("game_options", {})
        own = 1.0 / speeds.default_speed(domain, self.definitions[scenario], options)
        floor = own / MAX_PACE_FACTOR
        if seconds < floor * 0.999:
            unit = registry.get(domain).time_unit
            self.add_error(
                "seconds_per_unit",
                f"Too fast to play: this scenario's own pace is {own:g} s per game {unit}, and a game may run "
                f"at most {MAX_PACE_FACTOR} times faster ({floor:.3g} s or more per {unit}). "
                "Leave it blank for its own pace.",
            )

    def seat_plan(self) -> list[dict[str, Any]]:
        data = self.cleaned_data
        plan: list[dict[str, Any]] = [{"kind": "human", "user": data["player"]}]
        for i in range(1, EXTRA_SEATS + 1):
            choice = data.get(f"seat{i}") or ""
            if not choice:
                continue
            if choice == "human":
                if not data.get(f"seat{i}_user"):
                    self.add_error(f"seat{i}_user", "Pick who plays this human seat.")
                    continue
                plan.append({"kind": "human", "user": data[f"seat{i}_user"]})
            elif choice == "npc:replay":
                if not data.get(f"seat{i}_game"):
                    self.add_error(f"seat{i}_game", "Name the game whose seat this NPC replays.")
                    continue
                player = data.get(f"seat{i}_agent") or 1  # as the source game's pages number its players
                players = Seat.objects.filter(game_id=data[f"seat{i}_game"]).count()
                if player > players:
                    # a player the game never had: the seat would replay nothing and stand still
                    self.add_error(f"seat{i}_agent", f"Game #{data[f'seat{i}_game']} had {players} player(s).")
                    continue
                source = {"source_game": data[f"seat{i}_game"], "source_agent": player - 1}
                plan.append({"kind": "npc", "dispatcher": "replay", "settings": source})
            elif choice == "npc:llm" and data.get("llm_constrained"):
                plan.append({"kind": "npc", "dispatcher": "llm", "settings": held_to_legal_actions()})
            else:
                plan.append({"kind": "npc", "dispatcher": choice.split(":", 1)[1]})
        return plan

    def scenarios(self) -> list[str]:
        also = [slug for slug in self.cleaned_data.get("also", []) if slug != self.cleaned_data["scenario"]]
        return [self.cleaned_data["scenario"], *also]
