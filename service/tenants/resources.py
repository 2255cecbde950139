"""``/v1/staff``: a front end's staff sign in to the console with a staff key and get a
session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) and a CSRF token."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, jsonify, request
from flask.views import MethodView

from ..storage.enums import StaffRole
from ..web.parser import Blueprint
from ..web.problems import problem_doc
from . import limits
from . import staff as staff_keys
from .errors import InvalidStaffKey, TooManyFailedKeys
from .requests import no_key, signed_in, staff_only
from .schemas import SignInSchema, StaffSessionSchema
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
                                      current_app.config["BASRA_STAFF_SESSION_MINUTES"])
        except InvalidStaffKey:
            limits.spend_failed_key()
            raise
        response = jsonify(_VIEW.dump(_view(made.staff, made.csrf_token)))
        response.status_code = 201
        response.set_cookie(
            SESSION_COOKIE, made.token, httponly=True, samesite="Strict",
            secure=request.is_secure, path="/",
            max_age=current_app.config["BASRA_STAFF_SESSION_MINUTES"] * 60)
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
