from typing import Any

from games.agents.headless import run_episode
from games.agents.llm import LlmClient
from games.agents.plan_and_solve import PlanAndSolveAgent
from games.agents.react import ReactAgent
from games.agents.tests.stub_server import stub_endpoint
from games.agents.tests.toy_rules import RULES, SCENARIO


def test_react_takes_the_action_line_and_feeds_back_refusals():
    replies = [
        "Thought: the floor first.\nAction: do sweep floor",
        "Thought: hmm\nAction: juggle",
        "Action: do wash dish",
    ]
    with stub_endpoint(replies + ["Action: do water plant"] * 5) as endpoint:
        agent = ReactAgent(LlmClient(base_url=endpoint.base_url, model="m"), "tasks")
        episode = run_episode(RULES, SCENARIO, agent, max_turns=8)
    actions = [a.action for a in episode.actions]
    assert actions[:3] == ["do sweep floor", "juggle", "do wash dish"]  # an unparsed action goes to the rules
    third_prompt = endpoint.requests[2]["messages"][1]["content"]
    assert "'juggle' was refused (invalid_action)" in third_prompt
    assert "Action: do sweep floor" in third_prompt  # its own history
    assert RULES.outcome(episode.state).reason == "all chores done"


def test_plan_and_solve_plans_once_and_replans_after_a_refusal():
    replies = ["Plan:\n1. do wash dish\n2. do wash dish\n3. do water plant", "do sweep floor\ndo water plant"]
    with stub_endpoint(replies) as endpoint:
        agent = PlanAndSolveAgent(LlmClient(base_url=endpoint.base_url, model="m"), "tasks")
        episode = run_episode(RULES, SCENARIO, agent, max_turns=10)
    assert [a.action for a in episode.actions] == ["do wash dish", "do wash dish", "do sweep floor", "do water plant"]
    assert len(endpoint.requests) == 2
    assert "Your previous plan failed here" in endpoint.requests[1]["messages"][1]["content"]
    assert RULES.outcome(episode.state).reason == "all chores done"


def test_a_call_that_fails_is_asked_again_instead_of_ending_the_episode():
    """A benchmark of react on a trip ended "nothing more can happen" at minute 0 when one call
    timed out: nothing moves by itself in a trip (nor on a task with nothing under way, where time
    ran to the limit), so the brain is asked again; three failures in a row end it, saying so."""
    from games.domains.tasks.rules import RULES as TASKS
    from games.domains.tasks.tests.helpers import RICE

    replies = ["Action: pick rice", "Action: cook rice in pot", "Action: wash dish"]
    replies += ["Action: add rice to dish"] * 10
    with stub_endpoint(replies) as endpoint:
        endpoint.fail_next = [503]
        agent = ReactAgent(LlmClient(base_url=endpoint.base_url, model="m"), "tasks")
        episode = run_episode(TASKS, RICE, agent, max_turns=30)
    assert [a.action for a in episode.actions][:2] == ["pick rice", "cook rice in pot"]
    assert episode.actions[0].time == 0 and TASKS.result(episode.state)["completed"]
    assert sum(not c.reply.ok for c in episode.calls) == 1
    with stub_endpoint(replies) as endpoint:
        endpoint.fail_next = [503, 503, 503]
        agent = ReactAgent(LlmClient(base_url=endpoint.base_url, model="m"), "tasks")
        episode = run_episode(TASKS, RICE, agent, max_turns=30)
    assert episode.actions == [] and len(endpoint.requests) == 3
    assert episode.stopped == "the model did not answer 3 times in a row"


def test_react_in_the_kitchen_keeps_a_refused_command_back_and_the_step_goes_on():
    """MindAgent's kitchen gives each agent one command per step: a command the rules refuse
    leaves its agent idle for the step. Sent to the rules it was refused without moving the step,
    and a model that kept writing it was asked again at step 0 until the turn limit."""
    from games.domains.kitchen.rules import RULES as KITCHEN
    from games.domains.kitchen.tests.test_rules import SUSHI

    level = {**SUSHI, "max_steps": 6}
    replies = ["Thought: hm\nAction: goto(agent0, nowhere)", "Action: goto(agent0, storage0)"]
    with stub_endpoint(replies + ["Action: fly(agent0)"] * 10) as endpoint:
        agent = ReactAgent(LlmClient(base_url=endpoint.base_url, model="m"), "kitchen")
        episode = run_episode(KITCHEN, level, agent, agents=1, max_turns=50)
    assert KITCHEN.outcome(episode.state).over and KITCHEN.now(episode.state) == 6  # the kitchen closed
    assert episode.turns == 6 and len(endpoint.requests) == 6  # one decision per step
    assert [(a.action, a.time) for a in episode.actions] == [("goto storage0", 1)]  # the others refused
    second_prompt = endpoint.requests[1]["messages"][1]["content"]
    assert "'goto(agent0, nowhere)' was refused" in second_prompt and "Action: goto(agent0, nowhere)" in second_prompt
    assert episode.calls[0].problems and not episode.calls[1].problems


def test_react_agents_of_one_kitchen_each_keep_their_own_history():
    from games.domains.kitchen.rules import RULES as KITCHEN
    from games.domains.kitchen.tests.test_rules import SUSHI

    def script(messages: list[dict[str, Any]]) -> str:
        if "agent1 (you)" in messages[-1]["content"]:
            return "Action: goto(agent1, pot0)"
        return "Action: goto(agent0, storage0)"

    with stub_endpoint(script) as endpoint:
        agent = ReactAgent(LlmClient(base_url=endpoint.base_url, model="m"), "kitchen")
        run_episode(KITCHEN, {**SUSHI, "max_steps": 3}, agent, agents=2, max_turns=3)
    prompts = [r["messages"][1]["content"] for r in endpoint.requests]
    histories = [p.partition("Your recent steps:")[2].split("\n\n")[0] for p in prompts]
    assert histories[0] == "" and histories[1] == ""  # each agent's first turn: nothing done yet
    assert "storage0" in histories[2] and "pot0" not in histories[2]
    assert "pot0" in histories[3] and "storage0" not in histories[3]


def test_each_agents_calls_are_labelled_with_the_agent_that_asked():
    """A kitchen's call log listed every call as "react": nobody could tell agent 0's question from
    agent 1's. The label names the agent as the game's pages do (a kitchen counts from 0, tasks from 1)."""
    from games.domains.kitchen.rules import RULES as KITCHEN
    from games.domains.kitchen.tests.test_rules import SUSHI

    with stub_endpoint(["Action: goto(agent0, storage0)", "Action: goto(agent1, pot0)"] * 4) as endpoint:
        agent = ReactAgent(LlmClient(base_url=endpoint.base_url, model="m"), "kitchen")
        episode = run_episode(KITCHEN, {**SUSHI, "max_steps": 2}, agent, agents=2, max_turns=2)
    assert [c.agent for c in episode.calls] == ["react/agent 0", "react/agent 1"] * 2
    with stub_endpoint(["do sweep floor\ndo wash dish\ndo water plant"]) as endpoint:
        planner = PlanAndSolveAgent(LlmClient(base_url=endpoint.base_url, model="m"), "tasks")
        episode = run_episode(RULES, SCENARIO, planner, max_turns=5)
    assert [c.agent for c in episode.calls] == ["plan-and-solve/agent 1"]


def test_an_episode_whose_every_action_is_refused_ends_after_ten_decisions():
    """A trip's rules set no limit on refused actions (TimeArena and Recipe2Plan end the game
    themselves after 5 and 3 in a row): a model writing nothing they accept was asked again at
    the same moment until the turn limit, one call per turn."""
    from games.domains.itinerary.rules import RULES as ITINERARY
    from games.domains.itinerary.tests.worlds import definition

    with stub_endpoint(["Action: fly to the moon"] * 3 + ["Action: teleport home"] * 20) as endpoint:
        agent = ReactAgent(LlmClient(base_url=endpoint.base_url, model="m"), "itinerary")
        episode = run_episode(ITINERARY, definition(), agent, max_turns=50)
    assert episode.stopped == "every action of 10 decisions in a row was refused"
    assert episode.turns == 10 and len(endpoint.requests) == 10
    assert ITINERARY.now(episode.state) == ITINERARY.now(ITINERARY.initial_state(definition()))


def test_plan_and_solve_sends_an_unusable_plans_first_step_so_the_refusal_asks_for_a_new_plan():
    """A plan with no line in the grammar left the agent idle to the next deadline, which with
    nothing under way was the time limit: one unusable reply ended a TimeArena game at minute 0."""
    replies = [
        "Plan:\n1. First I will think carefully about all the chores.",
        "do sweep floor\ndo wash dish\ndo water plant",
    ]
    with stub_endpoint(replies) as endpoint:
        agent = PlanAndSolveAgent(LlmClient(base_url=endpoint.base_url, model="m"), "tasks")
        episode = run_episode(RULES, SCENARIO, agent, max_turns=10)
    assert episode.actions[0].action == "first i will think carefully about all the chores"  # as written, refused
    assert (
        len(endpoint.requests) == 2
        and "Your previous plan failed here" in endpoint.requests[1]["messages"][1]["content"]
    )
    assert RULES.outcome(episode.state).reason == "all chores done"


def test_plan_and_solve_takes_its_plans_first_step_in_the_turn_it_planned():
    """The new plan was stored in a new list while the turn read the old, empty one, so the agent
    idled one deadline before acting: with nothing under way in a TimeArena game that deadline is
    the time limit, and every plan-and-solve episode ended at minute 0 with no action."""
    from games.domains.tasks.rules import RULES as TASKS
    from games.domains.tasks.tests.helpers import RICE

    plan = "Plan:\n1. pick rice\n2. cook rice in pot\n3. wash dish\n4. add rice to dish"
    with stub_endpoint([plan]) as endpoint:
        agent = PlanAndSolveAgent(LlmClient(base_url=endpoint.base_url, model="m"), "tasks")
        episode = run_episode(TASKS, RICE, agent, max_turns=30)
    assert episode.actions[0].action == "pick rice" and episode.actions[0].time == 0
    assert TASKS.result(episode.state)["completed"] and len(endpoint.requests) == 1
