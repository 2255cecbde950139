"""``/metrics``: the Prometheus text exposition (outside the API: for the operator's
scraper, not for front ends; keep it off the public network)."""

from __future__ import annotations

from flask import Blueprint, Response

from .. import metrics

blp = Blueprint("metrics", __name__)


@blp.route("/metrics")
def scrape() -> Response:
    """Every metric of this instance's processes, and the database's gauges."""
    return Response(metrics.scrape(), content_type=metrics.CONTENT_TYPE)
