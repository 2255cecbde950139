"""``/v1/variants``: the shipped rule variants, and checking house rules."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ..engine import Variant, all_variants, load_variant, with_house_rules
from ..engine.errors import UnknownVariant
from ..tenants.limits import budget
from ..web.parser import Blueprint
from ..web.problems import Problem
from .schemas import RulesCheckSchema, VariantListSchema, VariantSchema

blp = Blueprint("variants", __name__, url_prefix="/v1/variants", description="Rule variants")


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
