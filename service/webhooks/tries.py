"""One try of a webhook message: a signed POST (Standard Webhooks) to its endpoint, on
the delivery thread's pinned connection (:mod:`.addresses`), within its one deadline
(:mod:`.deadlines`)."""

from __future__ import annotations

import http.client
import logging
import time
from typing import Any
from urllib.parse import urlsplit

import urllib3
from standardwebhooks.webhooks import Webhook as Signer
from urllib3.util.connection import is_connection_dropped

from ..storage.base import utcnow
from . import addresses
from .deadlines import DEADLINES
from .errors import WebhookUrlNotAllowed
from .queue import Claimed, Outcome

log = logging.getLogger(__name__)

USER_AGENT = "basra-webhooks/1"


def send(message: Claimed, timeout: float, allow_private: bool) -> Outcome:
    """One signed POST of the message to its webhook's URL, on this thread's open
    connection to it if it has one (once more on a new one if the receiver had closed
    that connection)."""
    started = time.monotonic()

    def outcome(code: int | None, error: str | None) -> Outcome:
        return Outcome(code, error and error[:300], int((time.monotonic() - started) * 1000))

    kept = addresses.kept_here()
    place = urlsplit(message.url)
    target = (place.path or "/") + (f"?{place.query}" if place.query else "")
    for _ in range(2):
        known = kept.pop((place.scheme, place.netloc), None)
        if known is not None and (started - known.since > addresses.KEEP_SECONDS
                                  or is_connection_dropped(known.conn)):
            known.conn.close()
            known = None
        reused = known is not None
        if known is None:
            try:
                known = addresses.connect(message.url, timeout, allow_private)
            except WebhookUrlNotAllowed as exc:
                return outcome(None, str(exc))
        now = utcnow()
        headers = {
            "content-type": "application/json",
            "user-agent": USER_AGENT,
            "host": known.host,
            "webhook-id": message.msg_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Signer(message.secret).sign(message.msg_id, now, message.body),
        }
        # the socket timeout bounds each read, not the try: at the deadline the
        # connection is cut, whatever the receiver is in the middle of
        watch = DEADLINES.watch(started + timeout, known.conn)
        try:
            known.conn.request("POST", target, body=message.body.encode(), headers=headers,
                               preload_content=False)
            response = known.conn.getresponse()
            keep = _drained(response)
            if keep and not watch.end():
                addresses.keep(kept, (place.scheme, place.netloc), known)
            else:
                known.conn.close()
            return outcome(response.status, None if response.status < 300
                           else f"HTTP {response.status}")
        except (urllib3.exceptions.HTTPError, OSError, http.client.HTTPException) as exc:
            known.conn.close()
            if watch.end():
                return outcome(None, f"no answer within the {timeout:g} s deadline")
            if reused and isinstance(exc, _CLOSED_BEFORE_ANSWER):
                continue  # the receiver closed the idle connection: once more, anew
            return outcome(None, f"{type(exc).__name__}: {exc}")
        finally:
            watch.end()
    return outcome(None, "the receiver closed the connection before answering")


_CLOSED_BEFORE_ANSWER = (http.client.RemoteDisconnected, ConnectionResetError,
                         BrokenPipeError, urllib3.exceptions.ProtocolError)
_ANSWER_KEPT = 64 * 1024
"""A receiver's answer up to this long is read to its end so its connection is kept; a
longer one (or one of unknown length) closes it."""


def _drained(response: Any) -> bool:
    """Read the answer (its content is not needed); whether the connection may carry the
    next try."""
    length = "0" if response.status in (204, 304) else response.headers.get("content-length", "")
    if (response.version != 11 or "close" in response.headers.get("connection", "").lower()
            or not length.isdigit() or int(length) > _ANSWER_KEPT):
        response.read(4096, decode_content=False)
        return False
    response.read(decode_content=False)
    return True


def try_once(message: Claimed, timeout: float, allow_private: bool) -> Outcome:
    """One try, whatever goes wrong in it an outcome."""
    try:
        return send(message, timeout, allow_private)
    except Exception as exc:  # recorded as the try's error; the message is retried
        log.exception("webhook try failed")
        return Outcome(None, f"{type(exc).__name__}: {exc}"[:300], 0)
