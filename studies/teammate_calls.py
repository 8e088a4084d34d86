"""What the NPC model-call log (``games.npc.LlmCall``) says about a study's episodes: how many calls
each episode's game made for its computer teammates and how many got no answer (a timeout, an
unreachable endpoint, an HTTP error), so the episodes export, the analysis and the monitor can say
when a condition's "LLM teammate" never acted. The log is the record: nothing is stored twice.

A game shared by several participants has one log: each of its episodes reads the game's counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db.models import Count, Q, QuerySet


def _installed() -> bool:
    return apps.is_installed("games.npc")


@dataclass(frozen=True)
class CallCount:
    calls: int = 0
    failed: int = 0  # got no answer: the teammate could not act on them
    # answered, but nothing in the reply was carried out (no command found, not its seat, refused):
    # a playtested condition's teammate answered 20 times and acted on 3
    unused: int = 0

    @property
    def mostly_unused(self) -> bool:
        answered = self.calls - self.failed
        return answered > 0 and 2 * self.unused > answered

    @property
    def every_one_failed(self) -> bool:
        return self.calls > 0 and self.failed == self.calls


def call_counts(game_ids: Iterable[int] | QuerySet) -> dict[int, CallCount]:
    """{game id: its NPC model calls and how many failed}, for the games among ``game_ids`` that made any."""
    if not _installed():
        return {}
    from games.npc.models import LlmCall

    rows = (
        LlmCall.objects.filter(game_id__in=game_ids)
        .values("game_id")
        .annotate(
            n=Count("id"),
            failed=Count("id", filter=~Q(error="")),
            unused=Count("id", filter=Q(error="", action_seqs=[])),
        )
        .values_list("game_id", "n", "failed", "unused")
    )
    return {game_id: CallCount(n, failed, unused) for game_id, n, failed, unused in rows}


def failing_games(episodes: QuerySet) -> Any:
    """The games of ``episodes`` in which at least one NPC model call failed (a subquery)."""
    from games.npc.models import LlmCall

    # never a NULL in it: "game_id NOT IN (..., NULL)" is never true, and excluding by it left nothing
    return (
        LlmCall.objects.filter(game_id__in=episodes.filter(game__isnull=False).values("game_id"))
        .exclude(error="")
        .values("game_id")
    )


@dataclass(frozen=True)
class FailingTeammates:
    """A condition whose episodes had failing NPC model calls, for the analysis page's warning."""

    condition: str
    episodes: int  # episodes with at least one failed call
    of: int  # the condition's episodes counted
    every_call: int  # episodes in which no call got an answer: the teammate never acted
    mostly_unused: int = 0  # episodes in which most answered calls led to no command carried out

    @property
    def text(self) -> str:
        parts = []
        if self.episodes:
            whole = f" (in {self.every_call} of them no call got an answer)" if self.every_call else ""
            parts.append(f"{self.episodes} of {self.of} episode{'s' if self.of != 1 else ''}{whole}")
        if self.mostly_unused:
            parts.append(
                f"in {self.mostly_unused} of {self.of} most of the model's answers were not carried out (no command "
                "found in them, or refused)"
            )
        return f"{self.condition}: " + "; ".join(parts)


def failing_by_condition(episodes: QuerySet) -> list[FailingTeammates]:
    """Per condition (in the order their episodes come), how many of ``episodes`` had a teammate
    whose model calls failed; conditions without any are left out."""
    if not _installed():
        return []
    rows = list(episodes.values_list("condition__index", "condition__name", "game_id"))
    counts = call_counts({game_id for _, _, game_id in rows if game_id is not None})
    names: dict[int, str] = {}
    total: Counter[int] = Counter()
    some: Counter[int] = Counter()
    every: Counter[int] = Counter()
    unused: Counter[int] = Counter()
    for index, name, game_id in rows:
        names[index] = name
        total[index] += 1
        found = counts.get(game_id) if game_id is not None else None
        if found is not None and found.failed:
            some[index] += 1
            every[index] += found.every_one_failed
        if found is not None and found.mostly_unused:
            unused[index] += 1
    return [FailingTeammates(names[i], some[i], total[i], every[i], unused[i]) for i in sorted(set(some) | set(unused))]
