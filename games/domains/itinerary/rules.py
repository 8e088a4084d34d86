"""The itinerary rule set (``itinerary-v1``): ItineraryBench as a time-aware simulation.

Time is whole **minutes since the brief's begin**. The traveller's clock jumps to the end of each
action; a gap before an action's start is spent where the traveller is: before a train or a
``stay_in``/``visit`` it is a stay in the city, before a ``go_to_place`` from a sight it is more
time at that sight (the published simulator's rule; it counts for the sight's minutes and is held
to its opening, rest and meal hours).

An action whose elementary checks fail is rejected: the traveller does not move, and the failed
checks are recorded (they lower the executability score). Constraint checks (opening hours, rest
hours, meals) never block an action; a failure is recorded and reported as a ``violated`` event.
The trip ends when every goal of the brief is met (and, where asked, the traveller is back home) or
when the clock reaches the brief's end time. See ``observe.py`` for what players and LLMs see and
``scoring.py`` for the three-level score.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.domains.itinerary import checks as C
from games.domains.itinerary import now as now_forms
from games.domains.itinerary import observe as O
from games.domains.itinerary.actions import Action, ActionSyntaxError, parse_action
from games.domains.itinerary.actions import go_to_city as go_to_city_text
from games.domains.itinerary.actions import go_to_place as go_to_place_text
from games.domains.itinerary.actions import stay_in as stay_in_text
from games.domains.itinerary.actions import visit as visit_text
from games.domains.itinerary.scoring import score
from games.domains.itinerary.state import WORLDS, CheckResult, ItineraryState, Segment, dump, load
from games.domains.itinerary.world import World
from games.engine.options import checked
from games.engine.types import (
    COMPLETED,
    FINISHED,
    REJECTED,
    WAITED,
    Event,
    Feedback,
    Observation,
    Outcome,
    Transition,
    rejected,
)

VIOLATED = "violated"
GOALS_MET = "every goal of the brief is met"
TIME_UP = "the trip's end time has come"
# The trip also ends when the goals are reached with refused actions or broken rules on the way;
# its verdict then says so, so that it never reads "every goal met" beside a score that is not.
GOALS_REACHED = "the brief's visits and stays are done"


class ItineraryRules:
    id = "itinerary-v1"
    domain = "itinerary"
    time_unit = "minute"

    # -- set-up ----------------------------------------------------------------------------------
    def initial_state(
        self, scenario: Mapping[str, Any], *, seed: int = 0, agents: int = 1, options: Mapping[str, Any] | None = None
    ) -> ItineraryState:
        checked("itinerary", options, {})  # a brief's settings are in its definition; a game has no options
        world = WORLDS.get(scenario)  # compiled once per process, filed under the key its dumps name
        return ItineraryState(
            world=world,
            agents=max(1, agents),
            clock=0,
            city=world.origin_city,
            place=world.origin_place,
        )

    def now(self, state: ItineraryState) -> float:
        return state.clock

    def awaiting(self, state: ItineraryState) -> frozenset[int]:
        return frozenset() if state.over else frozenset(range(state.agents))

    def next_deadline(self, state: ItineraryState) -> float | None:
        # Nothing happens by itself: the traveller is free again as soon as an action is taken (the
        # clock jumps to its end). A real-time clock moves time with ``advance`` (a wait where the
        # traveller is), and reaching the end time ends the trip.
        return None

    def outcome(self, state: ItineraryState) -> Outcome:
        if state.over == GOALS_MET or state.over.startswith(GOALS_REACHED):
            return Outcome(terminated=True, reason=state.over)
        if state.over:
            return Outcome(truncated=True, reason=state.over)
        return Outcome()

    def result(self, state: ItineraryState) -> dict[str, Any]:
        return score(state)

    def dump_state(self, state: ItineraryState) -> dict[str, Any]:
        return dump(state)

    def load_state(self, raw: Mapping[str, Any]) -> ItineraryState:
        return load(raw)

    def observe(self, state: ItineraryState, agent: int) -> Observation:
        return Observation(text=O.observation_text(state), data=O.observation_data(state))

    # -- time --------------------------------------------------------------------------------------
    def advance(self, state: ItineraryState, until: float) -> Transition[ItineraryState]:
        target = int(until)
        if state.over or target <= state.clock:
            return Transition(state)
        world = state.world
        stop = min(target, world.end)
        wait = Segment("stay", state.clock, stop, state.city, state.place, implicit=True, action="(waited)")
        state = state.evolve(clock=stop, segments=(*state.segments, wait))
        events = [
            Event(
                WAITED,
                stop,
                f"The traveller waited in {state.city} until {world.clock_text(stop)}.",
                data={"from": wait.start, "until": stop},
            )
        ]
        if stop >= world.end:
            state = state.evolve(over=TIME_UP)
            events.append(Event(FINISHED, stop, f"The trip is over: {TIME_UP}.", data={"reason": TIME_UP}))
        return Transition(state, tuple(events))

    # -- actions -----------------------------------------------------------------------------------
    def act(self, state: ItineraryState, agent: int, action: str, now: float) -> Transition[ItineraryState]:
        events: list[Event] = []
        if state.over:
            message = f"The trip is over ({state.over}); no more actions are taken."
            return Transition(state, (rejected(state.clock, agent, action, Feedback("over", message)),))
        if now > state.clock:
            waited = self.advance(state, now)
            state, events = waited.state, list(waited.events)
            if state.over:
                return Transition(state, tuple(events))
        try:
            parsed = now_forms.resolve(state, action) if now_forms.is_phrase(action) else parse_action(action)
            times = self._times(state.world, parsed)
        except now_forms.NotNow as error:
            # A phrase that no longer fits (the train left): a late button, not a planning error.
            return Transition(state, (*events, rejected(state.clock, agent, action, Feedback("not_now", str(error)))))
        except (ActionSyntaxError, ValueError) as error:
            return Transition(state, (*events, rejected(state.clock, agent, action, Feedback("syntax", str(error)))))
        handler = getattr(self, f"_{parsed.verb}")
        transition: Transition[ItineraryState] = handler(state, agent, parsed, times)
        return Transition(transition.state, (*events, *transition.events))

    @staticmethod
    def _times(world: World, parsed: Action) -> tuple[int, int]:
        if parsed.verb in ("go_to_city", "go_to_place"):
            return world.minute_of(parsed.args[2]), world.minute_of(parsed.args[3])
        return world.minute_of(parsed.args[1]), world.minute_of(parsed.args[2])

    def _go_to_city(
        self, state: ItineraryState, agent: int, parsed: Action, times: tuple[int, int]
    ) -> Transition[ItineraryState]:
        world = state.world
        # "<city> Railway Hotel" is accepted for the city, as the published simulator does.
        origin = world.canonical(parsed.args[0].replace(" Railway Hotel", ""))
        destination = world.canonical(parsed.args[1].replace(" Railway Hotel", ""))
        number = parsed.args[4].upper()
        dep, arr = times
        text = go_to_city_text(origin, destination, world.clock_text(dep), world.clock_text(arr), number)
        results = [
            C.train_check(world, text, origin, destination, dep, arr, number),
            C.city_position_check(state, text, origin),
            C.time_order_check(state, text, dep, arr),
        ]
        if not all(r.passed for r in results):
            return self._reject(state, agent, parsed.text(), results)
        price = world.trains[number].price
        segments = list(state.segments)
        closed_days = dict(state.days)
        if dep > state.clock:
            segments.append(Segment("stay", state.clock, dep, state.city, state.place, implicit=True, agent=agent))
        closed_days[state.city] = closed_days.get(state.city, 0) + C.stay_days(world, state.arrived, dep)
        hotel = world.railway_hotel(destination)
        segments.append(Segment("train", dep, arr, destination, hotel, origin, number, price, agent=agent, action=text))
        new = state.evolve(
            clock=arr,
            city=destination,
            place=hotel,
            spent=state.spent + price,
            arrived=arr,
            days=tuple(sorted(closed_days.items())),
            segments=tuple(segments),
            checks=(*state.checks, *results),
            last_end=arr,
        )
        message = (
            f"Took train {number} from {origin} to {destination}, arriving {world.clock_text(arr)}"
            f" (paid {price:g} CNY)."
        )
        return self._accepted(new, agent, text, message, [])

    def _go_to_place(
        self, state: ItineraryState, agent: int, parsed: Action, times: tuple[int, int]
    ) -> Transition[ItineraryState]:
        world = state.world
        origin, destination = world.canonical(parsed.args[0]), world.canonical(parsed.args[1])
        dep, arr = times
        text = go_to_place_text(origin, destination, world.clock_text(dep), world.clock_text(arr))
        results = [
            C.place_position_check(state, text, origin),
            C.time_order_check(state, text, dep, arr),
            C.transfer_check(world, text, origin, destination, dep, arr),
        ]
        if not all(r.passed for r in results):
            return self._reject(state, agent, parsed.text(), results)
        new_segments: list[Segment] = []
        if dep > state.clock:
            here = world.places.get(state.place)
            kind = "visit" if here is not None and not here.is_hotel else "stay"
            gap_text = (
                visit_text(state.place, world.clock_text(state.clock), world.clock_text(dep))
                if kind == "visit"
                else stay_in_text(state.city, world.clock_text(state.clock), world.clock_text(dep))
            )
            new_segments.append(
                Segment(kind, state.clock, dep, state.city, state.place, implicit=True, agent=agent, action=gap_text)
            )
        new_segments.append(Segment("transfer", dep, arr, state.city, destination, origin, agent=agent, action=text))
        return self._apply(
            state, agent, text, new_segments, results, f"Went from {origin} to {destination}.", destination
        )

    def _visit(
        self, state: ItineraryState, agent: int, parsed: Action, times: tuple[int, int]
    ) -> Transition[ItineraryState]:
        world = state.world
        place = world.canonical(parsed.args[0])
        begin, end = times
        text = visit_text(place, world.clock_text(begin), world.clock_text(end))
        results = [C.place_position_check(state, text, place), C.time_order_check(state, text, begin, end)]
        if not all(r.passed for r in results):
            return self._reject(state, agent, parsed.text(), results)
        new_segments = self._gap(state, agent, begin)
        new_segments.append(Segment("visit", begin, end, state.city, place, agent=agent, action=text))
        return self._apply(state, agent, text, new_segments, results, f"Visited {place} for {end - begin} minutes.")

    def _stay_in(
        self, state: ItineraryState, agent: int, parsed: Action, times: tuple[int, int]
    ) -> Transition[ItineraryState]:
        world = state.world
        city = world.canonical(parsed.args[0])
        begin, end = times
        text = stay_in_text(city, world.clock_text(begin), world.clock_text(end))
        results = [C.city_position_check(state, text, city), C.time_order_check(state, text, begin, end)]
        if not all(r.passed for r in results):
            return self._reject(state, agent, parsed.text(), results)
        new_segments = self._gap(state, agent, begin)
        new_segments.append(Segment("stay", begin, end, city, state.place, agent=agent, action=text))
        return self._apply(
            state, agent, text, new_segments, results, f"Stayed in {city} until {world.clock_text(end)}."
        )

    @staticmethod
    def _gap(state: ItineraryState, agent: int, start: int) -> list[Segment]:
        if start <= state.clock:
            return []
        return [Segment("stay", state.clock, start, state.city, state.place, implicit=True, agent=agent)]

    def _apply(
        self,
        state: ItineraryState,
        agent: int,
        text: str,
        new_segments: list[Segment],
        results: list[CheckResult],
        message: str,
        place: str | None = None,
    ) -> Transition[ItineraryState]:
        world = state.world
        violations: list[str] = []
        constraint_results: list[CheckResult] = []
        for segment in new_segments:
            constraint_results.extend(C.segment_checks(world, segment, segment.action or text))
            meal = C.meal_clash(world, segment)
            if meal:
                violations.append(
                    f"the {segment.kind} {segment.action or text} overlaps {meal} ({C.meal_window(meal)}); "
                    "keep 12:00-13:00 and 18:30-19:30 free of visits and transfers (stay_in over them)"
                )
        violations = [r.message for r in constraint_results if not r.passed] + violations
        end = new_segments[-1].end
        new = state.evolve(
            clock=end,
            place=place or state.place,
            segments=(*state.segments, *new_segments),
            checks=(*state.checks, *results, *constraint_results),
            last_end=end,
        )
        return self._accepted(new, agent, text, message, violations)

    def _accepted(
        self, state: ItineraryState, agent: int, text: str, message: str, violations: list[str]
    ) -> Transition[ItineraryState]:
        world = state.world
        events = [
            Event(
                COMPLETED,
                state.clock,
                message,
                agent,
                {"action": text, "clock": world.clock_text(state.clock), "spent": state.spent},
            )
        ]
        # "You broke a rule of the brief: ..." in the log (the agent's name goes before the message)
        events.extend(
            Event(VIOLATED, state.clock, f"broke a rule of the brief: {v}", agent, {"action": text}) for v in violations
        )
        reason = ""
        if goals_met(state):
            reason = GOALS_MET if not broken_rules(state) else goals_met_but(state)
        elif state.clock >= world.end:
            reason = TIME_UP
        if reason:
            state = state.evolve(over=reason)
            events.append(Event(FINISHED, state.clock, f"The trip is over: {reason}.", None, {"reason": reason}))
        return Transition(state, tuple(events))

    @staticmethod
    def _reject(
        state: ItineraryState, agent: int, action: str, results: list[CheckResult]
    ) -> Transition[ItineraryState]:
        failed = [r for r in results if not r.passed]
        message = " ".join(r.message for r in failed)
        event = Event(
            REJECTED,
            state.clock,
            message,
            agent,
            {"action": action, "feedback": failed[0].check, "failed": [r.check for r in failed]},
        )
        # The traveller stays put; the failed checks still count against executability.
        return Transition(state.evolve(checks=(*state.checks, *results)), (event,))

    # -- suggestions -------------------------------------------------------------------------------
    def legal_actions(self, state: ItineraryState, agent: int) -> list[str]:
        """A useful finite menu in the forms that mean "now" (``now.py``): visit the current sight
        (within its opening, rest and meal hours), go to each place of the city, the next trains,
        waits to useful moments. Any other well-formed action, timed or not, is legal too."""
        offered = state.offered
        if offered is None:
            offered = tuple(now_forms.menu(state))
            object.__setattr__(state, "offered", offered)
        return list(offered)


def goals_met(state: ItineraryState) -> bool:
    world = state.world
    if not world.city_days and not world.spot_minutes:
        return False
    done = state.spot_minutes()
    if any(done.get(spot, 0) < minutes for spot, minutes in world.spot_minutes):
        return False
    if world.return_to_origin:
        if state.city != world.origin_city or not state.days:
            return False
        return all(state.days_in(city) >= days for city, days in world.city_days)
    open_days = C.stay_days(world, state.arrived, state.clock)
    return all(state.days_in(city) + (open_days if city == state.city else 0) >= days for city, days in world.city_days)


RULES = ItineraryRules()


def broken_rules(state: ItineraryState) -> list[str]:
    """Why the score is short of perfect so far: refused actions and failed rule checks."""
    from games.domains.itinerary.scoring import all_checks

    return [c.check for c in all_checks(state) if not c.passed]


def goals_met_but(state: ItineraryState) -> str:
    failed = broken_rules(state)
    names = ", ".join(sorted({name.replace("_", " ") for name in failed}))
    return f"{GOALS_REACHED}, but {len(failed)} check(s) failed ({names}), so not every rule of the brief was kept"
