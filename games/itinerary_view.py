"""The itinerary board for a first-time player, drawn from ``observe(state).data`` alone (shape in
games/domains/itinerary/observe.py): departures from here after now, places with their hours
(open or closed now) and transfer minutes, the day so far, the verdict, and the menu of actions
that mean "now" as grouped buttons with what each one means in times and money.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from games.domains.itinerary.rules import GOALS_MET

_TRAIN = re.compile(r"^take train (\S+) to (.+)$")
_GO = re.compile(r"^go to (.+)$")
_VISIT = re.compile(r"^visit (.+) for (\d+) minutes$")
_WAIT = re.compile(r"^wait until (.+)$")


def _hhmm(text: str) -> str:
    return text[-5:]


def _minutes_of_day(text: str) -> int:
    hours, minutes = _hhmm(text).split(":")
    return int(hours) * 60 + int(minutes)


def _add(text: str, minutes: int) -> str:
    total = (_minutes_of_day(text) + minutes) % (24 * 60)
    return f"{total // 60:02d}:{total % 60:02d}"


def hours(place: Mapping[str, Any]) -> str:
    if place["opens"] == 0 and place["closes"] >= 24:
        return "always open"
    return f"{place['opens']:02d}:00–{place['closes']:02d}:00"


def places(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    now = _minutes_of_day(data["clock"]["text"])
    rows = []
    for place in data["places"]:
        is_open = place["opens"] * 60 <= now < place["closes"] * 60
        rows.append(
            {
                **place,
                "hours": hours(place),
                "open_now": is_open,
                "away": "you are here"
                if place["here"]
                else (f"{place['transfer_minutes']} min away" if place["transfer_minutes"] is not None else ""),
            }
        )
    return rows


def departures(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [t for t in data["trains"] if t["from_here"]]


def verdict(data: Mapping[str, Any]) -> dict[str, Any] | None:
    if not data.get("over"):
        return None
    return {"text": data["over"][:1].upper() + data["over"][1:] + ".", "ok": data["over"] == GOALS_MET}


def action_groups(actions: Sequence[str], data: Mapping[str, Any]) -> list[dict[str, Any]]:
    now = data["clock"]["text"]
    by_place = {p["name"]: p for p in data["places"]}
    trains = {t["number"]: t for t in data["trains"]}
    groups: dict[str, list[dict[str, Any]]] = {"Here": [], "Go to": [], "Trains from here": [], "Wait": []}
    for action in actions:
        label, group = action, "Wait"
        if match := _VISIT.match(action):
            minutes = int(match.group(2))
            label, group = f"Visit {match.group(1)} for {minutes} min (until {_add(now, minutes)})", "Here"
        elif match := _GO.match(action):
            place = by_place.get(match.group(1), {})
            minutes = place.get("transfer_minutes")
            label = f"Go to {match.group(1)}" + (f" ({minutes} min, arrive {_add(now, minutes)})" if minutes else "")
            group = "Go to"
        elif match := _TRAIN.match(action):
            train = trains.get(match.group(1))
            label = f"Train {match.group(1)} to {match.group(2)}"
            if train:
                label += f": {_hhmm(train['departure'])} → {_hhmm(train['arrival'])}, {train['price']:g}"
            group = "Trains from here"
        elif match := _WAIT.match(action):
            label = f"Wait here until {match.group(1)}"
        groups[group].append({"action": action, "label": label})
    return [{"title": title, "buttons": buttons} for title, buttons in groups.items() if buttons]


def board(data: Mapping[str, Any], actions: Sequence[str]) -> dict[str, Any]:
    return {
        "sights": places(data),
        "departures": departures(data),
        "verdict": verdict(data),
        "groups": action_groups(actions, data),
    }


class ItineraryPresenter:
    """The itinerary descriptor's board presenter (``games.presenters.presenter``)."""

    def board(self, data: Mapping[str, Any], names: Sequence[str], actions: Sequence[str]) -> dict[str, Any]:
        return board(data, actions) if data.get("clock") else {}


PRESENTER = ItineraryPresenter()
