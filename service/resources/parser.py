"""Request bodies and query strings: webargs' parser, refusing JSON nested too deep or
with numbers too long as a 400 problem (the default would fail with a 500)."""

from __future__ import annotations

import json
from typing import Any

import flask
import flask_smorest
from webargs.flaskparser import FlaskParser

from .errors import Problem

MAX_DEPTH = 32
"""How deep a JSON body may nest (the deepest request the API takes is about 5)."""


def _too_deep(data: Any, limit: int) -> bool:
    """Whether ``data`` nests deeper than ``limit`` (no recursion)."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            if depth > limit:
                return True
            stack.extend((child, depth + 1) for child in item)
    return False


class BodyParser(FlaskParser):
    """webargs' Flask parser with a depth and number-size limit on JSON bodies."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        try:
            data = super()._raw_load_json(req)
        except json.JSONDecodeError:
            raise  # webargs answers these itself
        except (RecursionError, ValueError) as exc:  # nesting, or an int of 4,300+ digits
            raise Problem(400, "invalid_json", f"the body is not JSON this API reads: {exc}"
                          [:200]) from None
        if _too_deep(data, MAX_DEPTH):
            raise Problem(400, "invalid_json", f"the body nests deeper than {MAX_DEPTH} levels")
        return data


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """flask-smorest's Blueprint parsing with :class:`BodyParser`."""

    ARGUMENTS_PARSER = BodyParser()
