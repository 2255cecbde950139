"""The console at ``/console``: static HTML, CSS and JavaScript from this folder over the
public API only (no build step), signed in with a staff key; and its overview's read."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint as FlaskBlueprint
from flask import Response
from flask.views import MethodView

from ..tenants.limits import budget
from ..tenants.requests import server_key_only, tenant
from ..web.assets import asset as static_file
from ..web.assets import page as page_of
from ..web.parser import Blueprint
from . import service as console
from .schemas import OverviewSchema

FILES = Path(__file__).resolve().parent / "static"

pages = FlaskBlueprint("console", __name__)
blp = Blueprint("console_api", __name__, url_prefix="/v1/console",
                description="What the console reads that no other route gives")


@pages.route("/console")
def page() -> Response:
    """The console (its pages are ``#/players``, ``#/reports``...)."""
    return page_of(FILES)  # it holds a staff session: no other site may frame it


@pages.route("/console/<path:name>")
def asset(name: str) -> Response:
    """One file of the console (404 for anything outside its folder)."""
    return static_file(FILES, name)


@blp.route("/overview")
class Overview(MethodView):
    """The front end at a glance."""

    @server_key_only(blp)
    @budget("reads")
    @blp.response(200, OverviewSchema)
    @blp.doc(operationId="getOverview")
    def get(self) -> console.Overview:
        """Matches active, waiting (quick play's queue among them) and finished today;
        players online and playing; open reports; tournaments running; webhook messages
        waiting and failed today."""
        return console.overview(tenant())
