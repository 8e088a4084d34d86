"""The dispatcher's text interface: state text, grammar and the strict command extractor."""

from __future__ import annotations

from games.domains.kitchen.rules import RULES
from games.domains.kitchen.tests.test_rules import SUSHI, step
from games.domains.kitchen.text import GRAMMAR, extract_commands, state_text


def state(agents=3):
    return RULES.initial_state(SUSHI, seed=3, agents=agents)


def test_state_text_shows_agents_tools_orders_and_step():
    current, _ = step(state(), (0, "goto storage0"), (1, "goto chopboard0"))
    current, _ = step(current, (0, "get storage0 rice"))
    text = state_text(current)
    assert "step 2 of 60" in text
    assert "#1 salmonSushi: 11 steps left" in text
    assert "agent0: at storage0, holding rice" in text
    assert "agent1: at chopboard0, holding nothing" in text
    assert "pot0: empty" in text


def test_state_text_shows_busy_tools_and_last_feedback():
    current, _ = step(state(), (0, "goto storage0"))
    current, _ = step(current, (0, "get storage0 tuna"))
    current, _ = step(current, (0, "goto pot0"))
    current, _ = step(current, (0, "put pot0"))
    text = state_text(current)
    assert "feedback from the last step:" in text and "would make waste" in text
    assert "suggestions:" in text


def test_grammar_names_every_verb():
    for verb in ("goto(agentN", "get(agentN", "put(agentN", "activate(agentN", "noop(agentN)"):
        assert verb in GRAMMAR


def test_extractor_reads_one_command_per_agent_in_reply_order_and_ignores_prose():
    reply = (
        "Thought: agent2 should fetch rice while agent1 chops.\nget(agent2, storage0, rice)\ngoto(agent1, chopboard0)\n"
    )
    result = extract_commands(reply, state(), agents=[1, 2])
    assert list(result.commands.items()) == [(2, "get storage0 rice"), (1, "goto chopboard0")]
    assert result.errors == []


def test_extractor_rejects_duplicates_per_agent():
    reply = "goto(agent1, pot0)\ngoto(agent1, mixer0)\nnoop(agent2)"
    result = extract_commands(reply, state(), agents=[1, 2])
    assert result.commands == {2: "noop"}
    assert result.errors == ["agent1 got 2 commands (goto(agent1, pot0); goto(agent1, mixer0)); give exactly one"]


def test_extractor_rejects_the_human_unknown_locations_and_empty_replies():
    result = extract_commands("goto(agent0, pot0) goto(agent1, pot7) noop(agent2)", state(), agents=[1, 2])
    assert result.commands == {2: "noop"}
    assert any("agent0 is not yours" in error for error in result.errors)
    assert any("no location 'pot7'" in error for error in result.errors)
    empty = extract_commands("I think we should cook.", state(), agents=[1, 2])
    assert empty.commands == {} and "no command found" in empty.errors[0]


def test_extracted_commands_are_accepted_by_act():
    current = state()
    result = extract_commands("goto(agent1, storage0) noop(agent2)", current, agents=[1, 2])
    for agent, command in result.commands.items():
        transition = RULES.act(current, agent, command, current.step)
        assert transition.rejection is None
        current = transition.state
    assert current.commands == ((1, "goto storage0"), (2, "noop"))
