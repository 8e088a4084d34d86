"""What every export table is made of: documented columns, a row generator, and which participants count."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from studies.models import Episode, ParticipantStatus, Study, participant_code
from studies.services.participation import ACCOUNT_NAME

CHUNK = 2000


@dataclass(frozen=True)
class Column:
    name: str
    description: str


@dataclass(frozen=True)
class Options:
    include_excluded: bool = False  # drop-outs, decliners and pilots (excluded from analysis by default)


@dataclass(frozen=True)
class Table:
    name: str
    description: str
    columns: Callable[[Study], list[Column]]
    rows: Callable[[Study, Options], Iterator[dict[str, Any]]]


def participants_of(study: Study, options: Options) -> Any:
    queryset = study.participants.all()
    if not options.include_excluded:
        queryset = queryset.filter(is_pilot=False, status__in=[ParticipantStatus.ACTIVE, ParticipantStatus.COMPLETED])
    return queryset


def iso(value: Any) -> str:
    return value.isoformat() if value else ""


def episodes_by_game(study: Study, options: Options) -> dict[int, tuple[str, int, str]]:
    """game id -> (participant code, episode position, condition): one small entry per episode."""
    return {
        game_id: (participant_code(number), index + 1, condition)
        for game_id, number, index, condition in Episode.objects.filter(
            participant__in=participants_of(study, options), game__isnull=False
        ).values_list("game_id", "participant__number", "index", "condition__name")
    }


Owner = tuple[str, int | str, str]  # (participant code, episode position, condition); blanks where nobody


@dataclass
class GamePlayers:
    """Who sits where in one game of the study: the participants' seats (those exported), how many
    participant seats the game had and how many of them the lobby gave to computer teammates."""

    condition: str
    humans: int  # participant seats when the game started (1 for a game played alone)
    backfilled: int  # seats after the participants' given to the backfill NPC at the lobby's timeout
    seats: dict[int, tuple[str, int]] = field(default_factory=dict)  # agent -> (code, episode position)
    # the participants' account names -> their codes: a log entry says who acted by account name
    # ("p-f14f2484030fe6ce: goto storage0"), which an export writes as the code everywhere else
    names: dict[str, str] = field(default_factory=dict)

    def coded(self, text: str) -> str:
        """``text`` with every participant's account name written as their code."""
        for name, code in self.names.items():
            if name in text:
                text = text.replace(name, code)
        return text

    @property
    def shared(self) -> bool:
        return self.humans > 1

    def owner(self) -> Owner:
        """The participant the whole game belongs to when they played alone; blanks for a shared game."""
        if self.shared or not self.seats:
            return ("", "", self.condition)
        code, position = next(iter(self.seats.values()))
        return (code, position, self.condition)

    def seat_kind(self, agent: int | None, taken_over: set[int]) -> str:
        """participant, backfill (a participant seat played by a computer teammate) or npc; empty
        for entries nobody caused."""
        if agent is None:
            return ""
        if agent < self.humans:
            return "backfill" if agent in taken_over else "participant"
        if agent < self.humans + self.backfilled:
            return "backfill"
        return "npc"

    def actor(self, agent: int | None, taken_over: set[int]) -> Owner:
        """Whom an entry by ``agent`` is attributed to: in a shared game the participant whose seat
        acted (blanks for NPC, backfill and seatless entries); a game played alone is its participant's."""
        if not self.shared:
            return self.owner()
        if agent is None or agent in taken_over or agent not in self.seats:
            return ("", "", self.condition)
        code, position = self.seats[agent]
        return (code, position, self.condition)


def players_by_game(study: Study, options: Options) -> dict[int, GamePlayers]:
    """game id -> its ``GamePlayers``, one small entry per episode (a shared game is one entry)."""
    games: dict[int, GamePlayers] = {}
    rows = Episode.objects.filter(participant__in=participants_of(study, options), game__isnull=False).values_list(
        "game_id",
        "participant__number",
        "index",
        "condition__name",
        "seat",
        "lobby__humans",
        "lobby__backfilled",
        "participant__user__username",
    )
    for game_id, number, index, condition, seat, humans, backfilled, username in rows:
        players = games.setdefault(game_id, GamePlayers(condition, max(humans or 1, 1), backfilled or 0))
        code = participant_code(number)
        players.seats[seat or 0] = (code, index + 1)
        # only the login-less accounts a study's link makes: a signed-in person's own name
        # ("participant") could be a word of any message
        if username and ACCOUNT_NAME.fullmatch(username):
            players.names[username] = code
    return games
