"""No cookie sessions: the API keeps nothing between requests (a seat is its token, a
front end its key), yet Flask would open a signed cookie session on every request
because ``SECRET_KEY`` is set (it signs history cursors)."""

from __future__ import annotations

from typing import Any

from flask import Flask, Request, Response
from flask.sessions import NullSession, SessionInterface


class NoSessions(SessionInterface):
    """Every request gets Flask's null session: nothing read, nothing set, no cookie; a
    handler that tried to store something in it would fail loudly."""

    def open_session(self, app: Flask, request: Request) -> NullSession:
        return self.make_null_session(app)

    def save_session(self, app: Flask, session: Any, response: Response) -> None:
        return None
