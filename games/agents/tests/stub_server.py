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
    # Statuses to answer the next requests with, one each (e.g. [429, 429] then the script again);
    # they come with ``retry-after-ms: 20`` so the client's backoff is short in tests.
    fail_next: list[int] = field(default_factory=list)
    fail_message: str = ""  # the error message of those answers (default "scripted <status>")
    in_flight: int = 0
    max_in_flight: int = 0  # the most requests it was answering at once
    _lock: threading.Lock = field(default_factory=threading.Lock)


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
            with endpoint._lock:
                endpoint.requests.append(body)
                endpoint.authorizations.append(self.headers.get("Authorization", ""))
                endpoint.in_flight += 1
                endpoint.max_in_flight = max(endpoint.max_in_flight, endpoint.in_flight)
                scripted = endpoint.fail_next.pop(0) if endpoint.fail_next else None
            self._counted = True
            try:
                self._answer(body, scripted)
            finally:
                self._release()

        def _release(self) -> None:
            # Before the answer is written: the client may send its next request the moment it reads it.
            if getattr(self, "_counted", False):
                self._counted = False
                with endpoint._lock:
                    endpoint.in_flight -= 1

        def _answer(self, body: dict[str, Any], scripted: int | None) -> None:
            if endpoint.delay_seconds:
                time.sleep(endpoint.delay_seconds)
            if scripted is not None:
                message = endpoint.fail_message or f"scripted {scripted}"
                payload = {"error": {"message": message, "type": "rate_limit_error"}}
                self._send(scripted, payload, {"retry-after-ms": "20"})
                return
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

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self._release()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
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
