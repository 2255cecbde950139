"""``/healthz`` (the process is up), ``/readyz`` (the database answers) and ``/metrics``
(the Prometheus text exposition: for the operator's scraper, outside the API; keep it
off the public network)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint as FlaskBlueprint
from flask import Response
from flask.views import MethodView
from sqlalchemy import text

from ..storage.db import db, transaction
from ..web.parser import Blueprint
from . import metrics
from .schemas import HealthSchema

blp = Blueprint("health", __name__, url_prefix="", description="Health checks")


@blp.route("/healthz")
class Health(MethodView):
    """Liveness."""

    @blp.response(200, HealthSchema)
    @blp.doc(security=[])
    def get(self) -> dict[str, Any]:
        """The process is up (touches nothing else)."""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    """Readiness."""

    @blp.response(200, HealthSchema)
    @blp.doc(security=[])
    def get(self) -> dict[str, Any]:
        """The database answers a query; 503 when it does not."""
        with transaction():  # a database that does not answer is a 503 problem
            db.session.execute(text("SELECT 1"))
        return {"status": "ready"}


scrape_blp = FlaskBlueprint("metrics", __name__)


@scrape_blp.route("/metrics")
def scrape() -> Response:
    """Every metric of this instance's processes, and the database's gauges."""
    return Response(metrics.scrape(), content_type=metrics.CONTENT_TYPE)
