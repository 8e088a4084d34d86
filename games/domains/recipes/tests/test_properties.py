"""Property tests: whatever agents try, the rules keep their invariants (hypothesis)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.domains.recipes.rules import RULES
from games.domains.recipes.tests.kitchens import BAKE, MUFFINS, ROAST, SOUP, kitchen
from games.engine.episode import LoggedAction, replay

DEFINITION = kitchen(BAKE, SOUP, MUFFINS, ROAST)
NAMES = ["Bake", "Soup", "Muffins", "Roast"]

step_actions = st.builds(
    lambda recipe, step, minutes, wait: (f"Step({step}, {recipe}, 00:{minutes:02d}:00)", wait),
    st.sampled_from(NAMES),
    st.integers(0, 3),
    st.integers(0, 20),
    st.integers(0, 600),
)
other_actions = st.builds(
    lambda recipe, step, wait: (f"Pause({step}, {recipe})", wait),
    st.sampled_from(NAMES),
    st.integers(0, 3),
    st.integers(0, 300),
)
whole_steps = st.builds(
    lambda recipe, step, wait: (f"Step({step}, {recipe})", wait),
    st.sampled_from(NAMES),
    st.integers(0, 3),
    st.integers(0, 900),
)
scripts = st.lists(
    st.tuples(st.integers(0, 1), st.one_of(whole_steps, whole_steps, step_actions, other_actions)), max_size=25
)


def overlaps(a, b):
    return a.start < b.end and b.start < a.end


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts, st.booleans())
def test_invariants_hold_for_any_actions(script, constraints):
    options = {"time_constraints": constraints, "max_rejections": 0, "max_repeats": 0}
    state = RULES.initial_state(DEFINITION, agents=2, options=options)
    log = []
    for agent, (action, wait) in script:
        if state.over:
            break
        before = RULES.now(state)
        transition = RULES.act(state, agent, action, before)
        log.append(LoggedAction(agent, action, before))
        if transition.rejection is not None:
            assert RULES.now(transition.state) == before  # a rejected action never moves the clock
            assert transition.rejection.message
        state = transition.state
        state = RULES.advance(state, RULES.now(state) + wait).state

    chunks = state.chunks
    for i, a in enumerate(chunks):
        spec_a = state.spec(a)
        assert a.end > a.start
        for b in chunks[i + 1 :]:
            spec_b = state.spec(b)
            if a.agent == b.agent and not spec_a.autonomous and not spec_b.autonomous:
                assert not overlaps(a, b), "one cook did two continuous steps at once"
            shared = {u.appliance for u in spec_a.uses} & {u.appliance for u in spec_b.uses}
            if shared and overlaps(a, b):
                assert (a.start, a.end) == (b.start, b.end) and a.recipe != b.recipe  # only a shared preheat
    for recipe, spec in ((c.recipe, state.spec(c)) for c in chunks):
        assert state.executed(recipe, spec.index) <= spec.duration
        for prerequisite in spec.prerequisites:
            first = min(c.start for c in state.step_chunks(recipe, spec.index))
            assert (state.finished_at(recipe, prerequisite) or 10**9) <= first
    raw = json.loads(json.dumps(RULES.dump_state(state)))
    assert RULES.dump_state(RULES.load_state(raw)) == RULES.dump_state(state)
    rebuilt = replay(RULES, DEFINITION, log, agents=2, options=options)
    assert rebuilt.state.chunks == state.chunks


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts)
def test_the_chunk_index_answers_as_a_scan_of_the_chunks_would(script):
    # The index is built once and then extended chunk by chunk (a Pause rebuilds it); whatever was
    # played, its answers must be those of reading every chunk.
    state = RULES.initial_state(DEFINITION, agents=2, options={"max_rejections": 0, "max_repeats": 0})
    for agent, (action, wait) in script:
        if state.over:
            break
        state = RULES.act(state, agent, action, RULES.now(state)).state
        if wait and not state.over:
            state = RULES.advance(state, RULES.now(state) + wait).state
        for recipe, spec in ((r, s) for r, dish in enumerate(state.kitchen.recipes) for s in dish.steps):
            scanned = [c for c in state.chunks if (c.recipe, c.step) == (recipe, spec.index)]
            executed = sum(c.end - c.start for c in scanned)
            assert state.step_chunks(recipe, spec.index) == scanned
            assert state.executed(recipe, spec.index) == executed
            expected = max(c.end for c in scanned) if scanned and executed >= spec.duration else None
            assert state.finished_at(recipe, spec.index) == expected


def _stuck_by_every_rule(state) -> bool:
    """The dead end as ``check_start`` sees it: not over, nothing running, no window about to
    spoil the game, and no step left that any rule lets start now."""
    from games.domains.recipes.execution import check_start, next_spoil
    from games.domains.recipes.text import StepAction

    if state.over or any(c.end > state.time for c in state.chunks) or next_spoil(state) is not None:
        return False
    return not any(
        check_start(state, 0, StepAction(spec.index, dish.name)).feedback is None
        for r, dish in enumerate(state.kitchen.recipes)
        for spec in dish.steps
        if state.remaining(r, spec.index) > 0
    )


# Every step of these two dishes uses the oven at 350 or 425: about half of all orders dead-end.
OVEN_ONLY = kitchen(MUFFINS, ROAST)
oven_scripts = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.tuples(
            st.sampled_from([f"Step({n}, {d})" for n in (0, 1) for d in ("Muffins", "Roast")]), st.integers(0, 900)
        ),
    ),
    max_size=12,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.tuples(st.just(DEFINITION), scripts), st.tuples(st.just(OVEN_ONLY), oven_scripts)), st.booleans())
def test_a_game_ends_at_a_dead_end_exactly_when_no_rule_lets_a_step_start(played, constraints):
    # dead_end decides from prerequisites and appliance settings alone; every rule of check_start
    # must agree, and no game the rules leave running may be stuck
    from games.domains.recipes.execution import dead_end

    definition, script = played
    options = {"time_constraints": constraints, "max_rejections": 0, "max_repeats": 0}
    state = RULES.initial_state(definition, agents=2, options=options)
    for agent, (action, wait) in script:
        if state.over:
            break
        state = RULES.act(state, agent, action, RULES.now(state)).state
        assert (dead_end(state) is not None) == _stuck_by_every_rule(state)
        if state.over:
            break
        state = RULES.advance(state, RULES.now(state) + wait).state
        assert (dead_end(state) is not None) == _stuck_by_every_rule(state)
        assert not _stuck_by_every_rule(state)  # advance ends a stuck game itself
        if state.status == "failed" and state.reason.startswith("No step left can start"):
            assert RULES.legal_actions(state, 0) == [] and RULES.next_deadline(state) is None


def _two_cooks(constraints: bool):
    options = {"time_constraints": constraints, "max_rejections": 0, "max_repeats": 0}
    return RULES.initial_state(DEFINITION, agents=2, options=options)


def _played_by_two_cooks(script, constraints: bool, *, waits: bool = True):
    """The state after each action of ``script`` in a two-cook game (each action's wait passes
    before the next one when ``waits``), until the game is over."""
    state = _two_cooks(constraints)
    for agent, (action, wait) in script:
        if state.over:
            return
        state = RULES.act(state, agent, action, RULES.now(state)).state
        yield state
        if waits:
            state = RULES.advance(state, RULES.now(state) + wait).state


def _hints_by_trying_every_moment(state, agent) -> dict[tuple[str, int], int]:
    """What the hints must say, worked out the slow way: each step left, tried at every upcoming
    moment in turn (no candidate filter, no skipped moments, no shared memo), up to a fatal refusal."""
    from games.domains.recipes.execution import check_start
    from games.domains.recipes.observation import _moments
    from games.domains.recipes.text import StepAction

    found = {}
    for r, dish in enumerate(state.kitchen.recipes):
        for spec in dish.steps:
            if state.over or state.remaining(r, spec.index) <= 0:
                continue
            for moment in _moments(state):
                verdict = check_start(state, agent, StepAction(spec.index, dish.name, None, moment))
                if verdict.feedback is None:
                    found[(dish.name, spec.index)] = moment
                    break
                if verdict.fatal:
                    break
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts, st.booleans())
def test_the_hints_name_the_first_moment_each_step_could_start_for_each_cook(script, constraints):
    # next_steps skips steps whose prerequisites are not scheduled and moments before the cook is
    # free, and shares verdicts between cooks; none of that may change what a cook is told
    from games.domains.recipes.observation import next_steps

    for state in _played_by_two_cooks(script, constraints):
        for cook in (0, 1):
            told = {(s["recipe"], s["step"]): group["at"] for group in next_steps(state, cook) for s in group["steps"]}
            assert told == _hints_by_trying_every_moment(state, cook)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts, st.booleans(), st.lists(st.integers(1, 1500), min_size=1, max_size=6))
def test_advancing_in_steps_through_the_memo_equals_advancing_in_one_go(script, constraints, gaps):
    # advanced_to reaches a later moment from the latest earlier one in its memo; the state and
    # the events must be those of letting the time pass at once, whatever order moments are asked in
    from games.domains.recipes.execution import advance, advanced_to

    state = _two_cooks(constraints)
    for state in _played_by_two_cooks(script, constraints, waits=False):  # noqa: B007 -- the last one
        pass
    moments = [state.time + gap for gap in gaps]
    memo: dict = {}
    for moment in moments:
        stepped, stepped_events = advanced_to(state, moment, memo)
        direct, direct_events = advance(state, moment)
        assert stepped == direct
        assert stepped_events == direct_events


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts, st.booleans())
def test_the_shared_view_shows_every_step_as_built_from_the_state(script, constraints):
    # a step with nothing scheduled and no window opened is shown from a per-kitchen template;
    # it must read exactly as the step built afresh from the state would
    from games.domains.recipes.observation import _shared_data, _static_parts, _step_view

    for state in _played_by_two_cooks(script, constraints):
        prerequisites, uses, _ = _static_parts(state)
        shown = [step for recipe in _shared_data(state)["recipes"] for step in recipe["steps"]]
        built = [
            _step_view(state, r, spec, prerequisites, uses)
            for r, recipe in enumerate(state.kitchen.recipes)
            for spec in recipe.steps
        ]
        assert shown == built


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts, st.booleans())
def test_the_legal_actions_are_every_step_the_rules_would_start_now_then_the_pauses(script, constraints):
    # legal_actions tries only the hint candidates and remembers its answer per state and cook; it
    # must still list every step check_start accepts now, in kitchen order, then the cook's pauses
    from games.domains.recipes.execution import check_start
    from games.domains.recipes.text import PauseAction, StepAction

    for state in _played_by_two_cooks(script, constraints):
        for cook in (0, 1):
            expected = [
                StepAction(spec.index, dish.name).text()
                for r, dish in enumerate(state.kitchen.recipes)
                for spec in dish.steps
                if state.remaining(r, spec.index) > 0
                and check_start(state, cook, StepAction(spec.index, dish.name)).feedback is None
            ] + [
                PauseAction(c.step, state.kitchen.recipes[c.recipe].name).text()
                for c in state.chunks
                if c.agent == cook and c.start <= state.time < c.end and state.spec(c).interruptible
            ]
            if state.over:
                expected = []
            assert RULES.legal_actions(state, cook) == expected
            assert RULES.legal_actions(state, cook) == expected  # asked again: the same answer
