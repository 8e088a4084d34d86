import pytest

from games.agents.headless import run_episode
from games.agents.llm import LlmClient
from games.agents.tdag import TdagAgent, parse_subtasks
from games.agents.tests.stub_server import stub_endpoint
from games.domains.itinerary import now as now_forms
from games.domains.itinerary.tools import TravelDatabase
from games.engine import registry


@pytest.fixture(scope="module")
def brief():
    from games.importers.bundled_itinerary import definitions

    for _brief, definition in definitions():
        if definition["origin_city"] == "Harbourton" and definition.get("constraints", {}).get("city_days"):
            return definition
    pytest.skip("no bundled multi-city brief")


def test_the_agents_sql_tool_is_the_published_schema_one():
    db = TravelDatabase({"world": {"trains": [["G1", "A", "B", "2024-05-01 08:00", "2024-05-01 09:00", 10]]}})
    assert "G1 | A | B | 2024-05-01 08:00:00" in db.query_text("select * from railway where origin = 'A'")
    assert db.query_text("delete from railway").startswith("error: only reading is allowed")
    assert db.query_text("select 1; drop table railway").startswith("error: one statement")
    assert "(no rows)" in db.query_text("select * from place")


def test_parse_subtasks_reads_a_numbered_list():
    assert parse_subtasks("Sure!\n1. go to Stonegate\n2) stay two days\nthanks", 5) == [
        "go to Stonegate",
        "stay two days",
    ]


def test_tdag_decomposes_uses_tools_and_updates_subtasks(brief):
    rules = registry.get("itinerary")
    state = rules.initial_state(brief)
    # the menu offers "take train T to Y"; the agent here writes the fully timed form it means
    phrase = next(a for a in rules.legal_actions(state, 0) if a.startswith("take train"))
    train = now_forms.resolve(state, phrase).text()
    origin, destination, *_times, number = (part.strip() for part in train[len("go_to_city(") : -1].split(","))
    requests = []

    def script(messages):
        requests.append(messages)
        system, last = messages[0]["content"], messages[-1]["content"]
        if "Split this brief" in last:
            return f"1. Take a train to {destination}\n2. Stay there"
        if "Rewrite the remaining subtasks" in last:
            return f"1. Stay in {destination} for two days"
        if "SQL result" in last:
            return f"CHECK:\n{train}"
        if "Check result" in last:
            return train
        if "Take a train" in system and "SQL result" not in str(messages):
            where = f"origin = '{origin}' and destination = '{destination}'"
            return f"SQL: select number, departure_time from railway where {where}"
        return "nothing useful"

    with stub_endpoint(script) as endpoint:
        agent = TdagAgent(LlmClient(base_url=endpoint.base_url, model="m"))
        episode = run_episode(rules, brief, agent, max_turns=6)
    assert episode.actions[0].action == train
    sql_answer = requests[2][-1]["content"]
    assert sql_answer.startswith("SQL result:") and number in sql_answer
    assert requests[3][-1]["content"].startswith("Check result:\nok go_to_city")
    labels = [c.agent for c in episode.calls]
    assert labels[:4] == ["tdag/main", "tdag/sub-1", "tdag/sub-1", "tdag/sub-1"] and "tdag/sub-2" in labels
    assert any("Rewrite the remaining subtasks" in r[-1]["content"] for r in requests)
    sub2 = next(r for r in requests if f"Stay in {destination} for two days" in r[0]["content"])
    assert (
        f"subtask 1 (Take a train to {destination})" in sub2[-1]["content"]
    )  # earlier results reach the next sub-agent


def test_a_subtask_without_actions_is_followed_by_the_next_in_the_same_turn(brief):
    """A sub-agent that found nothing left the turn without an action; a trip does not move by
    itself, so the episode ended "nothing more can happen" and the other subtasks were never tried."""
    rules = registry.get("itinerary")
    state = rules.initial_state(brief)
    phrase = next(a for a in rules.legal_actions(state, 0) if a.startswith("take train"))
    train = now_forms.resolve(state, phrase).text()

    def script(messages):
        system, last = messages[0]["content"], messages[-1]["content"]
        if "Split this brief" in last:
            return "1. Think about the weather\n2. Take the first train"
        if "Rewrite the remaining subtasks" in last:
            return "1. Take the first train"
        if "Take the first train" in system:
            return train
        return "I am not sure."

    with stub_endpoint(script) as endpoint:
        agent = TdagAgent(LlmClient(base_url=endpoint.base_url, model="m"))
        episode = run_episode(rules, brief, agent, max_turns=3)
    assert [a.action for a in episode.actions][:1] == [train]  # in the first turn
    assert episode.turns >= 1 and episode.actions[0].time == rules.now(state)
    labels = [c.agent for c in episode.calls]
    assert labels[0] == "tdag/main" and "tdag/sub-1" in labels and "tdag/sub-2" in labels
    assert len(endpoint.requests) == len(episode.calls)
