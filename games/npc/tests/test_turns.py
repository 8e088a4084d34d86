"""NPC seats in live games, through the real play services and a stand-in LLM endpoint."""

from __future__ import annotations

from games import services
from games.agents.tests.stub_server import stub_endpoint
from games.models import Game, GameEvent
from games.npc.call_summary import summarise
from games.npc.models import LlmCall, NpcMemory
from games.npc.turns import play_turn, request_turn


def npc_actions(game):
    return list(
        GameEvent.objects.filter(game=game, category="action", agent=1)
        .order_by("seq")
        .values_list("data__action", flat=True)
    )


def test_random_npc_plays_its_seat_in_lockstep(
    toy_scenario, participant, inline_npcs, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game = services.create_game(
            "test/toy",
            [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}],
            clock="lockstep",
        )
    first = npc_actions(game)
    assert len(first) == 1  # the NPC answered the first step at once
    # The random NPC's first pick depends on the game's seed, so the human only waits (always
    # legal) until lockstep frees the NPC again; a few minutes of toy time is enough.
    for _ in range(5):
        if len(npc_actions(game)) >= 2:
            break
        with django_capture_on_commit_callbacks(execute=True):
            services.apply_action(game.pk, agent=0, action="wait", by=participant)
    # the NPC played again after the human's moves, and never in the human's seat
    assert len(npc_actions(game)) >= 2
    human = GameEvent.objects.filter(game=game, category="action", agent=0)
    assert set(human.values_list("data__by", flat=True)) == {"par"}
    assert NpcMemory.objects.get(pk=game.pk).running is False


def _chat_then_dust(script, text, participant, settings, capture):
    """A lockstep toy game with an LLM teammate answering by ``script``: the player writes ``text``
    in the chat, then dusts; the teammate's turns run in the caller."""
    with stub_endpoint(script) as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        with capture(execute=True):
            game = services.create_game(
                "test/toy",
                [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}],
                clock="lockstep",
            )
        with capture(execute=True):
            services.post_chat(game.pk, text=text, by=participant, agent=0)
            services.apply_action(game.pk, agent=0, action="do dust", by=participant)
    return game


def test_llm_npc_reads_the_humans_chat_and_its_reply_is_shown(
    toy_scenario, participant, inline_npcs, settings, django_capture_on_commit_callbacks
):
    seen = []

    def script(messages):
        seen.append(messages[-1]["content"])
        if "laundry first" in messages[-1]["content"]:
            return "Agent 1: start laundry\nSay: Starting the laundry as you asked."
        return "Agent 1: wait"

    capture = django_capture_on_commit_callbacks
    game = _chat_then_dust(script, "please do the laundry first", participant, settings, capture)
    assert "start laundry" in npc_actions(game)
    assert any('"please do the laundry first"' in prompt for prompt in seen)
    chat = GameEvent.objects.filter(game=game, category="chat", agent=1).values_list("data__text", flat=True)
    assert "Starting the laundry as you asked." in list(chat)
    call = LlmCall.objects.filter(game=game, reply__contains="start laundry").get()
    assert call.parsed == ["agent 1: start laundry"] and call.model and call.action_seqs
    acted = GameEvent.objects.get(game=game, seq=call.action_seqs[0])
    assert acted.agent == 1 and acted.data["action"] == "start laundry"


def test_failed_llm_call_makes_the_npc_wait_and_is_logged(toy_scenario, participant, inline_npcs, settings):
    with stub_endpoint(["x"]) as endpoint:
        endpoint.status = 500
        settings.LLM_BASE_URL = endpoint.base_url
        game = services.create_game(
            "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}], clock="lockstep"
        )
        request_turn(game.pk)
    call = LlmCall.objects.get(game=game)
    assert call.error.startswith("HTTP 500") and call.parsed == []
    assert npc_actions(game) == ["wait"]  # lockstep: an NPC without a command waits, so time can move
    # the log names the endpoint the call went to (a live game's base_url stood empty)
    assert call.base_url == endpoint.base_url.rstrip("/")


def test_the_call_log_keeps_an_endpoint_without_its_credentials():
    from games.agents.llm import public_address

    assert public_address("http://user:secret@10.0.0.5:8080/v1?api_key=k") == "http://10.0.0.5:8080/v1"
    assert public_address("https://api.openai.com/v1") == "https://api.openai.com/v1"


def test_stale_command_is_rejected_by_the_rules_and_fed_back(toy_scenario, participant, inline_npcs, settings):
    """The dispatcher decided on an older state; the human took the job first."""
    prompts = []

    def script(messages):
        prompts.append(messages[-1]["content"])
        return "Agent 1: do sweep" if len(prompts) == 1 else "Agent 1: wait"

    with stub_endpoint(script) as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        game = services.create_game(
            "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}], clock="lockstep"
        )
        from games.npc import turns

        original = turns.apply_decision

        def human_first(game_obj, *args, **kwargs):
            services.apply_action(game_obj.pk, agent=0, action="do sweep", by=participant)
            return original(game_obj, *args, **kwargs)

        turns.apply_decision = human_first
        try:
            NpcMemory.objects.create(game=game)
            assert play_turn(game.pk)
        finally:
            turns.apply_decision = original
        rejected = GameEvent.objects.filter(game=game, category="engine", kind="rejected", agent=1)
        assert rejected.exists()
        NpcMemory.objects.filter(pk=game.pk).update(decided_seq=0)
        play_turn(game.pk)
    assert "'do sweep' was refused" in prompts[-1]
    # the call that gave it counts it as refused, as the calls page's "Commands refused" says (it
    # read 0 beside a game log of two refusals: only a reply's unreadable commands were counted)
    gave = LlmCall.objects.filter(game=game).order_by("id").first()
    assert gave.problems == [f"agent 1: 'do sweep' refused when played: {rejected.get().data['message']}"]
    assert summarise(LlmCall.objects.filter(game=game))[0].refused == 1


def test_in_real_time_a_command_gone_stale_is_not_played_and_the_model_is_asked_again(
    toy_scenario, participant, settings, monkeypatch
):
    """The model chose what the person then did first: played, the rules refused it and the tasks
    teammate stood "a rejected action" for a game minute. It is dropped, and the NPC asked again."""
    from arena_site import background
    from games.npc import turns

    queued: list[str] = []
    settings.BACKGROUND_INLINE = False
    monkeypatch.setattr(background, "submit", lambda name, *args, **kwargs: queued.append(name))
    with stub_endpoint(lambda messages: "Agent 1: do sweep") as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        seats = [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}]
        game = services.create_game("test/toy", seats, clock="real_time", speed=1.0)
        original = turns.apply_decision

        def human_first(game_obj, *args, **kwargs):
            services.apply_action(game_obj.pk, agent=0, action="do sweep", by=participant)
            return original(game_obj, *args, **kwargs)

        monkeypatch.setattr(turns, "apply_decision", human_first)
        NpcMemory.objects.create(game=game)
        queued.clear()
        assert play_turn(game.pk)
    assert not GameEvent.objects.filter(game=game, agent=1, category__in=["action", "engine"]).exists()
    assert "npc.retry" in queued  # asked again at once, on the game as it is now
    gave = LlmCall.objects.get(game=game)
    assert gave.problems == [
        "agent 1: 'do sweep' refused when played: no longer possible (the game moved on while the model "
        "thought); not played"
    ]


def test_a_second_request_while_deciding_only_marks_the_game(toy_scenario, participant):
    game = services.create_game(
        "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}], clock="lockstep"
    )
    NpcMemory.objects.create(game=game, running=True, claimed_at=game.created_at)
    from django.utils import timezone

    NpcMemory.objects.filter(pk=game.pk).update(claimed_at=timezone.now())
    request_turn(game.pk)
    memory = NpcMemory.objects.get(pk=game.pk)
    assert memory.dirty and memory.running and not npc_actions(Game.objects.get(pk=game.pk))


def test_researchers_see_a_games_llm_calls_linked_to_the_replay(
    toy_scenario, participant, researcher, client, inline_npcs, settings
):
    from django.urls import reverse

    with stub_endpoint(["Agent 1: do dust\nSay: dusting"]) as endpoint:
        settings.LLM_BASE_URL = endpoint.base_url
        game = services.create_game(
            "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}], clock="lockstep"
        )
        request_turn(game.pk)
    call = LlmCall.objects.get(game=game)
    client.force_login(researcher)
    page = client.get(reverse("games:llm_calls", args=[game.pk]))
    assert page.status_code == 200
    assert b"agent 1: do dust" in page.content
    assert f"?at={call.action_seqs[0]}".encode() in page.content
    link = f'<a href="{reverse("games:llm_calls", args=[game.pk])}">NPC LLM calls</a>'
    assert link in client.get(reverse("games:replay", args=[game.pk])).content.decode()
    alone = services.create_game("test/toy", [{"kind": "human", "user": participant}], clock="lockstep")
    assert "NPC LLM calls" not in client.get(reverse("games:replay", args=[alone.pk])).content.decode()
    client.force_login(participant)
    assert client.get(reverse("games:llm_calls", args=[game.pk])).status_code == 403
    assert "NPC LLM calls" not in client.get(reverse("games:replay", args=[game.pk])).content.decode()


def test_news_is_never_lost_when_the_runner_finishes_during_a_request(toy_scenario, participant, monkeypatch):
    """The runner releases the game (``running=False``, then looks at ``dirty``) at whatever moment
    a new request is being made: after each of the request's writes in turn. Either the runner
    sees the news or the request claims the game; a lockstep game must never wait forever."""
    from django.db.models import QuerySet
    from django.utils import timezone

    from games.npc import turns

    game = services.create_game(
        "test/toy", [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "random"}], clock="lockstep"
    )
    original = QuerySet.update
    for release_after in range(2):
        NpcMemory.objects.update_or_create(
            game=game, defaults={"running": True, "dirty": False, "claimed_at": timezone.now()}
        )
        writes, runner_saw_news = [0], []

        def update(queryset, _after=release_after, _writes=writes, _saw=runner_saw_news, **fields):
            done = original(queryset, **fields)
            if queryset.model is NpcMemory and not _saw:
                if _writes[0] == _after:  # the runner finishes its run right here
                    original(NpcMemory.objects.filter(pk=game.pk), running=False)
                    _saw.append(NpcMemory.objects.filter(pk=game.pk, dirty=True).exists())
                _writes[0] += 1
            return done

        monkeypatch.setattr(QuerySet, "update", update)
        claimed = turns._claim(game.pk)
        monkeypatch.setattr(QuerySet, "update", original)
        assert runner_saw_news, "the runner's release was injected"
        assert runner_saw_news[0] or claimed, f"news lost when the runner released after write {release_after}"


def test_a_failing_model_is_asked_again_only_after_a_growing_capped_wait(
    toy_scenario, participant, inline_npcs, settings, django_capture_on_commit_callbacks
):
    from datetime import datetime, timedelta

    from games.npc.turns import BACKOFF_KEY, backoff_remaining, record_outcome

    settings.NPC_RETRY_SECONDS = 2.0
    settings.NPC_BACKOFF_MAX_SECONDS = 60.0
    with stub_endpoint(["x"]) as endpoint:
        endpoint.status = 500
        settings.LLM_BASE_URL = endpoint.base_url
        with django_capture_on_commit_callbacks(execute=True):
            game = services.create_game(
                "test/toy",
                [{"kind": "human", "user": participant}, {"kind": "npc", "dispatcher": "llm"}],
                clock="lockstep",
            )
        assert LlmCall.objects.filter(game=game).count() == 1
        # the human keeps playing (each move is news for the NPC): the model is not asked meanwhile,
        # yet the lockstep NPC waits so the game goes on
        for _ in range(4):
            with django_capture_on_commit_callbacks(execute=True):
                services.apply_action(game.pk, agent=0, action="wait", by=participant)
        assert LlmCall.objects.filter(game=game).count() == 1
        assert npc_actions(game).count("wait") >= 4
        memory = NpcMemory.objects.get(pk=game.pk)
        assert memory.data[BACKOFF_KEY]["failures"] == 1
        # once the wait is over the model is asked again, and the next wait doubles
        memory.data[BACKOFF_KEY]["until"] = 0
        memory.save(update_fields=["data"])
        with django_capture_on_commit_callbacks(execute=True):
            services.apply_action(game.pk, agent=0, action="wait", by=participant)
        assert LlmCall.objects.filter(game=game).count() == 2
        memory = NpcMemory.objects.get(pk=game.pk)
        now = datetime.now().astimezone()
        assert 2.0 < backoff_remaining(memory.data, now) <= 4.0
    # the participant is told once per run of failures, not at every retry
    said = GameEvent.objects.filter(game=game, category="chat", agent=1).values_list("data__text", flat=True)
    assert len([text for text in said if "trying again" in text]) == 1
    # in words that name no server (a participant read "cannot reach http://127.0.0.1:8080/v1");
    # the whole error stays on the LLM calls page
    (line,) = [text for text in said if "trying again" in text]
    assert line.startswith("(model call failed: the model server refused the call (HTTP 500)"), line
    assert endpoint.base_url not in line and "127.0.0.1" not in line
    assert LlmCall.objects.filter(game=game, error__startswith="HTTP 500").exists()

    data: dict = {}
    delays = [record_outcome(data, failed=True, now=now) for _ in range(8)]
    assert delays == [2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0, 60.0]
    assert record_outcome(data, failed=False, now=now + timedelta(seconds=1)) == 0 and BACKOFF_KEY not in data


def test_an_npc_line_that_repeats_the_players_instruction_is_not_said(
    toy_scenario, participant, inline_npcs, settings, django_capture_on_commit_callbacks
):
    # the bundled 135M model said the player's instruction back as its own line ("Teammate 2,
    # please make the tomato wedges ..."): it read as the teammate giving itself orders
    def script(messages):
        if "laundry first" in messages[-1]["content"]:
            return "Agent 1: start laundry\nSay: Teammate 1, please do the laundry first!"
        return "Agent 1: wait\nSay: I will dust next."

    text = "Teammate 1, please do the laundry first"
    game = _chat_then_dust(script, text, participant, settings, django_capture_on_commit_callbacks)
    assert "start laundry" in npc_actions(game)  # the command is carried out, only the echo is dropped
    said = list(GameEvent.objects.filter(game=game, category="chat", agent=1).values_list("data__text", flat=True))
    assert not any("laundry first" in line for line in said), said
    assert "I will dust next." in said  # a line of its own is said


def test_a_persons_teammate_names_reach_the_model_as_its_agent_numbers():
    """The page calls an LLM teammate "Teammate 1"; the prompt numbers seats "Agent N" (tasks from
    1), so "Teammate 1, please wash the plate" named the person themselves to the model."""
    from games.npc.turns import in_agents_words

    said = "Teammate 1, please wash the plate; teammate 2 fries the egg"
    assert in_agents_words(said, 0, [0, 1, 2], "tasks") == "Agent 2, please wash the plate; Agent 3 fries the egg"
    # the writer's teammates are the other seats in order: for the person in seat 1, Teammate 1 is seat 0
    assert in_agents_words("Teammate 1: sweep", 1, [0, 1, 2], "toy") == "Agent 0: sweep"
    assert in_agents_words("Teammate 7, hurry", 0, [0, 1], "tasks") == "Teammate 7, hurry"  # no such seat
    assert in_agents_words("Teammate 1, hurry", None, [0, 1], "tasks") == "Teammate 1, hurry"


def test_an_npc_line_that_repeats_a_line_of_the_game_is_not_said(
    toy_scenario, participant, inline_npcs, settings, django_capture_on_commit_callbacks
):
    """The bundled model copied a line of the game's from its prompt as its own ("You are doing
    load dishes into dishwasher, it will take 4 minutes"): it read as said to the person, and wrong."""
    told = []

    def script(messages):
        prompt = messages[-1]["content"]
        lines = [line for line in prompt.splitlines() if "started dust" in line]  # "t=0 agent 0: you started ..."
        if lines and not told:
            told.append(lines[-1].split(": ", 1)[-1])
            return f"Agent 1: wait\nSay: {told[-1]}"
        return "Agent 1: wait\nSay: I will sweep next."

    game = _chat_then_dust(script, "hello", participant, settings, django_capture_on_commit_callbacks)
    said = list(GameEvent.objects.filter(game=game, category="chat", agent=1).values_list("data__text", flat=True))
    assert told and told[0] not in said, (told, said)
    assert "I will sweep next." in said  # a line of its own is said


def test_a_failed_call_reads_in_the_chat_without_the_servers_address():
    from games.npc.turns import said_to_players

    assert said_to_players("cannot reach http://10.0.0.5:8080/v1: Connection error.") == (
        "the model server cannot be reached"
    )
    assert said_to_players("timeout after 30 s") == "the model did not answer within 30 s"
    assert said_to_players("HTTP 401: Incorrect API key provided: sk-abc***") == (
        "the model server refused the call (HTTP 401)"
    )
    assert said_to_players("ValueError: http://internal/ said no") == "the model's answer could not be read"
