"""The rule-set contract every domain implements (SPEC section 1).

The web game loop, NPC agents, the benchmark runner, planners and tests only ever talk to a domain
through this protocol, so they treat every domain alike. Time is always an argument and randomness
comes from the seed: no rule set reads the wall clock or a global random number generator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from games.engine.types import JSON, Observation, Outcome, Transition


@runtime_checkable
class RuleSet[S](Protocol):
    """A domain's rules over states of type ``S`` (immutable values)."""

    #: Versioned id, e.g. ``tasks-v1``; stored with every game so old games replay on old rules.
    id: str
    #: Domain name: ``tasks``, ``recipes``, ``kitchen`` or ``itinerary``.
    domain: str
    #: The unit of game time: ``minute``, ``second`` or ``step``.
    time_unit: str

    def initial_state(
        self, scenario: Mapping[str, Any], *, seed: int = 0, agents: int = 1, options: Mapping[str, Any] | None = None
    ) -> S:
        """A fresh state from a scenario definition (immutable JSON data) and a seed."""
        ...

    def now(self, state: S) -> float:
        """The state's game time."""
        ...

    def legal_actions(self, state: S, agent: int) -> list[str]:
        """Actions ``agent`` could take now, in the domain's text grammar."""
        ...

    def observe(self, state: S, agent: int) -> Observation:
        """What ``agent`` sees: text for an LLM, structured data for a UI."""
        ...

    def act(self, state: S, agent: int, action: str, now: float) -> Transition[S]:
        """Apply one action (text grammar) by ``agent`` at game time ``now``.

        A rejected action yields a ``rejected`` event with a feedback kind and a message; how it
        affects the clock is the domain's rule (SPEC).
        """
        ...

    def advance(self, state: S, until: float) -> Transition[S]:
        """Move game time forward to ``until`` and return the events of that interval."""
        ...

    def next_deadline(self, state: S) -> float | None:
        """When the next thing happens by itself (a completion, an arrival, an agent freed)."""
        ...

    def awaiting(self, state: S) -> frozenset[int]:
        """Agents that are free to decide at the state's current time (lockstep waits for them)."""
        ...

    def outcome(self, state: S) -> Outcome:
        """Whether the episode is over, and why."""
        ...

    def result(self, state: S) -> dict[str, Any]:
        """The domain's metrics for this episode (JSON)."""
        ...

    def dump_state(self, state: S) -> JSON:
        """Serialise a state exactly (``load_state(dump_state(s)) == s``)."""
        ...

    def load_state(self, raw: Mapping[str, Any]) -> S:
        """Restore a state serialised by ``dump_state``."""
        ...
