"""``GET /v1/players/{id}/fair-play``: a player's fair-play picture (server key, staff)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ..players.resources import known_player_ids
from ..tenants.enums import StaffRole
from ..tenants.limits import budget
from ..tenants.requests import server_key_only, tenant
from ..web.parser import Blueprint
from . import service
from .schemas import FairPlaySchema

blp = Blueprint("fair_play", __name__, url_prefix="/v1/players",
                description="A player's fair-play picture")
blp.url_value_preprocessor(lambda _endpoint, values: known_player_ids(values))


@blp.route("/<string:player_id>/fair-play")
class FairPlay(MethodView):
    """A player's fair-play picture."""

    @server_key_only(blp, staff=StaffRole.MODERATOR)
    @budget("reads")
    @blp.response(200, FairPlaySchema)
    @blp.doc(operationId="getFairPlay")
    def get(self, player_id: str) -> dict[str, Any]:
        """The player's signals over their recent graded rated matches in each pool:
        agreement with the expert on the plays where the choice mattered and points lost
        a play, against players of similar rating (a z-score with the uncertainty of
        their number of plays), move-time regularity, the pairs they met often and what
        moved between them, and the flags filed. Signals for staff to judge, never a
        verdict. Empty for a player with no graded match."""
        return service.picture_of(tenant(), player_id)
