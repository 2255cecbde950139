"""``/healthz`` (the process is up) and ``/readyz`` (the database answers)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from sqlalchemy import text

from ...db import db, transaction
from ..parser import Blueprint
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
