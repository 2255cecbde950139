"""JSON columns' text: orjson where it can, the standard library for the rest."""

from __future__ import annotations

import json

from service.db import json_text


def test_column_json_reads_back_as_written() -> None:
    snapshot = {"hands": [["7D", "JS"], []], "scores": [0, 12], "round": 3, "name": "لاعب 🃏"}
    assert json.loads(json_text(snapshot)) == snapshot


def test_what_orjson_refuses_is_encoded_by_the_standard_library() -> None:
    for value in ({"big": 2**70}, {1: "a key that is not a string"}):
        assert json_text(value) == json.dumps(value)
