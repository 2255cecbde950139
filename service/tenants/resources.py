"""``/v1/staff``: a front end's staff sign in to the console with a staff key and get a
session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) and a CSRF token."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify, request
from flask.views import MethodView

from ..web.parser import Blueprint
from ..web.problems import problem_doc
from ..web.settings import current
from . import economy, limits
from . import service as tenants
from . import staff as staff_keys
from .enums import StaffRole
from .errors import InvalidStaffKey, TooManyFailedKeys
from .requests import actor, front_end, no_key, server_key_only, signed_in, staff_only, tenant
from .schemas import (
    KeysSchema,
    MadeKeySchema,
    NewKeySchema,
    NewStaffKeySchema,
    RevokedSchema,
    RevokeSchema,
    SettingsBodySchema,
    SettingsSchema,
    SignInSchema,
    StaffSessionSchema,
)
from .staff import SESSION_COOKIE, Staff

blp = Blueprint("staff", __name__, url_prefix="/v1/staff",
                description="The console's sign-in: staff keys exchanged for sessions")
_VIEW = StaffSessionSchema()


def _view(staff: Staff, csrf: str) -> dict[str, Any]:
    return {"name": staff.name, "role": staff.role.value, "front_end": staff.front_end,
            "csrf_token": csrf, "expires_at": staff.expires_at}


@blp.route("/sessions")
class Sessions(MethodView):
    """Signing in."""

    @no_key
    @blp.arguments(SignInSchema)
    @blp.response(201, StaffSessionSchema, headers={"Set-Cookie": {
        "description": f"`{SESSION_COOKIE}`: the session (HttpOnly, SameSite=Strict)",
        "schema": {"type": "string"}}})
    @blp.alt_response(401, **problem_doc("`invalid_staff_key`: unknown or revoked"))
    @blp.alt_response(429, **problem_doc("`too_many_failed_keys`: this address tried too "
                                         "many unknown keys"))
    @blp.doc(security=[{}], operationId="signInStaff")
    def post(self, body: dict[str, Any]) -> Response:
        """Exchange a staff key for a console session of `BASRA_STAFF_SESSION_MINUTES`
        (60): the session is a cookie no script can read, sent back only to this site;
        changes also need the `csrf_token` as `X-CSRF-Token`. An address that presents
        too many unknown keys waits, as with API keys. Audited."""
        wait = limits.failed_keys_retry_after()
        if wait is not None:
            raise TooManyFailedKeys(f"too many unknown keys from this address; try again "
                                    f"in {wait} s", retry_after=wait)
        try:
            made = staff_keys.sign_in(body["key"],
                                      current().staff_session_minutes)
        except InvalidStaffKey:
            limits.spend_failed_key()
            raise
        response = jsonify(_VIEW.dump(_view(made.staff, made.csrf_token)))
        response.status_code = 201
        response.set_cookie(
            SESSION_COOKIE, made.token, httponly=True, samesite="Strict",
            secure=request.is_secure, path="/",
            max_age=current().staff_session_minutes * 60)
        return response


@blp.route("/session")
class CurrentSession(MethodView):
    """The signed-in staff member."""

    @staff_only(StaffRole.VIEWER)
    @blp.response(200, StaffSessionSchema)
    @blp.alt_response(401, **problem_doc("`staff_session_invalid`: expired, signed out, "
                                         "or the key revoked"))
    @blp.doc(security=[{}], operationId="getStaffSession")
    def get(self) -> dict[str, Any]:
        """Who is signed in, their role, and the session's CSRF token (for a page that
        was reloaded)."""
        return _view(signed_in(), staff_keys.csrf_of(request.cookies[SESSION_COOKIE]))

    @staff_only(StaffRole.VIEWER)
    @blp.response(204)
    @blp.alt_response(401, **problem_doc("`staff_session_invalid`"))
    @blp.alt_response(403, **problem_doc("`csrf_refused`: no CSRF token, or another site"))
    @blp.doc(security=[{}], operationId="signOutStaff")
    def delete(self) -> Response:
        """Sign out: the session is refused from now on, and its cookie cleared. Audited."""
        staff_keys.sign_out(signed_in())
        response = Response(status=204)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="Strict")
        return response


keys_blp = Blueprint("keys", __name__, url_prefix="/v1/keys",
                     description="The front end's keys: API keys and staff keys")


@keys_blp.route("")
class Keys(MethodView):
    """The front end's keys."""

    @server_key_only(keys_blp)
    @limits.budget("reads")
    @keys_blp.response(200, KeysSchema)
    @keys_blp.doc(operationId="listKeys")
    def get(self) -> dict[str, Any]:
        """The API keys and staff keys in use, by their first characters (as `basra keys
        list` shows them), oldest first."""
        keys, staff = tenants.keys_of(tenant())
        return {"keys": keys, "staff": staff}

    @server_key_only(keys_blp)
    @limits.budget("creates")
    @keys_blp.arguments(NewKeySchema)
    @keys_blp.response(201, MadeKeySchema)
    @keys_blp.doc(operationId="createKey")
    def post(self, body: dict[str, Any]) -> tuple[dict[str, str], int]:
        """A new API key (shown only in this answer): a browser key for `origins`, or a
        server key without. Audited."""
        key = tenants.create_key(front_end(), body["origins"], actor())
        return {"key": key, "prefix": key[:tenants.KEY_PREFIX_CHARS]}, 201


@keys_blp.route("/staff")
class StaffKeys(MethodView):
    """Staff keys."""

    @server_key_only(keys_blp)
    @limits.budget("creates")
    @keys_blp.arguments(NewStaffKeySchema)
    @keys_blp.response(201, MadeKeySchema)
    @keys_blp.doc(operationId="createStaffKey")
    def post(self, body: dict[str, Any]) -> tuple[dict[str, str], int]:
        """A new staff key for one person with a role (shown only in this answer), as
        `basra keys create FRONT_END --role ROLE --name NAME` makes. Audited."""
        key = staff_keys.create_staff_key(front_end(), body["name"],
                                          StaffRole(body["role"]), actor())
        return {"key": key, "prefix": key[:tenants.KEY_PREFIX_CHARS]}, 201


@keys_blp.route("/revoke")
class Revoke(MethodView):
    """Revoking a key."""

    @server_key_only(keys_blp)
    @limits.budget("creates")
    @keys_blp.arguments(RevokeSchema)
    @keys_blp.response(200, RevokedSchema)
    @keys_blp.alt_response(409, **problem_doc("`key_prefix_ambiguous`: several keys start so"))
    @keys_blp.doc(operationId="revokeKey")
    def post(self, body: dict[str, Any]) -> dict[str, int]:
        """Revoke the key (API or staff) starting with `prefix`: refused everywhere within
        `BASRA_KEY_CACHE_SECONDS` (a staff key's sessions at once). Revoking the front
        end's last API key retires its player-token secret. Audited."""
        return {"revoked": tenants.revoke_keys(front_end(),
                                               body["prefix"], actor())}


settings_blp = Blueprint("settings", __name__, url_prefix="/v1/settings",
                         description="A front end's own settings")


def _settings(found: economy.Economy) -> dict[str, Any]:
    return {"rake": {"share": economy.share_text(found.rake_share_bp), "cap": found.rake_cap},
            "starting_grant": dict(found.starting_grant), "fair_play": dict(found.fair_play),
            "updated_at": found.updated_at}


@settings_blp.route("")
class Settings(MethodView):
    """The front end's settings: one resource."""

    @server_key_only(settings_blp)
    @limits.budget("reads")
    @settings_blp.response(200, SettingsSchema)
    @settings_blp.doc(operationId="getSettings")
    def get(self) -> dict[str, Any]:
        """The front end's settings: the rake of staked tables, the starting grant of new
        players, fair play's thresholds."""
        return _settings(economy.settings_of(tenant()))

    @server_key_only(settings_blp)
    @limits.budget("creates")
    @settings_blp.arguments(SettingsBodySchema)
    @settings_blp.response(200, SettingsSchema)
    @settings_blp.alt_response(422, **problem_doc(
        "`settings_refused`: a starting grant in a currency not named"))
    @settings_blp.doc(operationId="putSettings")
    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        """Change the front end's settings (those left out keep their values). A rake
        applies to tables made from now on: a table keeps the stake and rake it was made
        with. The starting grant is paid once to each new player (as a server key first
        vouches for them), from the mint. Audited (`settings.changed`)."""
        rake = body.get("rake")
        return _settings(economy.put_settings(
            tenant(), actor(),
            rake=None if rake is None else (economy.share_points(rake["share"]), rake["cap"]),
            starting_grant=body.get("starting_grant"), fair_play=body.get("fair_play")))
