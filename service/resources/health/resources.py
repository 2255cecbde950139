"""``/healthz`` (the process is up) and ``/readyz`` (the database answers)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask_smorest import Blueprint
from sqlalchemy import text

from ...db import db
from ..errors import Problem
from .schemas import HealthSchema

blp = Blueprint("health", __name__, url_prefix="", description="Health checks")


@blp.route("/healthz")
class Health(MethodView):
    """Liveness."""

    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, Any]:
        """The process is up (touches nothing else)."""
        return {"status": "ok"}


@blp.route("/readyz")
class Ready(MethodView):
    """Readiness."""

    @blp.response(200, HealthSchema)
    def get(self) -> dict[str, Any]:
        """The database answers a query; 503 when it does not."""
        try:
            db.session.execute(text("SELECT 1"))
            db.session.rollback()
        except Exception as exc:  # any driver error means "not ready"
            db.session.rollback()
            raise Problem(503, "database_unavailable", f"database unreachable: {exc}") from exc
        return {"status": "ready"}
