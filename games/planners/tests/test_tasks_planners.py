"""The tasks planners on small graphs whose answers can be worked out by hand."""

from games.domains.tasks.definition import compile_definition, compose
from games.domains.tasks.tests.helpers import RICE, SOUP, bundled, task
from games.planners import tasks_greedy, tasks_optimal
from games.planners.tasks_planning import run


def test_greedy_starts_the_longest_background_chain_first():
    # pick rice (2) -> cook rice in pot* (4); wash dish (3); add rice to dish (2) after both.
    # Oracle: t0 pick rice [0,1], t2 cook [2,5] (agent free at 3), t3 wash dish [3,5],
    # t6 add rice [6,7] -> makespan 8.
    greedy = tasks_greedy.plan(compile_definition(RICE))
    assert greedy.makespan == 8
    names = {s.action: (s.start, s.end) for s in greedy.steps}
    assert names == {1: (0, 2), 2: (2, 6), 0: (3, 6), 3: (6, 8)}


def test_greedy_tries_every_ordering_of_background_actions():
    definition = task(
        "two",
        [("heat water", 2, True, []), ("heat milk", 6, True, []), ("pour water into cup", 1, False, ["heat water"])],
    )
    greedy = tasks_greedy.plan(compile_definition(definition))
    assert greedy.orderings_tried == 2
    assert greedy.makespan == 6  # heat milk [0,5], heat water [1,2], pour [3,3]: last end 5, +1


def test_the_optimum_respects_the_single_pot_in_constrained_mode():
    combo = compose([RICE, SOUP])
    shared = tasks_optimal.plan(compile_definition(combo))
    constrained = tasks_optimal.plan(compile_definition(combo, constrained=True))
    assert shared.optimal and constrained.optimal
    assert constrained.makespan >= shared.makespan
    cooks = sorted((e.start, e.end) for e in constrained.entries if e.action in (2, 6))
    assert cooks[0][1] <= cooks[1][0], "one pot: the two cooks must not overlap"


def test_optimal_plans_replay_cleanly_and_beat_or_match_greedy_on_bundled_tasks():
    for names in (["make-tea"], ["make-tea", "wash-clothes"], ["cook-pasta", "make-breakfast", "bake-bread"]):
        result = run([bundled(n) for n in names], planner="optimal", agents=1)
        assert result["optimal"] and result["feasible"], (names, result["problems"])
        if result["greedy"]["feasible"]:
            assert result["makespan"] <= result["greedy"]["makespan"]


def test_two_agents_split_the_work():
    result = run([bundled("make-tea"), bundled("wash-clothes")], planner="optimal", agents=2)
    assert result["feasible"] and result["optimal"]
    assert {entry["agent"] for entry in result["schedule"]} == {0, 1}
    assert result["makespan"] < run([bundled("make-tea"), bundled("wash-clothes")], planner="optimal")["makespan"]
