"""A scripted stand-in for an OpenAI-compatible chat endpoint (unit tests only).

It speaks the real HTTP protocol on loopback, so the ``openai`` client, timeouts and error paths
are exercised for real; only the "model" is a script. The real-model tier uses llama.cpp's server.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A script maps the request's messages to (reply text) or raises to produce an HTTP 500.
Script = Callable[[list[dict[str, Any]]], str]


@dataclass
class StubEndpoint:
    base_url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    authorizations: list[str] = field(default_factory=list)  # the Authorization header of each request
    delay_seconds: float = 0.0
    status: int = 200


@contextmanager
def stub_endpoint(script: Script | list[str]) -> Iterator[StubEndpoint]:
    replies = list(script) if isinstance(script, list) else None
    endpoint = StubEndpoint(base_url="")

    def next_reply(messages: list[dict[str, Any]]) -> str:
        if replies is None:
            return script(messages)  # type: ignore[operator]
        return replies.pop(0) if replies else "wait"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            endpoint.requests.append(body)
            endpoint.authorizations.append(self.headers.get("Authorization", ""))
            if endpoint.delay_seconds:
                time.sleep(endpoint.delay_seconds)
            if endpoint.status != 200:
                payload = {"error": {"message": "scripted failure", "type": "server_error"}}
                self._send(endpoint.status, payload)
                return
            text = next_reply(body.get("messages", []))
            prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
            payload = {
                "id": "stub-1",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "stub"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": len(text.split()),
                    "total_tokens": prompt_tokens + len(text.split()),
                },
            }
            self._send(200, payload)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    endpoint.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield endpoint
    finally:
        server.shutdown()
        server.server_close()
