"""Opaque keyset cursors: a kind and a value, signed (HMAC-SHA256) with the service's
secret key, so a client can neither forge one nor point it at another listing."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac


def _signature(key: bytes, text: str) -> str:
    digest = hmac.new(key, text.encode(), hashlib.sha256).digest()[:12]
    return base64.urlsafe_b64encode(digest).decode()


def sign(kind: str, value: str, key: bytes) -> str:
    """A cursor of ``kind`` holding ``value``, signed with ``key``."""
    text = f"{kind}:{value}"
    token = f"{text}:{_signature(key, text)}"
    return base64.urlsafe_b64encode(token.encode()).decode().rstrip("=")


def read(kind: str, cursor: str, key: bytes) -> str:
    """The value of a cursor of ``kind`` this service signed; ValueError otherwise."""
    try:
        token = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError) as error:
        raise ValueError("not a cursor") from error
    text, _, signature = token.rpartition(":")
    got, _, value = text.partition(":")
    if got != kind or not hmac.compare_digest(signature, _signature(key, text)):
        raise ValueError("not signed here")
    return value


def read_number(kind: str, cursor: str, key: bytes, *, below: int) -> int:
    """:func:`read` of a cursor holding a whole number from 1 to ``below`` - 1."""
    value = read(kind, cursor, key)
    if not (value.isascii() and value.isdigit() and 0 < int(value) < below):
        raise ValueError(value)
    return int(value)
