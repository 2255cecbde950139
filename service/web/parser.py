"""Request paths, bodies and query strings: webargs' parser, refusing JSON nested too
deep, numbers too long, or text holding a NUL character (which PostgreSQL cannot store;
in the path too) or a lone surrogate (``"\ud800"``: JSON may escape one, UTF-8 cannot
encode it) as a 400 problem, where the default would fail with a 500."""

from __future__ import annotations

import json
import re
from typing import Any

import flask
import flask_smorest
from webargs.flaskparser import FlaskParser, is_json_request

from .problems import Problem

_SURROGATE = re.compile("[\ud800-\udfff]")

MAX_DEPTH = 32
"""How deep a JSON body may nest (the deepest request the API takes is about 5)."""


def _trouble(data: Any, limit: int) -> str | None:
    """What is wrong with parsed JSON: nesting deeper than ``limit``, or a NUL character
    or a lone surrogate in a key or a string (checked without recursion); None when
    nothing is."""
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "a string holds a NUL character"
            if not item.isascii() and _SURROGATE.search(item):
                return "a string holds a lone surrogate (U+D800-U+DFFF), which is not text"
            continue
        if isinstance(item, dict):
            stack.extend((key, depth) for key in item)
            item = list(item.values())
        if isinstance(item, list):
            if depth > limit:
                return f"the body nests deeper than {limit} levels"
            stack.extend((child, depth + 1) for child in item)
    return None


def refuse_nul_in_path(_endpoint: str | None, _values: dict[str, Any] | None) -> None:
    """Before any route reads its path: a NUL character there (``%00``) is a 400, not a
    look-up that PostgreSQL would fail."""
    if "\x00" in flask.request.path:
        raise Problem(400, "bad_request", "the path holds a NUL character (%00)")


class BodyParser(FlaskParser):
    """webargs' Flask parser with a depth and number-size limit on JSON bodies."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        if not is_json_request(req) and req.get_data(cache=True):
            raise Problem(415, "unsupported_media_type",
                          "send the body as JSON, with 'Content-Type: application/json'")
        try:
            data = super()._raw_load_json(req)
        except json.JSONDecodeError:
            raise  # webargs answers these itself
        except (RecursionError, ValueError) as exc:  # nesting, or an int of 4,300+ digits
            raise Problem(400, "invalid_json", f"the body is not JSON this API reads: {exc}"
                          [:200]) from None
        trouble = _trouble(data, MAX_DEPTH)
        if trouble:
            raise Problem(400, "invalid_json", trouble)
        return data

    def load_querystring(self, req: flask.Request, schema: Any) -> Any:
        for key, value in req.args.items(multi=True):
            if "\x00" in key or "\x00" in value:
                raise Problem(400, "bad_request", "a query parameter holds a NUL character",
                              field=key.replace("\x00", ""), message="NUL character")
        return super().load_querystring(req, schema)


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """flask-smorest's Blueprint parsing with :class:`BodyParser`, whose ``doc`` adds
    parameters rather than replacing them."""

    ARGUMENTS_PARSER = BodyParser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # after the arguments' callback, which sets the parameters it generates
        self._prepare_doc_cbks.append(self._prepare_added_parameters_doc)

    @staticmethod
    def doc(**kwargs: Any) -> Any:
        """As flask-smorest's, except that ``parameters`` (headers, say) are documented
        beside those ``arguments`` generates (a query string): flask-smorest's manual doc
        would replace that list, and the query parameters would go missing."""
        parameters = kwargs.pop("parameters", [])
        documented = flask_smorest.Blueprint.doc(**kwargs)

        def decorator(func: Any) -> Any:
            wrapper = documented(func)
            wrapper._apidoc["added_parameters"] = [
                *wrapper._apidoc.get("added_parameters", []), *parameters]
            return wrapper

        return decorator

    @staticmethod
    def _prepare_added_parameters_doc(doc: dict[str, Any], doc_info: dict[str, Any],
                                      **_: Any) -> dict[str, Any]:
        added = doc_info.get("added_parameters")
        if added:
            doc["parameters"] = [*doc.get("parameters", []), *added]
        return doc

    def arguments(self, schema: Any, *args: Any, **kwargs: Any) -> Any:
        """As flask-smorest's, with a schema class made an instance once (webargs would
        make one per request)."""
        return super().arguments(schema() if isinstance(schema, type) else schema,
                                 *args, **kwargs)
