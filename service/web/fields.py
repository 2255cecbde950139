"""marshmallow fields shared by the resources."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import marshmallow as ma

from ..engine import BasraError, Card, parse_card


class CardField(ma.fields.String):
    """A card in RULES.md notation (``7D``, ``10H``): parsed case-insensitively."""

    default_error_messages = {  # noqa: RUF012
        "invalid_card": "{input!r} is not a card: rank (A 2-10 J Q K) then suit (C D H S)",
    }

    def __init__(self, **kwargs: Any) -> None:
        metadata = kwargs.pop("metadata", {})
        metadata.setdefault("pattern", "^(?i:(A|[2-9]|10|J|Q|K)[CDHS])$")
        metadata.setdefault("example", "7D")
        super().__init__(metadata=metadata, **kwargs)

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else str(value)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Card:
        if not isinstance(value, str):
            raise self.make_error("invalid_card", input=value)
        try:
            return parse_card(value)
        except BasraError as exc:
            raise self.make_error("invalid_card", input=value) from exc


def card_list(**kwargs: Any) -> ma.fields.List:
    """A list of cards."""
    return ma.fields.List(CardField(), **kwargs)


class UTCDateTime(ma.fields.AwareDateTime):
    """An ISO 8601 timestamp; naive values (and SQLite's) are UTC. Every time a query or
    a body sends is read by this field (or :class:`ZonedDateTime`, its stricter kind):
    loaded as its instant in UTC, refused (422 naming the field) when that instant is
    beyond what the database holds, the years 1 to 9999, whatever its zone
    (``9999-12-31T23:59:59-14:00`` is year 10000 in UTC)."""

    default_error_messages = {  # noqa: RUF012
        "range": "must be a time from the year 1 to the year 9999 in UTC",
    }
    beyond = "range"
    """The error of a time past the calendar's ends."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("default_timezone", UTC)
        super().__init__(**kwargs)

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        if isinstance(value, datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return super()._serialize(value, attr, obj, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> datetime:
        parsed: datetime = super()._deserialize(value, attr, data, **kwargs)
        try:
            return parsed.astimezone(UTC)
        except OverflowError as error:  # the year 1 or 9999 moved past the calendar's ends
            raise self.make_error(self.beyond) from error


class JsonInteger(ma.fields.Integer):
    """An integer of a JSON body: a JSON integer only (``"60"``, ``2.5`` and ``true`` are
    refused, not read as numbers)."""

    default_error_messages = {  # noqa: RUF012
        "invalid": "must be a JSON integer, as 60 (not \"60\", 60.5 or true)",
    }

    def _validated(self, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid")
        return value


class JsonBoolean(ma.fields.Boolean):
    """A yes or no of a JSON body: true or false only (``0``, ``"yes"`` and ``1.0`` are
    refused, not read as truth values)."""

    default_error_messages = {  # noqa: RUF012
        "invalid": "must be true or false",
    }

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


EARLIEST_YEAR, LATEST_YEAR = 2000, 2999
"""The years a time sent in a body may name: others are typos (year 1, 20250)."""


class ZonedDateTime(UTCDateTime):
    """A time sent in a body: ISO 8601 with its zone (``Z`` or an offset), in a year
    between :data:`EARLIEST_YEAR` and :data:`LATEST_YEAR`."""

    default_error_messages = {  # noqa: RUF012
        "zone": "must carry its time zone, as 2026-12-03T18:00:00Z or +02:00",
        "year": f"must be in a year from {EARLIEST_YEAR} to {LATEST_YEAR}",
    }
    beyond = "year"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="iso", default_timezone=None, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> datetime:
        try:
            moment = super()._deserialize(value, attr, data, **kwargs)
        except ma.ValidationError as error:
            if isinstance(value, str) and "aware" in str(error.messages):
                raise self.make_error("zone") from error
            raise
        if not EARLIEST_YEAR <= moment.year <= LATEST_YEAR:
            raise self.make_error("year")
        return moment
