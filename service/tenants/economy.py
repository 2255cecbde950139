"""A front end's settings (``/v1/settings``): its economy, the rake taken from a staked
table's pot and the starting grant paid to a new player, and fair play's thresholds
(issue 58), stored as given. Other domains read a front end's economy with
:func:`economy_of`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from sqlalchemy import select

from ..storage.db import db
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
