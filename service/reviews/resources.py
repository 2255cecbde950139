"""``GET /v1/matches/{id}/review``: a finished match's review, asked for at the first read."""

from __future__ import annotations

from flask import g
from flask.views import MethodView

from ..players.requests import credential
from ..tenants.limits import budget, look_again_after
from ..tenants.requests import tenant
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from . import service as reviews
from .enums import ReviewStatus
from .schemas import ReviewSchema
from .service import MatchReview

blp = Blueprint("reviews", __name__, url_prefix="/v1/matches",
                description="A review of every play of a finished match")

RETRY_SECONDS = 1
"""What a pending review's Retry-After says: most are made within a second or two."""


@blp.route("/<string:match_id>/review")
class MatchReviewById(MethodView):
    """A finished match's review."""

    @budget("reads")
    @blp.response(200, ReviewSchema)
    @blp.alt_response(202, schema=ReviewSchema, description="asked for; the worker makes "
                      "it (Retry-After)")
    @blp.alt_response(401, **problem_doc("neither a seat's token nor the server key"))
    @blp.alt_response(409, **problem_doc("`match_not_finished`"))
    @blp.alt_response(429, **problem_doc("asking spends a unit of `expensive`: spent"))
    @blp.doc(security=[{"seatToken": []}, {"apiKey": []}, {"apiKey": [], "seatToken": []}])
    @blp.doc(operationId="getReview")
    def get(self, match_id: str) -> tuple[MatchReview, int, dict[str, str]]:
        """Every play of a finished match scored against the expert's choice from the
        same information: the points it was expected to lose, a grade and reason codes.
        A seat's token sees its own plays, the server key every play. The first read
        asks for it (a unit of the caller's `expensive` budget) and answers `202` with
        `Retry-After`; the worker makes it within seconds, and it is kept."""
        review = reviews.review_of(match_id, tenant(), credential(),
                                   g.caller is not None and g.caller.server)
        if review.status == ReviewStatus.PENDING:
            return review, 202, look_again_after(RETRY_SECONDS)
        return review, 200, {}
