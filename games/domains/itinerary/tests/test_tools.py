"""LLM tools: read-only SQL over the brief's travel data, and "check this plan"."""

from __future__ import annotations

import pytest

from games.domains.itinerary.tests.worlds import definition
from games.domains.itinerary.tools import MAX_ROWS, TravelDatabase, check_plan


@pytest.fixture
def database():
    db = TravelDatabase(definition())
    yield db
    db.close()


def test_select_reads_the_published_schema(database):
    result = database.query(
        "SELECT number, departure_time, duration, price FROM railway WHERE origin = 'Alpha' ORDER BY departure_time"
    )
    assert result["columns"] == ["number", "departure_time", "duration", "price"]
    assert result["rows"] == [["T1", "2024-01-01 10:00:00", 60, 40.0], ["T3", "2024-01-02 08:00:00", 90, 90.0]]
    hours = database.query("SELECT opening_hours_begin, opening_hours_end FROM place WHERE name = 'Tower'")
    assert hours["rows"] == [[9, 18]]
    transfer = database.query("SELECT duration, city FROM in_city_transport WHERE origin = 'Tower'")
    assert transfer["rows"] == [[20, "Alpha"]]


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM railway",
        "UPDATE railway SET price = 0",
        "INSERT INTO place VALUES ('x', 'y', 'spot', 0, 24)",
        "DROP TABLE place",
        "CREATE TABLE evil(x)",
        "ATTACH DATABASE '/tmp/evil.db' AS evil",
        "PRAGMA query_only = OFF",
    ],
)
def test_every_write_is_refused_and_changes_nothing(database, sql):
    result = database.query(sql)
    assert "error" in result and "SELECT" in result["error"]
    assert database.query("SELECT count(*) FROM railway")["rows"] == [[4]]
    assert database.query("SELECT count(*) FROM place")["rows"] == [[4]]


def test_several_statements_and_bad_sql_come_back_as_messages(database):
    assert "one statement" in database.query("SELECT 1; DELETE FROM railway")["error"]
    assert "SQL error" in database.query("SELECT nope FROM railway")["error"]
    assert "Tables:" in database.query("")["error"]


def test_results_are_capped_and_runaway_queries_stopped(database):
    capped = database.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 500) SELECT i FROM n")
    assert len(capped["rows"]) == MAX_ROWS and capped["truncated"]
    runaway = database.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n")
    assert "too long" in runaway["error"]


def test_check_plan_returns_the_breakdown_and_the_rejected_lines():
    result = check_plan(
        definition(),
        "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:05)\n"
        "go_to_place(Alpha Railway Hotel, Tower, 2024-01-01 09:00, 2024-01-01 09:20)\n"
        "visit(Tower, 2024-01-01 09:20, 2024-01-01 10:20)\n",
    )
    assert result["rejected_lines"][0]["line"] == 1 and "takes 20 minutes" in result["rejected_lines"][0]["message"]
    assert result["executability"] < 60 and result["total"] == result["executability"]
    names = {c["check"] for c in result["checks"]}
    assert {"position", "time_order", "transfer_duration", "opening_hours", "spot_minutes", "budget"} <= names


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        # issue 15 finding 5: each of these ran for minutes, raised MemoryError or a TypeError
        ("SELECT randomblob(300000000) FROM railway", "too big"),
        ("SELECT zeroblob(2000000000)", "too big"),
        ("SELECT length(zeroblob(9223372036854775807))", "too big"),
        ("SELECT replace(hex(zeroblob(400000)), '0', hex(zeroblob(400000)))", "too big"),
        ("SELECT " + "(" * 500 + "1" + ")" * 500, "too"),
        ("SELECT 1 " + "UNION ALL SELECT 1 " * 100, "too"),
        ("SELECT '" + "x" * 20_000 + "'", "too long"),
    ],
)
def test_huge_values_and_texts_are_tool_errors(database, sql, problem):
    result = database.query(sql)
    assert problem in result["error"]


def test_a_slow_query_is_stopped_by_the_wall_clock(database, monkeypatch):
    import games.domains.itinerary.tools as tools

    monkeypatch.setattr(tools, "MAX_SECONDS", 0.2)
    monkeypatch.setattr(tools, "MAX_STEPS", 10**15)  # only the clock can stop it
    sql = (
        "WITH RECURSIVE n(i, b) AS (SELECT 1, randomblob(1000) UNION ALL SELECT i + 1, randomblob(1000) FROM n)"
        " SELECT count(*) FROM n"
    )
    assert "too long" in database.query(sql)["error"]


def test_blobs_and_long_text_are_described_not_dumped(database):
    result = database.query("SELECT zeroblob(1000), hex(zeroblob(1000))")
    assert result["rows"][0][0] == "<blob of 1000 bytes>" and len(result["rows"][0][1]) < 600
    assert "only reading" in database.query("SELECT printf('%.*c', 2000000000, 'x')")["error"]  # seconds in C
    assert database.query(None)["error"].startswith("write one SELECT")  # type: ignore[arg-type]
