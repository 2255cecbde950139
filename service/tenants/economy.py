"""A front end's settings (``/v1/settings``): its economy, the rake taken from a staked
table's pot and the starting grant paid to a new player, and fair play's thresholds
(issue 58), stored as given. Other domains read a front end's economy with
:func:`economy_of`."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from sqlalchemy import select

from ..storage.base import utcnow
from ..storage.db import db, transaction
from . import audit
from .errors import SettingsRefused
from .models import FrontEndSettings

BASIS = 10_000
"""Basis points in a whole: a rake's share of 500 is 5%."""
MAX_RAKE_BP = 5_000
"""The most a rake may take of a pot: half."""


@dataclass(frozen=True)
class Economy:
    """A front end's economy settings (the defaults: no rake, no starting grant)."""

    rake_share_bp: int = 0
    """The house's share of a pot in basis points (0-5000)."""
    rake_cap: int | None = None
    """The most one pot's rake may be (None: no cap)."""
    starting_grant: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """Paid once to a new player, by currency code."""
    fair_play: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    updated_at: datetime | None = None

    def rake(self, pot: int) -> int:
        """The house's share of ``pot``: its share rounded down, at most the cap."""
        taken = pot * self.rake_share_bp // BASIS
        return taken if self.rake_cap is None else min(taken, self.rake_cap)


def economy_of(tenant: int) -> Economy:
    """The front end's settings as stored (the caller's transaction), or the defaults."""
    row = db.session.execute(select(FrontEndSettings).where(
        FrontEndSettings.tenant_pk == tenant)).scalar_one_or_none()
    if row is None:
        return Economy()
    return Economy(row.rake_share_bp, row.rake_cap,
                   MappingProxyType(dict(row.starting_grant)),
                   MappingProxyType(dict(row.fair_play)), row.updated_at)


def share_text(basis_points: int) -> str:
    """A rake's share as the API writes it: a decimal string (500: ``"0.05"``)."""
    return format((Decimal(basis_points) / BASIS).normalize(), "f")


def share_points(text: str) -> int:
    """A rake's share as a decimal string (``"0.05"``), in basis points: 0 to 0.5, at most
    four decimal places; ValueError otherwise."""
    value = Decimal(text)
    points = value * BASIS
    if not value.is_finite() or points != points.to_integral_value() \
            or not 0 <= points <= MAX_RAKE_BP:
        raise ValueError(text)
    return int(points)


Known = Callable[[int], Collection[str]]
"""A front end's currency codes (the coins' use case, wired by the composition root)."""
_known: list[Known] = []


def wire(currencies: Known) -> None:
    """Who says which currencies a front end has (a starting grant names only those)."""
    _known[:] = [currencies]


def put_settings(tenant: int, actor: str, *, rake: tuple[int, int | None] | None = None,
                 starting_grant: Mapping[str, int] | None = None,
                 fair_play: Mapping[str, Any] | None = None) -> Economy:
    """Change the front end's settings: those given replaced, the others kept; a starting
    grant in a currency the front end has not named is refused (:class:`SettingsRefused`).
    Audited (``settings.changed``). Tables already seated keep the stake and rake they
    were made with."""
    if starting_grant and _known:
        unknown = sorted(set(starting_grant) - set(_known[0](tenant)))
        if unknown:
            raise SettingsRefused(f"no currency {unknown[0]!r} at this front end: name it "
                                  "first (PUT /v1/currencies/{code})", field="starting_grant")
    with transaction(write=True):
        row = db.session.execute(select(FrontEndSettings).where(
            FrontEndSettings.tenant_pk == tenant).with_for_update()).scalar_one_or_none()
        if row is None:
            row = FrontEndSettings(tenant_pk=tenant, rake_share_bp=0, rake_cap=None,
                                   starting_grant={}, fair_play={})
            db.session.add(row)
        changed: dict[str, Any] = {}
        if rake is not None:
            row.rake_share_bp, row.rake_cap = rake
            changed["rake"] = {"share": share_text(rake[0]), "cap": rake[1]}
        if starting_grant is not None:
            row.starting_grant = changed["starting_grant"] = dict(sorted(starting_grant.items()))
        if fair_play is not None:
            row.fair_play = changed["fair_play"] = dict(fair_play)
        row.updated_at = utcnow()
        audit.record(tenant, actor, "settings.changed", "settings", **changed)
        db.session.flush()
        return economy_of(tenant)


def settings_of(tenant: int) -> Economy:
    """The front end's settings (:func:`economy_of` in a transaction of its own)."""
    with transaction():
        return economy_of(tenant)
