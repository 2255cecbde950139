"""Server-Sent Events answers: the ``Last-Event-ID`` a client resumes from, the
heartbeat interval, and the streaming response (unbuffered, ended once the caller's
key no longer holds)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

from flask import Response, current_app, request, stream_with_context

from .settings import current


def last_event_id() -> int | None:
    """The ``Last-Event-ID`` header as a number (None: absent or not one of ours)."""
    last = request.headers.get("Last-Event-ID", "")
    return int(last) if last.isascii() and last.isdigit() and len(last) < 19 else None


def heartbeat_seconds(kept: bool = False) -> float:
    """How long a stream stays silent before a heartbeat comment; shorter with an API
    key, whose revocation the stream notices at each event or heartbeat, unless a
    keeper (:mod:`service.live.keeper`) is ``kept`` watching it."""
    settings = current()
    heartbeat = settings.heartbeat_seconds
    if request.headers.get("X-API-Key") and not kept:
        heartbeat = min(heartbeat, max(settings.key_cache_seconds / 2, 0.5))
    return heartbeat


def sse_response(chunks: Iterator[str], still_valid: Callable[[], bool],
                 max_seconds: float = 0.0) -> Response:
    """A ``text/event-stream`` of ``chunks`` (each one or more whole events or comments),
    ended as soon as ``still_valid()`` says no before a chunk, or once it has lived 75-100%
    of ``max_seconds`` (drawn for each stream, so streams opened together end apart; 0:
    never): its client reconnects with ``Last-Event-ID``, through the balancer, so
    streams spread again over the instances after one restarts."""
    ends = time.monotonic() + max_seconds * random.uniform(0.75, 1.0) if max_seconds else None

    def stream() -> Iterator[str]:
        try:
            for chunk in chunks:
                if not still_valid() or (ends is not None and time.monotonic() >= ends):
                    return
                yield chunk
        finally:  # here, in the request's context: what the chunks hold is let go
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    response = current_app.response_class(
        stream_with_context(stream()), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
