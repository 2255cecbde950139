"""The flask-smorest Api, with problem+json errors in the code and in the spec."""

from __future__ import annotations

import http
import json
import threading
from collections.abc import Callable
from typing import Any

from apispec import APISpec
from flask_smorest import Api
from flask_smorest.utils import prepare_response

from .problems import PROBLEM_JSON, ProblemHeaders, ProblemSchema, Statuses, register_error_handlers


class BasraApi(Api):  # type: ignore[misc]
    """flask-smorest's Api whose every error is RFC 9457 problem+json, and whose OpenAPI
    document is written when first read (``/openapi.json``, the docs, ``python -m
    service.openapi``): writing it costs 0.06 s of CPU, three times the rest of making
    an app (0.02 s, once the modules are imported), which each gunicorn worker, CLI run
    and worker process would pay for a document it seldom or never serves."""

    ERROR_SCHEMA = ProblemSchema

    def __init__(self, app: Any, statuses: Statuses, headers: ProblemHeaders,
                 **kwargs: Any) -> None:
        self.statuses, self.problem_headers = statuses, headers
        self._written: APISpec | None = None
        self._spec_kwargs_given: dict[str, Any] | None = None
        self._to_document: list[tuple[Any, str, Any]] = []
        self._finishers: list[Callable[[APISpec], None]] = []
        self._writing = threading.Lock()
        super().__init__(app, **kwargs)

    @property
    def spec(self) -> APISpec:
        """The OpenAPI document, written on first read (None before ``init_app``)."""
        if self._written is None and self._spec_kwargs_given is not None:
            with self._writing:
                if self._written is None:
                    self._write()
        return self._written  # type: ignore[return-value]  # None only before init_app

    @spec.setter
    def spec(self, value: APISpec | None) -> None:
        self._written = value

    def _init_spec(self, **kwargs: Any) -> None:
        self._spec_kwargs_given = kwargs  # written by _write, when first read

    def _write(self) -> None:
        assert self._spec_kwargs_given is not None
        super()._init_spec(**self._spec_kwargs_given)  # sets self.spec (self._written)
        spec = self._written
        assert spec is not None
        self.ma_plugin.converter.add_attribute_function(default_in_words)
        for blp, name, parameters in self._to_document:
            blp.register_views_in_doc(self, self._app, spec, name=name, parameters=parameters)
            spec.tag({"name": name, "description": blp.description})
        for finish in self._finishers:
            finish(spec)

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        """The blueprint's routes now; its operations in the document when it is written."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._to_document.append((blp, name, parameters))

    def finish_document(self, finish: Callable[[APISpec], None]) -> None:
        """``finish(spec)`` once every blueprint is in the document, when it is written."""
        self._finishers.append(finish)

    def _register_error_handlers(self) -> None:
        """Every error of the app as problem+json (see web/problems.py)."""
        register_error_handlers(self._app, self.statuses, self.problem_headers)

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


COMMON_PROBLEMS = (
    http.HTTPStatus.UNAUTHORIZED,  # no valid key, or a bad bearer token
    http.HTTPStatus.TOO_MANY_REQUESTS,  # a budget spent, or no place to wait
    http.HTTPStatus.SERVICE_UNAVAILABLE,  # the database does not answer
)
"""The problems any /v1 operation can answer, listed on each (client generators type
what is listed and leave the rest to ``default``); with a path parameter, 404 too."""


def document_common_problems(spec: APISpec) -> None:
    """List :data:`COMMON_PROBLEMS` (and 404 where the path names something) on every
    /v1 operation; those it lists itself keep their own description. Run once every
    blueprint is in the document (:meth:`BasraApi.finish_document`)."""
    for path, item in spec._paths.items():  # apispec keeps its paths here
        if not path.startswith("/v1/"):
            continue
        named = (http.HTTPStatus.NOT_FOUND,) if "{" in path else ()
        statuses = sorted(COMMON_PROBLEMS + named)
        for operation in item.values():
            if isinstance(operation, dict) and "responses" in operation:
                for status in statuses:
                    operation["responses"].setdefault(
                        str(int(status)), spec.components.get_ref("response", status.name))


def default_in_words(_converter: Any, field: Any, ret: dict[str, Any], **_: Any) -> dict[str, Any]:
    """An optional field's default said in its description, not as ``default``: client
    generators read a ``default`` as a promise that the property is always there
    (openapi-typescript 7 makes it required), which holds for an answer but not for a
    request. A required field keeps none either way."""
    if "default" in ret and not field.required:
        said = json.dumps(ret.pop("default"))
        ret["description"] = f"{ret['description']}; default: {said}" \
            if ret.get("description") else f"Default: {said}."
    return {}
