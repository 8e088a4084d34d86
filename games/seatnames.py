"""The names people read for the seats of a game, from where the reader sits.

The one place that names seats: the board, the timeline, the log and the chat all use it, and a
blinded study (participants must not learn who or what their teammates are) passes ``blind=True``
to get bare "Teammate 1..n".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DISPATCHER_WORDS = {"llm": "LLM", "planner": "planner", "random": "random", "replay": "replay"}


@dataclass(frozen=True)
class SeatInfo:
    agent: int
    kind: str  # human, npc, program
    dispatcher: str = ""
    username: str = ""

    @property
    def detail(self) -> str:
        """Who or what plays the seat, in a few words."""
        if self.kind == "npc":
            return f"{DISPATCHER_WORDS.get(self.dispatcher, self.dispatcher or 'NPC')} NPC"
        if self.kind == "human":
            return self.username or "a person"
        return f"{self.username or 'a'} program".strip()


def seat_names(seats: Iterable[SeatInfo], viewer_agents: Sequence[int] = (), *, blind: bool = False) -> list[str]:
    """One name per agent (index = agent): "You" for the reader's own seat, "Teammate k" for the
    others (with who plays them unless ``blind``); a watcher reads "Player k (who)"."""
    ordered = sorted(seats, key=lambda s: s.agent)
    names: list[str] = []
    mates = 0
    for seat in ordered:
        if seat.agent in viewer_agents:
            own = list(viewer_agents).index(seat.agent)
            names.append("You" if own == 0 else f"You ({own + 1})")
            continue
        if viewer_agents:
            mates += 1
            base = f"Teammate {mates}"
        else:
            base = f"Player {seat.agent + 1}"
        names.append(base if blind else f"{base} ({seat.detail})")
    return names


def short_names(names: Sequence[str]) -> list[str]:
    """Two or three letters for a token on a board: "You", "T1", "P2"."""
    short = []
    for name in names:
        head = name.split(" (")[0]
        if head.startswith("You"):
            short.append("You")
        else:
            word, _, number = head.partition(" ")
            short.append(f"{word[:1]}{number}")
    return short


def cannot_read_chat(seats: Iterable[SeatInfo]) -> list[SeatInfo]:
    """NPC seats whose dispatcher ignores the chat (only the LLM dispatcher reads instructions)."""
    return [s for s in seats if s.kind == "npc" and s.dispatcher != "llm"]
