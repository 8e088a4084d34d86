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
    assert actions[:3] == ["do sweep floor", "thought: hmm", "do wash dish"]  # unparsed text goes to the rules
    third_prompt = endpoint.requests[2]["messages"][1]["content"]
    assert "'thought: hmm' was refused (invalid_action)" in third_prompt
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
