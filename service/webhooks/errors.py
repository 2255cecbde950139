"""Errors of webhook endpoints."""

from __future__ import annotations

from ..errors import ServiceError


class WebhookNotFound(ServiceError, LookupError):
    """No webhook with that id (for this front end)."""

    reason = "webhook_not_found"
    status = 404


class WebhookUrlNotAllowed(ServiceError):
    """A webhook URL the service will not call: not http(s), or an address that is
    loopback, private, link-local or otherwise not public."""

    reason = "webhook_url_not_allowed"
    status = 422


class DeliveryNotFound(ServiceError, LookupError):
    """No message with that id to this webhook (or it was purged: a week after)."""

    reason = "delivery_not_found"
    status = 404
