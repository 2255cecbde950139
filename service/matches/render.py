"""The hot responses, a seat's view, a move's answer and a page of history, rendered by
hand.

Every view a client reads or a move answers goes through here, so it skips
marshmallow's field-by-field dump (a fifth of a move's time in the server). The
schemas stay the contract: their fields are the OpenAPI document and their
``dump`` calls these functions; ``tests/matches/test_render.py`` holds the two equal.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from ..engine import Play, Rules
from ..players.ratings import shown
from .results import HistoryPage, MatchSummary, MatchView, MoveResult


@lru_cache(maxsize=64)
def _rules(rules: Rules) -> dict[str, Any]:
    # shared by every response on these rules: rendered to JSON, never changed
    return rules.to_dict()


def _moment(value: datetime | None) -> str | None:
    if value is None:
        return None
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()


def play(p: Play | None) -> dict[str, Any] | None:
    """A play (PlaySchema)."""
    if p is None:
        return None
    return {"round": p.round, "seat": p.seat, "card": str(p.card),
            "captured": [str(c) for c in p.captured], "basra": p.basra}


def view_fields(m: MatchView) -> dict[str, Any]:
    """A view's fields by name, in MatchStateSchema's order, as engine values: the
    schema's ``pre_dump``, and what :func:`match_state` renders."""
    v = m.view
    data: dict[str, Any] = {
        "id": m.id, "variant": m.variant, "rules": _rules(v.rules),
        "rules_hash": v.rules.content_hash, "status": m.status, "version": m.version,
        "seat": v.seat, "round": v.round, "dealer": v.dealer, "turn": v.turn,
        "floor": v.floor,
    }
    if v.seat is not None:
        data["hand"] = v.hand
    data.update({
        "hand_counts": v.hand_counts, "stock_count": v.stock_count,
        "pile_counts": [len(p) for p in v.piles], "basras": v.basras,
        "jack_basras": v.jack_basras, "scores": v.scores, "carried": v.carry,
        "rounds": v.results,
        "legal_moves": [{"card": mv.card, "capture": mv.capture or ()} for mv in v.legal_moves],
        "last_move": v.last_play, "winner": v.winner, "draw": v.draw, "seats": m.seats,
        "commitment": m.commitment, "explicit_decks": m.explicit_decks, "seed": m.seed,
        "end_reason": m.end_reason, "rematch": m.rematch, "rated": m.rated,
        "rating_changes": m.rating_changes, "voided": m.voided, "clock": m.clock,
        "deadline": m.deadline, "created_at": m.created_at, "stand_in": m.stand_in,
        "dropped": m.dropped, "spectator_delay": m.spectator_delay, "behind": m.behind,
        "sealed": m.sealed, "stake": m.stake,
    })
    return data


def _skill(s: dict[str, float]) -> dict[str, Any]:
    return {"mu": float(s["mu"]), "sigma": float(s["sigma"]), "ordinal": float(s["ordinal"]),
            **shown(s["mu"], s["sigma"])}


def _cards(cards: Any) -> list[str]:
    return [str(c) for c in cards]


_RENDER: dict[str, Callable[[Any], Any]] = {
    "floor": _cards,
    "hand": _cards,
    "hand_counts": list,
    "dropped": list,
    "basras": list,
    "jack_basras": list,
    "scores": list,
    "rounds": lambda results: [
        {"round": r.round, "cards": list(r.cards), "basras": list(r.basras),
         "jack_basras": list(r.jack_basras), "card_points": list(r.card_points),
         "points": list(r.points), "carried": r.carried} for r in results],
    "legal_moves": lambda moves: [{"card": str(mv["card"]), "capture": _cards(mv["capture"])}
                                  for mv in moves],
    "last_move": play,
    "seats": lambda seats: [{"seat": s.seat, "team": s.team, "name": s.name, "open": s.open,
                             "player_id": s.player_id, "bot": s.bot} for s in seats],
    "clock": lambda c: None if c is None else {"move_seconds": c["move_seconds"],
                                               "timeout": c["timeout"]},
    "rating_changes": lambda changes: None if changes is None else [
        {"seat": c["seat"], "player_id": c["player_id"], "before": _skill(c["before"]),
         "after": _skill(c["after"])} for c in changes],
    "deadline": _moment,
    "created_at": _moment,
    "voided": lambda v: None if v is None else {"at": _moment(v["at"]), "reason": v["reason"]},
    "stake": lambda s: None if s is None else {
        "currency": s.currency, "amount": s.amount, "rake": s.rake},
}
"""How each field that is not already JSON is rendered (the rest go out as they are)."""


def match_state(m: MatchView) -> dict[str, Any]:
    """A seat's (or a spectator's) view (MatchStateSchema)."""
    return {name: _RENDER[name](value) if name in _RENDER else value
            for name, value in view_fields(m).items()}


def move_result(r: MoveResult) -> dict[str, Any]:
    """A move's (or a resignation's) answer (MoveResponseSchema)."""
    return {"move": play(r.move), "replies": [play(p) for p in r.replies],
            "state": match_state(r.state)}


def summary(m: MatchSummary) -> dict[str, Any]:
    """A match in a history listing (MatchSummarySchema)."""
    return {
        "id": m.id, "variant": m.variant, "status": m.status, "version": m.version,
        "rules_hash": m.rules_hash, "scores": list(m.scores), "winner": m.winner,
        "draw": m.draw, "seats": _RENDER["seats"](m.seats), "created_at": _moment(m.created_at),
        "finished_at": _moment(m.finished_at), "end_reason": m.end_reason, "rounds": m.rounds,
        "rated": m.rated, "rating_changes": _RENDER["rating_changes"](m.rating_changes),
        "voided": _RENDER["voided"](m.voided),
    }


def history_page(page: HistoryPage) -> dict[str, Any]:
    """A page of a history listing (HistoryPageSchema)."""
    return {"matches": [summary(m) for m in page.matches], "next": page.next}
