"""Template context for the game pages and the live fragments the websocket pushes to browsers.

One function builds it for both, so the first page render and every live update show the same
thing. Everything a fragment shows comes from the viewer's state message (``games.viewer``) and
the committed log.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone

from games import glossary, metrics, timeline
from games.codec import format_time
from games.engine import durations, registry
from games.engine.domain import resolve
from games.models import ClockMode, Game, GameEvent, SeatKind
from games.npc import optimality
from games.seatnames import SeatInfo, cannot_read_chat, seat_names
from games.services.seats import MISSING_SINCE, backfill_wait
from games.viewer import Update, Viewer, event_message

LOG_LENGTH = 150
# what a player reads in the message list: what the rules said, chat, and pauses/ends (the raw
# action and clock inputs are for replays)
LOG_CATEGORIES = ("engine", "chat", "control")
SHORTCUT_KEYS = "123456789"


def board_template(domain: str) -> str:
    """The domain's board (its descriptor's ``board_template``), or the generic one."""
    return registry.descriptor(domain).board_template or "games/boards/_generic.html"


def seat_infos(game: Game) -> list[SeatInfo]:
    """The game's seats in agent order (from ``prefetch_related("seats__user")`` where the caller
    fetched them with its page of games, else one query)."""
    if "seats" in getattr(game, "_prefetched_objects_cache", {}):
        return [seat.info for seat in sorted(game.seats.all(), key=lambda seat: seat.agent)]
    return [seat.info for seat in game.seats.select_related("user").order_by("agent")]


def names_for(game: Game, viewer_agents: list[int] | tuple[int, ...] = (), *, blind: bool = False) -> list[str]:
    """The seats' names as the viewer reads them ("You", "Teammate 1 (planner NPC)"); ``blind`` (a
    study participant, ``Viewer.blind``) leaves out what plays each seat ("Teammate 1")."""
    return seat_names(seat_infos(game), viewer_agents, blind=blind)


UNIT_TEXT: dict[str, timeline.TimeText] = {
    "second": durations.short_clock,
    "step": lambda value: f"step {int(value)}",
    "minute": lambda value: f"minute {timeline.plain_time(value)}",
}


def time_text(domain: str) -> timeline.TimeText:
    """How the domain's game time reads on the timeline's tooltips (by its rules' time unit)."""
    unit = registry.get(domain).time_unit
    return UNIT_TEXT.get(unit, lambda value: f"t={timeline.plain_time(value)}")


def presenter(domain: str) -> Any:
    """The domain's board presenter (descriptor ``extra["presenter"]``, "module:attribute"), or None.

    It may give ``board(data, names, actions) -> dict`` (the board template's ``board``),
    ``describe(data) -> Describe`` (timeline labels), ``time_text(data) -> TimeText``,
    ``tick_text(data) -> TimeText`` and ``span_of(data) -> SpanOf`` (timeline times),
    ``kind_words`` (what a bar's kind means in its tooltip), ``legend`` (the kinds of bar the domain
    draws, in words), ``abbreviate(data) -> Abbreviate`` (the short label a narrow bar shows),
    ``log_lines(entries, names, board)``,
    ``rewrites_log(entries) -> bool`` (an update's entries change how the lines shown before them
    read, so the live page gets the log whole) and ``feedback(message, viewer_agent) -> str`` (a
    refusal in people's words)."""
    path = registry.descriptor(domain).extra.get("presenter")
    return resolve(path) if path else None


def board_extras(domain: str, data: dict[str, Any], names: list[str], actions: list[str]) -> dict[str, Any]:
    """What a domain's board needs beyond the observation (kitchen: names, floor plan, recipe book)."""
    own = presenter(domain)
    return own.board(data, names, actions) if own is not None and hasattr(own, "board") else {}


def describe_for(domain: str, data: dict[str, Any]) -> timeline.Describe:
    own = presenter(domain)
    return own.describe(data) if own is not None and hasattr(own, "describe") else timeline.default_label


def timeline_texts(domain: str, data: dict[str, Any]) -> dict[str, Any]:
    """The words of a domain's timeline (``timeline.build``'s keywords): action labels, times, and
    where the presenter gives them, whole actions' own spans and what each kind of bar means."""
    own = presenter(domain)
    texts: dict[str, Any] = {"describe": describe_for(domain, data), "time_text": time_text(domain)}
    if own is not None and hasattr(own, "time_text"):
        texts["time_text"] = own.time_text(data)
    if own is not None and hasattr(own, "tick_text"):
        texts["tick_text"] = own.tick_text(data)
    if own is not None and hasattr(own, "span_of"):
        texts["span_of"] = own.span_of(data)
        texts["is_wait"] = registry.descriptor(domain).is_wait  # an itinerary's stay: a wait with its city
    if own is not None and getattr(own, "gaps_are_waits", False):
        texts["gaps_are_waits"] = True
        if hasattr(own, "gap_label"):
            texts["gap_label"] = own.gap_label(data)
    if own is not None and hasattr(own, "kind_words"):
        texts["kind_words"] = own.kind_words
    if own is not None and hasattr(own, "abbreviate"):
        texts["abbreviate"] = own.abbreviate(data)
    if own is not None and hasattr(own, "legend"):
        texts["legend"] = own.legend
    return texts


def log_for(domain: str, entries: list[dict[str, Any]], names: list[str], board: dict[str, Any]) -> list[dict]:
    entries = said_once(without_reloads(entries))
    own = presenter(domain)
    if own is None or not hasattr(own, "log_lines"):
        return entries
    return own.log_lines(entries, names, board)


GAME_OVER = "the game is over"


def in_peoples_words(domain: str, message: str, viewer: int | None, data: Mapping[str, Any] | None = None) -> str:
    """A rules' message (a refusal, the outcome) as the page writes it: the presenter's
    ``feedback`` ("Pan 1", "it ends at 10:28", "Tomato Soup"); programs keep the rules' own words.
    ``data``: the viewer's observation data, for what the words name (a recipe's title)."""
    own = presenter(domain) if domain else None
    return own.feedback(message, viewer, data) if own is not None and hasattr(own, "feedback") else message


def without_reloads(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log without a pause for an absence nothing happened in (a reload, a tab opened and
    closed): each visit added "the game is paused until the player returns / the game resumes",
    one line after the other at one moment. The exports keep them."""
    kept: list[dict[str, Any]] = []
    for entry in entries:
        before = kept[-1] if kept else None
        if (
            before is not None
            and entry.get("category") == "control"
            and entry.get("kind") == "resumed"
            and before.get("category") == "control"
            and before.get("kind") == "paused"
            and (before.get("data") or {}).get("reason") == "disconnect"
            and before.get("time") == entry.get("time")
        ):
            kept.pop()
            continue
        kept.append(entry)
    return kept


def said_once(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log without words it has just shown: an engine message one agent's line repeats at the
    same moment is left out (a failed recipe's "spoiled" and "finished" events carry the same
    sentence; two teammates who both "wait one minute" keep their lines), and the
    loop's "the game is over: <reason>" reads "the game is over" where the reason was just said.
    Chat is never left out: two people may write the same words."""
    kept: list[dict[str, Any]] = []
    said: set[tuple[Any, str]] = set()
    # the rules' last words, whatever their moment: a kitchen closes at its last step, the game
    # ends at the next
    last_words: list[str] = []
    moment = None
    for entry in entries:
        if entry.get("time") != moment:
            said, moment = set(), entry.get("time")
        message = str(entry.get("message", ""))
        if entry.get("category") == "control" and entry.get("kind") == "finished":
            reason = message.removeprefix(GAME_OVER + ": ")
            if reason != message and any(_says(earlier, reason) for earlier in last_words):
                entry = dict(entry, message=GAME_OVER)
        elif entry.get("category") == "engine":
            if (entry.get("agent"), message) in said:
                if entry.get("kind") == "rejected" and kept and kept[-1].get("message") == message:
                    # a refusal said again and again (keys pressed while busy): one line with a
                    # count, as the live page collapses it (after a reload it was one line without)
                    kept[-1] = dict(kept[-1], repeats=int(kept[-1].get("repeats", 1)) + 1)
                continue
            last_words = [*last_words[-2:], message]
        said.add((entry.get("agent"), message))
        kept.append(entry)
    return kept


def _says(message: str, reason: str) -> bool:
    """Whether ``message`` says ``reason`` ("The trip is over: every goal of the brief is met.",
    "... · kitchen closed after 60 steps: 0 orders completed" for "the kitchen closed after 60 steps")."""
    core = reason.strip().rstrip(".").casefold().removeprefix("the ")
    return bool(core) and core in message.casefold()


def backfill_at(game: Game, state: Mapping[str, Any]) -> str:
    """About when (ISO wall time) a computer teammate takes the seat of a player away from a game
    paused for them: their wait counts from when the scheduler first saw the seat empty, or, until
    it has, from the pause; "" otherwise. The player left behind read the same "if they are away
    60 s" for the whole minute (the lobby counts its time down)."""
    clock = state.get("clock") or {}
    if not (clock.get("paused") and clock.get("pause_reason") == "disconnect"):
        return ""
    paused_at = game.anchor_at.timestamp()
    due = [
        float(settings.get(MISSING_SINCE, paused_at)) + backfill_wait(settings["backfill"])
        for settings in game.seats.filter(kind=SeatKind.HUMAN).values_list("settings", flat=True)
        if isinstance(settings, dict) and isinstance(settings.get("backfill"), dict)
    ]
    if not due:
        return ""
    return datetime.fromtimestamp(min(due), tz=UTC).isoformat()


def backfill_after(game: Game, state: Mapping[str, Any]) -> float | None:
    """Seconds after which a computer teammate takes an absent player's seat, while a game is paused
    for that absence and its seats say so (a study's shared game); else None. The player left
    behind read only "paused until the player returns" and did not know help was 30 s away."""
    clock = state.get("clock") or {}
    if not (clock.get("paused") and clock.get("pause_reason") == "disconnect"):
        return None
    waits = [
        backfill_wait(settings["backfill"])
        for settings in game.seats.filter(kind=SeatKind.HUMAN).values_list("settings", flat=True)
        if isinstance(settings, dict) and isinstance(settings.get("backfill"), dict)
    ]
    return min(waits) if waits else None


def away_names(state: Mapping[str, Any], seats: Sequence[SeatInfo], labels: Sequence[str], game_id: int) -> str:
    """Whom a game paused for an absence waits for, when several people play it ("Teammate 1
    (amy)"); "" otherwise (the page says "the player")."""
    clock = state.get("clock") or {}
    humans = [s.agent for s in seats if s.kind == SeatKind.HUMAN]
    if not (clock.get("paused") and clock.get("pause_reason") == "disconnect") or len(humans) < 2:
        return ""
    from games import presence

    away = sorted(set(humans) - presence.connected_agents(game_id))
    return " and ".join(labels[a] for a in away if a < len(labels))


def start_gate(game: Game, labels: Sequence[str], agents: Sequence[int]) -> dict[str, Any] | None:
    """A game several people play, waiting for their Starts: whom it still waits for ("Teammate 1
    (amy)") and whether the viewer has pressed theirs; None otherwise (alone, Start starts it)."""
    if not game.waits_for_start:
        return None
    seats = list(game.seats.filter(kind=SeatKind.HUMAN).order_by("agent").values_list("agent", "ready_at"))
    if len(seats) < 2:
        return None
    unready = [agent for agent, at in seats if at is None]
    others = [labels[agent] for agent in unready if agent not in agents and agent < len(labels)]
    return {
        "others": " and ".join(others),
        "presses": "presses" if len(others) == 1 else "press",
        "me_ready": bool(agents) and all(agent not in unready for agent in agents),
    }


def live_context(update: Update, who: Viewer, *, full: bool, log_entries: list[dict] | None = None) -> dict[str, Any]:
    game, state = update.game, update.state
    observation = state["observation"]["data"]
    seats = seat_infos(game)
    labels = seat_names(seats, who.agents, blind=who.blind)
    # what the update is of, up to its own last entry: a teammate's entries committed while it is
    # rendered come with the next update (read now, they would be appended again then)
    upto = GameEvent.objects.filter(game=game, seq__lte=update.seq)
    entries = list(upto.filter(category="engine").order_by("seq"))
    limit = observation.get("time_limit") if isinstance(observation.get("time_limit"), int | float) else None
    gantt = timeline.build(
        entries,
        labels,
        now=float(state["time"]),
        limit=limit,
        finished=game.is_finished,
        ahead=timeline_ahead(game),
        **timeline_texts(game.domain, observation),
    )
    # a new line that changes how the lines before it read (a tasks wait that carries on a run of
    # waits) sends the log whole, as a full render writes it, instead of appending
    relog = not full and log_entries is None and _rewrites_log(game.domain, update.events)
    if (full or relog) and log_entries is None:
        recent = upto.filter(category__in=LOG_CATEGORIES).order_by("-seq")[:LOG_LENGTH]
        log_entries = [event_message(e, blind=who.blind) for e in reversed(list(recent))]
    log = reader_lines(log_entries if log_entries is not None else update.events, labels, who.agents)
    extras = board_extras(game.domain, observation, labels, state["legal_actions"])
    log = with_times(log_for(game.domain, log, labels, extras), log_time(game.domain, observation))
    deaf = cannot_read_chat(seats)
    return {
        "game": game,
        "backfill_after": backfill_after(game, state),
        "backfill_at": backfill_at(game, state),
        "away": away_names(state, seats, labels, game.pk),
        "gate": start_gate(game, labels, who.agents),
        "state": state,
        "data": observation,
        "viewer": who,
        "full": full,
        "relog": relog,
        "board_template": board_template(game.domain),
        "actions": action_buttons(state["legal_actions"]),
        "action_groups": keyed_groups(extras.get("groups"), real_time=game.clock == "real_time"),
        "board": extras,
        "legal": set(state["legal_actions"]),
        "timeline": gantt,
        "chart": progress_chart(
            game.progress_points,
            gantt.span,
            float(state["time"]),
            final=metrics.headline(game.domain, game.result) if game.is_finished and game.result else None,
            time_text=log_time(game.domain, observation),
        ),
        "log": log,
        "speed_text": speed_text(game.speed, state["time_unit"]),
        "scenario_count": len(game.scenario_ids or [1]),
        "has_npcs": any(seat.kind == SeatKind.NPC for seat in seats),
        # someone else reads the chat: a person in another seat (the placeholder said "a note for the log")
        "has_mates": any(seat.kind == SeatKind.HUMAN and seat.agent not in who.agents for seat in seats),
        "blind": who.blind,  # a study participant (who cannot start games of their own either)
        # which teammates ignore the chat would tell a blinded participant which are LLMs
        "deaf_teammates": []
        if who.blind
        else [labels[s.agent] for s in deaf if s.agent not in who.agents and s.agent < len(labels)],
        "labels": labels,
        "metrics": state["metrics"],
        "score": metrics.headline(game.domain, state["metrics"]),
        "score_text": metrics.headline_text(game.domain, state["metrics"], observation),
        "score_title": metrics.headline_title(game.domain),
        "finished": game.is_finished,
        "result_rows": metric_rows(game.result or {}, game.domain, said=game.outcome, blind=who.blind, names=labels)
        if game.is_finished
        else [],
        "outcome": in_peoples_words(game.domain, game.outcome, who.agent, observation) if game.outcome else "",
        "optimum": _optimum_shown(game),
        "clock_attrs": clock_attrs(state),
        "header_clock": header_clock(game.domain, observation, float(state["time"]), state["time_unit"]),
        "server_now": timezone.now().isoformat(),
    }


def _rewrites_log(domain: str, events: Sequence[dict[str, Any]]) -> bool:
    own = presenter(domain)
    if own is None or not hasattr(own, "rewrites_log"):
        return False
    return bool(own.rewrites_log([e for e in events if e["category"] in LOG_CATEGORIES]))


def _optimum_shown(game: Game) -> dict[str, Any] | None:
    """The finished game against its instance's certified optimum, unless it is a study's game whose
    design does not show that (``Study.show_optimum``: what participants see is the study's choice)."""
    found = optimality.for_game(game)
    if found is None:
        return None
    in_study = game.study_episode.values_list("participant__study__show_optimum", flat=True).first()
    return None if in_study is False else found


# The rules write to the agent who acted ("You started ..."): the words to write instead where the
# log shows that agent's event to someone else, after their name ("Teammate 1 started ...").
_THIRD_PERSON = [
    (re.compile(r"^You are doing "), "is doing "),
    (re.compile(r"^You started "), "started "),
    (re.compile(r"^You wait "), "waits "),
    (re.compile(r"^You are busy with "), "is busy with "),
    (re.compile(r" and you are free again "), " and is free again "),
    (re.compile(r"; act again once you are free\."), "."),
    (re.compile(r"\(keeps you busy\)"), "(keeps them busy)"),
]


# A message that starts with its verb follows the agent's name in the log: "You started ...", not
# "You Started ...".
_LEADING_VERB = re.compile(r"^(Started|Paused|Went|Stayed|Visited|Took|Waited) ")
# A finished action or step says what is complete ("fill kettle is complete: ...", "Step 1 of Bake
# is complete."); after the agent's name it reads "You finished fill kettle: ...", not "You fill
# kettle is complete".
_COMPLETE = re.compile(r"^(Step \d+ of .+?|[a-z][^:]*?) is complete(?=[:.])")


def as_read_by(entry: dict[str, Any], agents: Sequence[int], labels: Sequence[str] = ()) -> str:
    """The entry's message for a reader playing ``agents``, after the agent's name: another agent's
    event in the third person (the rules' own words stay for the agent who acted, and for the LLM
    prompts), a leading verb in lower case, what is complete as what the agent finished, and a
    seat's chat as its text alone, its "Teammate k" in the reader's names (``labels``)."""
    message = str(entry.get("message", ""))
    if entry.get("agent") is None:
        return message
    if entry.get("category") == "chat":
        # "agent 1: ..." / "<username>: ...": the log names the seat as the reader knows it
        # ("Teammate 1"), so the sender's stored name (an account's name too) is left out
        data = entry.get("data")
        text = data.get("text") if isinstance(data, dict) else None
        if not isinstance(text, str):
            text = message.split(": ", 1)[1] if ": " in message else message
        return _mates_as_read_by(text, entry["agent"], agents, labels)
    if entry["agent"] not in agents:
        for pattern, words in _THIRD_PERSON:
            message = pattern.sub(words, message)
    message = _COMPLETE.sub(lambda found: "finished " + found.group(1)[0].lower() + found.group(1)[1:], message)
    return _LEADING_VERB.sub(lambda found: found.group(0).lower(), message)


_TEAMMATE = re.compile(r"\b[Tt]eammate (\d+)\b")


def _mates_as_read_by(text: str, writer: int, agents: Sequence[int], labels: Sequence[str]) -> str:
    """A person's chat line for another reader: each seat numbers its teammates from its own place,
    so the writer's "Teammate 1" is another seat on the reader's page (with three people, the
    annotator's "Teammate 1, grab the lettuce" read as an order to the participant on the
    researcher's page). The numbers are the writer's; the names the reader's ("You" for the
    reader's own seat)."""
    if not labels or writer in agents or not 0 <= writer < len(labels):
        return text
    mates = [agent for agent in range(len(labels)) if agent != writer]

    def name(found: re.Match[str]) -> str:
        k = int(found.group(1))
        if not 1 <= k <= len(mates):
            return found.group(0)
        head = labels[mates[k - 1]].split(" (")[0]  # "Teammate 2", "You", "Player 3"
        if head.startswith("You"):
            before = text[: found.start()].rstrip()
            return "You" if not before or before.endswith((".", "!", "?")) else "you"
        return head

    return _TEAMMATE.sub(name, text)


def reader_lines(entries: Sequence[dict[str, Any]], labels: list[str], agents: Sequence[int]) -> list[dict[str, Any]]:
    """The log's entries as the player of ``agents`` reads them (the live page and the replay):
    each after its seat's name, in that reader's words, the name not repeated where the words
    begin with it ("You wait ...", not "You You wait ..."); the game's own lines name people as
    the page does."""
    lines = []
    for e in entries:
        if e["category"] not in LOG_CATEGORIES:
            continue
        line = dict(e, agent_label=_label(labels, e["agent"]), message=as_read_by(e, agents, labels))
        if e["category"] == "control":
            line["message"] = people_named(line["message"], labels)
            if e.get("kind") == "seat_replaced" and e["agent"] is not None:
                # after the seat's name it read as the teammate saying so ("Teammate 1 a computer
                # teammate takes over this seat")
                whose = _label(labels, e["agent"])
                seat = "your seat" if whose.startswith("You") else f"the seat of {whose}"
                line["message"], line["agent_label"] = f"a computer teammate takes over {seat}", ""
        lines.append(_unrepeated(line))
    return lines


_PLAYER = re.compile(r"\bPlayer (\d+)(?: (is|presses|returns|has)\b)?")
_YOUR_VERBS = {"is": "are", "presses": "press", "returns": "return", "has": "have"}


def people_named(message: str, labels: Sequence[str]) -> str:
    """The game's own lines ("Player 1 is ready; the clock starts when Player 2 presses Start",
    "paused until Player 2 returns") with the names the page gives the seats ("You are ready; ...
    when Teammate 1 (bob) presses Start"): the log said "Player 2" where the page said "Teammate 1"."""

    def name(found: re.Match[str]) -> str:
        agent = int(found.group(1)) - 1
        if not 0 <= agent < len(labels):
            return found.group(0)
        label, verb = labels[agent], found.group(2)
        if label.startswith("You"):
            label = label if found.start() == 0 else "you" + label[3:]
            return f"{label} {_YOUR_VERBS[verb]}" if verb else label
        return f"{label} {verb}" if verb else label

    return _PLAYER.sub(name, message)


def in_readers_words(entry: Mapping[str, Any]) -> bool:
    """An entry the rules wrote to its reader ("You are busy ..."): where the reader is the agent,
    the log shows it without the seat's name (``_unrepeated``), so a domain's log puts nothing
    before it (no "could not: ", which would then begin the line and name nobody)."""
    return str(entry.get("message", "")).startswith("You ")


def _unrepeated(entry: dict[str, Any]) -> dict[str, Any]:
    """No "You  You started ...": the name is left out where the message begins with it."""
    name = entry.get("agent_label", "").split(" (")[0]
    if name and str(entry.get("message", "")).startswith(name + " "):
        return dict(entry, agent_label="")
    return entry


def _label(labels: list[str], agent: int | None) -> str:
    if agent is None:
        return ""
    return labels[agent] if 0 <= agent < len(labels) else f"agent {agent}"


def header_clock(domain: str, data: Mapping[str, Any], time: float, unit: str) -> dict[str, str]:
    """The header's clock: ``text`` now, ``label`` before it, and the ``format`` the page's ticking
    clock writes it in (static/js/game.js), so both read as the board does: recipes' game seconds
    as m:ss (h:mm:ss from an hour), the kitchen's steps as whole steps, the itinerary's trip minutes
    as the traveller's clock (its presenter's ``header_clock``); other units as numbers. ``limit``:
    the game time the ticking clock stops at ("" for none)."""
    own = presenter(domain)
    if own is not None and hasattr(own, "header_clock"):
        clock: dict[str, str] = own.header_clock(data, time)
        return clock
    # where the ticking clock stops: the observation's time limit, if it has one
    limit = data.get("time_limit")
    stop = format_time(limit) if isinstance(limit, int | float) and not isinstance(limit, bool) else ""
    if unit == "second":
        shown, label, text = "clock", "t =", durations.short_clock(time)
    elif unit == "step":
        shown, label, text = "step", "step", str(int(time))
    else:
        shown, label, text = "", "t =", format_time(round(time, 1))
    return {"format": shown, "label": label, "text": text, "limit": stop}


def log_time(domain: str, data: Mapping[str, Any]) -> timeline.TimeText:
    """How the messages' times read: as the timeline's tooltips where the domain has its own clock
    (the itinerary's "09:10") or a unit that is not a plain number (m:ss, steps); else "t=3"."""
    own = presenter(domain)
    if own is not None and hasattr(own, "time_text"):
        text: timeline.TimeText = own.time_text(data)
        return text
    unit = registry.get(domain).time_unit
    return UNIT_TEXT[unit] if unit in ("second", "step") else (lambda value: f"t={timeline.plain_time(value)}")


def with_times(entries: list[dict[str, Any]], text: timeline.TimeText) -> list[dict[str, Any]]:
    """The log's entries, each with its ``time_text``."""
    return [dict(e, time_text=text(float(e["time"]))) for e in entries]


# A real-time page asks for a redraw when its clock runs past the timeline's end: the axis leaves
# this many seconds of the clock's run ahead (with 2 game units it asked several times a second at
# first, a recipe's clock running 20 game seconds a second). The score chart's axis ends at the
# redraw's now, so it lags by up to this much: a few seconds, not more.
REDRAW_AHEAD_SECONDS = 5.0


def timeline_ahead(game: Game) -> float:
    """Room ahead on a live timeline, in game units: what the clock covers in
    ``REDRAW_AHEAD_SECONDS`` (a lockstep clock moves only when someone acts: the default)."""
    return REDRAW_AHEAD_SECONDS * game.speed if game.clock == ClockMode.REAL_TIME else 2.0


def speed_text(speed: float, unit: str) -> str:
    if speed > 1:  # recipes' seconds: "20 game seconds per second", not "1 second every 0.05 s"
        return f"{speed:g} game {unit}s per second"
    seconds = 1.0 / speed if speed else 0.0
    return f"1 {unit} every {seconds:g} s"


def action_buttons(actions: list[str]) -> list[dict[str, Any]]:
    """The viewer's legal actions as buttons; the first nine get number keys, ``wait`` gets W and
    comes last, so the numbers read in order ("1, 2, W, 3" when a tasks game offered "wait until
    something finishes" after its wait)."""
    buttons = []
    numbered = 0
    for action in sorted(actions, key=lambda a: a == "wait"):  # stable: the others keep their order
        if action == "wait":
            key = "w"
        elif numbered < len(SHORTCUT_KEYS):
            key = SHORTCUT_KEYS[numbered]
            numbered += 1
        else:
            key = ""
        buttons.append({"action": action, "key": key, "vals": json.dumps({"type": "act", "action": action})})
    return buttons


def keyed_groups(groups: list[dict[str, Any]] | None, *, real_time: bool = False) -> list[dict[str, Any]]:
    """Grouped buttons with keys in reading order: 1-9 for the first nine shown (a folded group's
    are reached with the arrow keys once it is open; an ``unkeyed`` group's by Tab or a click), W for waiting (the
    domain's ``wait``/``noop`` action or the button its presenter marks ``wait``; one W at most).
    A real-time game leaves out the buttons marked ``lockstep_only`` (its clock runs by itself)."""
    if not groups:
        return []
    numbered = 0
    waiting = False
    out = []
    for group in groups:
        buttons = []
        for b in group["buttons"]:
            if real_time and b.get("lockstep_only"):
                continue
            if not waiting and (b["action"] in ("wait", "noop") or b.get("wait")):
                key = "w"
                waiting = True
            elif numbered < len(SHORTCUT_KEYS) and not group.get("collapsed") and not group.get("unkeyed"):
                # a key only for what is seen, and not for what a stray key must not do (a pause)
                key = SHORTCUT_KEYS[numbered]
                numbered += 1
            else:
                key = ""
            buttons.append(dict(b, key=key, vals=b.get("vals") or json.dumps({"type": "act", "action": b["action"]})))
        if buttons:
            out.append(dict(group, buttons=buttons))
    return out


def clock_attrs(state: dict[str, Any]) -> dict[str, Any]:
    clock = state["clock"]
    return {
        "mode": clock["mode"],
        "speed": clock["speed"],
        "anchor_time": clock["anchor_time"],
        "anchor_at": clock["anchor_at"],
        "paused": "true" if clock["paused"] or state["status"] == "finished" else "false",
        "unit": state["time_unit"],
    }


def progress_chart(
    points: list[list[float]],
    span: float,
    now: float,
    *,
    final: float | None = None,
    time_text: timeline.TimeText | None = None,
) -> dict[str, Any]:
    """An SVG polyline (viewBox 0..100 x 0..100) of the headline score over game time.

    The x axis covers every point (a score reached at a time past ``now`` is drawn, not cut off);
    ``final``, a finished game's stored headline, is where the line ends (the result panel's
    number), whatever the points say, and the axis says "final" where it said "now". ``time_text``
    writes the axis's two ends (``start``, ``end``) as the log does ("07:00", "14:09"; "t=0" without it)."""
    points = [[float(t), float(value)] for t, value in points]
    if final is not None and (not points or points[-1][1] != final):
        points.append([max(now, points[-1][0]) if points else now, float(final)])
    span = float(math.ceil(max(span, now, 1.0, *(t for t, _ in points))))  # the axis ends on a whole unit
    coords = []
    last = 0.0
    for t, value in points:
        coords.append((100.0 * t / span, 100.0 - min(max(value, 0.0), 100.0)))
        last = value
    if coords:  # the last score holds until now (never drawn back to before its own time)
        coords.append((max(100.0 * min(now, span) / span, coords[-1][0]), 100.0 - min(max(last, 0.0), 100.0)))
    # a step line: the score holds until it changes
    path = []
    for i, (x, y) in enumerate(coords):
        if i:
            path.append(f"{x:.2f},{coords[i - 1][1]:.2f}")
        path.append(f"{x:.2f},{y:.2f}")
    write = time_text or (lambda value: f"t={timeline.plain_time(value)}")
    return {
        "points": " ".join(path),
        "last": last,
        "span": span,
        "empty": not points,
        "over": final is not None,
        "start": write(0.0),
        "end": write(span),
    }


@dataclass(frozen=True)
class CountTable:
    """A result row that is a small table (a kitchen's commands by cook: cook, accepted, refused,
    idle), which the result panel draws as one; in text, one part per row ("You: accepted 57, ...")."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str | int, ...], ...]

    def __str__(self) -> str:
        return " · ".join(
            f"{row[0]}: " + ", ".join(f"{c} {v}" for c, v in zip(self.columns[1:], row[1:], strict=True))
            for row in self.rows
        )


def metric_rows(
    result: dict[str, Any],
    domain: str = "",
    *,
    said: str = "",
    blind: bool = False,
    running: bool = False,
    names: Sequence[str] = (),
) -> list[tuple[str, str | CountTable, str]]:
    """The domain's metrics for people: numbers and words as they are, counts without the zeros;
    per-agent lists and schedules are left to the timeline. ``said``: the outcome the panel has
    already written, so the row of why the game ended is not shown twice; ``blind`` (a study
    participant): without the game's settings (``glossary.SETTINGS``); ``running``: the game goes
    on, so rows that speak of its end are named as ``glossary.WHILE_RUNNING`` says. With the seats'
    ``names``, a per-agent list of counts reads one part per seat ("You: valid 4 · Teammate 1 (LLM
    NPC): valid 3 · invalid 2"): the counts of a game played together mixed everyone's; a domain
    whose presenter has ``result_table`` gives such a list as a ``CountTable`` instead."""
    rows: list[tuple[str, str | CountTable, str]] = []
    own = presenter(domain) if domain else None
    own_text = getattr(own, "result_text", None)
    own_table = getattr(own, "result_table", None)
    hidden_by = getattr(own, "result_hidden", None)
    hidden: set[str] = hidden_by(result) if hidden_by is not None else set()
    for key, value in result.items():
        table = own_table(key, result, names) if isinstance(value, list) and len(names) > 1 and own_table else None
        if table is not None:
            rows.append((glossary.label(key, domain), CountTable(*table), glossary.explain(key, domain)))
            continue
        if isinstance(value, list) and (text := _per_seat(value, names)):
            rows.append((glossary.label(key, domain), text, glossary.explain(key, domain)))
            continue
        if isinstance(value, list) or key in hidden or (blind and f"{domain}:{key}" in glossary.SETTINGS):
            continue
        if f"{domain}:{key}" in glossary.WHY_ENDED and (value in ("", None, False) or _repeats(str(value), said)):
            continue  # a game still running has no reason yet; one the panel has written is not repeated
        if own_text is not None and (text := own_text(key, value)) is not None:
            pass  # the domain writes this one in its own words
        elif isinstance(value, dict):
            if not all(isinstance(v, int | float | str | bool | None) for v in value.values()):
                continue
            text = " · ".join(_counted(value)) or "none"
        elif key.endswith("_rate") and isinstance(value, int | float) and not isinstance(value, bool):
            text = f"{100 * value:.0f} %"
        elif f"{domain}:{key}" in glossary.WHY_ENDED and isinstance(value, str):
            text = in_peoples_words(domain, value, None)  # "at 1:27:47", as the game page says it
        else:
            text = _value(value)
        name, meaning = glossary.label(key, domain), glossary.explain(key, domain)
        if running and (while_running := glossary.WHILE_RUNNING.get(f"{domain}:{key}")):
            name, meaning = while_running
        rows.append((name, text, meaning))
    return rows


def _per_seat(value: list[Any], names: Sequence[str]) -> str:
    """Counts per agent in words, one part per seat, when the list is one flat dict per seat of a
    game of several; "" otherwise (schedules and the like are the timeline's)."""
    if len(names) < 2 or len(value) != len(names):
        return ""
    if not all(isinstance(v, dict) and all(isinstance(n, int | float) for n in v.values()) for v in value):
        return ""
    parts = []
    for name, counts in zip(names, value, strict=True):
        # "agent": the seat's index, which its name says already ("Teammate 1 (planner NPC): agent 1")
        parts.append(f"{name}: {', '.join(_counted(counts, skip='agent')) or 'none'}")
    return " · ".join(parts)


def _counted(counts: Mapping[str, Any], *, skip: str = "") -> list[str]:
    """A count's parts in words ("valid 4", "necessary wait 1"), without the zeros (and ``skip``)."""
    shown = {k: v for k, v in counts.items() if v not in (0, None, "", False) and k != skip}
    return [f"{k.replace('_', ' ')} {_value(v)}" for k, v in shown.items()]


def _repeats(text: str, said: str) -> bool:
    """Whether ``text`` says what ``said`` did (the outcome is stored cut to 200 characters)."""
    text, said = text.strip().rstrip(".").casefold(), said.strip().rstrip(".").casefold()
    return bool(text and said) and (text.startswith(said) or said.startswith(text))


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return str(value)
