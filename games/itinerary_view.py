"""The itinerary board for a first-time player, drawn from ``observe(state).data`` alone (shape in
games/domains/itinerary/observe.py): departures from here after now, places with their hours
(open or closed now) and transfer minutes, the day so far, the verdict, and the menu of actions
that mean "now" as grouped buttons with what each one means in times and money.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from games.domains.itinerary.actions import ActionSyntaxError, parse_action
from games.domains.itinerary.rules import GOALS_MET
from games.timeline import first_word

_STAMP = "%Y-%m-%d %H:%M"
_TRAVELLER_WAITED = "The traveller waited"  # the rules' words for the clock's waits (games/domains/itinerary/rules.py)

_TRAIN = re.compile(r"^take train (\S+) to (.+)$")
_GO = re.compile(r"^go to (.+)$")
_VISIT = re.compile(r"^visit (.+) for (\d+) minutes$")
_VISIT_UNTIL = re.compile(r"^visit (.+) until (.+)$")
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


def trip_minute(data: Mapping[str, Any], stamp: str) -> int | None:
    """``YYYY-MM-DD HH:MM`` as minutes from the trip's start (the game's time), or None."""
    begin = _begin(data)
    try:
        return int((datetime.strptime(stamp, _STAMP) - begin).total_seconds() // 60) if begin else None
    except ValueError:
        return None


def departures(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The trains from here, each with ``departs`` (its trip minute: the page hides it once gone) and
    its times as the page's clock reads them (``departure_text``: "day 2, 08:30", not "2024-05-03 08:30")."""
    clock = clock_text(data)

    def read(stamp: str) -> str:
        minute = trip_minute(data, stamp)
        return clock(minute) if minute is not None else stamp

    return [
        dict(
            t,
            departs=trip_minute(data, t["departure"]),
            departure_text=read(t["departure"]),
            arrival_text=read(t["arrival"]),
        )
        for t in data["trains"]
        if t["from_here"]
    ]


def verdict(data: Mapping[str, Any]) -> dict[str, Any] | None:
    if not data.get("over"):
        return None
    return {"text": data["over"][:1].upper() + data["over"][1:] + ".", "ok": data["over"] == GOALS_MET}


def action_groups(actions: Sequence[str], data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The menu as grouped buttons. In real time the clock runs on between two states, so a button
    whose words hold a time of day says how it follows the clock: its label in ``parts`` (before,
    that time, after), the time ``after`` minutes from now (the page's clock moves it on), and
    ``gone_at``, the trip minute from which the action no longer fits (the train has left, the
    visit would run past closing or into a meal, the rest hours or the trip's end, the walk would
    run into the rest hours or a meal, the moment waited for has come): the page takes the button away
    then, as the server would refuse it."""
    now = data["clock"]["text"]
    minute = int(data["clock"]["minute"])
    by_place = {p["name"]: p for p in data["places"]}
    trains = {t["number"]: t for t in data["trains"]}
    when = _day_reader(data)
    days = {  # the wait after which a stay counts one more of the days the brief wants in this city
        g["next_day_at"]: f" ({g['subject']}: day {g['done'] + 1} of {g['required']})"
        for g in data.get("goals", ())
        if g.get("next_day_at") is not None
    }
    groups: dict[str, list[dict[str, Any]]] = {"Here": [], "Go to": [], "Trains from here": [], "Wait": []}
    for action in actions:
        button: dict[str, Any] = {"action": action, "label": action}
        group = "Wait"
        if match := _VISIT.match(action):
            minutes = int(match.group(2))
            place = by_place.get(match.group(1), {})
            button.update(_timed(f"Visit {match.group(1)} for {minutes} min (until ", now, minutes, ")"))
            if place.get("visit_until") is not None:  # closing, a meal, the rest hours or the trip's end
                button["gone_at"] = place["visit_until"] - minutes + 1
            group = "Here"
        elif match := _VISIT_UNTIL.match(action):
            place = by_place.get(match.group(1), {})
            until = place.get("visit_until")
            button["label"] = f"Visit {match.group(1)} until {match.group(2) if until is None else when(until)}"
            if until is not None:
                button["gone_at"] = until
            group = "Here"
        elif match := _GO.match(action):
            place = by_place.get(match.group(1), {})
            minutes = place.get("transfer_minutes")
            if minutes:
                button.update(_timed(f"Go to {match.group(1)} ({minutes} min, arrive ", now, minutes, ")"))
            else:
                button["label"] = f"Go to {match.group(1)}"
            if place.get("transfer_until") is not None:
                button["gone_at"] = place["transfer_until"] + 1  # the rest hours, a meal or the trip's end
            group = "Go to"
        elif match := _TRAIN.match(action):
            train = trains.get(match.group(1))
            label = f"Train {match.group(1)} to {match.group(2)}"
            if train:
                leaves, arrives = when(train["departure"]), when(train["arrival"], train["departure"])
                label += f": {leaves} → {arrives}, {train['price']:g} CNY"
                left = (data.get("wallet") or {}).get("left")
                if left is not None and train["price"] > left:  # taken unwarned, it failed the budget check
                    label += f" (over your budget: {max(left, 0):g} CNY left)"
                departs = trip_minute(data, train["departure"])
                if departs is not None:
                    button["gone_at"] = departs + 1
            button["label"] = label
            group = "Trains from here"
        elif match := _WAIT.match(action):
            target = match.group(1).strip()
            until = trip_minute(data, target) if len(target) > 5 else minute + _wait_minutes(action, now)
            button["label"] = f"Wait here until {target if until is None else when(until)}{days.get(until, '')}"
            button["gone_at"] = until
        groups[group].append(button)
    if groups["Wait"]:  # the soonest wait first: it is the one W does
        groups["Wait"].sort(key=lambda b: _wait_minutes(b["action"], now))
        groups["Wait"][0]["wait"] = True
    return [{"title": title, "buttons": buttons} for title, buttons in groups.items() if buttons]


def _day_reader(data: Mapping[str, Any]) -> Callable[..., str]:
    """``when(stamp, since=now)``: a ``YYYY-MM-DD HH:MM`` (or a trip minute) as the page's clock reads it, the time of
    day alone on the day of ``since`` (the traveller's now by default), else with its day ("day 2,
    07:35"): a button for tomorrow's 07:35 train must not read as today's."""
    clock = clock_text(data)
    begin = _begin(data)
    now = int(data["clock"]["minute"])

    def day_of(minute: int) -> Any:
        return (begin + timedelta(minutes=minute)).date() if begin else None

    def when(stamp: str | int, since: str | None = None) -> str:
        minute = trip_minute(data, stamp) if isinstance(stamp, str) else stamp
        if minute is None:
            return str(stamp)
        start = now if since is None else trip_minute(data, since)
        if start is not None and day_of(minute) == day_of(start):
            return clock(minute)[-5:]
        return clock(minute)

    return when


def _timed(before: str, now: str, minutes: int, after: str) -> dict[str, Any]:
    """A label that names the time of day ``minutes`` from now, in three parts for the page."""
    at = _add(now, minutes)
    return {"label": f"{before}{at}{after}", "parts": (before, at, after), "after": minutes}


def _wait_minutes(action: str, now: str) -> int:
    match = _WAIT.match(action)
    if not match or not re.fullmatch(r"\d{1,2}:\d{2}", match.group(1).strip()):
        return 24 * 60
    return (_minutes_of_day(match.group(1).strip()) - _minutes_of_day(now)) % (24 * 60)


def time_left(minutes: int) -> str:
    """Minutes as a traveller reads them: "45 min", "16 h 57 min", "5 days 15 h" (``game.js``'s
    ``leftText`` writes the same as the clock runs)."""
    if minutes < 60:
        return f"{minutes} min"
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days > 1 else ''} {hours} h" if hours else f"{days} day{'s' if days > 1 else ''}"
    return f"{hours} h {mins} min" if mins else f"{hours} h"


def trip_end(data: Mapping[str, Any]) -> int:
    """The trip minute at which the trip ends (where the page's clock stops counting)."""
    return int(data["clock"]["minute"]) + int(data["clock"]["minutes_left"])


def day_so_far(plan: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The trip's legs, visits and stays, a wait read in pieces as one (a traveller who reads while
    the real-time clock runs waits an hour, or to a sight's opening, at a time)."""
    day: list[Mapping[str, Any]] = []
    for leg in plan:
        last = day[-1] if day else None
        if (
            last is not None
            and leg["kind"] == last["kind"] == "stay"
            and leg["implicit"]
            and last["implicit"]
            and leg["place"] == last["place"]
            and leg["start"] == last["end"]
        ):
            day[-1] = dict(last, end=leg["end"], end_text=leg["end_text"])
        else:
            day.append(leg)
    return day


def goal_chips(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The brief's goals as the page's chips: "Fish Market Hall: 20 of 60 min", "Stonegate: 0 of 2
    days (the next counts at day 2, 09:25)", "back in Harbourton"."""
    clock = clock_text(data)
    chips = []
    for goal in data.get("goals", ()):
        if goal["check"] == "spot_minutes":
            text = f"{goal['subject']}: {goal['done']} of {goal['required']} min"
        elif goal["check"] == "city_days":
            plural = "" if goal["required"] == 1 else "s"
            text = f"{goal['subject']}: {goal['done']} of {goal['required']} day{plural}"
            if goal.get("next_day_at") is not None:
                text += f" (the next counts at {clock(goal['next_day_at'])})"
        else:
            text = f"back in {goal['subject']}"
        chips.append({"text": text, "met": goal["met"]})
    return chips


def spans(legs: Sequence[Mapping[str, Any]], data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each leg with ``span``, its times as the page's clock reads them: "07:00–07:02" on a one-day
    trip; on a longer one with the day where it starts and wherever it changes ("day 1, 06:50–09:25",
    "day 1, 10:24 – day 2, 07:00")."""
    clock = clock_text(data)
    return [{**leg, "span": span_text(clock, leg["start"], leg["end"])} for leg in legs]


def span_text(clock: Callable[[float], str], start: float, end: float) -> str:
    """From ``start`` to ``end`` (trip minutes) on ``clock``, the day written once where both share it."""
    first, last = clock(start), clock(end)
    return f"{first}–{last[-5:]}" if first[:-5] == last[:-5] else f"{first} – {last}"


def board(data: Mapping[str, Any], actions: Sequence[str]) -> dict[str, Any]:
    return {
        "goals": goal_chips(data),
        "several_days": _days(data) > 0,
        "day": spans(day_so_far(data.get("plan", ())), data),
        "clock": clock_text(data),
        # the Clock card reads as the header and the timetable do ("day 2, 09:10"), its date beneath
        "now_text": clock_text(data)(int(data["clock"]["minute"])),
        "ends_at": trip_end(data),
        "left": time_left(int(data["clock"]["minutes_left"])),
        "sights": places(data),
        # a brief that does not keep opening hours showed its places "closed now" in red
        "hours_kept": bool((data.get("brief") or {}).get("check_opening_hours", True)),
        "departures": departures(data),
        "verdict": verdict(data),
        "groups": action_groups(actions, data),
    }


def where_after(action: str) -> str:
    """Where a timed action leaves the traveller ("" when its text does not say)."""
    try:
        parsed = parse_action(action)
    except ActionSyntaxError:
        return ""
    return str(parsed.args[1] if parsed.verb in ("go_to_city", "go_to_place") else parsed.args[0])


def staying_label(where: str) -> str:
    """The time between two actions, spent where the first left the traveller ("In Stonegate")."""
    return f"In {where}" if where else "wait"


def leg_label(action: str) -> str:
    """A timed action in plain words: "Train G123 Harbourton → Westford", "Visit Maritime Museum"."""
    if action == "(waited)":
        return "Wait"
    try:
        parsed = parse_action(action)
    except ActionSyntaxError:
        return action
    args = parsed.args
    if parsed.verb == "go_to_city":
        return f"Train {args[4]} {args[0]} → {args[1]}"
    if parsed.verb == "go_to_place":
        return f"Go to {args[1]}"
    if parsed.verb == "visit":
        return f"Visit {args[0]}"
    return f"Stay in {args[0]}"


def short_label(label: str) -> str:
    """A bar too narrow for its leg: a train reads where it goes ("→ Stonegate", not "Trai…"), the
    time between two actions where it is spent ("Stonegate", as the studio's preview has it, not
    "In"), anything else its verb ("Visit", "Stay")."""
    if label.startswith("Train ") and " → " in label:
        return "→ " + label.rsplit(" → ", 1)[1]
    if label.startswith("In "):
        return label.removeprefix("In ")
    return first_word(label)


_STAMPED = re.compile(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}\b")


def _begin(data: Mapping[str, Any]) -> datetime | None:
    try:
        return datetime.strptime(str(data["clock"]["begin"]), _STAMP)
    except (KeyError, TypeError, ValueError):
        return None


def _days(data: Mapping[str, Any]) -> int:
    """How many days the trip runs past its first (0: a one-day trip, one that ends at midnight too)."""
    begin = _begin(data)
    try:
        last = datetime.strptime(str(data["clock"]["end"]), _STAMP) - timedelta(minutes=1)
    except (KeyError, TypeError, ValueError):
        return 0
    return (last.date() - begin.date()).days if begin else 0


@dataclass(frozen=True)
class TripClock:
    """Trip minutes as the clock reads them: "09:10", with the day on a trip of several days
    ("day 2, 09:10"; ``short``, for the timeline's axis: "d2 09:10"). A value, not a closure: the
    timeline that keeps it is cached (pickled) with the replay's planned episode."""

    begin: datetime | None
    days: int = 0
    short: bool = False

    def __call__(self, value: float) -> str:
        if self.begin is None:
            return f"minute {value:g}"
        moment = self.begin + timedelta(minutes=value)
        day = (moment.date() - self.begin.date()).days + 1
        if not self.days:
            return f"{moment:%H:%M}"
        return f"d{day} {moment:%H:%M}" if self.short else f"day {day}, {moment:%H:%M}"


def clock_text(data: Mapping[str, Any], *, short: bool = False) -> Callable[[float], str]:
    """The trip's clock (``TripClock``) for the observation ``data``."""
    begin = _begin(data)
    return TripClock(begin, _days(data) if begin else 0, short)


def span_of(data: Mapping[str, Any]) -> Callable[[dict[str, Any]], tuple[float, float] | None]:
    """A leg's or visit's own start and end (trip minutes), read from its timed action."""
    begin = _begin(data)

    def span(details: dict[str, Any]) -> tuple[float, float] | None:
        try:
            parsed = parse_action(str(details.get("action", "")))
        except ActionSyntaxError:
            return None
        times = parsed.args[2:4] if parsed.verb in ("go_to_city", "go_to_place") else parsed.args[1:3]
        try:
            start, end = (datetime.strptime(t, _STAMP) for t in times)
        except ValueError:
            return None
        if begin is None:
            return None
        return (start - begin).total_seconds() / 60, (end - begin).total_seconds() / 60

    return span


def _reading(entry: Mapping[str, Any], following: Mapping[str, Any] | None) -> bool:
    """Whether ``entry`` is the wait a real-time clock wrote as a player acted: an engine "waited"
    whose next log line is the player's action, the action's own entry (not in the log) between
    them. A wait the clock wrote by itself (a sight opening) is written apart and stays."""
    return (
        following is not None
        and entry.get("category") == following.get("category") == "engine"
        and entry.get("kind") == "waited"
        and following.get("agent") is not None
        and isinstance(entry.get("seq"), int)
        and following.get("seq") == entry["seq"] + 2
    )


def _details(entry: Mapping[str, Any]) -> Any:
    data = entry.get("data")
    return data.get("details") if isinstance(data, Mapping) else None


def _carried_on(entry: Mapping[str, Any], following: Mapping[str, Any] | None) -> bool:
    """Whether ``entry`` is a wait the next log line carries on (the clock woke a traveller who
    only read, once per sight opening or hour): the run reads as its last line, "waited in
    Harbourton until 10:00", not one line per wake."""
    if following is None:
        return False
    data, then = _details(entry), _details(following)
    return (
        entry.get("category") == following.get("category") == "engine"
        and entry.get("kind") == following.get("kind") == "waited"
        and isinstance(data, Mapping)
        and isinstance(then, Mapping)
        and data.get("until") is not None
        and then.get("from") == data.get("until")
    )


def _without[E: Mapping[str, Any]](entries: Sequence[E], unwanted: Callable[[E, E | None], bool]) -> list[E]:
    """``entries`` less those ``unwanted(entry, the entry after it)`` picks out."""
    return [e for i, e in enumerate(entries) if not unwanted(e, entries[i + 1] if i + 1 < len(entries) else None)]


class ItineraryPresenter:
    """The itinerary descriptor's board presenter (``games.presenters.presenter``)."""

    # the traveller does one thing at a time: a bar's times say all
    kind_words = {"occupying": "", "wait": ""}
    legend = (("occupying", "travelling or visiting"), ("wait", "staying or waiting"))
    # the clock jumps to each action's end: time before the next one (a train's departure) is a wait
    gaps_are_waits = True

    def board(self, data: Mapping[str, Any], names: Sequence[str], actions: Sequence[str]) -> dict[str, Any]:
        return board(data, actions) if data.get("clock") else {}

    def describe(self, data: Mapping[str, Any]) -> Callable[[dict[str, Any]], str]:
        return lambda details: leg_label(str(details.get("action", "")))

    def gap_label(self, data: Mapping[str, Any]) -> Callable[[dict[str, Any]], str]:
        """A gap's wait is named where the action before it left the traveller, as the studio's plan
        preview names it ("In Stonegate")."""
        return lambda details: staying_label(where_after(str(details.get("action", ""))))

    def time_text(self, data: Mapping[str, Any]) -> Callable[[float], str]:
        return clock_text(data)

    def abbreviate(self, data: Mapping[str, Any]) -> Callable[[str], str]:
        return short_label

    def tick_text(self, data: Mapping[str, Any]) -> Callable[[float], str]:
        return clock_text(data, short=True)

    def header_clock(self, data: Mapping[str, Any], time: float) -> dict[str, str]:
        """The traveller's clock ("09:10", "day 2, 09:10"), ticking from the trip's start."""
        clock = TripClock(_begin(data), _days(data))
        if clock.begin is None:
            return {"format": "", "label": "minute", "text": f"{time:g}"}
        return {
            "format": "trip",
            "label": "",
            "text": clock(int(time)),
            "begin": str(data["clock"]["begin"]),
            "days": "1" if clock.days else "0",
            "limit": str(trip_end(data)),  # the page's clock stops at the trip's end, as the traveller's does
        }

    def span_of(self, data: Mapping[str, Any]) -> Callable[[dict[str, Any]], tuple[float, float] | None]:
        return span_of(data)

    def result_text(self, key: str, value: Any) -> str | None:
        """The result's objective in words ("time: 0 min; full efficiency points at 270 min or
        less, none at 540 or more"); None: the generic row."""
        if key != "objective" or not isinstance(value, Mapping):
            return None
        amount = value.get("value")
        low, high = value.get("min"), value.get("max")
        if not isinstance(amount, int | float) or not isinstance(low, int | float) or not isinstance(high, int | float):
            return None
        if value.get("unit") == "minute":  # "8340 min" of a six-day trip: "5 days 19 h"
            said = [time_left(round(n)) for n in (amount, low, high)]
        else:
            unit = str(value.get("unit", ""))
            said = [f"{amount:g} {unit}", f"{low:g} {unit}", f"{high:g}"]
        return (
            f"{value.get('quantity', '')}: {said[0]}; full efficiency points at {said[1]} or less, "
            f"none at {said[2]} or more"
        )

    def rewrites_log(self, entries: Sequence[Mapping[str, Any]]) -> bool:
        """Whether an update's ``entries`` change how the log shown so far reads: a wait the clock
        wrote by itself may carry on the wait above it (``_carried_on``), so the live page then
        receives the log whole (a wait written as the player acted is left out at once)."""
        return any(
            e.get("category") == "engine" and e.get("kind") == "waited" and not _reading(e, following)
            for e, following in itertools.zip_longest(entries, entries[1:])
        )

    def log_lines(self, entries: Sequence[dict[str, Any]], names: Sequence[str], board: Mapping[str, Any]) -> list:
        """The rules' messages with their times as the page's clock reads them ("until 08:00",
        not "until 2024-05-02 08:00"), without the wait that is only the time a player read before
        an action (the action's line follows at once; the day so far and the timeline show it), and
        with a run of waits one after another as its last line."""
        entries = _without(_without(entries, _reading), _carried_on)
        if names:  # the clock's waits are the traveller's, named as the reader knows them ("You waited")
            traveller = names[0].split(" (")[0]
            entries = [
                dict(e, message=str(e.get("message", "")).replace(_TRAVELLER_WAITED, f"{traveller} waited", 1))
                if e.get("kind") == "waited"
                else e
                for e in entries
            ]
        clock = board.get("clock")
        if not isinstance(clock, TripClock) or clock.begin is None:
            return list(entries)
        begin = clock.begin

        def read(match: re.Match[str]) -> str:
            moment = datetime.strptime(match.group(0), _STAMP)
            return clock((moment - begin).total_seconds() / 60)

        return [dict(e, message=_STAMPED.sub(read, str(e.get("message", "")))) for e in entries]


PRESENTER = ItineraryPresenter()
