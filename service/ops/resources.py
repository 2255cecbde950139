"""``/healthz`` (the process is up), ``/readyz`` (the database answers) and ``/metrics``
(the Prometheus text exposition: for the operator's scraper, outside the API; keep it
off the public network)."""

from __future__ import annotations

import hmac
from typing import Any

from flask import Blueprint as FlaskBlueprint
from flask import Response, current_app, request
from flask.views import MethodView
from sqlalchemy import text

from ..storage.db import db, transaction
from ..web.parser import Blueprint
from ..web.problems import problem_response
from ..web.settings import current
from . import metrics
from .schemas import HealthSchema

blp = Blueprint("health", __name__, url_prefix="", description="Health checks")


@blp.route("/healthz")
class Health(MethodView):
    """Liveness."""

    @blp.response(200, HealthSchema)
    @blp.doc(security=[])
    @blp.doc(operationId="getHealth")
    def get(self) -> dict[str, Any]:
        """The process is up (touches nothing else)."""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    """Readiness."""

    @blp.response(200, HealthSchema)
    @blp.doc(security=[])
    @blp.doc(operationId="getReadiness")
    def get(self) -> dict[str, Any]:
        """The database answers a query; 503 when it does not. Optional dependencies are
        reported without failing the check (``rate_limits``: ``redis``, or ``memory``
        while Redis does not answer)."""
        with transaction():  # a database that does not answer is a 503 problem
            db.session.execute(text("SELECT 1"))
        found = {name: check() for name, check in readiness().items()}
        return {"status": "ready", **{k: v for k, v in found.items() if v is not None}}


def readiness() -> dict[str, Any]:
    """The optional dependencies' checks the app was given."""
    return dict(current_app.extensions.get(metrics.READINESS, {}))


scrape_blp = FlaskBlueprint("metrics", __name__)


@scrape_blp.route("/metrics")
def scrape() -> Response:
    """Every metric of this instance's processes, and the database's gauges; with
    ``BASRA_METRICS_TOKEN`` set, only for ``Authorization: Bearer <that token>``."""
    token = current().metrics_token
    sent = request.headers.get("Authorization", "")
    if token and not hmac.compare_digest(sent.encode(), f"Bearer {token}".encode()):
        return problem_response(401, "unauthorized", "the metrics need "
                                "'Authorization: Bearer <BASRA_METRICS_TOKEN>'",
                                headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    return Response(metrics.scrape(), content_type=metrics.CONTENT_TYPE)
