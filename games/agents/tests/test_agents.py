import pytest

from games.agents.dispatcher import DispatcherError, NpcSeat, build_dispatcher
from games.agents.headless import run_episode
from games.agents.llm import LlmClient
from games.agents.llm_dispatcher import LlmDispatcher, PromptOptions
from games.agents.planner_agent import PlannerBrain
from games.agents.random_agent import RandomBrain
from games.agents.replay_agent import ReplayBrain
from games.agents.tests.stub_server import stub_endpoint
from games.agents.tests.toy_rules import RULES, SCENARIO
from games.agents.turns import Decision, Turn
from games.engine.episode import LoggedAction


def fresh(agents=2):
    return RULES.initial_state(SCENARIO, agents=agents)


def test_random_brain_picks_legal_actions_reproducibly():
    state = fresh()
    first = [RandomBrain(seed=3).decide(Turn(RULES, state, [1]), {}).actions for _ in range(2)]
    assert first[0] == first[1]
    ((agent, action),) = first[0]
    assert agent == 1 and action in RULES.legal_actions(state, 1)
    memory = {}
    brain = RandomBrain(seed=3)
    draws = {brain.decide(Turn(RULES, state, [1]), memory).actions[0][1] for _ in range(30)}
    assert len(draws) > 1  # successive draws differ (a fresh generator per draw number)


def test_planner_brain_gives_two_agents_different_chores():
    decision = PlannerBrain("toy").decide(Turn(RULES, fresh(), [1, 2]), {})
    actions = dict(decision.actions)
    assert actions == {1: "do wash dish", 2: "do sweep floor"}


def test_replay_brain_waits_for_the_logged_time():
    brain = ReplayBrain([LoggedAction(0, "do sweep floor", 2), LoggedAction(1, "do wash dish", 0)], {0: 1})
    memory = {}
    assert brain.decide(Turn(RULES, fresh(), [1]), memory).actions == []
    later = RULES.advance(fresh(), 2).state
    assert brain.decide(Turn(RULES, later, [1]), memory).actions == [(1, "do sweep floor")]
    assert brain.decide(Turn(RULES, later, [1]), memory).actions == []


def test_dispatcher_never_commands_the_human():
    dispatcher = build_dispatcher("toy", [NpcSeat(1, "planner"), NpcSeat(2, "random")], human_agents=[0])
    decision = dispatcher.decide(Turn(RULES, fresh(3), [0, 1, 2]), {})
    assert sorted(agent for agent, _ in decision.actions) == [1, 2]


def test_unknown_kind_is_refused_with_the_choices():
    with pytest.raises(DispatcherError, match="llm, planner, random, replay"):
        build_dispatcher("toy", [NpcSeat(1, "oracle")])


def test_llm_dispatcher_prompt_has_every_part_and_commands_are_validated():
    replies = [
        # tasks numbers agents from 1 in its texts: agent index 1 is "Agent 2"
        "Agent 2: do wash dish\nAgent 1: do sweep floor\nAgent 3: do fly kite\nSay: on it!",
        "Agent 3: do water plant",
    ]
    with stub_endpoint(replies) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m")
        brain = LlmDispatcher(
            client, "tasks", npc_agents=[1, 2], human_agents=[0], options=PromptOptions(history_window=4)
        )
        memory = {}
        state = fresh(3)
        first = brain.decide(Turn(RULES, state, [1, 2], chat=["please wash the dish first"]), memory)
        assert first.actions == [(1, "do wash dish")]
        assert first.say == "on it!"
        call = first.calls[0]
        assert any("agent 1 is not yours" in p for p in call.problems)
        assert any("do fly kite" in p for p in call.problems)
        system, user = (m["content"] for m in endpoint.requests[0]["messages"])
        assert "Rules:" in system and "Hints:" in system and "Example of a turn" in system
        assert "Agent N: <action>" in system and "never command it" in system
        assert '"please wash the dish first"' in user and "To do: wash dish" in user
        second = brain.decide(Turn(RULES, state, [2]), memory)
        assert second.actions == [(2, "do water plant")]
        assert second.say == ""  # no "Say:": nothing for the chat (the log shows the command)
        user2 = endpoint.requests[1]["messages"][1]["content"]
        assert "Feedback on your last commands" in user2 and "do fly kite" in user2
        assert "you commanded agent 2: do wash dish" in user2  # the history window
        # the request stays in the next two prompts, as one asked earlier (said once, it was gone
        # from the next prompt while the busy teammate had not done it yet)
        assert 'Earlier the human asked (do it if it is not done yet):\n"please wash the dish first"' in user2
        assert "The human says" not in user2
        brain.decide(Turn(RULES, state, [2]), memory)
        brain.decide(Turn(RULES, state, [2]), memory)
        assert "please wash" in endpoint.requests[2]["messages"][1]["content"]
        assert "please wash" not in endpoint.requests[3]["messages"][1]["content"]


def test_llm_failure_idles_and_is_recorded():
    with stub_endpoint(["x"]) as endpoint:
        endpoint.status = 503
        brain = LlmDispatcher(LlmClient(base_url=endpoint.base_url, model="m"), "tasks", npc_agents=[1])
        decision = brain.decide(Turn(RULES, fresh(), [1]), {})
    assert decision.actions == [] and decision.calls[0].reply.error.startswith("HTTP 503")


def test_headless_episode_with_llm_dispatcher_finishes_the_chores():
    def script(messages):
        user = messages[-1]["content"]
        todo = user.split("To do: ")[1].split(".")[0].split(", ")
        return f"Agent 0: do {todo[0]}" if todo[0] != "nothing" else "Agent 0: wait"

    with stub_endpoint(script) as endpoint:
        dispatcher = build_dispatcher(
            "toy", [NpcSeat(0, "llm")], client_factory=lambda s: LlmClient(base_url=endpoint.base_url, model="m")
        )
        episode = run_episode(RULES, SCENARIO, dispatcher, agents=1)
    assert RULES.outcome(episode.state).reason == "all chores done"
    assert [a.action for a in episode.actions] == ["do wash dish", "do sweep floor", "do water plant"]
    assert len(episode.calls) == 3


def test_a_constrained_dispatcher_asks_for_one_legal_action_per_npc_and_reads_the_json():
    state = fresh(3)
    replies = ['{"agent 2": "do wash dish", "agent 3": "do sweep floor"}', "Agent 2: do wash dish", '{"agent 2": ""}']
    with stub_endpoint(replies) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m")
        brain = LlmDispatcher(client, "tasks", npc_agents=[1, 2], options=PromptOptions(constrained=True))
        first = brain.decide(Turn(RULES, state, [1, 2]), {})
        assert first.actions == [(1, "do wash dish"), (2, "do sweep floor")]
        schema = endpoint.requests[0]["response_format"]["json_schema"]["schema"]
        assert schema["required"] == ["agent 2", "agent 3"]
        assert schema["properties"]["agent 2"]["enum"] == RULES.legal_actions(state, 1)
        assert (
            'Answer with JSON only: {"agent 2": "<its action>", "agent 3": "<its action>"}'
            in (endpoint.requests[0]["messages"][-1]["content"])
        )
        # An endpoint that ignores the schema: nothing is taken from prose; the problem is fed back.
        prose = brain.decide(Turn(RULES, state, [1]), {})
        assert prose.actions == [] and prose.calls[0].problems == ["the reply was not the JSON object asked for"]
        empty = brain.decide(Turn(RULES, state, [1]), {})
        assert empty.actions == [] and empty.calls[0].problems == ["no command for agent 2"]
    assert first.say == ""  # the human said nothing: no answer asked for, none posted
    assert "say" not in schema["properties"]
    unconstrained = LlmDispatcher(client, "tasks", npc_agents=[1])
    assert unconstrained.options.constrained is False  # the papers' agents answer in free text


def test_constrained_replies_fall_back_to_free_text_when_actions_cannot_be_listed():
    from games.agents.llm_dispatcher import CONSTRAINED_MAX_CHOICES, reply_schema

    assert reply_schema("tasks", [1], {1: []}) is None
    assert reply_schema("tasks", [1], {1: [f"do {n}" for n in range(CONSTRAINED_MAX_CHOICES + 1)]}) is None
    assert reply_schema("tasks", [1], {1: ["wait", "wait", "do x"]})["properties"]["agent 2"]["enum"] == [
        "wait",
        "do x",
    ]


def test_a_constrained_reply_answers_the_human_when_they_have_spoken():
    state = fresh(2)
    replies = ['{"agent 2": "do wash dish", "say": "  Sure,\\n I will wash it. "}']
    with stub_endpoint(replies) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m")
        brain = LlmDispatcher(client, "tasks", npc_agents=[1], options=PromptOptions(constrained=True))
        decision = brain.decide(Turn(RULES, state, [1], chat=["can you wash the dish?"]), {})
    schema = endpoint.requests[0]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["agent 2", "say"] and schema["properties"]["say"] == {"type": "string"}
    assert '"say": "<a short answer to the human>"' in endpoint.requests[0]["messages"][-1]["content"]
    assert decision.actions == [(1, "do wash dish")]
    assert decision.say == "Sure, I will wash it."


def test_a_placeholder_copied_from_the_answer_format_is_not_said_to_the_human():
    # The bundled SmolLM2 answered '"say": "<a short answer to the human>"', which the chat showed.
    state = fresh(2)
    replies = [
        '{"agent 2": "do wash dish", "say": "<a short answer to the human>"}',
        "Agent 2: do wash dish\nSay: <a short message to the human>",
    ]
    with stub_endpoint(replies) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m")
        held = LlmDispatcher(client, "tasks", npc_agents=[1], options=PromptOptions(constrained=True))
        constrained = held.decide(Turn(RULES, state, [1], chat=["can you wash the dish?"]), {})
        free = LlmDispatcher(client, "tasks", npc_agents=[1]).decide(Turn(RULES, state, [1], chat=["hi"]), {})
    assert constrained.actions == free.actions == [(1, "do wash dish")]
    assert constrained.say == free.say == ""


def test_a_benchmarks_dispatcher_hands_the_rules_what_it_wrote_where_a_teammate_idles():
    # A benchmark of the dispatcher on TimeArena's rules: a reply with no usable command, while the
    # rice cooks by itself, let time run to the next deadline; with nothing under way that was the
    # time limit, so one muddled reply ended the episode. Like the papers' agents (and react), it
    # now sends the rules what it wrote, which refuse it and use up that minute (SPEC section 3).
    from games.agents.factory import make_agent
    from games.domains.tasks.rules import RULES as TASKS
    from games.domains.tasks.tests.helpers import RICE

    replies = ["I think we should relax.", "Agent 1: pick rice", "Agent 1: cook rice in pot", "Agent 1: wash dish"]
    replies += ["Agent 1: add rice to dish"] * 10
    with stub_endpoint(replies) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m")
        brain = make_agent("tasks", "dispatcher", llm=client.config, client=client)
        episode = run_episode(TASKS, RICE, brain, agents=1, max_turns=30)
    assert [(a.time, a.action) for a in episode.actions][:4] == [
        (0, "i think we should relax"),  # refused (invalid action): the minute is used up
        (1, "pick rice"),
        (3, "cook rice in pot"),
        (4, "wash dish"),
    ]
    result = TASKS.result(episode.state)
    assert result["counts"]["invalid"] == 1 and result["completed"], result
    # a teammate in a game keeps only what can run: the muddled reply is no command at all
    with stub_endpoint(["I think we should relax."]) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m")
        teammate = LlmDispatcher(client, "tasks", npc_agents=[0])
        state = TASKS.initial_state(RICE, agents=1)
        assert teammate.decide(Turn(TASKS, state, [0]), {}).actions == []
        # MindAgent's kitchen dispatcher leaves an agent without a command idle for the step
        assert not make_agent("kitchen", "dispatcher", llm=client.config, client=client).sends_refused


def test_a_turns_prompt_puts_what_stays_the_same_first_so_a_model_server_can_reuse_it():
    # llama.cpp and vLLM keep the last prompt's computed prefix (hosted APIs cache prefixes too): the
    # recipe book goes right after the system prompt and what changes each turn comes after it.
    from games.domains.recipes.knowledge import book
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import kitchen

    brain = LlmDispatcher(None, "recipes", npc_agents=[1], human_agents=[0])
    start = RECIPES.initial_state(kitchen(), agents=2)
    first = brain.messages(Turn(RECIPES, start, [1]), {})
    moved = RECIPES.act(start, 0, "Step(0, Bake)", 0)
    later = RECIPES.advance(moved.state, 600)
    events = [*moved.events, *later.events]
    second = brain.messages(Turn(RECIPES, later.state, [1], events, ["mix the batter"]), {"problems": ["p"]})
    assert first[0] == second[0]
    before, after = first[1]["content"], second[1]["content"]
    shared = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), len(before))
    assert after.startswith("Relevant now:\n" + book(start)) and shared > len("Relevant now:\n" + book(start))
    user = second[1]["content"]
    parts = ["Where the steps stand at 00:10:00", "Current state:", "Recent history", "Feedback on", "The human says"]
    assert [user.index(part) for part in parts] == sorted(user.index(part) for part in parts)
    assert user.rstrip().endswith("Agents to command now: 1\nYour commands:")
    # the history's times read like the state's clock (recipes count seconds: not "t=600")
    assert "at 00:10:00 agent 0: " in user and "t=600" not in user


def test_feedback_and_history_number_agents_as_the_prompt_does():
    # tasks writes agent index 1 as "agent 2" everywhere else in the prompt; the history and the
    # feedback said "agent 1", which is the human's number there.
    brain = LlmDispatcher(None, "tasks", npc_agents=[1], human_agents=[0])
    state = fresh(2)
    started = RULES.act(state, 1, "do wash dish", 0)
    refused = RULES.act(started.state, 0, "do fly kite", 0)
    refused_npc = RULES.act(started.state, 1, "do fly kite", 0)
    events = [*started.events, *refused.events, *refused_npc.events]
    user = brain.messages(Turn(RULES, started.state, [1], events), {})[1]["content"]
    assert "agent 2: you start wash dish" in user
    assert "agent 2: 'do fly kite' was refused" in user
    assert "agent 1: 'do fly kite'" not in user  # the human's refusal is not the dispatcher's feedback


def test_a_teammate_with_nothing_it_could_do_asks_the_model_nothing_unless_the_human_spoke():
    # A recipes cook waiting for the oven has no legal action; the loop asks every two seconds, and
    # each call kept the one model server busy for a reply that could only be refused.
    state = RULES.act(fresh(2), 1, "do wash dish", 0).state  # agent 1 is busy for two minutes
    assert RULES.legal_actions(state, 1) == []
    with stub_endpoint(["Agent 2: wait", "Agent 2: wait\nSay: I am washing the dish."]) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m")
        teammate = LlmDispatcher(client, "tasks", npc_agents=[1], human_agents=[0])
        assert teammate.decide(Turn(RULES, state, [1]), {}) == Decision()
        assert endpoint.requests == []
        spoken = teammate.decide(Turn(RULES, state, [1], chat=["what are you doing?"]), {})
        assert len(endpoint.requests) == 1 and spoken.calls  # the human is answered
        benchmark = LlmDispatcher(client, "tasks", npc_agents=[1], sends_refused=True)
        benchmark.decide(Turn(RULES, state, [1]), {})
        assert len(endpoint.requests) == 2  # a benchmark's agent is asked as the papers' were


def test_an_episodes_score_curve_reaches_its_last_decision_and_moment():
    # the curve kept a point only when the score changed, so a benchmark page drew an agent that
    # scored at decision 1 and then wasted four decisions as ending at decision 1
    class OneChoreThenNonsense:
        kind = "scripted"

        def decide(self, turn, memory):
            memory["n"] = memory.get("n", 0) + 1
            return Decision(actions=[(0, "do wash dish" if memory["n"] == 1 else "dance")])

    def chores_done(state):
        return 100.0 * len(state.done) / len(state.chores)

    episode = run_episode(RULES, SCENARIO, OneChoreThenNonsense(), agents=1, max_turns=5, score=chores_done)
    assert episode.turns == 5 and episode.stopped == "stopped after 5 turns"
    first, *changes, last = episode.curve
    assert first == [0.0, 0, 0.0] and changes[-1][2] == last[2] > 0
    assert last[1:] == [5, changes[-1][2]] and last[0] == RULES.now(episode.state)  # the end, not the last change


def test_two_planner_seats_plan_around_each_other_not_both_take_the_same_step():
    """Each planner seat is its own brain; given the same state, the four planner teammates of a
    recipes game all chose "Step(0, Tomato-Soup)" and three were refused (found watching a study's
    pilot game)."""
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import kitchen

    state = RECIPES.initial_state(kitchen(), agents=3)  # Bake and Soup: three steps can start at once
    seats = [NpcSeat(1, "planner"), NpcSeat(2, "planner")]
    decision = build_dispatcher("recipes", seats, human_agents=[0]).decide(Turn(RECIPES, state, [1, 2]), {})
    assert [agent for agent, _ in decision.actions] == [1, 2]
    for agent, action in decision.actions:  # as the loop applies them, in order
        transition = RECIPES.act(state, agent, action, 0)
        assert transition.rejection is None, (agent, action, transition.rejection)
        state = transition.state


def test_a_researchers_own_hints_follow_the_games_in_the_prompt_and_stand_alone_without_them():
    from games.agents.llm_dispatcher import OWN_HINTS_MAX, PromptOptionError, domain_text

    own = "Start the long jobs first."
    client = LlmClient(base_url="http://127.0.0.1:9", model="m")  # never called: only the prompt is built
    turn = Turn(RULES, fresh(2), [1])
    game_hints = domain_text("tasks", "hints").strip()
    assert game_hints
    both = LlmDispatcher(client, "tasks", npc_agents=[1], options=PromptOptions(own_hints=own)).messages(turn, {})
    assert f"Hints:\n{game_hints}\n{own}\n" in both[0]["content"]
    alone = PromptOptions.from_json({"hints": False, "own_hints": own})
    system = LlmDispatcher(client, "tasks", npc_agents=[1], options=alone).messages(turn, {})[0]["content"]
    assert f"Hints:\n{own}\n" in system and game_hints not in system
    none = LlmDispatcher(client, "tasks", npc_agents=[1], options=PromptOptions(hints=False)).messages(turn, {})
    assert "Hints:" not in none[0]["content"]
    for bad in ("x" * (OWN_HINTS_MAX + 1), 7, "a\x00b"):
        with pytest.raises(PromptOptionError, match="own_hints is a text of at most 2,000 characters"):
            PromptOptions.from_json({"own_hints": bad})


def test_a_seats_model_max_tokens_sets_the_reply_length_unless_its_prompt_names_one():
    """The agents always asked for the prompt's reply length (160), so a seat's
    {"llm": {"max_tokens": 400}} was accepted and never used."""
    lengths = []
    with stub_endpoint(lambda messages: "Agent 2: do wash dish") as endpoint:
        for settings in (
            {"llm": {"max_tokens": 400}},
            {"max_tokens": 300},
            {"max_tokens": 400, "prompt": {"max_tokens": 50}},
            {},
        ):
            seats = [NpcSeat(1, "llm", settings)]
            dispatcher = build_dispatcher(
                "tasks", seats, client_factory=lambda s: LlmClient(base_url=endpoint.base_url, model="m")
            )
            dispatcher.decide(Turn(RULES, fresh(2), [1]), {})
            lengths.append(endpoint.requests[-1]["max_tokens"])
    assert lengths == [400, 300, 50, 160]
