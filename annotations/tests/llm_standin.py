"""A scripted stand-in for an OpenAI-compatible chat server on loopback (for tests only).

Each POST to /v1/chat/completions answers with the next scripted reply text; the requests are
kept so tests can check what was asked.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@contextmanager
def standin_server(replies: list[str] | Callable[[dict[str, Any]], str]) -> Iterator[dict[str, Any]]:
    state: dict[str, Any] = {"requests": [], "base_url": ""}
    scripted = list(replies) if isinstance(replies, list) else None

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            state["requests"].append(body)
            text = replies(body) if callable(replies) else (scripted.pop(0) if scripted else "out of script")
            payload = {
                "id": "standin",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "standin"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state["base_url"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
