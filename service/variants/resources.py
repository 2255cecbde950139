"""What a match may choose: the shipped rule variants (``/v1/variants``), checking house
rules, and the bot levels with their ladder (``/v1/bots``)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ..bots import ladder
from ..engine import Variant, all_variants, load_variant, with_house_rules
from ..engine.errors import UnknownVariant
from ..tenants.limits import budget
from ..web.parser import Blueprint
from ..web.problems import Problem
from .schemas import (
    BotListSchema,
    BotQuerySchema,
    RulesCheckSchema,
    VariantListSchema,
    VariantSchema,
)

blp = Blueprint("variants", __name__, url_prefix="/v1/variants", description="Rule variants")
bots_blp = Blueprint("bots", __name__, url_prefix="/v1/bots",
                     description="Computer opponents and their ladder")


def _present(name: str, description: str, rules: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "rules": rules.to_dict(),
        "rules_hash": rules.content_hash,
    }


def _variant(name: str) -> Variant:
    try:
        return load_variant(name)
    except UnknownVariant as exc:
        raise Problem(404, "unknown_variant", exc.message) from exc


@blp.route("")
class Variants(MethodView):
    """The shipped variants."""

    @budget("reads")
    @blp.response(200, VariantListSchema)
    @blp.doc(operationId="listVariants")
    def get(self) -> dict[str, Any]:
        """List every shipped variant with its settings and content hash."""
        return {"variants": [_present(v.name, v.description, v.rules) for v in all_variants()]}


@blp.route("/<string:name>")
class VariantByName(MethodView):
    """One variant."""

    @budget("reads")
    @blp.response(200, VariantSchema)
    @blp.doc(operationId="getVariant")
    def get(self, name: str) -> dict[str, Any]:
        """A variant's full settings and content hash."""
        v = _variant(name)
        return _present(v.name, v.description, v.rules)


@blp.route("/<string:name>/check")
class CheckRules(MethodView):
    """Validate house rules against a variant."""

    @budget("reads")
    @blp.arguments(RulesCheckSchema)
    @blp.response(200, VariantSchema)
    @blp.doc(operationId="checkHouseRules")
    def post(self, body: dict[str, Any], name: str) -> dict[str, Any]:
        """The effective rules of the variant with these overrides (422 names a bad key)."""
        v = _variant(name)
        return _present(v.name, v.description, with_house_rules(v.rules, body["rules"]))


def _level(level: str, step: ladder.Step | None) -> dict[str, Any]:
    return {"level": level, "what": ladder.WHAT_IT_DOES.get(level, ""),
            "searching": ladder.searches(level),
            "rating": None if step is None else {"mu": step.mu, "sigma": step.sigma,
                                                 "display": step.display},
            "against_below": None if step is None else step.against_below}


@bots_blp.route("")
class Bots(MethodView):
    """The bot levels."""

    @budget("reads")
    @bots_blp.arguments(BotQuerySchema, location="query")
    @bots_blp.response(200, BotListSchema)
    @bots_blp.doc(operationId="listBots")
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """Every bot level a seat may name: the ladder from beginner to expert, each with
        its rating on the players' scale and its win rate against the level below; then
        the levels off the ladder. `?mu=` (a player's skill in the ladder's variant) also
        names the ladder's level nearest it: a bot of the player's strength."""
        measured = ladder.ladder()
        return {
            "variant": measured.variant, "measured": measured.measured,
            "ladder": [_level(step.level, step) for step in measured.steps],
            "others": [_level(level, None) for level in ladder.off_the_ladder()],
            "nearest": measured.nearest(query["mu"]).level if "mu" in query else None,
        }
