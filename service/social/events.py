"""What friends and challenges tell: each change an event on the players' own streams
and a webhook, written in the change's transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..live.listener import CHANNEL
from ..players import events as player_events
from ..storage import writes
from ..webhooks import service as webhooks


def told(tenant: int, kind: str, data: Mapping[str, Any],
         players: Sequence[str]) -> list[writes.Rows]:
    """The rows that tell ``kind`` with ``data`` to the front end's webhooks and to each
    of ``players``' streams."""
    return [*webhooks.outbox(tenant, [(kind, dict(data))]),
            player_events.events(tenant, [(p, kind, dict(data)) for p in players])]


def tell(tenant: int, kind: str, data: Mapping[str, Any], players: Sequence[str]) -> None:
    """``kind`` with ``data`` to the front end's webhooks and to each of ``players``'
    streams (caller's write transaction)."""
    writes.write(told(tenant, kind, data, players), CHANNEL)
