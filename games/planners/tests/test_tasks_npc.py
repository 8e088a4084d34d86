from games.domains.tasks.definition import compile_definition, compose
from games.domains.tasks.rules import RULES
from games.domains.tasks.tests.helpers import bundled, bundled_names
from games.engine.episode import play
from games.planners import tasks_optimal
from games.planners.tasks_npc import npc_policy


def test_the_planner_teammate_finishes_every_bundled_task_within_the_limit():
    for name in bundled_names():
        episode = play(RULES, bundled(name), {0: npc_policy})
        assert RULES.outcome(episode.state).terminated, name
        result = RULES.result(episode.state)
        assert result["counts"]["invalid"] + result["counts"]["dependency"] + result["counts"]["object_busy"] == 0


def test_the_planner_teammate_is_close_to_the_optimum_and_uses_extra_agents():
    definition = compose([bundled("cook-pasta"), bundled("make-breakfast"), bundled("bake-bread")])
    alone = play(RULES, definition, {0: npc_policy})
    team = play(RULES, definition, {0: npc_policy, 1: npc_policy})
    optimum = tasks_optimal.plan(compile_definition(definition)).makespan
    assert optimum is not None
    assert optimum <= alone.state.time <= optimum + 10
    assert team.state.time <= alone.state.time
    assert {e.agent for e in team.events if e.kind == "started"} == {0, 1}


def test_it_waits_only_when_nothing_can_start():
    state = RULES.initial_state(bundled("make-tea"), agents=2)
    state = RULES.act(state, 0, "fill kettle", 0).state
    state = RULES.act(state, 1, npc_policy(RULES, state, 1), 0).state
    assert npc_policy(RULES, state, 0) is None  # busy


def _chain_text(n: int, *, reverse: bool = False, ladder: bool = False) -> str:
    lines = ['title = "Cups"', 'goal = "every cup washed"', "appliances = []"]
    for i in reversed(range(n)) if reverse else range(n):
        lines += ["", "[[actions]]", f'do = "wash cup{i}"', "minutes = 1"]
        needs = [f'"wash cup{j}"' for j in ((i - 1, i - 2) if ladder else (i - 1,)) if j >= 0]
        if needs:
            lines.append(f"after = [{', '.join(needs)}]")
    return "\n".join(lines) + "\n"


def test_the_critical_path_of_a_long_or_tangled_chain_is_worked_out_in_one_pass():
    """A recursive depth per action overflowed Python's stack on a chain of 600 actions (a server
    error in the studio) and took exponential time where each action needs the two before it."""
    from games.domains.tasks.content import read_task
    from games.planners.tasks_npc import _tails

    chains = ((_chain_text(600), 600), (_chain_text(1200, reverse=True), 1200), (_chain_text(60, ladder=True), 60))
    for text, n in chains:
        scenario = RULES.initial_state(read_task("cups", text), seed=0, agents=1).scenario
        tails = _tails(scenario)
        by_name = {a.text: tails[a.index] for a in scenario.actions}
        assert by_name["wash cup0"] == n and by_name[f"wash cup{n - 1}"] == 1  # the whole chain, then the last alone
