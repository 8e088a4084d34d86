import pytest

from arena_site.loopback import free_port
from games.agents.llm import LlmClient, LlmConfig
from games.agents.tests.stub_server import stub_endpoint


def test_chat_returns_text_tokens_and_latency():
    with stub_endpoint(["Action: wash dish"]) as endpoint:
        client = LlmClient(base_url=endpoint.base_url, model="m", temperature=0.3, max_tokens=17)
        reply = client.chat([{"role": "system", "content": "rules"}, {"role": "user", "content": "state now"}])
    assert reply.ok and reply.text == "Action: wash dish"
    assert reply.prompt_tokens == 3 and reply.completion_tokens == 3
    assert reply.latency_seconds > 0
    sent = endpoint.requests[0]
    assert sent["model"] == "m" and sent["max_tokens"] == 17 and sent["temperature"] == 0.3
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]


def test_timeout_is_an_error_value_not_an_exception():
    with stub_endpoint(["late"]) as endpoint:
        endpoint.delay_seconds = 1.0
        reply = LlmClient(base_url=endpoint.base_url, model="m", timeout_seconds=0.2).chat(
            [{"role": "user", "content": "hi"}]
        )
    assert not reply.ok and "timeout" in reply.error and reply.text == ""


def test_http_error_is_reported():
    with stub_endpoint(["x"]) as endpoint:
        endpoint.status = 500
        reply = LlmClient(base_url=endpoint.base_url, model="m").chat([{"role": "user", "content": "hi"}])
    assert reply.error.startswith("HTTP 500")


def test_unreachable_endpoint_is_reported():
    port = free_port()
    reply = LlmClient(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout_seconds=2).chat(
        [{"role": "user", "content": "hi"}]
    )
    assert "cannot reach" in reply.error


def test_config_from_settings_with_condition_overrides(settings):
    settings.LLM_BASE_URL = "http://127.0.0.1:9/v1"
    settings.LLM_MODEL = "site-model"
    settings.LLM_TEMPERATURE = 0.0
    config = LlmConfig.from_settings({"model": "condition-model", "temperature": "0.7", "colour": "red"})
    assert (config.base_url, config.model, config.temperature) == ("http://127.0.0.1:9/v1", "condition-model", 0.7)
    assert "api_key" not in config.public()


def test_client_needs_an_endpoint():
    with pytest.raises(ValueError, match="base_url"):
        LlmClient(model="m")


SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def test_a_json_schema_is_asked_for_the_openai_way():
    with stub_endpoint(['{"ok": true}']) as endpoint:
        reply = LlmClient(base_url=endpoint.base_url, model="m").chat(
            [{"role": "user", "content": "hi"}], json_schema=SCHEMA
        )
    assert reply.ok and reply.text == '{"ok": true}'
    (sent,) = endpoint.requests
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": SCHEMA, "strict": True},
    }


@pytest.mark.parametrize(
    "status, message",
    [
        (422, ""),
        # llama-cpp-python's server (0.3): its request validation fails inside the handler
        (500, "1 validation error: {'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text'\"}"),
    ],
)
def test_an_endpoint_that_refuses_json_schema_is_asked_llama_cpp_python_s_way_and_remembered(status, message):
    with stub_endpoint(['{"ok": true}', '{"ok": false}']) as endpoint:
        endpoint.fail_next, endpoint.fail_message = [status], message
        client = LlmClient(base_url=endpoint.base_url, model="m")
        first = client.chat([{"role": "user", "content": "hi"}], json_schema=SCHEMA)
        second = client.chat([{"role": "user", "content": "again"}], json_schema=SCHEMA)
        plain = client.chat([{"role": "user", "content": "no schema"}])
        # a game's NPC makes a client per decision: the next one asks the endpoint's way at once
        # (it asked json_schema first every time, an HTTP 500 and a second request per decision)
        later = LlmClient(base_url=endpoint.base_url, model="m").chat(
            [{"role": "user", "content": "x"}], json_schema=SCHEMA
        )
    assert first.text == '{"ok": true}' and second.text == '{"ok": false}' and plain.ok and later.ok
    formats = [sent.get("response_format") for sent in endpoint.requests]
    asked_again = {"type": "json_object", "schema": SCHEMA}
    assert formats == [formats[0], asked_again, asked_again, None, asked_again]
    assert formats[0]["type"] == "json_schema"


def test_other_failures_are_not_retried_in_another_format():
    with stub_endpoint(["x"]) as endpoint:
        endpoint.status = 500
        reply = LlmClient(base_url=endpoint.base_url, model="m").chat(
            [{"role": "user", "content": "hi"}], json_schema=SCHEMA
        )
    assert reply.error.startswith("HTTP 500") and len(endpoint.requests) == 1
