"""Routes of coins: a front end's currencies and transfers (its server key), a player's
wallet and ledger (their own token, or the server key)."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView

from ..players.requests import act_for
from ..players.resources import known_player_ids
from ..tenants.enums import StaffRole
from ..tenants.limits import budget
from ..tenants.requests import actor, server_key_only, tenant
from ..web.parser import Blueprint
from ..web.problems import Problem, problem_doc
from ..web.settings import current
from . import service as coins
from .enums import TransferKind
from .errors import IdempotencyKeyRequired
from .schemas import (
    CODE_RULE,
    AdjustmentSchema,
    CurrenciesSchema,
    CurrencyBodySchema,
    CurrencySchema,
    LedgerPageSchema,
    LedgerQuerySchema,
    NewTransferSchema,
    TransferSchema,
    WalletSchema,
)
from .service import CODE, CurrencyInfo

currencies_blp = Blueprint("currencies", __name__, url_prefix="/v1/currencies",
                           description="A front end's currencies")
transfers_blp = Blueprint("transfers", __name__, url_prefix="/v1/transfers",
                          description="Coins granted to and taken from players")
wallets_blp = Blueprint("wallets", __name__, url_prefix="/v1/players",
                        description="A player's wallet and ledger")
wallets_blp.url_value_preprocessor(lambda _endpoint, values: known_player_ids(values))

NOT_THEIRS = problem_doc("`not_this_player`: neither the player's token nor a server key")
UNKNOWN = problem_doc("`unknown_currency`: the front end has named no such currency")


@currencies_blp.url_value_preprocessor
def _known_code(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    code = (values or {}).get("code")
    if code is not None and not CODE.fullmatch(code):
        raise Problem(422, "validation_error", CODE_RULE,
                      field="code", message=f"{code[:32]!r} is not a currency code")


@currencies_blp.route("")
class Currencies(MethodView):
    """The front end's currencies."""

    @budget("reads")
    @currencies_blp.response(200, CurrenciesSchema)
    @currencies_blp.doc(operationId="listCurrencies")
    def get(self) -> dict[str, list[CurrencyInfo]]:
        """Every currency the front end named, by code."""
        return {"currencies": coins.currencies(tenant())}


@currencies_blp.route("/<string:code>")
class CurrencyByCode(MethodView):
    """One currency."""

    @server_key_only(currencies_blp)
    @budget("creates")
    @currencies_blp.arguments(CurrencyBodySchema)
    @currencies_blp.response(200, CurrencySchema, description="renamed")
    @currencies_blp.alt_response(201, schema=CurrencySchema, description="named")
    @currencies_blp.doc(operationId="putCurrency")
    def put(self, body: dict[str, Any], code: str) -> tuple[CurrencyInfo, int]:
        """Name a currency (201), or rename it (200): its house (the rake, what does not
        divide) and its mint (what the front end issues: the one account below zero)
        are opened with it. Players' balances in it start at zero. Audited
        (`currency.named`)."""
        info, made = coins.put_currency(tenant(), code, body["name"], actor())
        return info, 201 if made else 200


@wallets_blp.route("/<string:player_id>/wallet")
class Wallet(MethodView):
    """A player's wallet."""

    @budget("reads")
    @wallets_blp.response(200, WalletSchema)
    @wallets_blp.alt_response(403, **NOT_THEIRS)
    @wallets_blp.doc(operationId="getWallet")
    def get(self, player_id: str) -> dict[str, Any]:
        """The player's balance in each of the front end's currencies (0 where they never
        had any), what they owe (`debt`: after a voided win they had spent; no staked
        play until repaid) and what they have in escrow (`held`). With the player's token,
        or the server key."""
        act_for(player_id)
        return {"player_id": player_id, "balances": [
            {"currency": b.currency, "name": b.name, "balance": b.balance,
             "debt": max(-b.balance, 0), "held": b.held}
            for b in coins.wallet(tenant(), player_id)]}


@wallets_blp.route("/<string:player_id>/wallet/transfers")
class Ledger(MethodView):
    """A player's ledger."""

    @budget("reads")
    @wallets_blp.arguments(LedgerQuerySchema, location="query")
    @wallets_blp.response(200, LedgerPageSchema)
    @wallets_blp.alt_response(403, **NOT_THEIRS)
    @wallets_blp.alt_response(422, **problem_doc(
        "`unknown_currency`; `invalid_cursor`: a cursor this service did not issue"))
    @wallets_blp.doc(operationId="listWalletTransfers")
    def get(self, query: dict[str, Any], player_id: str) -> dict[str, Any]:
        """The player's transfers (in `currency`, or every one), newest first, a page at
        a time (`cursor`: the page before's `next`): each with its `change` to their
        balance. With the player's token, or the server key."""
        act_for(player_id)
        page = coins.ledger_page(tenant(), player_id, query.get("currency"),
                                 query.get("cursor"), query["limit"],
                                 current().secret_key)
        return {"player_id": player_id, "next": page.next,
                "transfers": [coins.describe(row, player_id) for row in page.transfers]}


IDEMPOTENCY_KEY = {"in": "header", "name": "Idempotency-Key", "required": True,
                   "schema": {"type": "string", "maxLength": 200}, "description":
                   "required: a retry with the same key and body answers the first "
                   "transfer (never a second); the key with another body is 422 "
                   "`idempotency_key_reused`; kept for good"}


def idempotency_key() -> str:
    """The request's Idempotency-Key: 1 to 200 printable characters, and required."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        raise IdempotencyKeyRequired("send an Idempotency-Key header: a retry of a "
                                     "transfer must never pay twice", field="Idempotency-Key")
    if not (0 < len(key) <= 200 and key.isprintable()):
        raise Problem(422, "validation_error",
                      "Idempotency-Key must be 1 to 200 printable characters",
                      field="Idempotency-Key", message="1 to 200 printable characters")
    return key


@transfers_blp.route("")
class Transfers(MethodView):
    """The front end's grants and takes."""

    @server_key_only(transfers_blp, staff=None)
    @budget("creates")
    @transfers_blp.arguments(NewTransferSchema)
    @transfers_blp.response(201, TransferSchema)
    @transfers_blp.alt_response(400, **problem_doc(
        "`idempotency_key_required`: no Idempotency-Key header"))
    @transfers_blp.alt_response(409, **problem_doc(
        "`insufficient_funds`: a take beyond the player's balance"))
    @transfers_blp.alt_response(422, **problem_doc(
        "`unknown_currency`; `idempotency_key_reused`: the key with another transfer"))
    @transfers_blp.doc(parameters=[IDEMPOTENCY_KEY], operationId="createTransfer")
    def post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """Grant coins to a player from the front end's mint (`to`: a purchase, a gift)
        or take them back to it (`from`: a refund, a correction; never below zero, else
        `409 insufficient_funds`). With the server key and an `Idempotency-Key`: a
        retry never pays twice. The player hears `wallet.changed`."""
        key = idempotency_key()
        to = body.get("to")
        asked = coins.Asked(body["currency"], body["amount"], to or body["from_"],
                            to is not None, body["reason"], body.get("reference"))
        return coins.describe(coins.transfer(tenant(), asked, key)), 201


@wallets_blp.route("/<string:player_id>/wallet/adjustments")
class Adjustments(MethodView):
    """Staff's changes to a player's balance."""

    @server_key_only(wallets_blp, staff=StaffRole.ADMIN)
    @budget("creates")
    @wallets_blp.arguments(AdjustmentSchema)
    @wallets_blp.response(201, TransferSchema)
    @wallets_blp.alt_response(409, **problem_doc(
        "`insufficient_funds`: it would take the balance below zero"))
    @wallets_blp.alt_response(422, **UNKNOWN)
    @wallets_blp.doc(parameters=[{**IDEMPOTENCY_KEY, "required": False, "description":
                                  "optional: a retry with the same key and body answers "
                                  "the first adjustment"}], operationId="adjustWallet")
    def post(self, body: dict[str, Any], player_id: str) -> tuple[dict[str, Any], int]:
        """Adjust a player's balance (an admin in the console, or the server key): an
        `adjust` transfer from the mint, or back to it for an amount below zero, with
        its reason; audited (`wallet.adjusted`). The player hears `wallet.changed`."""
        key = request.headers.get("Idempotency-Key")
        if key is not None:
            key = idempotency_key()
        amount = body["amount"]
        asked = coins.Asked(body["currency"], abs(amount), player_id, amount > 0,
                            body["reason"])
        return coins.describe(coins.transfer(tenant(), asked, key, kind=TransferKind.ADJUST,
                                             actor=actor())), 201
