"""The Gantt timeline of a game (and of a plan) from its log: one row per agent, one bar per action,
overlapping bars of one agent in sub-rows (lanes).

Read from the engine's ``started``/``completed``/``waited``/``rejected`` events. The domains say
different things, and every form is drawn:

- ``started`` with ``start``/``end`` and ``background`` (tasks) or ``autonomous`` (recipes): a bar
  that its ``completed`` event closes; without a known end it runs until now;
- ``completed`` with no open bar: an action that took its time as a whole. Kitchen commands name
  their ``step`` (one step each; an activated tool cooks on by itself until ``ready_at``); itinerary
  legs and visits run from the agent's previous end to the event's time;
- ``waited``: a wait from ``from`` (else the event) to ``until`` (else one unit later).

A finished game has no running bars: whatever was still open ends when the game ended.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

TIMELINE_KINDS = ("started", "completed", "paused", "waited", "rejected")
# how a domain names one action from its event details (kitchen: readable place names)
Describe = Callable[[dict[str, Any]], str]
TimeText = Callable[[float], str]
# when a whole action ran, where its event's details say so (an itinerary leg names its times)
SpanOf = Callable[[dict[str, Any]], tuple[float, float] | None]
# a bar's label as a bar too narrow for it shows it ("" keeps the label)
Abbreviate = Callable[[str], str]
# what a tooltip adds after the times, per kind of bar
KIND_WORDS: dict[str, str] = {"background": " (runs by itself)", "wait": "", "occupying": " (keeps the agent busy)"}
# The legend under a timeline: each kind of bar a domain draws, in words; a presenter's ``legend``
# replaces it (an itinerary has nothing that runs by itself)
LEGEND: tuple[tuple[str, str], ...] = (
    ("occupying", "keeps the agent busy"),
    ("background", "runs by itself"),
    ("wait", "wait"),
)


def first_word(label: str) -> str:
    """A narrow bar's label where actions begin with their verb ("Walk" for "Walk to Storage",
    "pour" for "pour kettle into teapot"): better than "W…" or "pour k…"."""
    words = label.split(maxsplit=1)
    return words[0] if len(words) > 1 else ""


def label_fit(label: str) -> int:
    """How many characters a bar must hold for ``label`` (12, 16, 20, 24, 30 or 40): the page's
    style sheet shows a bar's short label (``tl-fit-N``) when it is narrower than that."""
    return next((most for most in (12, 16, 20, 24, 30) if len(label) <= most), 40)


def least_fit(label: str, short: str = "") -> int:
    """How many characters the shortest text a bar can show has, when that is few (6 or 8), else 0:
    the style sheet hides a bar's text (``tl-least-N``) rather than cut "Serve" to "Se…"."""
    least = len(short or label)
    return next((most for most in (6, 8) if 4 < least <= most), 0)


@dataclass
class Bar:
    label: str
    start: float
    end: float | None
    kind: str  # occupying, background, wait
    done: bool = False
    tip: str = ""
    short: str = ""  # what a bar too narrow for its label shows ("BB 1" for "Banana Bread step 1")

    @property
    def fit(self) -> int:
        return label_fit(self.label)

    @property
    def least(self) -> int:
        return least_fit(self.label, self.short)

    def width(self, now: float) -> float:
        return max(0.0, (self.end if self.end is not None else now) - self.start)


@dataclass
class Row:
    agent: int
    label: str
    bars: list[Bar] = field(default_factory=list)
    rejections: list[tuple[float, str]] = field(default_factory=list)
    lanes: list[list[Bar]] = field(default_factory=list)
    cursor: float = 0.0  # where this agent's last whole action ended (itinerary legs start there)


@dataclass
class Timeline:
    rows: list[Row]
    span: float
    now: float
    tick_text: TimeText | None = None  # how the axis reads (the itinerary's clock); None: numbers
    legend: tuple[tuple[str, str], ...] = LEGEND

    def percent(self, value: float) -> float:
        return round(100.0 * min(max(value, 0.0), self.span) / self.span, 3) if self.span else 0.0

    @property
    def ticks(self) -> list[float]:
        # clock labels ("07:30") are wider than numbers: fewer of them, or they run together
        step = _tick_step(self.span, most=8 if self.tick_text else 12)
        return [i * step for i in range(int(self.span // step) + 1)]

    @property
    def tick_labels(self) -> list[tuple[float, str]]:
        text = self.tick_text or (lambda value: f"{value:g}")
        return [(t, text(t)) for t in self.ticks]

    @property
    def empty(self) -> bool:
        return not any(row.bars or row.rejections for row in self.rows)


def default_label(details: dict[str, Any]) -> str:
    """The action an event's details name: ``action``, a kitchen ``command``, or a recipe step."""
    if details.get("action"):
        return str(details["action"])
    if details.get("command"):
        return str(details["command"])
    if "recipe" in details and "step" in details:
        return f"{details['recipe']} step {details['step']}"  # numbered as on the board
    return "action"


def plain_time(value: float) -> str:
    """A game time as people write it: "2", "7.5", "3.25"; a chat line sent at 2.004 reads "2" as
    the events of minute 2 do (it read "t=2.00" beside them)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")


def build(
    entries: Iterable[Any],
    agent_labels: Sequence[str],
    *,
    now: float,
    limit: float | None = None,
    finished: bool = False,
    ahead: float = 2.0,
    describe: Describe = default_label,
    time_text: TimeText = plain_time,
    span_of: SpanOf | None = None,
    is_wait: Callable[[str], bool] | None = None,
    gaps_are_waits: bool = False,
    gap_label: Callable[[dict[str, Any]], str] | None = None,
    kind_words: dict[str, str] | None = None,
    tick_text: TimeText | None = None,
    abbreviate: Abbreviate | None = None,
    legend: tuple[tuple[str, str], ...] = LEGEND,
) -> Timeline:
    """``entries``: GameEvent rows (or objects with category/kind/agent/time/data) in seq order.

    ``describe`` names an action in people's words, ``time_text`` writes a time for the tooltips,
    ``span_of`` gives a whole action's own start and end when its details hold them (drawn as a
    wait, under its own label, when ``is_wait`` says its action only lets time pass; with
    ``gaps_are_waits`` the time before it since the agent's last action is a wait too: a traveller
    who takes the 06:50 train at 00:01 waits for it, a kitchen agent who let steps pass without a
    command waited them; ``gap_label`` names such a wait from the details of the action before it,
    "In Stonegate"), and
    ``ahead`` is the least room the axis leaves after now while the game runs,
    ``kind_words`` replaces what a tooltip says about each kind of bar (``KIND_WORDS``),
    ``tick_text`` writes the axis (numbers when None), ``abbreviate`` gives each bar the short
    label a narrow bar shows instead of its cut-off label and ``legend`` names the kinds of bar."""
    rows = [Row(agent=i, label=label) for i, label in enumerate(agent_labels)]
    open_bars: dict[tuple[int, str], Bar] = {}
    last_whole: dict[int, dict[str, Any]] = {}  # each agent's last whole action's details

    def gap(row: Row, until: float) -> None:
        before = last_whole.get(row.agent)
        _wait(row, row.cursor, until, gap_label(before) if gap_label and before is not None else "wait")

    latest = now
    solo = len(rows) == 1  # events nobody caused (an itinerary's wait) belong to the only agent

    def row_of(agent: int | None) -> Row | None:
        if agent is None:
            if not solo:
                return None
            agent = 0
        if agent >= len(rows):
            rows.extend(Row(agent=i, label=f"Agent {i + 1}") for i in range(len(rows), agent + 1))
        return rows[agent]

    for entry in entries:
        if entry.category != "engine" or entry.kind not in TIMELINE_KINDS:
            continue
        row = row_of(entry.agent)
        if row is None:
            continue
        details = dict(entry.data.get("details", {}) or {})
        label = describe(details)
        key = (row.agent, _identity(details, label))
        if entry.kind == "started":
            start = float(details.get("start", entry.time))
            end = details.get("end")
            background = details.get("background") or details.get("autonomous")
            bar = Bar(
                label, start, float(end) if end is not None else None, "background" if background else "occupying"
            )
            row.bars.append(bar)
            open_bars[key] = bar
            latest = max(latest, bar.end or start)
        elif entry.kind == "completed":
            closing: Bar | None = open_bars.pop(key, None)
            if closing is not None:
                closing.done = True
                if closing.end is None:
                    closing.end = float(details.get("end", entry.time))
                continue
            own = span_of(details) if span_of else None
            if own is not None:
                if gaps_are_waits and own[0] > row.cursor:
                    gap(row, own[0])
                waits = is_wait is not None and is_wait(str(details.get("action", "")))
                whole = [Bar(label, own[0], max(own), "wait" if waits else "occupying", done=True)]
            else:
                whole = _whole_action(details, label, float(entry.time), row.cursor)
                if gaps_are_waits and whole and whole[0].start > row.cursor:
                    gap(row, whole[0].start)  # a kitchen step let pass without a command
            for bar in whole:
                row.bars.append(bar)
                latest = max(latest, bar.end or bar.start)
            row.cursor = max(row.cursor, float(entry.time), *(b.end or 0.0 for b in whole if b.kind != "background"))
            last_whole[row.agent] = details
        elif entry.kind == "paused":  # a recipe step stopped before its end: its bar ends here
            stopped: Bar | None = open_bars.pop(key, None)
            if stopped is not None:
                stopped.done = True
                stopped.end = float(entry.time)
        elif entry.kind == "waited":
            start = float(details.get("from", entry.time))
            until = float(details.get("until", entry.time + 1 if start == entry.time else entry.time))
            _wait(row, start, until)
            row.cursor = max(row.cursor, until)
        elif entry.kind == "rejected":
            row.rejections.append((float(entry.time), entry.data.get("message", "")))
    if finished:
        for row in rows:
            if gaps_are_waits and row.cursor < now:
                gap(row, now)  # the steps after an agent's last command, up to the game's end
            for bar in row.bars:
                # every bar ends by the game's end: one it cut short, and one that would have been
                # ready later (a kitchen's mixer started at the last step ran the axis to "step 62"
                # of a game over at 60)
                bar.done = True
                bar.end = min(bar.end, now) if bar.end is not None else now
    # the span follows the game (a little room ahead) rather than the time limit, so short actions
    # stay readable early on; ``limit`` caps it. A running clock that passes the span asks for a
    # redraw, so ``ahead`` (game units) is what a real-time game's clock covers in a while.
    span = max(latest, 1.0) * 1.1 + max(ahead, 2.0)
    if finished:  # nothing more comes: the axis ends where the game did
        span = latest = max([now, 1.0] + [b.end for row in rows for b in row.bars if b.end is not None])
    if limit:
        span = min(span, float(limit))
    for row in rows:
        _tip_and_lanes(row, now, time_text, kind_words)
        if abbreviate is not None:
            for bar in row.bars:
                bar.short = abbreviate(bar.label)
    return Timeline(rows=rows, span=max(span, latest, 1.0), now=now, tick_text=tick_text, legend=legend)


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _identity(details: dict[str, Any], label: str) -> str:
    # a recipe step is the same step whatever the event says about it
    if "recipe" in details and "step" in details:
        return f"{details['recipe']}#{details['step']}"
    return label


def _wait(row: Row, start: float, until: float, label: str = "wait") -> None:
    """A wait bar from ``start`` to ``until``; one wait read in several pieces (a real-time clock)
    is one bar."""
    last = row.bars[-1] if row.bars else None
    if last is not None and last.kind == "wait" and last.label == label and last.end == start:
        last.end = max(until, start)
    else:
        row.bars.append(Bar(label, start, max(until, start), "wait", done=True))


def _whole_action(details: dict[str, Any], label: str, time: float, cursor: float) -> list[Bar]:
    if "step" in details and "command" in details:  # a kitchen command: one step
        step = float(details["step"])
        command = str(details["command"])
        kind = "wait" if command.startswith("noop") else "occupying"
        bars = [Bar(label, step, step + 1, kind, done=True)]
        ready = details.get("ready_at")
        if ready is not None and float(ready) > step + 1:
            product = _CAMEL.sub(" ", str(details.get("product", ""))).lower()  # friedEgg -> fried egg
            bars.append(
                Bar(f"{product} cooking" if product else "cooking", step, float(ready), "background", done=True)
            )
        return bars
    start = min(cursor, time)
    return [Bar(label, start, max(time, start), "occupying", done=True)]


def _tip_and_lanes(row: Row, now: float, time_text: TimeText, kind_words: dict[str, str] | None = None) -> None:
    """Tooltips (action, start, end) and sub-rows: a bar goes to the first lane free at its start."""
    ends: list[float] = []
    for bar in sorted(row.bars, key=lambda b: (b.start, b.kind != "occupying")):
        end_text = time_text(bar.end) if bar.end is not None else "now"
        how = {**KIND_WORDS, **(kind_words or {})}.get(bar.kind, "")
        bar.tip = f"{bar.label}: {time_text(bar.start)}–{end_text}{how}"
        stop = bar.end if bar.end is not None else float("inf")
        stop = max(stop, bar.start + 1e-9)
        for index, free_at in enumerate(ends):
            if free_at <= bar.start + 1e-9:
                ends[index] = stop
                row.lanes[index].append(bar)
                break
        else:
            ends.append(stop)
            row.lanes.append([bar])
    if not row.lanes:
        row.lanes.append([])


def from_plan(
    steps: Iterable[dict[str, Any]], agent_labels: Sequence[str], *, time_text: TimeText = plain_time
) -> Timeline:
    """A planner's schedule ``[{"agent", "action", "start", "end", "background"}]`` as a timeline."""
    rows = [Row(agent=i, label=label) for i, label in enumerate(agent_labels)]
    latest = 1.0
    for step in steps:
        agent = int(step.get("agent", 0))
        while agent >= len(rows):
            rows.append(Row(agent=len(rows), label=f"Agent {len(rows) + 1}"))
        kind = "background" if step.get("background") else "occupying"
        bar = Bar(label=str(step["action"]), start=float(step["start"]), end=float(step["end"]), kind=kind, done=True)
        rows[agent].bars.append(bar)
        latest = max(latest, bar.end or 0.0)
    for row in rows:
        _tip_and_lanes(row, latest, time_text)
    return Timeline(rows=rows, span=latest, now=latest)


def _tick_step(span: float, most: int = 12) -> float:
    """The first round step that puts at most ``most`` ticks on the axis."""
    for step in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600):
        if span / step <= most:
            return float(step)
    return float(int(span / (most - 2)) or 1)
