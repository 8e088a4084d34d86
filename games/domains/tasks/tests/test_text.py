from games.domains.tasks.text import extract_action, parse


def test_parse_ignores_case_and_extra_spaces():
    command = parse("  Cook   Rice in  POT ")
    assert command is not None
    assert (command.verb, command.objects, command.prep) == ("cook", ("rice", "pot"), "in")
    assert parse("cook rice in") is None


def test_extract_action_finds_the_first_known_action_in_prose():
    actions = ["pick rice", "cook rice in pot", "wash dish"]
    reply = "The rice is ready to cook. I will now Cook rice in pot, then wash dish."
    assert extract_action(reply, actions) == "cook rice in pot"
    assert extract_action("Nothing to do, so: wait.", actions) == "wait"
    assert extract_action("fly to the moon\nplease", actions) == "fly to the moon"


def test_extract_action_prefers_the_longer_match_at_the_same_place():
    assert extract_action("add rice to dish_1", ["add rice to dish_1", "add rice to dish"]) == "add rice to dish_1"
    assert extract_action("wash dish_1 now", ["wash dish", "wash dish_1"]) == "wash dish_1"


def test_a_plural_object_takes_are_in_the_rules_sentences():
    # "towels is folded", "tea_leaves is in teapot" (read by players and agents alike)
    from games.domains.tasks.vocabulary import state_sentences

    assert state_sentences("fold", ("towels",), None, "fold towels")[0] == "towels are folded"
    assert state_sentences("add", ("tea_leaves", "teapot"), "to", "add tea_leaves to teapot") == (
        "tea_leaves are in teapot",
        "tea_leaves are not in teapot yet",
    )
    for singular in ("mattress", "gas", "bus", "rice", "kettle"):
        assert state_sentences("wash", (singular,), None, f"wash {singular}")[0].startswith(f"{singular} is ")
