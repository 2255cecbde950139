"""What the matches' routes share: their blueprints (``/v1/matches``, ``/v1/chat``, a
player's matches), the match id checked before any query, a seat token alone speaking
for its match's front end, the bearer requirements, the Idempotency-Key, If-None-Match
and 304 parts of the document, and a view's ETag."""

from __future__ import annotations

import re
from typing import Any

from flask import g, request

from ..errors import MatchNotFound
from ..tenants.requests import bearer_token, seat_token_match, speak_for_seat
from ..web.parser import Blueprint
from ..web.problems import Problem
from . import conditions, polls
from .headers import etag_for
from .results import MatchView

blp = Blueprint("matches", __name__, url_prefix="/v1/matches", description="Matches")
_MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


@blp.url_value_preprocessor
def known_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    """An id that no match could have (a NUL byte, odd characters, too long) is not found,
    without a query."""
    match_id = (values or {}).get("match_id")
    if match_id is not None and not _MATCH_ID.fullmatch(match_id):
        raise MatchNotFound(f"no match with id {match_id[:64]!r}")


def resolve_seat_token() -> None:
    """Before every /v1 request, after its key and player token: a seat token sent alone
    to a match's route speaks for that match's front end when it holds one of its seats
    (a browser key's rights), as a player token alone speaks for its own."""
    if "caller" not in g or g.caller is not None:
        return
    match_id = seat_token_match()
    if match_id is None:
        return
    token = bearer_token()
    assert token is not None
    speak_for_seat(polls.seat_tenant(match_id, token) if _MATCH_ID.fullmatch(match_id)
                   else None)


# a seat token, with or without the tenant's key (see the global security)
BEARER = [{"seatToken": []}, {"apiKey": [], "seatToken": []}]
OPTIONAL_BEARER = [{}, {"apiKey": []}, *BEARER]
Headers = dict[str, str]


def idempotency_key_doc(description: str) -> dict[str, Any]:
    """The Idempotency-Key header parameter of a create or a move."""
    return {"in": "header", "name": "Idempotency-Key", "description": description,
            "schema": {"type": "string", "maxLength": 255}}


def idempotency_key() -> str | None:
    """The request's Idempotency-Key (None: not sent); 422 unless 1 to 255 printable
    characters."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not (0 < len(key) <= 255 and key.isprintable()):
        raise Problem(422, "validation_error",
                      "Idempotency-Key must be 1 to 255 printable characters",
                      field="Idempotency-Key", message="1 to 255 printable characters")
    return key


def body_fingerprint() -> str:
    """The fingerprint of the request's JSON body as sent, telling a keyed retry from
    another request."""
    raw = request.get_json(silent=True)
    return conditions.fingerprint(raw if isinstance(raw, dict) else {})


def if_none_match(then: str) -> dict[str, Any]:
    """The If-None-Match header parameter of a read that answers 304 (``then``: when)."""
    return {"in": "header", "name": "If-None-Match", "schema": {"type": "string"},
            "description": f"an ETag from an earlier response: 304 {then}"}


def not_modified(etag_is: str) -> dict[str, Any]:
    """The 304 answer of a read, with the ETag it carries (``etag_is``: what it names)."""
    return {"description": "Not modified (If-None-Match)", "headers": {"ETag": {
        "description": etag_is, "schema": {"type": "string"}}}}


def etag(view: MatchView) -> Headers:
    return {"ETag": etag_for(view.version, view.view.seat)}


chat_blp = Blueprint("chat", __name__, url_prefix="/v1/chat",
                     description="Table chat: the phrases, a front end's settings")
player_matches = Blueprint("player_matches", __name__, url_prefix="/v1/players",
                           description="A player's matches")
