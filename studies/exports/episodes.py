"""Export tables about play: episodes with their metrics, game event logs, NPC model calls."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import Count, TextField
from django.db.models.functions import Cast

from games.engine import registry
from studies import teammate_calls
from studies.exports.base import CHUNK, Column, Options, iso, participants_of, players_by_game
from studies.exports.writers import RawJSON
from studies.measures import objective_measures
from studies.models import Episode, Study
from studies.selectors import against_optimum, has_certified_scenarios, with_seat_counts
from studies.services.lobby import wait_seconds


def _study_domains(study: Study) -> list[str]:
    return sorted(set(study.study_scenarios.values_list("scenario__domain", flat=True)))


def _objective_columns(study: Study) -> list[tuple[str, Any]]:
    columns = []
    for domain in _study_domains(study):
        for measure in objective_measures(domain):
            columns.append((f"{domain}_{measure.key}", measure))
    return columns


def episode_columns(study: Study) -> list[Column]:
    columns = [
        Column("participant", "Anonymous participant code."),
        Column("episode", "Position of the episode in the participant's order, from 1."),
        Column("condition", "Condition name."),
        Column("npc_kind", "Teammates in this condition: none, llm, random or planner."),
        Column("npc_count", "Number of NPC teammates."),
        Column("domain", f"Game domain, one of {', '.join(registry.domains())}."),
        Column("scenario", "Scenario slug."),
        Column("scenario_version", "Scenario version played."),
        Column("status", "pending, playing, survey (game over, questionnaire open) or done."),
        Column("game_id", "Id of the game (links to the events table)."),
        Column("started_at", "Game start (ISO 8601, UTC)."),
        Column("played_at", "Game end (ISO 8601, UTC)."),
        Column("surveyed_at", "Questionnaire submitted (ISO 8601, UTC)."),
        Column("seat", "The participant's agent number in the game (0 unless several participants shared it)."),
        Column("participants_in_game", "Participants who played this game together (1: alone with any NPCs)."),
        Column(
            "lobby_outcome",
            "Shared conditions: started (the game began), routed (timed out to the solo condition); empty otherwise.",
        ),
        Column("lobby_wait_seconds", "Seconds the participant waited in the lobby before the game started."),
        Column("backfilled_seats", "Participant seats filled by computer teammates at the lobby's timeout."),
        Column("seats_taken_over", "Participants' seats handed to computer teammates mid-game (someone left)."),
        Column("left_at", "When this participant's own seat went to a computer teammate (they were away too long)."),
        Column("routed_from", "The shared condition this episode was meant for, if the lobby timed out to this one."),
        Column(
            "npc_calls",
            "Model calls made for the computer teammates in this episode's game (LLM teammates and LLM backfill; "
            "0 for other kinds; empty without a game). A game several participants shared has one count, repeated "
            "on each of its episodes.",
        ),
        Column(
            "npc_calls_failed",
            "Of those, calls that got no answer (a timeout, an unreachable endpoint, an HTTP error): the teammate "
            "could not act then. Equal to npc_calls (and above 0): its model never answered in this game, so the "
            "episode is not what its condition names. The npc_calls table has each call's error; the Analysis tab "
            "can leave such episodes out.",
        ),
        Column(
            "npc_calls_unused",
            "Of the answered calls, those whose reply led to no command carried out (no command found in it, a "
            "seat not the teammate's, or every command refused): a teammate that answers but does not act.",
        ),
    ]
    for name, measure in _objective_columns(study):
        unit = f" in {measure.unit}" if measure.unit else ""
        columns.append(Column(name, f"{measure.label}{unit}, read from the game's result (empty if not applicable)."))
    if has_certified_scenarios(study):
        columns += [
            Column(
                "optimum",
                "Generated instances: the solver's best value for this scenario version (tasks: minutes to finish "
                "with as many agents; recipes: makespan in seconds with time constraints on); empty otherwise.",
            ),
            Column("optimum_proven", "True when that value is proven optimal, false when it is the best plan found."),
            Column("optimum_lower_bound", "The solver's lower bound (equal to the optimum when proven)."),
            Column(
                "optimum_ratio",
                "The game's value over the optimum (1 = optimal); empty when the game did not finish under the "
                "optimum's conditions (not everything done, another number of agents, time constraints off).",
            ),
        ]
    columns.append(Column("metrics", "The game's full result as JSON (every metric the domain reports)."))
    return columns


def episode_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    from games.models import GameEvent

    objective = _objective_columns(study)
    queryset = (
        Episode.objects.filter(participant__in=participants_of(study, options))
        .select_related("participant", "condition", "scenario", "lobby", "routed_from")
        .order_by("participant_id", "index")
    )
    certified = has_certified_scenarios(study)
    if certified:
        queryset = with_seat_counts(queryset)
    taken_over = dict(
        GameEvent.objects.filter(game__study_episode__participant__study=study, kind="seat_replaced")
        .values("game_id")
        .annotate(n=Count("id", distinct=True))
        .values_list("game_id", "n")
    )
    calls = teammate_calls.call_counts(
        Episode.objects.filter(participant__study=study, game__isnull=False).values("game_id")
    )
    for e in queryset.iterator(chunk_size=CHUNK):
        made = calls.get(e.game_id, teammate_calls.CallCount()) if e.game_id else None
        row = {
            "participant": e.participant.code,
            "episode": e.index + 1,
            "condition": e.condition.name,
            "npc_kind": e.condition.npc_kind,
            "npc_count": e.condition.npc_count,
            "domain": e.scenario.domain,
            "scenario": e.scenario.slug,
            "scenario_version": e.scenario.version,
            "status": e.status,
            "game_id": e.game_id or "",
            "started_at": iso(e.started_at),
            "played_at": iso(e.played_at),
            "surveyed_at": iso(e.surveyed_at),
            "seat": "" if e.seat is None else e.seat,
            "participants_in_game": (e.lobby.humans if e.lobby and e.lobby.humans else 1) if e.game_id else "",
            "lobby_outcome": e.lobby.status if e.lobby else "",
            "lobby_wait_seconds": wait_seconds(e),
            "backfilled_seats": e.lobby.backfilled if e.lobby else "",
            "seats_taken_over": taken_over.get(e.game_id, 0) if e.game_id else "",
            "left_at": iso(e.left_at),
            "routed_from": e.routed_from.name if e.routed_from else "",
            "npc_calls": "" if made is None else made.calls,
            "npc_calls_failed": "" if made is None else made.failed,
            "npc_calls_unused": "" if made is None else made.unused,
        }
        for name, measure in objective:
            value = measure.read(e.metrics or {}) if name.startswith(e.scenario.domain + "_") else None
            row[name] = "" if value is None else value
        if certified:
            row.update(_against_optimum(e))
        row["metrics"] = e.metrics or {}
        yield row


def _against_optimum(e: Episode) -> dict[str, Any]:
    from games.npc import optimality

    return dict(zip(optimality.COLUMNS, optimality.columns(against_optimum(e)), strict=True))


EVENT_COLUMNS = [
    Column(
        "participant",
        "Anonymous participant code: the game's participant; in a game several participants shared, the participant "
        "who caused the entry (empty for entries of computer teammates or of nobody).",
    ),
    Column("episode", "Episode position of that participant, from 1 (empty when the participant column is)."),
    Column("condition", "Condition of the episode."),
    Column("game_id", "Id of the game."),
    Column("seq", "Position of the entry in the game's log, from 1."),
    Column("category", "action (an input), clock (time advanced), engine (what the rules answered), chat or control."),
    Column("kind", "What happened (started, completed, rejected, order_arrived, paused ...)."),
    Column(
        "agent",
        "Agent number (participants first: 0, or 0..n-1 in a shared game; then computer teammates); "
        "empty for events nobody caused.",
    ),
    Column(
        "seat_kind",
        "Who plays that agent: participant, backfill (a participant seat played by a computer teammate, from the "
        "lobby's timeout or after its participant left) or npc; empty for events nobody caused.",
    ),
    Column("time", "Game time in the domain's unit (tasks: minutes, recipes: seconds, kitchen: steps)."),
    Column("created_at", "Wall-clock time it was stored (ISO 8601, UTC)."),
    Column("data", "Details as JSON (the action text, feedback, message ...)."),
]


def event_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    from games.models import GameEvent

    games = players_by_game(study, options)
    queryset = (
        GameEvent.objects.filter(game_id__in=list(games))  # each game once, however many shared it
        .order_by("game_id", "seq")
        # The details stay JSON text: decoding and re-encoding them per row was most of the cost.
        .annotate(data_text=Cast("data", output_field=TextField()))
        .values_list("game_id", "seq", "category", "kind", "agent", "time", "created_at", "data_text")
    )
    current: int | None = None
    taken_over: set[int] = set()  # participant seats handed to a computer teammate so far in this game
    for game_id, seq, category, kind, agent, time, created_at, data in queryset.iterator(chunk_size=CHUNK):
        if game_id != current:
            current, taken_over = game_id, set()
        players = games[game_id]
        participant, episode, condition = players.actor(agent, taken_over)
        yield {
            "participant": participant,
            "episode": episode,
            "condition": condition,
            "game_id": game_id,
            "seq": seq,
            "category": category,
            "kind": kind,
            "agent": "" if agent is None else agent,
            "seat_kind": players.seat_kind(agent, taken_over),
            "time": time,
            "created_at": iso(created_at),
            "data": RawJSON(players.coded(data)),
        }
        if kind == "seat_replaced" and agent is not None:  # the entry names who left; what follows is the NPC's
            taken_over.add(agent)


# --- NPC model calls -----------------------------------------------------------------------------

NPC_CALL_COLUMNS = [
    Column("participant", "Anonymous participant code (empty for a game several participants shared)."),
    Column("episode", "Episode position, from 1 (empty for a shared game)."),
    Column("condition", "Condition of the episode."),
    Column("game_id", "Id of the game."),
    Column("call_id", "Id of the model call."),
    Column("agent", "Who asked: the dispatcher (or another agent role)."),
    Column("seats", "Agent numbers the call commanded (JSON list)."),
    Column("game_time", "Game time when the dispatcher read the state."),
    Column("after_seq", "Last log entry (seq) the dispatcher had seen."),
    Column("action_seqs", "Log entries (seq) of the actions the call caused (JSON list)."),
    Column("model", "Model name."),
    Column(
        "base_url",
        "The OpenAI-compatible endpoint the call went to, without any user name, password or query in its URL (API "
        "keys are never stored or exported). Empty for live-game calls logged before it was recorded.",
    ),
    Column("prompt", "The messages sent, as JSON [{role, content}, ...]."),
    Column("reply", "The model's reply text."),
    Column("parsed", "Commands taken from the reply (JSON list)."),
    Column("problems", "What was refused and fed back next turn (JSON list)."),
    Column("latency_seconds", "Wall-clock seconds the call took."),
    Column("prompt_tokens", "Prompt tokens reported by the endpoint."),
    Column("completion_tokens", "Completion tokens reported by the endpoint."),
    Column("error", "Why the call failed (timeout, HTTP error ...); empty when it succeeded."),
    Column("created_at", "When the call was logged (ISO 8601, UTC)."),
]


def npc_call_rows(study: Study, options: Options) -> Iterator[dict[str, Any]]:
    from games.npc.models import LlmCall

    games = players_by_game(study, options)
    queryset = LlmCall.objects.filter(game_id__in=list(games)).order_by("game_id", "id")
    for call in queryset.iterator(chunk_size=CHUNK):
        # a shared game's calls belong to no one participant: blanks, joined on game_id
        players = games[int(call.game_id or 0)]
        participant, episode, condition = players.owner()
        yield {
            "participant": participant,
            "episode": episode,
            "condition": condition,
            "game_id": call.game_id,
            "call_id": call.pk,
            "agent": call.agent,
            "seats": call.seats,
            "game_time": "" if call.game_time is None else call.game_time,
            "after_seq": "" if call.after_seq is None else call.after_seq,
            "action_seqs": call.action_seqs,
            "model": call.model,
            "base_url": call.base_url,
            "prompt": [
                {**message, "content": players.coded(message["content"])}
                if isinstance(message, dict) and isinstance(message.get("content"), str)
                else message
                for message in call.messages
            ],
            "reply": call.reply,
            "parsed": call.parsed,
            "problems": call.problems,
            "latency_seconds": call.latency_seconds,
            "prompt_tokens": call.prompt_tokens,
            "completion_tokens": call.completion_tokens,
            "error": call.error,
            "created_at": iso(call.created_at),
        }
