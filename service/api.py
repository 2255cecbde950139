"""The flask-smorest Api, with problem+json errors in the code and in the spec."""

from __future__ import annotations

import http
from typing import Any

from flask import Flask, Response
from flask_smorest import Api
from flask_smorest.utils import prepare_response
from werkzeug.exceptions import HTTPException, InternalServerError

from .engine.errors import BasraError
from .problems import (
    PROBLEM_JSON,
    ApiProblem,
    ProblemSchema,
    domain_problem,
    http_problem,
    problem_response,
)


class BasraApi(Api):  # type: ignore[misc]
    """flask-smorest's Api whose every error is RFC 9457 problem+json."""

    ERROR_SCHEMA = ProblemSchema

    def _register_error_handlers(self) -> None:
        app: Flask = self._app
        app.register_error_handler(HTTPException, self.handle_http_exception)
        app.register_error_handler(ApiProblem, _api_problem)
        app.register_error_handler(BasraError, domain_problem)
        app.register_error_handler(Exception, _unexpected)

    def handle_http_exception(self, error: HTTPException) -> Response:
        """Werkzeug and webargs errors as problem+json."""
        return http_problem(error)

    def _register_responses(self) -> None:
        """Document every error response (and the default) as problem+json."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            content_type = "application/json"
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
                content_type = PROBLEM_JSON
            prepare_response(response, self.spec, content_type)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Error (problem+json)", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)


def _api_problem(error: ApiProblem) -> Response:
    return problem_response(error.status, error.reason, error.detail, error.errors, error.headers)


def _unexpected(error: Exception) -> Response:
    if isinstance(error, HTTPException):
        return http_problem(error)
    from flask import current_app

    current_app.logger.exception("unhandled error", exc_info=error)
    return http_problem(InternalServerError())
