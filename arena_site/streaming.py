"""Streaming responses that stay streamed under ASGI: the one writer of streamed exports (studies'
data exports, annotation labels).

Django buffers a *synchronous* iterator completely before sending it from an ASGI server (with a
warning), which would defeat constant-memory exports under Daphne. So under ASGI the rows are
pulled in batches through ``sync_to_async`` (thread-sensitive: the database cursor stays on one
thread) and handed to Django as an asynchronous iterator.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from itertools import islice

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, StreamingHttpResponse

BATCH = 500


def _as_async(lines: Iterator[str]) -> AsyncIterator[str]:
    take = sync_to_async(lambda: "".join(islice(lines, BATCH)), thread_sensitive=True)

    async def generate() -> AsyncIterator[str]:
        while chunk := await take():
            yield chunk

    return generate()


def stream(request: HttpRequest, lines: Iterator[str], *, content_type: str, filename: str) -> StreamingHttpResponse:
    content = _as_async(lines) if isinstance(request, ASGIRequest) else lines
    response = StreamingHttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response
