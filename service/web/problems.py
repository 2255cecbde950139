"""Every error as ``application/problem+json`` (RFC 9457) with a machine-readable ``reason``.

How errors become responses: HTTP errors, request problems, and the typed errors
of the engine and the domains by the status map that :mod:`service.problems` gives.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import marshmallow as ma
from flask import Flask, Response, current_app, json
from werkzeug.exceptions import HTTPException, InternalServerError

from ..engine.errors import BasraError, InvalidRules
from ..errors import ServiceError

PROBLEM_JSON = "application/problem+json"


class FieldErrorSchema(ma.Schema):
    """One invalid field of a request."""

    field = ma.fields.String(required=True, metadata={"description": "dotted path of the field"})
    message = ma.fields.String(required=True)


class ProblemSchema(ma.Schema):
    """An RFC 9457 problem document."""

    type = ma.fields.String(required=True, metadata={"description": "URI naming the problem"})
    title = ma.fields.String(required=True)
    status = ma.fields.Integer(required=True)
    detail = ma.fields.String(required=True)
    reason = ma.fields.String(
        required=True, metadata={"description": "machine-readable reason, e.g. not_your_turn"}
    )
    errors = ma.fields.List(ma.fields.Nested(FieldErrorSchema), metadata={
        "description": "the fields at fault, at most 20"})
    omitted = ma.fields.Integer(metadata={
        "description": "how many more fields were at fault than `errors` lists"})
    instance = ma.fields.String()


def problem_doc(description: str) -> dict[str, Any]:
    """The keyword arguments documenting a problem response (``blp.alt_response``)."""
    return {"schema": ProblemSchema, "content_type": PROBLEM_JSON, "description": description}


class Problem(Exception):
    """An error about the HTTP request itself (a header, a path): status, reason, detail."""

    def __init__(
        self, status: int, reason: str, detail: str, *, field: str | None = None,
        message: str = "", headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.reason = reason
        self.detail = detail
        self.errors = [{"field": field, "message": message or detail}] if field else None
        self.headers = headers


def problem_response(
    status: int,
    reason: str,
    detail: str,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    """A problem+json response; of ``errors`` it lists :data:`MAX_LISTED` at most, each
    cut to :data:`MAX_TEXT` characters, and counts the rest (``omitted``), so a large bad
    request never gets a larger answer."""
    body: dict[str, Any] = {
        "type": f"urn:basra:problem:{reason}",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "reason": reason,
    }
    if errors:
        body["errors"] = [{"field": _short(e["field"]), "message": _short(e["message"])}
                          for e in errors[:MAX_LISTED]]
        if len(errors) > MAX_LISTED:
            body["omitted"] = len(errors) - MAX_LISTED
    response = current_app.response_class(
        json.dumps(body, separators=(",", ":")), status=status, mimetype=PROBLEM_JSON
    )
    response.headers.update(headers or {})
    return response


Statuses = list[tuple[type[BasraError], int]]
"""How the engine's errors, which know no HTTP, map onto it: the first class that
matches. A service error carries its own (``status`` beside its ``reason``)."""
ProblemHeaders = dict[type[BasraError], dict[str, str]]
"""Headers that go with a typed error's problem (Retry-After, WWW-Authenticate)."""


def status_of(error: type[BasraError], statuses: Statuses) -> int | None:
    """The HTTP status of a typed error: its class's ``status``, else the first of
    ``statuses`` whose class it is; None for an error nobody mapped (a test fails)."""
    own: int | None = getattr(error, "status", None)
    return own if own is not None else next(
        (s for cls, s in statuses if issubclass(error, cls)), None)


def domain_problem(error: BasraError, statuses: Statuses, headers: ProblemHeaders) -> Response:
    """The response for a typed engine or service error."""
    status = status_of(type(error), statuses) or 400
    errors = None
    detail = error.message
    if isinstance(error, InvalidRules):
        errors = [{"field": f"rules.{path}" if path else "rules", "message": problem}
                  for path, problem in error.problems]
        if len(errors) > 5 or len(detail) > 5 * MAX_TEXT:  # it names every key: say a few
            detail = _said(errors)
    elif isinstance(error, ServiceError) and error.field:
        errors = [{"field": error.field, "message": error.problem}]
    extra = dict(headers.get(type(error), {}))
    retry_after = getattr(error, "retry_after", None)
    if retry_after is not None:  # an error that knows when to come back says so
        extra["Retry-After"] = str(retry_after)
    return problem_response(status, error.reason, detail, errors, extra)


def flatten_messages(messages: Any, prefix: str = "") -> list[dict[str, str]]:
    """marshmallow/webargs error messages as a flat list of {field, message}."""
    out: list[dict[str, str]] = []
    if isinstance(messages, dict):
        for key, value in messages.items():
            if key in ("json", "query", "headers", "view_args", "form", "path") and not prefix:
                out.extend(flatten_messages(value, ""))
                continue
            if isinstance(key, int):
                name = f"{prefix}[{key}]"
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            if key == "_schema":
                name = prefix or "body"
            out.extend(flatten_messages(value, name))
    elif isinstance(messages, list) and all(isinstance(m, str) for m in messages):
        out.extend({"field": prefix or "body", "message": m} for m in messages)
    elif isinstance(messages, list):
        for i, m in enumerate(messages):
            out.extend(flatten_messages(m, f"{prefix}[{i}]"))
    else:
        out.append({"field": prefix or "body", "message": str(messages)})
    return out


_HTTP_REASONS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    428: "precondition_required",
    429: "rate_limited",
    500: "internal_error",
}


MAX_LISTED = 20
"""How many of a request's field errors a problem lists (the rest are counted)."""
MAX_TEXT = 200
"""How long a field's name or message may be in a problem (a client's key may be long)."""


def _short(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def _said(found: list[dict[str, str]]) -> str:
    """A detail naming the first five fields at fault and counting the rest."""
    detail = "the request is invalid: " + "; ".join(
        f"{_short(e['field'])}: {_short(e['message'])}" for e in found[:5])
    return detail + (f"; and {len(found) - 5} more" if len(found) > 5 else "")


def http_problem(error: HTTPException) -> Response:
    """The response for a werkzeug HTTPException (including webargs validation errors)."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    found = flatten_messages(data["messages"]) if "messages" in data else []
    reason = _HTTP_REASONS.get(status, "http_error")
    detail = _said(found) if found else error.description or HTTPStatus(status).phrase
    return problem_response(status, reason, detail, found or None, data.get("headers"))


def _request_problem(error: Problem) -> Response:
    return problem_response(error.status, error.reason, error.detail, error.errors,
                            error.headers)


def _unexpected(error: Exception) -> Response:
    if isinstance(error, HTTPException):
        return http_problem(error)
    current_app.logger.exception("unhandled error", exc_info=error)
    return http_problem(InternalServerError())


def register_error_handlers(app: Flask, statuses: Statuses, headers: ProblemHeaders) -> None:
    """Make every error of the app a problem+json response; a typed error's status is the
    first of ``statuses`` whose class it is (the composition root's one map)."""
    app.register_error_handler(HTTPException, http_problem)
    app.register_error_handler(Problem, _request_problem)
    app.register_error_handler(
        BasraError, lambda error: domain_problem(error, statuses, headers))
    app.register_error_handler(Exception, _unexpected)
