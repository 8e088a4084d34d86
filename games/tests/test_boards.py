"""The pieces the boards are drawn from: the timeline's bars and lanes, seat names, the kitchen's
readable names, grouped commands, recipe book and one-line-per-step log, and the headline metric."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from games import kitchen_view, metrics, presenters, services, timeline
from games.domains.kitchen.rules import RULES as KITCHEN
from games.seatnames import SeatInfo, cannot_read_chat, seat_names


@dataclass
class E:
    kind: str
    time: float
    agent: int | None
    details: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    category: str = "engine"

    @property
    def data(self) -> dict[str, Any]:
        return {"message": self.message, "details": self.details}


def test_overlapping_actions_of_one_agent_go_to_sub_rows_and_keep_their_kind():
    entries = [
        E("started", 0, 0, {"recipe": "Soup", "step": 0, "start": 0, "end": 300, "autonomous": True}),
        E("started", 10, 0, {"recipe": "Soup", "step": 1, "start": 10, "end": 70, "autonomous": False}),
        E("completed", 70, 0, {"recipe": "Soup", "step": 1}),
        E("started", 80, 0, {"recipe": "Soup", "step": 2, "start": 80, "end": 100}),
    ]
    tl = timeline.build(entries, ["You"], now=90, time_text=lambda v: f"{int(v) // 60}:{int(v) % 60:02d}")
    row = tl.rows[0]
    assert len(row.lanes) == 2  # the autonomous step overlaps both others
    first, second = row.lanes
    assert [b.kind for b in first] == ["background"]
    assert [b.label for b in second] == ["Soup step 1", "Soup step 2"]
    assert first[0].tip == "Soup step 0: 0:00–5:00 (runs by itself)"
    assert second[0].done and not second[1].done


def test_a_paused_recipe_step_ends_where_it_was_paused():
    entries = [
        E("started", 1, 0, {"recipe": "Omelette", "step": 0, "start": 1, "end": 121}),
        E("paused", 2, 0, {"recipe": "Omelette", "step": 0}),
    ]
    bar = timeline.build(entries, ["You"], now=5).rows[0].bars[0]
    assert bar.done and (bar.start, bar.end) == (1, 2)


def test_a_finished_game_has_no_running_bars():
    entries = [E("started", 0, 0, {"action": "boil water", "start": 0})]
    running = timeline.build(entries, ["You"], now=5)
    assert not running.rows[0].bars[0].done
    ended = timeline.build(entries, ["You"], now=5, finished=True)
    bar = ended.rows[0].bars[0]
    assert bar.done and bar.end == 5


def test_kitchen_commands_are_one_step_bars_and_a_cooking_tool_runs_by_itself():
    entries = [
        E("completed", 3, 1, {"command": "goto(agent1, pan0)", "step": 3}),
        E("completed", 4, 1, {"command": "activate(agent1, pan0)", "step": 4, "product": "friedEgg", "ready_at": 6}),
        E("completed", 5, 1, {"command": "noop(agent1)", "step": 5}),
    ]
    tl = timeline.build(entries, ["You", "Teammate 1"], now=6)
    bars = sorted(tl.rows[1].bars, key=lambda b: (b.start, b.end))
    assert [(b.start, b.end, b.kind) for b in bars] == [
        (3, 4, "occupying"),
        (4, 5, "occupying"),
        (4, 6, "background"),
        (5, 6, "wait"),
    ]
    assert len(tl.rows[1].lanes) == 2
    assert [b.label for b in bars if b.kind == "background"] == ["fried egg cooking"]  # not "friedEgg"


def test_kitchen_steps_let_pass_without_a_command_are_waits():
    # real-time steps pass whether or not a player (or a late LLM teammate) commands anything; the
    # timeline left those steps blank
    entries = [
        E("completed", 2, 0, {"command": "goto(agent0, pan0)", "step": 2}),
        E("completed", 3, 0, {"command": "activate(agent0, pan0)", "step": 3, "product": "friedEgg", "ready_at": 9}),
        E("completed", 6, 0, {"command": "noop(agent0)", "step": 6}),
        E("completed", 7, 0, {"command": "goto(agent0, storage0)", "step": 7}),
    ]
    texts = presenters.timeline_texts("kitchen", kitchen_data("salad-bar"))
    assert texts["gaps_are_waits"] is True
    bars = timeline.build(entries, ["You"], now=8, gaps_are_waits=texts["gaps_are_waits"]).rows[0].bars
    assert sorted((b.start, b.end, b.kind) for b in bars) == [
        (0, 2, "wait"),  # before the first command
        (2, 3, "occupying"),
        (3, 4, "occupying"),
        (3, 9, "background"),  # the pan cooks by itself: not the agent's time
        (4, 6, "wait"),  # steps 4 and 5 let pass
        (6, 7, "wait"),  # the wait commanded at step 6, under its own label
        (7, 8, "occupying"),
    ]
    # a finished game: the steps after the last command, up to the kitchen's close, were waited too
    ended = timeline.build(entries, ["You", "Teammate 1"], now=12, finished=True, gaps_are_waits=True)
    assert max((b.start, b.end, b.kind) for b in ended.rows[0].bars) == (8, 12, "wait")
    assert [(b.start, b.end, b.kind) for b in ended.rows[1].bars] == [(0, 12, "wait")]  # never commanded
    running = timeline.build(entries, ["You"], now=12, gaps_are_waits=True)
    assert max(b.end for b in running.rows[0].bars) == 9  # under way: the next command may come yet


def test_a_kitchen_bar_names_what_was_put_served_or_thrown_away():
    # the planner's plan on the replay page read "Put it into Chopping board 1", "Serve what you hold"
    data = kitchen_data("salad-bar")
    label = kitchen_view.PRESENTER.describe(data)
    assert label({"command": "put(agent0, chopboard0)", "item": "tomato"}) == "Put the tomato into Chopping board 1"
    assert label({"command": "put(agent0, servingtable0)", "item": "salsa"}) == "Serve the salsa"
    assert label({"command": "put(agent0, storage0)", "item": "onion"}) == "Throw away the onion"
    assert label({"command": "get(agent0, chopboard0)", "item": "tomatoWedges"}) == "Take tomato wedges"
    assert label({"command": "put(agent0, chopboard0)"}) == "Put it into Chopping board 1"  # a refused put


def test_itinerary_legs_run_from_the_previous_end():
    entries = [
        E("completed", 30, 0, {"action": "go to Museum"}),
        E("waited", 60, None, {"from": 30, "until": 60}),
        E("completed", 150, 0, {"action": "visit Museum"}),
    ]
    bars = timeline.build(entries, ["You"], now=150).rows[0].bars
    assert [(b.label, b.start, b.end) for b in bars] == [
        ("go to Museum", 0, 30),
        ("wait", 30, 60),
        ("visit Museum", 60, 150),
    ]


def test_seat_names_from_where_the_reader_sits():
    seats = [SeatInfo(0, "human", username="ann"), SeatInfo(1, "npc", "planner"), SeatInfo(2, "npc", "llm")]
    assert seat_names(seats, [0]) == ["You", "Teammate 1 (planner NPC)", "Teammate 2 (LLM NPC)"]
    assert seat_names(seats, [1], blind=True) == ["Teammate 1", "You", "Teammate 2"]
    assert seat_names(seats, []) == ["Player 1 (ann)", "Player 2 (planner NPC)", "Player 3 (LLM NPC)"]
    assert [s.agent for s in cannot_read_chat(seats)] == [1]


def kitchen_data(level: str = "breakfast-grill") -> dict[str, Any]:
    from games.importers.bundled_kitchen import definitions

    scenario = definitions()[level]
    state = KITCHEN.initial_state(scenario, agents=2)
    return dict(KITCHEN.observe(state, 0).data)


def test_kitchen_places_and_commands_read_as_words():
    data = kitchen_data()
    places = kitchen_view.place_names(data["locations"])
    assert places["storage0"] == "Storage" and places["servingtable0"] == "Serving table"
    kinds = [loc["kind"] for loc in data["locations"]]
    assert all(places[loc["name"]].split()[-1].isdigit() for loc in data["locations"] if kinds.count(loc["kind"]) > 1)
    assert kitchen_view.command_label("get storage0 seaweedSheet", places) == ("Take seaweed sheet", "storage0")
    assert kitchen_view.command_label("put servingtable0", places)[0] == "Serve what you hold"
    assert kitchen_view.item_name("eggOnToast") == "egg on toast"


def test_a_teammates_next_command_names_what_they_hold_not_what_you_hold():
    from django.template.loader import render_to_string

    from games.importers.bundled_kitchen import definitions

    state = KITCHEN.initial_state(definitions()["breakfast-grill"], agents=2)
    for command in ("goto storage0", "get storage0 cheese"):
        state = KITCHEN.act(state, 1, command, state.step).state
        state = KITCHEN.advance(state, state.step + 1).state
    state = KITCHEN.act(state, 1, "put storage0", state.step).state  # committed for this step
    data = KITCHEN.observe(state, 0).data
    board = kitchen_view.PRESENTER.board(data, ["You", "Teammate 1"], KITCHEN.legal_actions(state, 0))
    assert board["next"] == {1: "Throw away the cheese"}
    html = render_to_string("games/boards/kitchen.html", {"data": data, "board": board, "labels": {}})
    assert "next: Throw away the cheese" in html and "what you hold" not in html


def test_the_kitchens_hints_are_gone_once_it_has_closed():
    # "Hint: You hold cucumber sticks: put it on Serving table" stood under the result
    from django.template.loader import render_to_string

    from games.importers.bundled_kitchen import definitions

    state = KITCHEN.initial_state(definitions()["warm-up"], agents=1)
    data = dict(KITCHEN.observe(state, 0).data)
    data["suggestions"] = [{"agent": 0, "kind": "serve", "message": "agent0 holds salsa: put it on servingtable0"}]
    board = kitchen_view.PRESENTER.board(data, ["You"], KITCHEN.legal_actions(state, 0))
    context = {"data": data, "board": board, "labels": {}, "viewer": {"agents": [0]}}
    assert "Hint: You hold salsa: put it on Serving table" in render_to_string("games/boards/kitchen.html", context)
    data["over"] = True
    assert "Hint:" not in render_to_string("games/boards/kitchen.html", context)


def test_an_order_that_outlasts_the_kitchen_says_when_the_kitchen_closes():
    # "fish and chips #3 · 12 steps left" at step 56 of 60: players chased what could not be served
    from django.template.loader import render_to_string

    from games.importers.bundled_kitchen import definitions

    state = KITCHEN.initial_state(definitions()["warm-up"], agents=1, options={"max_steps": 5})
    data = dict(KITCHEN.observe(state, 0).data)
    order = data["orders"][0]
    assert order["remaining"] > 5
    board = kitchen_view.PRESENTER.board(data, ["You"], KITCHEN.legal_actions(state, 0))
    assert board["closes_in"] == 5
    html = render_to_string("games/boards/kitchen.html", {"data": data, "board": board, "labels": {}})
    assert "the kitchen closes in 5 steps" in html and f"{order['remaining']} steps left" not in html
    long = KITCHEN.initial_state(definitions()["warm-up"], agents=1)  # 60 steps: the order's own count
    data = dict(KITCHEN.observe(long, 0).data)
    board = kitchen_view.PRESENTER.board(data, ["You"], KITCHEN.legal_actions(long, 0))
    html = render_to_string("games/boards/kitchen.html", {"data": data, "board": board, "labels": {}})
    assert f"{data['orders'][0]['remaining']} steps left" in html and "the kitchen closes" not in html


def test_your_buttons_and_your_next_command_name_what_you_hold():
    # they read "Put it into Chopping board 2" while the map said "You · tomato"
    from games.importers.bundled_kitchen import definitions

    state = KITCHEN.initial_state(definitions()["salad-bar"], agents=1)
    for command in ("goto storage0", "get storage0 tomato", "goto chopboard0"):
        state = KITCHEN.act(state, 0, command, state.step).state
        state = KITCHEN.advance(state, state.step + 1).state
    data = KITCHEN.observe(state, 0).data
    places = kitchen_view.place_names(data["locations"])
    legal = KITCHEN.legal_actions(state, 0)
    groups = kitchen_view.action_groups(legal, data, places, "chopboard0")
    labels = {b["action"]: b["label"] for g in groups for b in g["buttons"]}
    assert labels["put chopboard0"] == "Put the tomato into Chopping board 1"
    state = KITCHEN.act(state, 0, "put chopboard0", state.step).state
    data = KITCHEN.observe(state, 0).data
    board = kitchen_view.PRESENTER.board(data, ["You"], KITCHEN.legal_actions(state, 0))
    assert board["pending"] == "Put the tomato into Chopping board 1"
    # and what a tool has made is named on the button that takes it
    state = KITCHEN.advance(state, state.step + 1).state
    state = KITCHEN.act(state, 0, "activate chopboard0", state.step).state
    state = KITCHEN.advance(state, state.step + 1).state
    while "get chopboard0" not in KITCHEN.legal_actions(state, 0):  # chopping keeps the cook busy
        state = KITCHEN.advance(state, state.step + 1).state
    data = KITCHEN.observe(state, 0).data
    groups = kitchen_view.action_groups(KITCHEN.legal_actions(state, 0), data, places, "chopboard0")
    labels = {b["action"]: b["label"] for g in groups for b in g["buttons"]}
    assert labels["get chopboard0"] == "Take the tomato wedges from Chopping board 1"


def test_every_legal_command_is_in_a_group_and_the_useful_ingredients_come_first():
    data = kitchen_data()
    places = kitchen_view.place_names(data["locations"])
    # stand at the storage: 27 ingredients to take
    data["agents"][0]["location"] = "storage0"
    legal = ["noop", *(f"get storage0 {item}" for item in ("tuna", "egg", "bread", "lamb")), "goto pan0"]
    groups = kitchen_view.action_groups(legal, data, places, "storage0")
    listed = [b["action"] for g in groups for b in g["buttons"]]
    assert sorted(listed) == sorted(legal)
    wanted = set(kitchen_view.wanted_items(data))
    here = groups[0]["buttons"]
    assert here and all(b["action"].split()[-1] in wanted for b in here)
    folded = [g for g in groups if g.get("collapsed")]
    assert all(b["action"].split()[-1] not in wanted for g in folded for b in g["buttons"])


def test_throwing_away_what_an_order_needs_is_never_the_first_button():
    """Warm-up: a player took a tomato at the Storage with 1, pressed 1 again and threw it away
    ("Throw away the tomato" was the first button); a tomato nobody wants is still thrown first."""
    from games.importers.bundled_kitchen import definitions

    state = KITCHEN.initial_state(definitions()["warm-up"], agents=1)
    while not any(o["dish"] == "tomatoWedges" for o in KITCHEN.observe(state, 0).data["orders"]):
        state = KITCHEN.advance(state, state.step + 1).state
    for command in ("goto storage0", "get storage0 tomato"):
        state = KITCHEN.act(state, 0, command, state.step).state
        state = KITCHEN.advance(state, state.step + 1).state
    data = KITCHEN.observe(state, 0).data
    places = kitchen_view.place_names(data["locations"])
    legal = KITCHEN.legal_actions(state, 0)
    assert "put storage0" in legal
    groups = kitchen_view.action_groups(legal, data, places, "storage0")
    buttons = [b["action"] for g in groups for b in g["buttons"]]
    assert sorted(buttons) == sorted(legal)  # every command is still offered
    assert buttons[0] == "goto chopboard0" and buttons.index("put storage0") > buttons.index("goto chopboard0")
    keyed = [b for g in presenters.keyed_groups(groups) for b in g["buttons"] if b.get("key") == "1"]
    assert [b["action"] for b in keyed] == ["goto chopboard0"]
    # with no order for it, throwing it away is what to do, and comes first
    data = {**data, "orders": []}
    groups = kitchen_view.action_groups(legal, data, places, "storage0")
    assert next(b["action"] for g in groups for b in g["buttons"]) == "put storage0"
    # an ordered dish in hand: the serving table first
    state = KITCHEN.act(state, 0, "goto chopboard0", state.step).state
    state = KITCHEN.advance(state, state.step + 1).state
    data = KITCHEN.observe(state, 0).data
    me = next(a for a in data["agents"] if a["id"] == data["you"])
    data = {**data, "agents": [{**me, "holding": "tomatoWedges"}]}
    groups = kitchen_view.action_groups(["goto storage0", "goto servingtable0", "noop"], data, places, "chopboard0")
    assert next(b["action"] for g in groups for b in g["buttons"]) == "goto servingtable0"


def test_a_tool_holding_a_whole_recipe_offers_start_before_taking_it_back_out():
    """Warm-up: a player put the tomato on the chopping board with 1, pressed 1 again and took it
    back out ("Take the tomato from Chopping board 1" was the first button, "Start" the second)."""
    from games.importers.bundled_kitchen import definitions

    state = KITCHEN.initial_state(definitions()["warm-up"], agents=1)
    for command in ("goto storage0", "get storage0 tomato", "goto chopboard0", "put chopboard0"):
        state = KITCHEN.act(state, 0, command, state.step).state
        state = KITCHEN.advance(state, state.step + 1).state
    data = KITCHEN.observe(state, 0).data
    places = kitchen_view.place_names(data["locations"])
    legal = KITCHEN.legal_actions(state, 0)
    assert {"activate chopboard0", "get chopboard0"} <= set(legal)
    groups = kitchen_view.action_groups(legal, data, places, "chopboard0")
    keyed = [b for g in presenters.keyed_groups(groups) for b in g["buttons"] if b.get("key") == "1"]
    assert [b["action"] for b in keyed] == ["activate chopboard0"]
    assert sorted(b["action"] for g in groups for b in g["buttons"]) == sorted(legal)


def test_the_recipe_book_has_every_dish_down_to_storage():
    data = kitchen_data()
    places = kitchen_view.place_names(data["locations"])
    book = kitchen_view.recipe_book(data, places)
    assert [d["item"] for d in book] == [kitchen_view.item_name(d) for d in data["dishes"]]

    def leaves(node: dict[str, Any]) -> list[dict[str, Any]]:
        return [node] if node["base"] else [leaf for part in node["parts"] for leaf in leaves(part)]

    for dish in book:
        assert not dish["base"] and dish["tool"]
        assert all(leaf["item"] for leaf in leaves(dish))


KITCHEN_NAMES = ["You", "Teammate 1 (planner NPC)"]


def _kitchen_log(rows: list[tuple[str, float, int | None, str]], places: dict[str, str]) -> list[dict[str, Any]]:
    """The kitchen log's lines of engine entries given as (kind, time, agent, message)."""
    entries = [
        {"seq": seq, "category": "engine", "kind": kind, "agent": agent, "time": time, "message": message}
        for seq, (kind, time, agent, message) in enumerate(rows, start=1)
    ]
    return kitchen_view.log_lines(entries, KITCHEN_NAMES, places)


def test_the_kitchen_log_has_one_line_per_step_with_names():
    lines = _kitchen_log(
        [
            ("committed", 3, 0, "agent0 will goto pan0 at step 3"),
            ("completed", 3, 0, "agent0 went to pan0"),
            ("completed", 3, 1, "noop(agent1)"),
            ("order_arrived", 4, None, "new order #2: eggOnToast within 9 steps"),
            ("completed", 4, 1, "agent1 took tuna from storage0"),
        ],
        {"pan0": "Pan 1", "storage0": "Storage"},
    )
    assert [line["message"] for line in lines] == [
        # the order is for step 4, written on the line of the step (3) that brought it: the header
        # had said "next order at step 4" beside a log line of step 3
        "You went to Pan 1 · Teammate 1 waited · new order #2: egg on toast within 9 steps (from step 4)",
        "Teammate 1 took tuna from Storage",
    ]


def test_the_kitchen_log_speaks_as_the_buttons_do_and_colours_what_matters():
    # a tool is started (the rules say "activated"), a serve says its order once ("order #1 (salsa)
    # completed by Teammate 1 · Teammate 1 served salsa" before), a full tool says what full is
    # ("is full (1)")
    places = {"mixer0": "Mixer 1", "chopboard0": "Chopping board 1"}
    lines = _kitchen_log(
        [
            ("completed", 4, 0, "agent0 activated chopboard0: onion rings ready at step 5"),
            ("completed", 16, 1, "agent1 activated mixer0: salsa ready at step 16"),
            ("order_completed", 19, 1, "order #1 (salsa) completed by agent1"),
            ("completed", 19, 1, "agent1 served salsa"),
            ("rejected", 19, 0, "chopboard0 is full (1); take something out first"),
        ],
        places,
    )
    assert [line["message"] for line in lines] == [
        "You started Chopping board 1: onion rings ready at step 5",
        "Teammate 1 started Mixer 1: salsa ready now",
        "Teammate 1 served salsa (order #1 done) · You could not: Chopping board 1 is full (it holds 1 item); "
        "take something out first",
    ]
    # a quoted command reads as its button ("Take the salsa from Mixer 1", not "Take from Mixer 1")
    said = "mixer0 has already made salsa; take it with get(agent0, mixer0)"
    assert kitchen_view.humanize(said, KITCHEN_NAMES, places) == (
        "Mixer 1 has already made salsa; take it with “Take the salsa from Mixer 1”"
    )
    # each part of a step's line has its own colour: a serve is good news, a refusal is not (the
    # whole line was green, "completed", whatever it said)
    assert [tone for _, tone in lines[2]["parts"]] == ["ok", "bad"]
    assert [tone for _, tone in lines[0]["parts"]] == [""]
    from django.template.loader import render_to_string

    html = render_to_string("games/live/_log_entry.html", {"e": lines[2]})
    assert 'class="log-entry cat-engine kind-parts' in html
    assert (
        '<span class="log-part ok">Teammate 1 served salsa (order #1 done)</span> · <span class="log-part bad">' in html
    )


def test_the_kitchen_headline_is_the_success_rate_with_the_orders_served():
    result = {"completed": 3, "failed": 1, "success_rate": 0.75}
    assert metrics.headline("kitchen", result) == 75.0
    assert metrics.headline_text("kitchen", result) == "3 served · 1 missed"
    nothing_yet = {"completed": 0, "failed": 0, "success_rate": 0.0}  # the rules' rate of no finished order
    assert metrics.headline("kitchen", nothing_yet) is None
    assert metrics.headline_text("kitchen", nothing_yet) == "no order finished yet"
    assert metrics.headline("itinerary", {"total": 50.0}) == 50.0  # points of 100 (60 + 20 + 20)
    assert metrics.headline("tasks", {"progress": 42.5}) == 42.5


def test_the_player_is_told_where_what_they_hold_goes():
    data = kitchen_data("warm-up")
    places = kitchen_view.place_names(data["locations"])
    assert kitchen_view.held_hint(data, places) == ""
    data["agents"][0]["holding"] = "cucumber"
    assert (
        kitchen_view.held_hint(data, places)
        == "You hold cucumber: it goes into the Chopping board 1 to make cucumber sticks."
    )
    data["agents"][0]["holding"] = data["orders"][0]["dish"]
    assert "which is ordered: serve it" in kitchen_view.held_hint(data, places)
    data["agents"][0]["holding"] = "lobster"
    assert "nothing here needs it" in kitchen_view.held_hint(data, places)
    # a dish whose order ran out: no Serve button, and the line says why rather than nothing
    dish = data["orders"][0]["dish"]
    data["agents"][0]["holding"] = dish
    expired = dict(data, orders=[o for o in data["orders"] if o["dish"] != dish])
    assert kitchen_view.held_hint(expired, places).endswith(
        "which no open order wants now: keep it in case it is ordered again, or throw it away at the Storage."
    )
    data["agents"][0]["holding"] = data["orders"][0]["dish"]
    data["over"] = True  # "serve it" once the kitchen has closed told the player to do the impossible
    assert kitchen_view.held_hint(data, places) == ""


def test_the_recipes_board_says_what_blocks_each_step_and_labels_actions_in_words():
    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import BAKE, ROAST, SOUP, kitchen

    state = RECIPES.initial_state(kitchen(BAKE, SOUP), options={"max_rejections": 0})
    state = RECIPES.act(state, 0, "Step(1, Bake)", 0).state  # mixing keeps the cook busy
    data = RECIPES.observe(state, 0).data
    board = recipes_view.board(data, RECIPES.legal_actions(state, 0))
    steps = {s["index"]: s for s in board["cards"][0]["steps"]}
    assert steps[1]["state"] == "running" and steps[1]["run_end"] == 300
    assert steps[2]["why"] == "waits for step 1 (ends at 5:00)"
    assert steps[0]["why"] == "you are busy until 5:00"  # no window runs: no call to pause
    # busy, and the step's appliance is in use longer: both are said (it named the cook only)
    roast = RECIPES.act(RECIPES.initial_state(kitchen(BAKE, ROAST)), 0, "Step(0, Bake)", 0).state
    roast = RECIPES.act(roast, 0, "Step(1, Bake)", 0).state
    cards = recipes_view.board(RECIPES.observe(roast, 0).data, [])["cards"]
    (first,) = [s for s in cards[1]["steps"] if s["index"] == 0]
    assert first["why"] == "you are busy until 5:00, and the oven is in use until 10:00"
    assert board["cook"] == "busy with Bake step 1 until 5:00"
    assert board["next_event"] == {"at": 300, "clock": "5:00", "what": "Bake step 1 ends", "in": "5:00"}
    later = RECIPES.advance(state, 120).state  # a replay's board, two minutes on, says what is left
    assert recipes_view.board(RECIPES.observe(later, 0).data, [])["next_event"]["in"] == "3:00"
    labels = [b["label"] for g in board["groups"] for b in g["buttons"]]
    assert labels == ["Pause Bake step 1 (it ends at 5:00)", "Wait until the next event (5:00: Bake step 1 ends)"]
    # a player busy with a pausable step who presses 1 to start something must not pause it
    keys = {b["label"][:5]: b["key"] for g in presenters.keyed_groups(board["groups"]) for b in g["buttons"]}
    assert keys == {"Pause": "", "Wait ": "w"}
    # paused after a minute, the step is offered as a resume of what is left (it read "Start")
    paused = RECIPES.act(RECIPES.advance(state, 60).state, 0, "Pause(1, Bake)", 60).state
    resumes = recipes_view.board(RECIPES.observe(paused, 0).data, RECIPES.legal_actions(paused, 0))
    labels = [b["label"] for g in resumes["groups"] for b in g["buttons"]]
    assert any(label.startswith("Resume Bake step 1: ") and "(4:00 left, keeps you busy)" in label for label in labels)
    oven = next(a for a in board["appliances"] if a["name"] == "Oven")
    assert oven["state"] == "not heated"
    assert "None" not in " ".join(a["state"] + a["use"] for a in board["appliances"])


def test_when_the_recipes_game_is_over_the_cook_card_says_so_not_start_a_step():
    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import SOUP, kitchen

    state = RECIPES.initial_state(kitchen(SOUP))
    board = recipes_view.board(RECIPES.observe(state, 0).data, RECIPES.legal_actions(state, 0))
    assert board["cook"] == "free: start a step"
    state = RECIPES.act(state, 0, "Stop()", 0).state
    assert recipes_view.board(RECIPES.observe(state, 0).data, [])["cook"] == "done: the game is over"


def test_the_itinerary_board_groups_the_menu_and_states_the_verdict():
    from games import itinerary_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    state = TRIPS.initial_state(definition())
    board = itinerary_view.board(TRIPS.observe(state, 0).data, TRIPS.legal_actions(state, 0))
    titles = [g["title"] for g in board["groups"]]
    assert titles == ["Go to", "Trains from here", "Wait"]
    assert board["groups"][0]["buttons"][0]["label"] == "Go to Tower (20 min, arrive 07:20)"
    assert board["groups"][1]["buttons"][0]["label"].startswith("Train T1 to Beta: 10:00 → 11:00")
    assert board["groups"][1]["buttons"][0]["label"].endswith(" CNY")  # a price says what it counts
    # a train the wallet cannot pay for says so (it was offered without a word, and the trip failed its budget)
    poor = TRIPS.initial_state(definition(budget=30.0))
    (train,) = itinerary_view.board(TRIPS.observe(poor, 0).data, TRIPS.legal_actions(poor, 0))["groups"][1]["buttons"]
    assert train["label"].endswith("40 CNY (over your budget: 30 CNY left)")
    tower = next(p for p in board["sights"] if p["name"] == "Tower")
    assert tower["hours"] == "09:00–18:00" and not tower["open_now"]
    for action in ("go to Tower", "visit Tower for 60 minutes"):
        state = TRIPS.act(state, 0, action, state.clock).state
    verdict = itinerary_view.verdict(TRIPS.observe(state, 0).data)
    assert verdict is not None and not verdict["ok"] and "opening hours" in verdict["text"]


def test_a_trip_that_keeps_no_opening_hours_shows_places_hours_without_closed_now():
    # "Ignore opening hours" said the brief, and the page marked its places "closed now" in red
    from django.template.loader import render_to_string

    from games import itinerary_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    for kept in (True, False):
        state = TRIPS.initial_state(definition(check_opening_hours=kept))
        data = TRIPS.observe(state, 0).data
        board = itinerary_view.board(data, TRIPS.legal_actions(state, 0))
        context = {"data": data, "board": board, "viewer": None, "state": {"status": "running"}}
        html = " ".join(render_to_string("games/boards/itinerary.html", context).split())
        assert ("closed now" in html and "data-opens=" in html) is kept
        assert ("09:00–18:00 (not kept on this trip)" in html) is not kept
        # the Clock card reads as the header and the timetable ("day 1, 07:00"), the date beneath
        assert "data-trip-day>day 1, 07:00</p>" in html and "<span data-trip-clock>2024-01-01 07:00</span>" in html


def test_a_busy_cook_with_nothing_to_do_sees_what_they_are_busy_with(rf):
    # the recipes observation counts its cooks in data["agents"] (tasks lists them there)
    from django.template.loader import render_to_string

    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import SOUP, kitchen

    state = RECIPES.act(RECIPES.initial_state(kitchen(SOUP)), 0, "Step(0, Soup, 00:04:00)", 0).state
    state = RECIPES.act(state, 0, "Pause(0, Soup)", 0).state
    state = RECIPES.act(state, 0, "Step(0, Soup)", 0).state
    data = RECIPES.observe(state, 0).data
    legal = [a for a in RECIPES.legal_actions(state, 0) if not a.startswith("Pause")]
    board = recipes_view.board(data, legal)
    html = render_to_string(
        "games/live/_actions.html",
        {
            "state": {"status": "running", "clock": {"paused": False}},
            "viewer": type("V", (), {"agent": 0})(),
            "data": data,
            "board": board,
            "game": type("G", (), {"domain": "recipes"})(),
            "actions": [],
            "action_groups": [],
        },
    )
    assert "You are busy (busy with Soup step 0 until 4:00)" in html


def test_a_free_cook_with_nothing_to_start_is_told_why_and_until_when_not_that_they_are_busy():
    # Soup's step 1 heats the pot by itself; step 2 waits for it: the cook is free with no button.
    from django.template.loader import render_to_string

    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import SOUP, kitchen

    state = RECIPES.act(RECIPES.initial_state(kitchen(SOUP)), 0, "Step(0, Soup)", 0).state
    state = RECIPES.act(state, 0, "Step(1, Soup)", 240).state
    assert RECIPES.legal_actions(state, 0) == []
    board = recipes_view.board(RECIPES.observe(state, 0).data, [])
    assert board["cook"] == "free: nothing can start before 9:00"
    html = render_to_string(
        "games/live/_actions.html",
        {
            "state": {"status": "running", "clock": {"paused": False}},
            "viewer": type("V", (), {"agent": 0})(),
            "data": RECIPES.observe(state, 0).data,
            "board": board,
            "game": type("G", (), {"domain": "recipes"})(),
            "actions": [],
            "action_groups": [],
        },
    )
    assert "You are busy" not in html
    assert "no step can start now" in html and "when Soup step 1 ends at 9:00" in html


def test_the_itinerary_timeline_reads_in_plain_words_and_clock_times():
    from games import presenters
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    goals = {"city_days": [], "spot_minutes": [{"spot": "Tower", "minutes": 60}, {"spot": "Garden", "minutes": 30}]}
    state = TRIPS.initial_state(definition(end="2024-01-01 23:00", constraints=goals))
    events = []
    for action in ("go to Tower", "wait until 09:00", "visit Tower for 30 minutes", "go to Alpha Railway Hotel"):
        step = TRIPS.act(state, 0, action, state.clock)
        assert step.rejection is None, step.rejection
        state, events = step.state, events + list(step.events)
    train = next(a for a in TRIPS.legal_actions(state, 0) if a.startswith("take train"))
    step = TRIPS.act(state, 0, train, state.clock)
    events += list(step.events)
    data = dict(TRIPS.observe(step.state, 0).data)
    entries = [E(e.kind, e.time, e.agent, dict(e.data)) for e in events]
    bars = timeline.build(entries, ["You"], now=step.state.clock, **presenters.timeline_texts("itinerary", data))
    tips = [b.tip for b in bars.rows[0].bars]
    assert tips == [
        "Go to Tower: 07:00–07:20",
        "Stay in Alpha: 07:20–09:00",
        "Visit Tower: 09:00–09:30",
        "Go to Alpha Railway Hotel: 09:30–09:50",
        # at the station for the train (the clock jumped to its departure): named where the last
        # action left the traveller, as the studio's preview names it
        "In Alpha Railway Hotel: 09:50–10:00",
        "Train T1 Alpha → Beta: 10:00–11:00",  # from its departure, not from the arrival at the station
    ]
    assert not any("(" in tip for tip in tips)  # no timed action text, no "keeps the agent busy"
    # a stay only lets time pass (the descriptor's is_wait): grey, as the studio's preview draws it
    assert [b.kind for b in bars.rows[0].bars] == ["occupying", "wait", "occupying", "occupying", "wait", "occupying"]
    from games.studio.preview import trip_timeline

    studio = trip_timeline(definition(end="2024-01-01 23:00"), [e.data["details"]["action"] for e in entries])
    assert studio is not None
    drawn = [bar for row in studio[0]["rows"] for lane in row["lanes"] for bar in lane]
    assert [(bar["kind"], bar["start"], bar["end"]) for bar in drawn] == [
        (b.kind, b.start, b.end) for b in bars.rows[0].bars
    ]
    # the ten minutes at the hotel before the train leaves: the preview says where the traveller is
    assert [(b["label"], b["kind"], b["tip"]) for b in drawn if b["label"].startswith("In ")] == [
        ("In Alpha Railway Hotel", "wait", "In Alpha Railway Hotel: 09:50–10:00")
    ]
    assert [b["label"] for b in drawn] == [b.label for b in bars.rows[0].bars]  # live and preview agree
    assert [b["short"] for b in drawn] == [b.short for b in bars.rows[0].bars]  # narrow: "Alpha Railway Hotel"
    # a multi-day trip says the day
    multi = dict(TRIPS.observe(TRIPS.initial_state(definition()), 0).data)
    texts = presenters.timeline_texts("itinerary", multi)
    assert texts["time_text"](24 * 60 + 130) == "day 2, 09:10" and texts["tick_text"](24 * 60 + 130) == "d2 09:10"
    assert bars.tick_labels[:2] == [(0.0, "07:00"), (60.0, "08:00")]  # the axis reads the clock too


def test_every_domains_wait_button_is_w_and_recipes_waits_only_when_the_clock_does_not_run():
    import json

    from games import itinerary_view, presenters, recipes_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import BAKE, SOUP, kitchen

    def keys(groups, **how):
        return {b["key"]: b for g in presenters.keyed_groups(groups, **how) for b in g["buttons"] if b["key"]}

    state = RECIPES.act(RECIPES.initial_state(kitchen(BAKE, SOUP)), 0, "Step(1, Bake)", 0).state
    groups = recipes_view.board(RECIPES.observe(state, 0).data, RECIPES.legal_actions(state, 0))["groups"]
    wait = keys(groups)["w"]
    assert json.loads(wait["vals"]) == {"type": "wait"} and wait["label"].startswith("Wait until the next event")
    assert "1" not in keys(groups)  # the only other button pauses: no number key for it
    assert "w" not in keys(groups, real_time=True)  # a running clock needs no wait button

    trip = TRIPS.initial_state(definition())
    groups = itinerary_view.board(TRIPS.observe(trip, 0).data, TRIPS.legal_actions(trip, 0))["groups"]
    waits = [b["action"] for g in groups if g["title"] == "Wait" for b in g["buttons"]]
    assert len(waits) > 1 and keys(groups)["w"]["action"] == waits[0] == "wait until 08:00"  # the soonest
    assert [b["key"] for g in presenters.keyed_groups(groups) for b in g["buttons"]].count("w") == 1

    kitchen_groups = [
        {"title": "", "buttons": [{"action": "goto storage0", "label": "Walk"}, {"action": "noop", "label": "Wait"}]}
    ]
    assert keys(kitchen_groups)["w"]["action"] == "noop"
    assert presenters.action_buttons(["boil water", "wait"])[1]["key"] == "w"  # tasks
    # the numbers read in order: W goes after "wait until something finishes", not between
    tasks = presenters.action_buttons(["boil water", "wash cup", "wait", "wait until something finishes"])
    assert [(b["key"], b["action"]) for b in tasks] == [
        ("1", "boil water"),
        ("2", "wash cup"),
        ("3", "wait until something finishes"),
        ("w", "wait"),
    ]


def test_a_busy_kitchen_lists_the_places_in_use_and_folds_the_others():
    from games.importers.bundled_kitchen import definitions

    state = KITCHEN.initial_state(definitions()["busy-kitchen"], agents=4)
    while not KITCHEN.observe(state, 0).data["orders"]:
        state = KITCHEN.advance(state, KITCHEN.now(state) + 1).state
    data = dict(KITCHEN.observe(state, 0).data)
    places = kitchen_view.place_names(data["locations"])
    legal = KITCHEN.legal_actions(state, 0)
    groups = kitchen_view.action_groups(legal, data, places, data["agents"][0]["location"])
    assert sorted(b["action"] for g in groups for b in g["buttons"]) == sorted(legal)  # nothing lost
    walk = next(g for g in groups if g["title"] == "Walk to")
    folded = next(g for g in groups if g["title"].startswith("Walk to another place"))
    assert folded["collapsed"] and len(walk["buttons"]) + len(folded["buttons"]) >= 15
    assert len(walk["buttons"]) <= 8  # the list stays short
    shown = {b["label"] for b in walk["buttons"]}
    here = places[data["agents"][0]["location"]]
    assert {"Walk to Storage", "Walk to Serving table"} - {f"Walk to {here}"} <= shown
    dish = data["orders"][0]["dish"]
    tool = KIND_NAMES.get(data["recipes"][dish]["tool"], data["recipes"][dish]["tool"].capitalize())
    assert any(label.startswith(f"Walk to {tool}") for label in shown), (tool, shown)
    # one empty tool of a needed kind is enough: a second empty pan waits in the fold
    kinds = [b["label"].rsplit(" ", 1)[0] for b in walk["buttons"] if b["label"][-1].isdigit()]
    assert len(kinds) == len(set(kinds))


KIND_NAMES = kitchen_view.KIND_WORDS


def test_number_keys_go_only_to_commands_in_sight():
    from games import presenters

    groups = [
        {"title": "Walk to", "buttons": [{"action": "goto storage0", "label": "Walk to Storage"}]},
        {
            "title": "Walk to another place (2)",
            "collapsed": True,
            "buttons": [
                {"action": "goto pan0", "label": "Walk to Pan 1"},
                {"action": "goto pan1", "label": "Walk to Pan 2"},
            ],
        },
        {"title": "", "buttons": [{"action": "noop", "label": "Wait this step"}]},
    ]
    keys = [b["key"] for g in presenters.keyed_groups(groups) for b in g["buttons"]]
    assert keys == ["1", "", "", "w"]


def test_the_games_list_adds_the_domains_note_to_a_finished_games_headline():
    from types import SimpleNamespace

    from games.templatetags.games_extras import score_of

    kitchen = SimpleNamespace(domain="kitchen", is_finished=True, result={"success_rate": 0.75, "completed": 3})
    assert score_of(kitchen) == "75% · 3 served"
    running = SimpleNamespace(domain="kitchen", is_finished=False, result=None, progress_points=[[4, 50.0]])
    assert score_of(running) == "50% so far"  # not to be read as a final 50 %
    tasks = SimpleNamespace(domain="tasks", is_finished=True, result={"progress": 100.0})
    assert score_of(tasks) == "100%"


def test_a_near_perfect_score_never_reads_as_a_perfect_one():
    """A trip of 99.93 points read "100%" and "score 100 of 100" in the header beside a result panel
    of 99.93 and an efficiency short of its 20 points."""
    from types import SimpleNamespace

    from django.template.loader import render_to_string

    from games.templatetags.games_extras import score_of

    trip = SimpleNamespace(domain="itinerary", is_finished=True, result={"total": 99.93})
    assert score_of(trip) == "99%"
    assert metrics.headline_text("itinerary", {"total": 99.93}) == "score 99 of 100"
    assert metrics.headline_text("itinerary", {"total": 66.67}) == "score 67 of 100"  # as its percent
    goals = {"goals": [{"met": True}, {"met": False}, {"met": True}]}
    assert metrics.headline_text("itinerary", {"total": 66.67}, goals) == "2 of 3 goals met"  # not the % again
    # a trip under way: its score is what it would get if it ended now ("72% · 0 of 2 goals met"
    # after one walk read as nearly done)
    running = {**goals, "over": ""}
    assert metrics.headline_text("itinerary", {"total": 72.0}, running) == "score so far · 2 of 3 goals met"
    assert [metrics.whole(v) for v in (0, 0.4, 33.4, 66.6, 99.6, 100)] == [0, 1, 33, 67, 99, 100]
    chart = presenters.progress_chart([[0, 0.0], [200, 80.0]], 271, 271, final=99.93)
    html = render_to_string("games/live/_chart.html", {"chart": chart})
    assert "final 99%" in html and "now" not in html
    status = render_to_string(
        "games/live/_status.html", {"score": 99.93, "state": {}, "game": None, "clock_attrs": {}, "header_clock": {}}
    )
    assert 'aria-valuenow="99"' in status and '<span class="headline-value">99%</span>' in status
    running = presenters.progress_chart([[0, 0.0], [200, 80.0]], 271, 230)
    assert "now 80%" in render_to_string("games/live/_chart.html", {"chart": running})


def test_an_itinerary_button_names_the_day_of_a_time_that_is_not_today():
    from games import itinerary_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    trip = definition()
    trip["world"]["trains"].append(["N1", "Alpha", "Beta", "2024-01-01 23:10", "2024-01-02 01:20", 20.0])
    state = TRIPS.initial_state(trip)
    state = TRIPS.act(state, 0, "wait until 22:00", state.clock).state
    board = itinerary_view.board(TRIPS.observe(state, 0).data, TRIPS.legal_actions(state, 0))
    labels = [b["label"] for g in board["groups"] for b in g["buttons"]]
    assert "Train N1 to Beta: 23:10 → day 2, 01:20, 20 CNY" in labels  # arrives after midnight
    assert any(label.startswith("Train T3 to Beta: day 2, 08:00 → 09:30") for label in labels)
    stamped = [label for label in labels if label.startswith("Wait here until") and "day" in label]
    assert all("2024" not in label for label in labels), labels  # the clock's words, not a date stamp
    assert stamped, labels


def test_a_stay_the_brief_counts_in_days_is_one_wait_away_and_the_trip_so_far_names_its_days():
    """Two days in a city meant pressing waits of an hour or to the night's end over and over, the
    chip read "0 of 2 days" for 23 hours, and the trip so far read "10:24–07:00"."""
    from games import itinerary_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    trip = definition(constraints={"city_days": [{"city": "Beta", "days": 1}], "spot_minutes": []})
    state = TRIPS.initial_state(trip)
    state = TRIPS.act(state, 0, "take train T1 to Beta", state.clock).state
    data = TRIPS.observe(state, 0).data
    board = itinerary_view.board(data, TRIPS.legal_actions(state, 0))
    assert "wait until 2024-01-02 11:00" in TRIPS.legal_actions(state, 0)  # 24 hours after arriving
    labels = [b["label"] for g in board["groups"] for b in g["buttons"]]
    assert "Wait here until day 2, 11:00 (Beta: day 1 of 1)" in labels
    assert board["goals"][0] == {"text": "Beta: 0 of 1 day (the next counts at day 2, 11:00)", "met": False}
    state = TRIPS.act(state, 0, "wait until 2024-01-02 11:00", state.clock).state
    data = TRIPS.observe(state, 0).data
    board = itinerary_view.board(data, TRIPS.legal_actions(state, 0))
    assert board["goals"][0] == {"text": "Beta: 1 of 1 day", "met": True}
    assert not any("(Beta" in b["label"] for g in board["groups"] for b in g["buttons"])
    assert board["several_days"]
    spans = [leg["span"] for leg in board["day"]]
    assert spans == ["day 1, 07:00–10:00", "day 1, 10:00–11:00", "day 1, 11:00 – day 2, 11:00"]
    assert [itinerary_view.time_left(m) for m in (45, 60, 1017, 1440, 8154)] == [
        "45 min",
        "1 h",
        "16 h 57 min",
        "1 day",
        "5 days 15 h",
    ]
    assert itinerary_view.short_label("Train T1 Alpha → Beta") == "→ Beta"
    assert itinerary_view.short_label("Visit Tower") == "Visit"


def test_a_clock_axis_has_fewer_ticks_than_a_number_axis_so_its_labels_do_not_run_together():
    entries = [E("completed", 260, 0, {"action": "go to Museum"})]
    numbers = timeline.build(entries, ["You"], now=260)
    clock = timeline.build(entries, ["You"], now=260, tick_text=lambda minutes: f"{7 + int(minutes) // 60:02d}:00")
    assert numbers.ticks[1] == 30.0 and 8 < len(numbers.ticks) <= 12
    assert clock.ticks[1] == 60.0 and len(clock.ticks) <= 8


def test_a_teammates_events_read_in_the_third_person_and_ones_own_as_the_rules_wrote_them():
    # The rules write to the agent who acted ("You started ..."); the log shows it after the
    # teammate's name, where "Teammate 1 You are doing pick rice" read as if addressed to the reader.
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import SOUP as SOUP_RECIPE
    from games.domains.recipes.tests.kitchens import kitchen
    from games.domains.tasks.rules import RULES as TASKS
    from games.domains.tasks.tests.helpers import RICE
    from games.presenters import as_read_by

    state = TASKS.initial_state(RICE, agents=2)
    messages = []
    for agent, action in ((1, "pick rice"), (0, "wait")):
        step = TASKS.act(state, agent, action, 0)
        state, messages = step.state, messages + [(agent, e.message) for e in step.events]
    state = TASKS.advance(state, 2).state
    for agent, action in ((1, "cook rice in pot"), (1, "wash dish")):
        step = TASKS.act(state, agent, action, state.time)
        state, messages = step.state, messages + [(agent, e.message) for e in step.events]
    recipes = RECIPES.initial_state(kitchen(SOUP_RECIPE), agents=2)
    messages += [(1, e.message) for e in RECIPES.act(recipes, 1, "Step(0, Soup)", 0).events]
    said = {message.split(" ")[0] for _, message in messages}
    assert {"You", "Started"} <= said  # the kinds of message this test is about were written
    for agent, message in messages:
        own = as_read_by({"agent": agent, "message": message}, [agent])
        if message.startswith("Started "):
            assert own == message[0].lower() + message[1:]
        elif " is complete" not in message:
            assert own == message
        other = as_read_by({"agent": agent, "message": message}, [1 - agent])
        assert "You " not in other and " you " not in other, other
    rewritten = [as_read_by({"agent": 1, "message": m}, [0]) for a, m in messages if a == 1]
    assert any(line.startswith("is doing pick rice") for line in rewritten), rewritten
    # a teammate is one of the cooks: "(keeps them busy)", as "(keeps you busy)" is said to you
    assert any(line.startswith("started step 0 of Soup (keeps them busy)") for line in rewritten), rewritten


def test_what_is_complete_reads_as_what_the_agent_finished():
    # after the name: "You finished fill kettle: ...", not "You fill kettle is complete: ..."
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import SOUP as SOUP_RECIPE
    from games.domains.recipes.tests.kitchens import kitchen
    from games.domains.tasks.rules import RULES as TASKS
    from games.domains.tasks.tests.helpers import RICE
    from games.presenters import as_read_by

    state = TASKS.initial_state(RICE)
    state = TASKS.act(state, 0, "pick rice", 0).state
    done = [e for e in TASKS.advance(state, 5).events if e.agent == 0 and " is complete" in e.message]
    recipes = RECIPES.initial_state(kitchen(SOUP_RECIPE))
    recipes = RECIPES.act(recipes, 0, "Step(0, Soup)", 0).state
    done += [e for e in RECIPES.advance(recipes, 600).events if e.agent == 0 and " is complete" in e.message]
    kinds = {e.message.split(" ")[0] for e in done}
    assert "Step" in kinds and len(kinds) > 1, [e.message for e in done]  # both domains' wordings
    for event in done:
        for reader in ([0], [1]):
            line = as_read_by({"agent": 0, "message": event.message}, reader)
            assert line.startswith("finished ") and " is complete" not in line, line
            what = event.message.split(" is complete")[0]
            assert line.startswith(f"finished {what[0].lower()}{what[1:]}")
    assert as_read_by({"agent": 0, "message": "All recipes are complete at 10:30."}, [0]).startswith("All recipes")
    assert as_read_by({"agent": None, "message": "pick rice is complete: rice is picked."}, [0]).startswith("pick")


def test_the_headers_clock_reads_each_domains_time_as_its_board_does():
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition
    from games.presenters import header_clock

    def clock(domain, time, unit, data=None):
        shown = header_clock(domain, data or {}, time, unit)
        return shown["label"], shown["text"], shown["format"]

    assert clock("recipes", 849.0, "second") == ("t =", "14:09", "clock")  # the kitchen clock's m:ss, not "849.0"
    assert clock("recipes", 3725.6, "second")[1] == "1:02:05"
    assert clock("kitchen", 12.7, "step") == ("step", "12", "step")  # the orders' "step 12 of 60", not "t = 12.7"
    assert clock("tasks", 5.0, "minute") == ("t =", "5", "") and clock("tasks", 7.5, "minute")[1] == "7.50"
    # a chat line sent between two minutes reads as the events around it ("t=2", not "t=2.00")
    assert [timeline.plain_time(t) for t in (2.004, 3.25, 7.5, 4.0)] == ["2", "3.25", "7.5", "4"]
    # the ticking clock stops at the observation's time limit, where it has one
    assert header_clock("tasks", {"time_limit": 40}, 5.0, "minute")["limit"] == "40"
    assert header_clock("kitchen", {"max_steps": 60}, 5.0, "step")["limit"] == ""
    # the itinerary: the traveller's clock, as the board's and the timeline's, not "t = 26.4"
    one_day = dict(TRIPS.observe(TRIPS.initial_state(definition(end="2024-01-01 23:00")), 0).data)
    shown = header_clock("itinerary", one_day, 26.4, "minute")
    assert (shown["label"], shown["text"], shown["format"]) == ("", "07:26", "trip")
    assert shown["begin"] == one_day["clock"]["begin"] == "2024-01-01 07:00" and shown["days"] == "0"
    assert shown["limit"] == str(16 * 60)  # the page's clock stops at the trip's end, 23:00
    several = dict(TRIPS.observe(TRIPS.initial_state(definition()), 0).data)
    assert header_clock("itinerary", several, 24 * 60 + 130, "minute")["text"] == "day 2, 09:10"
    assert header_clock("itinerary", several, 0, "minute")["days"] == "1"


def test_the_logs_times_read_as_the_domains_clock():
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition
    from games.presenters import log_time, progress_chart, with_times

    trip = dict(TRIPS.observe(TRIPS.initial_state(definition(end="2024-01-01 23:00")), 0).data)
    entries = [{"time": 16.0, "message": "m"}, {"time": 2.35, "message": "n"}]
    assert [e["time_text"] for e in with_times(entries, log_time("itinerary", trip))] == ["07:16", "07:02"]
    assert [e["time_text"] for e in with_times(entries, log_time("recipes", {}))] == ["0:16", "0:02"]
    assert [e["time_text"] for e in with_times(entries, log_time("kitchen", {}))] == ["step 16", "step 2"]
    assert [e["time_text"] for e in with_times(entries, log_time("tasks", {}))] == ["t=16", "t=2.35"]
    # the score chart's axis ends read the same way, the far end on a whole unit (not "t=20.70")
    chart = progress_chart([[0.0, 0.0], [5.0, 60.0]], 20.7, 5.0, time_text=log_time("itinerary", trip))
    assert (chart["start"], chart["end"]) == ("07:00", "07:21")
    assert (progress_chart([], 20.7, 5.0)["start"], progress_chart([], 20.7, 5.0)["end"]) == ("t=0", "t=21")


def test_itinerary_buttons_say_how_they_follow_the_running_clock():
    from games import itinerary_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    goals = {"city_days": [], "spot_minutes": [{"spot": "Tower", "minutes": 60}]}
    state = TRIPS.initial_state(definition(end="2024-01-01 23:00", constraints=goals))
    state = TRIPS.act(state, 0, "go to Tower", state.clock).state  # 07:20, at the Tower
    state = TRIPS.act(state, 0, "wait until 09:00", state.clock).state
    data = dict(TRIPS.observe(state, 0).data)
    board = itinerary_view.board(data, TRIPS.legal_actions(state, 0))
    buttons = {b["action"]: b for g in board["groups"] for b in g["buttons"]}
    tower = next(p for p in data["places"] if p["name"] == "Tower")
    visit = next(b for a, b in buttons.items() if a.startswith("visit Tower for"))
    length = int(visit["action"].split(" for ")[1].split()[0])
    # "until 10:00" is ``length`` minutes after now; the page moves it on as the clock runs
    assert visit["parts"] == (f"Visit Tower for {length} min (until ", "10:00", ")") and visit["after"] == length
    assert "".join(visit["parts"]) == visit["label"]
    assert tower["visit_until"] == 5 * 60  # lunch (12:00) comes before the Tower closes (18:00)
    assert visit["gone_at"] == 5 * 60 - length + 1  # from then on the visit would run into lunch
    go = next(b for a, b in buttons.items() if a.startswith("go to "))
    place = next(p for p in data["places"] if go["action"] == f"go to {p['name']}")
    assert go["after"] == place["transfer_minutes"]
    assert go["gone_at"] == 5 * 60 - place["transfer_minutes"] + 1  # from then on it would run into lunch
    train = next(b for a, b in buttons.items() if a.startswith("take train "))
    departure = next(t for t in data["trains"] if train["action"].startswith(f"take train {t['number']} "))
    departs = itinerary_view.trip_minute(data, departure["departure"])
    assert departs is not None and departs >= state.clock and train["gone_at"] == departs + 1  # refused once gone
    assert board["ends_at"] == state.clock + data["clock"]["minutes_left"]  # the page counts down to it
    row = next(t for t in board["departures"] if t["number"] == departure["number"])
    assert row["departs"] == departs
    # the departures table reads the page's clock ("day 1, 08:30"), not the timetable's stamp
    read = itinerary_view.clock_text(data)
    assert row["departure_text"] == read(departs) and row["departure"][:4] not in row["departure_text"]
    for action, button in buttons.items():
        if action.startswith("wait until "):
            assert button["gone_at"] > state.clock  # a wait goes when its moment comes


def test_a_seats_chat_reads_under_the_seats_name_without_the_stored_sender():
    from games import kitchen_view
    from games.presenters import as_read_by

    npc = {"agent": 1, "category": "chat", "message": "agent 1: Agent 1 will go to Storage: now"}
    assert as_read_by(npc, [0]) == "Agent 1 will go to Storage: now"  # under "Teammate 1", not "agent 1: ..."
    person = {"agent": 0, "category": "chat", "message": "p-d3d6b0f21d88: hello"}
    assert as_read_by(person, [1]) == "hello"  # an account's name is not shown to the other players
    note = {"agent": None, "category": "chat", "message": "researcher: a note"}
    assert as_read_by(note, [0]) == "researcher: a note"  # no seat to name it: the sender stays
    # the kitchen's lines name their agents themselves, but a chat line keeps its sender's name
    places = {"storage0": "Storage"}
    entries = [
        {"seq": 1, "category": "engine", "kind": "acted", "time": 1.0, "agent": 0, "message": "agent 0 goto storage0"},
        dict(npc, seq=2, kind="chat", time=1.0, message="Agent 1 will go", agent_label="Teammate 1"),
    ]
    lines = kitchen_view.PRESENTER.log_lines(entries, ["You", "Teammate 1"], {"places": places})
    assert [(line["agent_label"], line["category"]) for line in lines] == [("", "engine"), ("Teammate 1", "chat")]


def test_recipes_messages_read_game_time_as_the_page_writes_it():
    from games.presenters import log_for
    from games.recipes_view import PRESENTER, people_clock

    said = "You started step 0 of Bake (autonomous, runs by itself) for 00:10:00; it ends at 00:10:28."
    assert people_clock(said) == "You started step 0 of Bake (autonomous, runs by itself) for 10:00; it ends at 10:28."
    assert people_clock("All recipes are complete at 01:02:40.") == "All recipes are complete at 1:02:40."
    assert people_clock("step 12 of 30; 10:28 stays") == "step 12 of 30; 10:28 stays"  # only whole HH:MM:SS
    entries = [{"seq": 1, "category": "engine", "kind": "started", "time": 28.0, "agent": 0, "message": said}]
    # the log says "runs by itself", as the buttons and the legend do (programs read "autonomous")
    assert log_for("recipes", entries, ["You"], {})[0]["message"] == (
        "You started step 0 of Bake (runs by itself) for 10:00; it ends at 10:28."
    )
    assert PRESENTER.feedback("Step 2 cannot start before 00:04:29.", 0) == "Step 2 cannot start before 4:29."


def test_an_itinerary_visit_cut_short_by_lunch_reads_until_lunch_and_stays_right_as_the_clock_runs():
    # The menu offered "visit Tower for 30 minutes" at 11:30 (the brief wants 60, lunch is at
    # 12:00) and the page kept the button until closing: pressed a minute later it ran into lunch.
    from games import itinerary_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    state = TRIPS.initial_state(definition())
    for action in ("go to Tower", "wait until 11:30"):
        state = TRIPS.act(state, 0, action, state.clock).state
    board = itinerary_view.board(TRIPS.observe(state, 0).data, TRIPS.legal_actions(state, 0))
    visit = next(b for g in board["groups"] for b in g["buttons"] if b["action"].startswith("visit"))
    assert (visit["action"], visit["label"]) == ("visit Tower until 12:00", "Visit Tower until 12:00")
    assert visit["gone_at"] == 5 * 60  # 12:00: nothing of the visit is left to do before lunch
    pressed = TRIPS.act(state, 0, visit["action"], state.clock + 7)  # read for seven minutes first
    assert pressed.rejection is None and pressed.state.clock == 5 * 60
    assert not [c for c in pressed.state.checks if not c.passed]
    assert not [e for e in pressed.events if e.kind == "violated"]


def test_an_itinerary_walk_button_goes_when_the_menu_would_stop_offering_it():
    from games import itinerary_view
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    state = TRIPS.initial_state(definition())  # 07:00; the Tower 20 min away, lunch at 12:00
    board = itinerary_view.board(TRIPS.observe(state, 0).data, TRIPS.legal_actions(state, 0))
    go = next(b for g in board["groups"] for b in g["buttons"] if b["action"] == "go to Tower")
    assert go["gone_at"] == 5 * 60 - 20 + 1  # from 11:41 the walk would run into lunch
    late = TRIPS.act(state, 0, "wait until 11:40", 0).state
    assert "go to Tower" in TRIPS.legal_actions(late, 0)
    later = TRIPS.act(state, 0, "wait until 11:41", 0).state
    assert "go to Tower" not in TRIPS.legal_actions(later, 0)


def test_recipes_read_by_their_titles_and_a_paused_step_goes_on_by_its_button_not_a_command():
    from games import recipes_view

    titles = {"Tomato-Soup": "Tomato Soup"}
    said = "You paused step 2 of Tomato-Soup with 00:00:38 left; continue it later with Step(2, Tomato-Soup)."
    assert recipes_view.people_words(said, titles) == (
        "You paused step 2 of Tomato Soup with 0:38 left; start it again to carry on."
    )
    stopped = "Step 2 of Tomato-Soup stopped with 00:01:00 left; continue it with another Step(...)."
    assert (
        recipes_view.people_words(stopped, titles)
        == "Step 2 of Tomato Soup stopped with 1:00 left; start it again to carry on."
    )
    assert recipes_view.people_words("Tomato-Soup-Deluxe is done", titles) == "Tomato-Soup-Deluxe is done"
    assert recipes_view.PRESENTER.tick_text({})(600) == "10:00"  # the timeline's axis, as the clock
    # a teammate's refusal read as news ("Teammate 1 Step 4 of Lemonade is already complete"): it
    # says what it is, as the tasks and kitchen logs do
    refused = {"category": "engine", "kind": "rejected", "agent": 1, "message": "Step 4 of Tomato-Soup is done."}
    (line,) = recipes_view.PRESENTER.log_lines([refused], ["You", "Teammate 1"], {"cards": []})
    assert line["message"] == "could not: Step 4 of Tomato-Soup is done."


def test_the_idle_recipes_cook_reads_the_recipe_by_its_title():
    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import SOUP, kitchen

    soup = dict(SOUP, name="Pea-Soup")
    state = RECIPES.initial_state(kitchen(soup))
    state = RECIPES.act(state, 0, "Step(0, Pea-Soup)", 0).state
    data = RECIPES.observe(state, 0).data
    board = recipes_view.board(data, RECIPES.legal_actions(state, 0))
    assert [card["title"] for card in board["cards"]] == ["Pea Soup"]
    assert board["cook"] == "busy with Pea Soup step 0 until 4:00"
    labels = [b["label"] for g in board["groups"] for b in g["buttons"]]
    assert labels and all("Pea-Soup" not in label for label in labels)
    assert "Pea-Soup" not in str(board["next_event"]) + str(board["idle_hint"])


def test_a_wait_read_in_pieces_is_one_bar_and_one_line_of_the_day():
    from games import itinerary_view

    # the real-time clock moves a reading traveller on in pieces (to each opening, an hour at most)
    entries = [E("waited", t, None, {"from": t - 60 if t > 60 else 21, "until": t}) for t in (60, 120, 180)]
    entries.insert(0, E("waited", 1, None, {"from": 0, "until": 1}))
    bars = timeline.build(entries, ["You"], now=180).rows[0].bars
    assert [(b.start, b.end) for b in bars] == [(0.0, 1.0), (21.0, 180.0)]  # the first is a wait of its own

    def leg(kind: str, start: int, end: int, place: str = "Museum", implicit: bool = True) -> dict[str, Any]:
        return {"kind": kind, "start": start, "end": end, "start_text": f"s{start}", "end_text": f"e{end}",
                "place": place, "implicit": implicit}  # fmt: skip

    plan = [leg("transfer", 0, 21, implicit=False), leg("stay", 21, 60), leg("stay", 60, 120), leg("stay", 120, 180)]
    plan += [leg("stay", 180, 200, implicit=False), leg("stay", 200, 210), leg("stay", 210, 220, place="Hall")]
    day = itinerary_view.day_so_far(plan)
    assert [(d["kind"], d["start"], d["end"], d["end_text"], d["place"]) for d in day] == [
        ("transfer", 0, 21, "e21", "Museum"),
        ("stay", 21, 180, "e180", "Museum"),  # three pieces of one wait
        ("stay", 180, 200, "e200", "Museum"),  # a stay the player chose stays apart
        ("stay", 200, 210, "e210", "Museum"),
        ("stay", 210, 220, "e220", "Hall"),  # another place
    ]


def test_the_trip_log_and_result_read_as_the_page_does():
    from games import itinerary_view, presenters
    from games.domains.itinerary.rules import RULES as TRIPS
    from games.domains.itinerary.tests.worlds import definition

    one_day = TRIPS.initial_state(definition(end="2024-01-01 23:00"))
    data = dict(TRIPS.observe(one_day, 0).data)
    extras = presenters.board_extras("itinerary", data, ["You"], TRIPS.legal_actions(one_day, 0))
    entries = [
        {"category": "engine", "kind": "waited", "message": "The traveller waited in Alpha until 2024-01-01 10:00."}
    ]
    assert presenters.log_for("itinerary", entries, ["You"], extras)[0]["message"] == (
        "You waited in Alpha until 10:00."  # the clock's wait is the reader's own
    )
    several = TRIPS.initial_state(definition())
    data = dict(TRIPS.observe(several, 0).data)
    extras = presenters.board_extras("itinerary", data, ["You"], TRIPS.legal_actions(several, 0))
    entries[0]["message"] = "Stayed in Beta until 2024-01-02 09:10."
    assert (
        presenters.log_for("itinerary", entries, ["You"], extras)[0]["message"] == "Stayed in Beta until day 2, 09:10."
    )

    result = TRIPS.result(one_day)
    rows = {label: text for label, text, _ in presenters.metric_rows(result, "itinerary")}
    objective = result["objective"]
    assert rows["objective"] == (
        f"time: 0 min; full efficiency points at {itinerary_view.time_left(round(objective['min']))} or less, "
        f"none at {itinerary_view.time_left(round(objective['max']))} or more"
    )
    # a trip of days reads in days and hours ("time: 8340 min")
    days = {"quantity": "time", "unit": "minute", "value": 8340, "min": 4000, "max": 9000}
    assert itinerary_view.ItineraryPresenter().result_text("objective", days) == (
        "time: 5 days 19 h; full efficiency points at 2 days 18 h or less, none at 6 days 6 h or more"
    )


def _line(category: str, kind: str, time: float, message: str) -> dict[str, Any]:
    return {"category": category, "kind": kind, "time": time, "message": message}


def test_the_end_is_said_once_where_the_rules_said_it_in_their_own_words():
    from games import presenters

    trip = [
        _line("engine", "completed", 270, "Visited Maritime Museum for 90 minutes."),
        _line("engine", "finished", 270, "The trip is over: every goal of the brief is met."),
        _line("control", "finished", 270, "the game is over: every goal of the brief is met"),
    ]
    assert presenters.said_once(trip)[-1]["message"] == "the game is over"  # the reason stood just above it
    other = _line("engine", "finished", 270, "The trip is over: the trip's end time has come.")
    assert presenters.said_once([other, trip[2]])[-1]["message"] == trip[2]["message"]  # a different reason
    # a kitchen closes at its last step and the game ends at the next
    kitchen = [
        _line("engine", "expired", 59, "order #10 (toast) expired"),
        _line("engine", "finished", 59, "kitchen closed after 60 steps: 0 orders completed, 10 failed"),
        _line("control", "finished", 60, "the game is over: the kitchen closed after 60 steps"),
    ]
    assert presenters.said_once(kitchen)[-1]["message"] == "the game is over"


def test_a_finished_games_timeline_ends_where_the_game_did():
    entries = [E("started", 0, 0, {"start": 0, "end": 20}), E("completed", 20, 0, {})]
    running = timeline.build(entries, ["You"], now=30)
    assert running.span > 30  # room ahead while the game runs
    ended = timeline.build(entries, ["You"], now=30, finished=True)
    assert ended.span == 30 and ended.percent(30) == 100.0
    cut = timeline.build([E("started", 0, 0, {"start": 0, "end": 50})], ["You"], now=30, finished=True)
    assert cut.span == 30  # an action the end cut short ends there too
    # a kitchen's mixer started at the last step would be ready two steps after the game ended
    mixing = {"step": 59, "command": "activate mixer0", "ready_at": 62, "product": "cake"}
    kitchen = timeline.build([E("completed", 60, 0, mixing)], ["You"], now=60, finished=True)
    assert kitchen.span == 60 and max(b.end for b in kitchen.rows[0].bars) == 60


def test_the_recipes_result_writes_its_durations_as_the_clock_does():
    # "Makespan (s) 1290" beside a game that ended at 21:30
    result = {"makespan_seconds": 1290, "executed_seconds": 1530, "autonomous_seconds": 360, "actions": 11}
    rows = {label: text for label, text, _ in presenters.metric_rows(result, "recipes")}
    assert rows == {"makespan": "21:30", "executed": "25:30", "runs by itself": "6:00", "actions": "11"}
    # beside what the reference plan takes (R-efficiency compares with it); nothing when there is none
    rows = {label: text for label, text, _ in presenters.metric_rows({"reference_makespan_seconds": 2790}, "recipes")}
    assert rows == {"reference plan's makespan": "46:30"}
    assert presenters.metric_rows({"reference_makespan_seconds": None}, "recipes") == []
    # efficiency is a percentage, and can be below 0 (an idle cook): it said "Efficiency -24" beside
    # "the steps' total duration over the time taken", which is never negative
    ((label, text, meaning),) = presenters.metric_rows({"efficiency": -24.0}, "recipes")
    assert (label, text) == ("efficiency (%)", "-24")
    assert "minus the time taken" in meaning and "below 0" in meaning
    # a failed game's timings count planned ends of steps under way ("makespan 16:21" for a game
    # over at 15:31) and its efficiencies score them ("R-efficiency 113"): not shown on its page
    failed = {**result, "success": False, "progress": 31.0, "efficiency": 70.6, "r_efficiency": 113.0, "se": 0.0}
    rows = {label for label, _, _ in presenters.metric_rows(failed, "recipes")}
    assert "makespan" not in rows and "efficiency (%)" not in rows and not any("r-eff" in r.lower() for r in rows)
    assert "actions" in rows and len(rows) >= 4


def test_a_narrow_recipe_steps_bar_reads_its_short_label_not_a_cut_off_one():
    # a 1:39 step in a ten-minute timeline read "Bana…": it shows "BB 1" where "Banana Bread step 1"
    # does not fit (the page's container query picks which, by tl-fit-*), the title keeps the whole
    from django.template.loader import render_to_string

    from games import recipes_view

    data = {"recipes": [{"name": "Banana-Bread"}, {"name": "Roast-Vegetables"}]}
    texts = presenters.timeline_texts("recipes", data)
    entries = [
        E("started", 0, 0, {"recipe": "Banana-Bread", "step": 1, "start": 0, "end": 99}),
        E("started", 99, 0, {"recipe": "Roast-Vegetables", "step": 1, "start": 99, "end": 540}),
    ]
    tl = timeline.build(entries, ["You"], now=100, **texts)
    bars = tl.rows[0].bars
    assert [(b.label, b.short, b.fit) for b in bars] == [
        ("Banana Bread step 1", "BB 1", 20),
        ("Roast Vegetables step 1", "RV 1", 24),
    ]
    page = render_to_string("games/live/_timeline.html", {"timeline": tl})
    assert '<span class="tl-long">Banana Bread step 1</span><span class="tl-short">BB 1</span>' in page
    assert "tl-fit-20" in page and "tl-fit-24" in page
    # two recipes with the same initials are told apart by their first words
    twins = {"recipes": [{"name": "Tomato-Soup"}, {"name": "Tray-Steak"}, {"name": "Omelette"}]}
    short = recipes_view.PRESENTER.abbreviate(twins)
    assert [short("Tomato Soup step 2"), short("Tray Steak step 0"), short("Omelette step 3")] == [
        "Tomato 2",
        "Tray 0",
        "O 3",
    ]
    assert short("Wait until 10:00") == ""  # not a step: the label as it is
    # a kitchen step's or a tasks minute's bar reads its verb ("Walk", "pour"), not "W…", "pour k…"
    for domain, label, verb in (("kitchen", "Walk to Storage", "Walk"), ("tasks", "pour kettle into teapot", "pour")):
        (bar,) = (
            timeline.build(
                [E("started", 0, 0, {"action": label, "start": 0, "end": 1})],
                ["You"],
                now=1,
                **presenters.timeline_texts(domain, {}),
            )
            .rows[0]
            .bars
        )
        assert (bar.label, bar.short) == (label, verb)
    assert timeline.first_word("wait") == ""  # one word: nothing shorter to show
    # a domain without short labels renders as before
    kitchen = timeline.build([E("started", 0, 0, {"action": "boil water", "start": 0})], ["You"], now=5)
    assert "tl-short" not in render_to_string("games/live/_timeline.html", {"timeline": kitchen})


def test_a_bar_too_narrow_for_its_shortest_word_shows_no_text_rather_than_two_letters():
    # a one-step kitchen bar in a 16-step game read "Se…" for "Serve the tomato wedges": a bar whose
    # shortest text is a word of 5-8 letters carries tl-least-N, and the style sheet hides its text
    # below the width that word needs (the title still names it)
    from django.template.loader import render_to_string

    texts = presenters.timeline_texts("kitchen", {})
    entries = [
        E("started", 0, 0, {"action": "Serve the tomato wedges", "start": 0, "end": 1}),
        E("started", 1, 0, {"action": "Walk to Storage", "start": 1, "end": 2}),
        E("started", 2, 0, {"action": "Preheat the oven", "start": 2, "end": 3}),
        E("started", 3, 0, {"action": "Steaming the rice", "start": 3, "end": 4}),
    ]
    bars = timeline.build(entries, ["You"], now=4, **texts).rows[0].bars
    assert [(b.short, b.least) for b in bars] == [("Serve", 6), ("Walk", 0), ("Preheat", 8), ("Steaming", 8)]
    assert timeline.least_fit("wait") == 0  # four letters fit where any text does
    assert timeline.least_fit("Lemonade step 3 and more") == 0  # a long text is cut with its ellipsis
    page = render_to_string("games/live/_timeline.html", {"timeline": timeline.build(entries, ["You"], now=4, **texts)})
    assert page.count("tl-least-6") == 1 and page.count("tl-least-8") == 2
    css = (settings.BASE_DIR / "static" / "css" / "games.css").read_text()
    assert ".tl-least-6 span { visibility: hidden; }" in css and ".tl-least-8 span { visibility: hidden; }" in css


def test_the_timeline_legend_names_only_the_kinds_of_bar_the_domain_draws():
    # an itinerary has nothing that "runs by itself" and a kitchen's tools cook by themselves: their
    # legends say what their bars are; tasks keep the three kinds
    from django.template.loader import render_to_string

    def legend(domain: str) -> str:
        tl = timeline.build([], ["You"], now=1, **presenters.timeline_texts(domain, {}))
        page = render_to_string("games/live/_timeline.html", {"timeline": tl})
        return page.split('class="tl-legend hint">')[1].split("</p>")[0]

    tasks, itinerary, kitchen = legend("tasks"), legend("itinerary"), legend("kitchen")
    assert "keeps the agent busy" in tasks and "runs by itself" in tasks and "swatch wait" in tasks
    assert "runs by itself" not in itinerary and "travelling or visiting" in itinerary
    assert "staying or waiting" in itinerary
    assert "runs by itself" not in kitchen and "a command (one step)" in kitchen
    # the striped bar of a tool cooking after its agent started it (it had no words in the legend)
    assert "swatch background" in kitchen and "a tool cooking by itself" in kitchen
    assert "keeps the cook busy" in legend("recipes") and "runs by itself" in legend("recipes")


def test_why_a_recipes_game_ended_reads_its_time_as_the_game_page_does():
    # the replay's "Why it ended" said "at 01:27:47" where the game page says "at 1:27:47"
    rows = {
        label: text
        for label, text, _meaning in presenters.metric_rows(
            {"reason": "All recipes are complete at 01:27:47."}, "recipes"
        )
    }
    assert rows == {"why it ended": "All recipes are complete at 1:27:47."}
    # a game still running (its replay, a researcher watching) has no reason yet: no empty row
    running = presenters.metric_rows({"over": "", "total": 66.67}, "itinerary")
    assert [label for label, _text, _meaning in running] == ["total"]


def test_a_running_trips_replay_does_not_say_when_it_finished():
    # the replay of a trip under way read "Finished at 2024-05-01 01:18: When the trip's last train
    # or visit ended."
    result = {"finished_at": "2024-05-01 01:18", "total": 70}
    ended = presenters.metric_rows(result, "itinerary")
    assert ended[0][:2] == ("finished at", "2024-05-01 01:18")
    running = presenters.metric_rows(result, "itinerary", running=True)
    assert running[0] == (
        "last leg ended",
        "2024-05-01 01:18",
        "When the trip's latest train or visit ended; the trip goes on.",
    )
    assert running[1] == ended[1]


def test_a_recipes_board_writes_whats_left_as_of_its_own_time_for_a_replay():
    """A replay's board does not tick: it read "in 507" (the next event's moment in seconds) and
    "start by 600 s"; it says what is left, as the live page's countdowns do."""
    from django.template.loader import render_to_string

    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import SOUP, kitchen

    state = RECIPES.initial_state(kitchen(SOUP), options={"max_rejections": 0})
    state = RECIPES.act(state, 0, "Step(0, Soup)", 0).state  # chop, 4:00
    state = RECIPES.act(state, 0, "Step(1, Soup)", 240).state  # heat the pot by itself, 5:00
    state = RECIPES.advance(state, 560).state  # the pot was hot at 9:00; stir within 1:00 of it
    data = RECIPES.observe(state, 0).data
    board = recipes_view.board(data, [])
    (stir,) = [s for s in board["cards"][0]["steps"] if s["index"] == 2]
    assert stir["deadline"] == 600 and stir["deadline_left"] == "0:40"
    html = render_to_string("games/boards/recipes.html", {"board": board, "data": data, "viewer": None})
    assert "start within 0:40" in html and "start by 600" not in html
    assert "in 0:40" in html and "in 600" not in html  # the next event: the window closing
    # a player whose first game failed at one late step had not been told a window ends the game
    assert "a step started after its window closes ends the game" in html


def test_a_recipes_start_that_would_miss_an_open_time_window_says_so():
    """One missed window ends a recipes game: starting a step that keeps the cook busy past a
    window's end, or holds the appliance the window's step needs, is marked, with the window it
    would miss; a step that runs by itself elsewhere is not."""
    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import BAKE, SOUP, STOVE, kitchen, step

    eggs = {"name": "Eggs", "steps": [step(0, 180, auto=True, physical=STOVE, text="Melt the butter.")]}
    state = RECIPES.initial_state(kitchen(BAKE, SOUP, eggs), options={"time_constraints": True, "max_rejections": 0})
    state = RECIPES.act(state, 0, "Step(0, Soup)", 0).state  # chop until 4:00
    state = RECIPES.advance(state, 240).state
    state = RECIPES.act(state, 0, "Step(1, Soup)", 240).state  # heat the pot (by itself) until 9:00
    before = recipes_view.action_groups(RECIPES.legal_actions(state, 0), RECIPES.observe(state, 0).data)
    assert not any(b.get("risky") for g in before for b in g["buttons"])  # no window is open yet
    state = RECIPES.advance(state, 540).state  # the pot is hot: stir within 1:00
    groups = recipes_view.action_groups(RECIPES.legal_actions(state, 0), RECIPES.observe(state, 0).data)
    buttons = {b["action"]: b for g in groups for b in g["buttons"]}
    mix = buttons["Step(1, Bake)"]
    assert mix.get("risky") and mix["label"].endswith(
        "; you would be busy past 10:00, when Soup step 2 must have started"
    ), mix["label"]
    assert not buttons["Step(0, Bake)"].get("risky")  # the preheat runs by itself, in the oven
    assert not buttons["Step(2, Soup)"].get("risky")  # the window's own step
    # a step that runs by itself but holds the stove the stir needs is as costly
    melt = buttons["Step(0, Eggs)"]
    assert melt.get("risky") and melt["label"].endswith(
        "; the stove would be in use past 10:00, when Soup step 2 must have started"
    ), melt["label"]


def test_a_cook_busy_with_a_pausable_step_while_a_window_runs_is_told_to_pause_it():
    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import BAKE, SOUP, kitchen

    state = RECIPES.initial_state(kitchen(BAKE, SOUP), options={"time_constraints": True, "max_rejections": 0})
    state = RECIPES.act(state, 0, "Step(0, Soup)", 0).state
    state = RECIPES.advance(state, 240).state
    state = RECIPES.act(state, 0, "Step(1, Soup)", 240).state  # the pot is hot at 9:00: stir by 10:00
    state = RECIPES.advance(state, 300).state
    state = RECIPES.act(state, 0, "Step(1, Bake)", 300).state  # mixing (pausable) until 10:00
    state = RECIPES.advance(state, 540).state
    cards = recipes_view.recipe_cards(RECIPES.observe(state, 0).data, 0)
    steps = {(c["title"], s["index"]): s for c in cards for s in c["steps"]}
    assert steps[("Soup", 2)]["why"] == "you are busy with Bake step 1 until 10:00: pause it to start this now"
    assert steps[("Bake", 2)]["why"].startswith("waits for step 1")  # no window: nothing to pause for


def test_a_player_sees_what_each_teammate_cook_is_doing():
    """With an NPC cook beside them, a player saw a step running and not who ran it: the "You"
    card lists each teammate's doing too."""
    from django.template.loader import render_to_string

    from games import recipes_view
    from games.domains.recipes.rules import RULES as RECIPES
    from games.domains.recipes.tests.kitchens import BAKE, SOUP, kitchen

    state = RECIPES.initial_state(kitchen(BAKE, SOUP), agents=2, options={"max_rejections": 0})
    state = RECIPES.act(state, 1, "Step(1, Bake)", 0).state
    data = RECIPES.observe(state, 0).data
    board = recipes_view.board(data, RECIPES.legal_actions(state, 0), ["You", "Teammate 1 (planner NPC)"])
    assert board["teammates"] == [("Teammate 1 (planner NPC)", "busy with Bake step 1 until 5:00")]
    html = render_to_string(
        "games/boards/recipes.html",
        {"board": board, "data": data, "viewer": type("V", (), {"agents": [0]})(), "game": None},
    )
    assert "<strong>Teammate 1 (planner NPC)</strong>: busy with Bake step 1 until 5:00" in html


def test_a_game_played_together_says_each_players_counts(participant):
    """The result's counts mixed everyone's actions ("valid 8 · repeated 4"): whose were refused,
    the person's or the teammate's, could not be told."""
    from games.importers import bundled_tasks
    from games.presenters import live_context
    from games.viewer import Viewer, load_update

    bundled_tasks.load(log=lambda line: None)
    seats = [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}]
    game = services.create_game("bundled/make-tea", seats, clock="lockstep")
    services.apply_action(game.pk, agent=0, action="fill kettle", by=participant)
    services.finish(game.pk, reason="time is up")
    who = Viewer(agents=[0])
    rows = {name: text for name, text, _ in live_context(load_update(game.pk, who, 0), who, full=True)["result_rows"]}
    per_player = rows["counts by player"]
    assert per_player.startswith("You: valid 1") and " · Teammate 1 (random NPC): " in per_player, per_player


def test_a_refusal_said_again_at_one_moment_reads_once_with_a_count():
    """Reloaded, the log showed one "You are busy ..." line where the live page had said "×4"."""
    busy = "You are busy with fill kettle until t=1; act again once you are free."
    entries = [
        {"category": "engine", "kind": "started", "agent": 0, "time": 0, "message": "You are doing fill kettle."},
        *({"category": "engine", "kind": "rejected", "agent": 0, "time": 0, "message": busy} for _ in range(4)),
    ]
    kept = presenters.said_once(entries)
    assert [(e["kind"], e.get("repeats")) for e in kept] == [("started", None), ("rejected", 4)]
    # two teammates who both wait keep their lines, and other repeats are left out without a count
    wait = {"category": "engine", "kind": "waited", "time": 0, "message": "wait one minute"}
    both = presenters.said_once([{**wait, "agent": 0}, {**wait, "agent": 1}])
    assert [e.get("repeats") for e in both] == [None, None]


def test_a_reload_leaves_no_pause_in_the_log():
    """Each visit to an open game (a reload, a tab opened and closed) added "the game is paused
    until the player returns / the game resumes" at one moment; a researcher's pause stays."""

    def control(kind, time, reason=""):
        return {"category": "control", "kind": kind, "time": time, "message": kind, "data": {"reason": reason}}

    started = {"category": "engine", "kind": "started", "agent": 0, "time": 0, "message": "You are doing it."}
    blip = [control("paused", 0.4, "disconnect"), control("resumed", 0.4)]
    researcher = [control("paused", 0.5, "researcher"), control("resumed", 0.5)]
    assert presenters.without_reloads([started, *blip, *researcher]) == [started, *researcher]


def test_a_kitchen_of_several_cooks_says_each_cooks_commands():
    """The kitchen's result had no word of who did what; its per-cook list reads by the seats'
    names, without the index their names already give ("Teammate 1 (planner NPC): agent 1")."""
    result = {
        "completed": 3,
        "steps": 12,
        "agents": [
            {"agent": 0, "accepted": 10, "rejected": 2, "idle": 0},
            {"agent": 1, "accepted": 8, "rejected": 0, "idle": 5},  # one of the idle steps a wait
        ],
    }
    rows = {name: text for name, text, _ in presenters.metric_rows(result, "kitchen", names=["You", "Teammate 1"])}
    assert str(rows["commands by cook"]) == (
        "You: accepted 10, refused 2, idle 0 · Teammate 1: accepted 7, refused 0, idle 5"
    )
    assert "commands by cook" not in {name for name, _, _ in presenters.metric_rows(result, "kitchen")}


def test_a_kitchens_commands_by_cook_add_up_to_the_steps_in_a_table_whose_help_says_what_each_counts(db):
    """A planner NPC's "accepted 60, idle 3" in a 60-step game: its three waits ("Wait this step")
    counted as accepted and as idle, while the help said idle was "no command"."""
    from django.template.loader import render_to_string

    from games.importers.bundled_kitchen import definitions
    from games.models import Game

    state = KITCHEN.initial_state(definitions()["breakfast-grill"], agents=2)
    plays = [
        {0: "goto storage0", 1: "noop(agent1)"},  # a wait
        {0: "get storage0 cheese", 1: "put pan0"},  # refused: holds nothing
        {0: "noop(agent0)"},  # and agent 1 sends nothing
        {0: "goto storage0", 1: "goto storage0"},
    ]
    for commands in plays:
        for agent, command in commands.items():
            state = KITCHEN.act(state, agent, command, state.step).state
        state = KITCHEN.advance(state, state.step + 1).state
    result = KITCHEN.result(state)
    assert [(a["accepted"], a["rejected"], a["idle"]) for a in result["agents"]] == [(4, 0, 1), (2, 1, 2)]
    rows = {
        name: (value, meaning)
        for name, value, meaning in presenters.metric_rows(result, "kitchen", names=["You", "Teammate 1"])
    }
    table, meaning = rows["commands by cook"]
    assert table.columns == ("cook", "accepted", "refused", "idle")
    assert table.rows == (("You", 3, 0, 1), ("Teammate 1", 1, 1, 2))
    assert all(sum(row[1:]) == result["steps"] == 4 for row in table.rows)  # each step counted once
    assert "add up to the steps played" in meaning and "Wait this step" in meaning and "none sent" in meaning
    html = render_to_string(
        "games/live/_result.html",
        {"finished": True, "result_rows": [("commands by cook", table, meaning)], "game": Game(pk=1), "viewer": None},
    )
    cells = [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>.*?</t[hd]>", html)]
    assert cells == ["Cook", "Accepted", "Refused", "Idle", "You", "3", "0", "1", "Teammate 1", "1", "1", "2"], html


def test_a_persons_chat_names_the_seats_as_its_reader_knows_them():
    """Each seat numbers its teammates from its own place: with three people, the annotator's
    "Teammate 1, please grab the lettuce" (meaning the researcher) read on the researcher's page as
    an order to the participant, that page's Teammate 1."""
    from games.presenters import as_read_by

    text = "Teammate 1, grab the lettuce. Teammate 2 chops"
    line = {"agent": 2, "category": "chat", "message": "x", "data": {"text": text}}
    researcher = ["You", "Teammate 1 (participant)", "Teammate 2 (annotator)"]
    participant = ["Teammate 1 (researcher)", "You", "Teammate 2 (annotator)"]
    watcher = ["Player 1 (researcher)", "Player 2 (participant)", "Player 3 (annotator)"]
    assert as_read_by(line, [0], researcher) == "You, grab the lettuce. Teammate 1 chops"
    assert as_read_by(line, [1], participant) == "Teammate 1, grab the lettuce. You chops"
    assert as_read_by(line, [], watcher) == "Player 1, grab the lettuce. Player 2 chops"
    writer = ["Teammate 1 (researcher)", "Teammate 2 (participant)", "You"]
    assert as_read_by(line, [2], writer) == "Teammate 1, grab the lettuce. Teammate 2 chops"  # the writer's own
    said = {"agent": 2, "category": "chat", "message": "x", "data": {"text": "please help teammate 2 and teammate 9"}}
    assert as_read_by(said, [1], participant) == "please help you and teammate 9"  # no such seat: as written


def test_with_every_tool_for_it_in_use_the_player_is_not_sent_between_them():
    """Holding broccoli beside two steamers in use (one with broccoli not started, one with steamed
    broccoli ready), the first walk offered was to the other steamer, and from there back: a
    newcomer pressing 1 paced between them for 35 steps, and the line said it "goes into the
    Steamer 1 or Steamer 2"."""
    data = kitchen_data("busy-kitchen")
    places = kitchen_view.place_names(data["locations"])
    steamers = [loc for loc in data["locations"] if loc["kind"] == "steamer"]
    data["agents"][0]["holding"] = "broccoli"
    data["agents"][0]["location"] = steamers[1]["name"]
    free = kitchen_view.held_hint(data, places)
    assert free == "You hold broccoli: it goes into the Steamer 1 or Steamer 2 to make steamed broccoli.", free
    steamers[0]["contents"] = ["steamedBroccoli"]
    steamers[1]["contents"] = ["broccoli"]
    said = kitchen_view.held_hint(data, places)
    assert said.startswith("You hold broccoli for steamed broccoli, but Steamer 1 and Steamer 2 are both in use"), said
    walks = ["goto storage0", "goto servingtable0", f"goto {steamers[0]['name']}", "goto mixer0"]
    groups = kitchen_view.action_groups([*walks, "noop"], data, places, steamers[1]["name"])
    first = next(g for g in groups if g["title"] == "Walk to")["buttons"][0]
    assert first["place"] != steamers[0]["name"], first
    # nor any walk: waiting for a steamer comes first (pressing 1 walked Storage -> Serving table ->
    # Storage with both chopping boards in use)
    buttons = [b for g in groups for b in g["buttons"]]
    assert buttons[0]["action"] == "noop", buttons[:2]
    steamers[0]["contents"] = []  # one emptied: that is where it goes, and the walk there comes first
    assert kitchen_view.held_hint(data, places).endswith("goes into the Steamer 1 to make steamed broccoli.")
    groups = kitchen_view.action_groups([*walks, "noop"], data, places, steamers[1]["name"])
    assert next(g for g in groups if g["title"] == "Walk to")["buttons"][0]["place"] == steamers[0]["name"]
