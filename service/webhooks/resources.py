"""``/v1/webhooks``: a front end's signed event callbacks (Standard Webhooks)."""

from __future__ import annotations

import re
from typing import Any

from flask import current_app
from flask.views import MethodView

from ..tenants.limits import budget
from ..tenants.requests import keyed_tenant
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from . import service as webhooks
from .errors import WebhookNotFound
from .schemas import CreatedWebhookSchema, CreateWebhookSchema, DeliveriesSchema, WebhookListSchema
from .service import WebhookInfo

blp = Blueprint("webhooks", __name__, url_prefix="/v1/webhooks",
                description="Webhooks: signed callbacks for a front end's server")
KEY = [{"apiKey": []}]
_WEBHOOK_ID = re.compile(r"[A-Za-z0-9-]{1,64}")


@blp.url_value_preprocessor
def _known_id(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    webhook_id = (values or {}).get("webhook_id")
    if webhook_id is not None and not _WEBHOOK_ID.fullmatch(webhook_id):
        raise WebhookNotFound(f"no webhook {webhook_id[:64]!r}")


@blp.route("")
class Webhooks(MethodView):
    """The front end's webhooks."""

    @budget("reads")
    @blp.response(200, WebhookListSchema)
    @blp.doc(security=KEY)
    def get(self) -> dict[str, list[WebhookInfo]]:
        """Every webhook of the caller's API key's front end."""
        return {"webhooks": webhooks.list_webhooks(keyed_tenant())}

    @budget("creates")
    @blp.arguments(CreateWebhookSchema)
    @blp.response(201, CreatedWebhookSchema)
    @blp.alt_response(422, **problem_doc("a URL that is not http(s) or not public"))
    @blp.doc(security=KEY)
    def post(self, body: dict[str, Any]) -> WebhookInfo:
        """Send these events of the front end's matches to `url`, signed per Standard
        Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the
        `secret` in this answer (shown only here). Events: `match.started`, `match.turn`,
        `match.move`, `match.finished`; each `{"type", "timestamp", "data"}`."""
        return webhooks.create_webhook(keyed_tenant(), body["url"], body["events"],
                                       current_app.config["BASRA_WEBHOOKS_ALLOW_PRIVATE"])


@blp.route("/<string:webhook_id>")
class WebhookById(MethodView):
    """One webhook."""

    @budget("creates")
    @blp.response(204)
    @blp.alt_response(404, **problem_doc("no such webhook"))
    @blp.doc(security=KEY)
    def delete(self, webhook_id: str) -> None:
        """Stop sending: the webhook, its pending messages and its attempts are deleted."""
        webhooks.delete_webhook(keyed_tenant(), webhook_id)


@blp.route("/<string:webhook_id>/deliveries")
class Deliveries(MethodView):
    """What the webhook's receiver answered."""

    @budget("reads")
    @blp.response(200, DeliveriesSchema)
    @blp.alt_response(404, **problem_doc("no such webhook"))
    @blp.doc(security=KEY)
    def get(self, webhook_id: str) -> dict[str, Any]:
        """The latest 100 delivery attempts, newest first: status code, time, error."""
        return {"deliveries": webhooks.webhook_attempts(keyed_tenant(), webhook_id)}
