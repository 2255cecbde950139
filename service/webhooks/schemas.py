"""Schemas of the webhooks resource."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from ..web.fields import UTCDateTime
from .service import EVENTS


class CreateWebhookSchema(ma.Schema):
    """Where to send which events."""

    url = ma.fields.String(required=True, validate=validate.Length(min=8, max=2048),
                           metadata={"example": "https://example.com/basra/hooks"})
    events = ma.fields.List(
        ma.fields.String(validate=validate.OneOf(EVENTS)), required=True,
        validate=validate.Length(min=1, max=len(EVENTS)),
        metadata={"description": "any of " + ", ".join(EVENTS)},
    )


class WebhookSchema(ma.Schema):
    """A webhook (its secret is shown only when it is made)."""

    id = ma.fields.String(required=True)
    url = ma.fields.String(required=True)
    events = ma.fields.List(ma.fields.String(), required=True)
    created_at = UTCDateTime(required=True)
    disabled_at = UTCDateTime(
        required=True, allow_none=True,
        metadata={"description": "set when the endpoint kept failing; null while enabled"})


class CreatedWebhookSchema(WebhookSchema):
    """A new webhook with its signing secret."""

    secret = ma.fields.String(required=True, metadata={
        "description": "the Standard Webhooks signing secret (`whsec_...`): shown only here"})


class WebhookListSchema(ma.Schema):
    """The front end's webhooks."""

    webhooks = ma.fields.List(ma.fields.Nested(WebhookSchema), required=True)


class AttemptSchema(ma.Schema):
    """One try at delivering one message."""

    message_id = ma.fields.String(required=True, metadata={
        "description": "the message's `webhook-id`, the same on every try"})
    type = ma.fields.String(required=True)
    message_status = ma.fields.String(
        required=True, validate=validate.OneOf(["pending", "delivered", "failed"]))
    at = UTCDateTime(required=True)
    status_code = ma.fields.Integer(required=True, allow_none=True)
    error = ma.fields.String(required=True, allow_none=True)
    duration_ms = ma.fields.Integer(required=True)


class DeliveriesSchema(ma.Schema):
    """A webhook's latest delivery attempts, newest first."""

    deliveries = ma.fields.List(ma.fields.Nested(AttemptSchema), required=True)
