"""``/v1/webhooks``: a front end's signed event callbacks (Standard Webhooks)."""

from __future__ import annotations

import re
from typing import Any

from apispec import APISpec
from flask.views import MethodView

from ..tenants.limits import budget
from ..tenants.requests import actor, keyed_tenant, server_key_only
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from ..web.settings import current
from . import service as webhooks
from .errors import DeliveryNotFound, WebhookNotFound
from .schemas import (
    MESSAGES,
    CreatedWebhookSchema,
    CreateWebhookSchema,
    DeliveriesSchema,
    DeliverySchema,
    RecoveredSchema,
    RecoverSchema,
    WebhookListSchema,
    WebhookSchema,
)
from .service import DeliveryInfo, WebhookInfo

blp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks",
                description="Webhooks: signed callbacks for a front end's server")
KEY = [{"apiKey": []}]
_WEBHOOK_ID = re.compile(r"[A-Za-z0-9-]{1,64}")


_DELIVERY_ID = re.compile(r"msg_[A-Za-z0-9]{1,36}")


@blp.url_value_preprocessor
def _known_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    webhook_id = (values or {}).get("webhook_id")
    if webhook_id is not None and not _WEBHOOK_ID.fullmatch(webhook_id):
        raise WebhookNotFound(f"no webhook {webhook_id[:64]!r}")
    delivery_id = (values or {}).get("delivery_id")
    if delivery_id is not None and not _DELIVERY_ID.fullmatch(delivery_id):
        raise DeliveryNotFound(f"no delivery {delivery_id[:64]!r}")


@blp.route("")
class Webhooks(MethodView):
    """The front end's webhooks."""

    @server_key_only(blp)
    @budget("reads")
    @blp.response(200, WebhookListSchema)
    @blp.doc(security=KEY)
    @blp.doc(operationId="listWebhooks")
    def get(self) -> dict[str, list[WebhookInfo]]:
        """Every webhook of the caller's API key's front end."""
        return {"webhooks": webhooks.list_webhooks(keyed_tenant())}

    @server_key_only(blp)
    @budget("creates")
    @blp.arguments(CreateWebhookSchema)
    @blp.response(201, CreatedWebhookSchema)
    @blp.alt_response(422, **problem_doc("a URL that is not http(s) or not public"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="createWebhook")
    def post(self, body: dict[str, Any]) -> WebhookInfo:
        """Send these events of the front end's matches to `url`, signed per Standard
        Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the
        `secret` in this answer (shown only here). Events: `match.started`, `match.turn`,
        `match.move`, `match.seat_dropped`, `match.seat_back`, `match.finished`, ...;
        each `{"type", "timestamp", "data"}`."""
        return webhooks.create_webhook(keyed_tenant(), body["url"], body["events"],
                                       current().webhooks_allow_private)


@blp.route("/<string:webhook_id>")
class WebhookById(MethodView):
    """One webhook."""

    @server_key_only(blp)
    @budget("creates")
    @blp.response(204)
    @blp.alt_response(404, **problem_doc("no such webhook"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="deleteWebhook")
    def delete(self, webhook_id: str) -> None:
        """Stop sending: the webhook, its pending messages and its attempts are deleted."""
        webhooks.delete_webhook(keyed_tenant(), webhook_id)


@blp.route("/<string:webhook_id>/deliveries")
class Deliveries(MethodView):
    """What the webhook's receiver answered."""

    @server_key_only(blp)
    @budget("reads")
    @blp.response(200, DeliveriesSchema)
    @blp.alt_response(404, **problem_doc("no such webhook"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="listWebhookDeliveries")
    def get(self, webhook_id: str) -> dict[str, Any]:
        """The latest 100 delivery attempts, newest first: status code, time, error."""
        return {"deliveries": webhooks.webhook_attempts(keyed_tenant(), webhook_id)}


@blp.route("/<string:webhook_id>/deliveries/<string:delivery_id>")
class DeliveryById(MethodView):
    """One message to the webhook."""

    @server_key_only(blp)
    @budget("reads")
    @blp.response(200, DeliverySchema)
    @blp.alt_response(404, **problem_doc("no such webhook, or no such delivery of it"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="getWebhookDelivery")
    def get(self, webhook_id: str, delivery_id: str) -> DeliveryInfo:
        """The message (its `webhook-id`) with every try at it: when, the status code or
        the error, how long it took. Kept a week."""
        return webhooks.delivery(keyed_tenant(), webhook_id, delivery_id)


@blp.route("/<string:webhook_id>/deliveries/<string:delivery_id>/retry")
class RetryDelivery(MethodView):
    """Send one message again."""

    @server_key_only(blp)
    @budget("creates")
    @blp.response(202, DeliverySchema)
    @blp.alt_response(404, **problem_doc("no such webhook, or no such delivery of it"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="retryWebhookDelivery")
    def post(self, webhook_id: str, delivery_id: str) -> DeliveryInfo:
        """Send the message again now, whatever became of it (delivered, failed, waiting):
        one more try, with the same `webhook-id` (a receiver that has it can tell) and
        a new signature; held behind none of its match's other messages. Audited."""
        return webhooks.retry_delivery(keyed_tenant(), webhook_id, delivery_id, actor())


@blp.route("/<string:webhook_id>/recover")
class Recover(MethodView):
    """Send again what failed."""

    @server_key_only(blp)
    @budget("creates")
    @blp.arguments(RecoverSchema)
    @blp.response(202, RecoveredSchema)
    @blp.alt_response(404, **problem_doc("no such webhook"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="recoverWebhookDeliveries")
    def post(self, body: dict[str, Any], webhook_id: str) -> dict[str, Any]:
        """Send again every message that ran out of tries and was written since `since`
        (after an outage of the receiver), oldest first, one more try each; at most
        10,000 a call (`more` says to call again). Audited."""
        made, more = webhooks.recover(keyed_tenant(), webhook_id, body["since"], actor())
        return {"messages": made, "more": more}


@blp.route("/<string:webhook_id>/pause")
class Pause(MethodView):
    """Hold the webhook's messages."""

    @server_key_only(blp)
    @budget("creates")
    @blp.response(200, WebhookSchema)
    @blp.alt_response(404, **problem_doc("no such webhook"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="pauseWebhook")
    def post(self, webhook_id: str) -> WebhookInfo:
        """Stop sending (within a second, on every instance) while the receiver is
        down for maintenance: messages are still written, and wait. Audited."""
        return webhooks.pause_webhook(keyed_tenant(), webhook_id, actor())


@blp.route("/<string:webhook_id>/resume")
class Resume(MethodView):
    """Send the webhook's messages again."""

    @server_key_only(blp)
    @budget("creates")
    @blp.response(200, WebhookSchema)
    @blp.alt_response(404, **problem_doc("no such webhook"))
    @blp.doc(security=KEY)
    @blp.doc(operationId="resumeWebhook")
    def post(self, webhook_id: str) -> WebhookInfo:
        """Send again: a paused webhook, or one disabled after failing (its failures
        counted from zero). What waited goes out first, oldest first, in each match's
        order. Messages of a disabled webhook were not written: `recover` does not
        bring them back. Audited."""
        return webhooks.resume_webhook(keyed_tenant(), webhook_id, actor())


_SIGNATURE_HEADERS = [
    ("webhook-id", "the message's id: the same on every try (de-duplicate on it)"),
    ("webhook-timestamp", "seconds since the epoch when this try was signed"),
    ("webhook-signature", "`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with "
     "the webhook's `whsec_` secret (Standard Webhooks)"),
]


def describe_messages(spec: APISpec) -> None:
    """The OpenAPI document's ``webhooks``: each event type's message as the service
    POSTs it to a front end's URL, signed per Standard Webhooks."""
    hooks: dict[str, Any] = {}
    for kind, schema in MESSAGES.items():
        name = schema.__name__.removesuffix("Schema")
        spec.components.schema(name, schema=schema)
        hooks[kind] = {"post": {
            "summary": schema._declared_fields["data"].schema.__doc__,
            "description": f"POSTed to every webhook of the front end that asked for "
            f"`{kind}`, signed per Standard Webhooks.",
            "parameters": [{"in": "header", "name": header, "required": True,
                            "schema": {"type": "string"}, "description": text}
                           for header, text in _SIGNATURE_HEADERS],
            "requestBody": {"required": True, "content": {"application/json": {
                "schema": {"$ref": f"#/components/schemas/{name}"}}}},
            "responses": {"2XX": {"description": "delivered; any other answer (or none "
                                  "within the timeout) is retried"}},
        }}
    spec.options["webhooks"] = hooks
